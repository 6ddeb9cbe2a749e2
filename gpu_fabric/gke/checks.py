"""Cross-field rules of the GKE platforms' stack configuration.

Each rule returns `Problem`s that name the stack key, the bad value and the fix;
`cross_field_problems(cfg)` runs them all on a config whose fields already parsed
(`gpu_fabric/stack_config/`).
"""

from __future__ import annotations

import re

from ..catalog import Machine, NicGroup, catalog
from ..health.config import PrometheusOwner
from ..health.from_stack import health_problems
from ..layer_inputs import ArgsPath
from ..problems import MISSING, Problem, timeout_without_wait
from ..problems import key as _key
from ..storage.rules import storage_problems
from ..workloads.checks import queue_problems
from .buckets.rules import bucket_problems
from .cloud_rules import cloud_problems
from .config import GkeStackConfig
from .fabrics.by_name import FABRICS, platform_fabric
from .from_stack import cloud_args, stack_key_of
from .lustre.rules import lustre_problems
from .node_labels import GCE_TOPOLOGY_LABELS
from .pool.args import pool_key
from .pool.config import DriverInstall
from .pool.rules import (
    pool_set_problems,
    unknown_machine_type,
)

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


# --- cross-field rules -------------------------------------------------------------------------


def cross_field_problems(cfg: GkeStackConfig) -> list[Problem]:
    """Every cross-field problem of a GKE stack: the cloud layer's rules on the args it makes
    (cloud_rules.py, as a hosted GkeCloud runs them, at the stack keys that wrote each path), the
    rules of keys only a stack file has, per pool (`gpuPool`, or each of `gpuPools`), and those of
    its training queue on the machine's Topology and fabric."""
    problems = pool_list_problems(cfg)
    if problems:
        return problems
    # The pools as a set first (cloud_rules.py runs it too): its fix comes before each pool's.
    pool_set = pool_set_problems([pool.model_dump() for pool in cfg.pools])
    if pool_set:
        return [Problem(_key(pool_key(i, p.field)), p.value, p.message) for i, p in pool_set]
    single = cfg.gpu_pool is not None and cfg.gpu_pools is None
    for i, pool in enumerate(cfg.pools):
        # The full list stays on the copy, so a rule over every node sees them all.
        for problem in _stack_pool_problems(cfg.model_copy(update={"gpu_pool": pool})):
            if not single:
                problem = Problem(
                    problem.key.replace(_key("gpuPool."), _key(f"gpuPools[{i}]."), 1),
                    problem.value,
                    problem.message,
                )
            if problem not in problems:
                problems.append(problem)
    if _cloud_args_made(cfg):
        for problem in _cloud_arg_problems(cfg):
            if problem not in problems:  # an MTU once per NIC group, not once per VPC
                problems.append(problem)
    first = cfg.gpu_pool or next(iter(cfg.gpu_pools or []), None)
    machine = catalog().machines.get(first.machine_type) if first else None
    if machine is not None and machine.fabric in FABRICS:
        fabric = FABRICS[machine.fabric]
        problems += queue_problems(
            cfg.queues, cfg.topology_levels, fabric.pod_security, cfg.node_labels
        )
        problems += _topology_label_problems(cfg)
    problems += health_problems(cfg.health, (PrometheusOwner.MANAGED,), "GKE")
    problems += storage_problems(cfg.storage, cfg.queues)
    volumes = cfg.storage.volumes()
    buckets = [(u, v.gcs) for u, v in volumes if v.gcs is not None]
    if buckets and machine is not None and machine.fabric in FABRICS:
        host_network = "host_network_reason" in FABRICS[machine.fabric].runtime_security
        problems += bucket_problems(buckets, cfg.layers, cfg.gke.version, host_network)
    lustre = [(use, v.lustre) for use, v in volumes if v.lustre is not None]
    if lustre and machine is not None:
        own_network = cfg.network.primary.existing is None
        problems += lustre_problems(lustre, cfg.gke.version, machine.arch, own_network)
    if cfg.health.alertmanager_config is not None and not cfg.gke.monitoring.managed_prometheus:
        # Its Alertmanager is managed Prometheus' own (the Secret gmp-public/alertmanager).
        problems.append(
            Problem(
                _key("health.alertmanagerConfig"),
                "(an Alertmanager configuration)",
                "GKE's managed Alertmanager runs with managed Prometheus, which "
                "gke.monitoring.managedPrometheus turns off; turn it on, or remove this",
            )
        )
    if first is not None and machine is not None:
        awaited = sum(pool.node_count for pool in cfg.pools)
        problems += timeout_without_wait(cfg.node_wait_timeout, awaited)
        if getattr(cfg, "smoke_test", False) and awaited < 2:
            # The GKE GPUDirect-TCPX guide's test is two pods on two nodes (nccl-host-1 and -2),
            # each taking a node's 8 GPUs: with one node the second stays Pending.
            problems.append(
                Problem(
                    _key("smokeTest"),
                    True,
                    f"the GKE GPUDirect-TCPX guide's test runs on two GPU nodes, and the stack "
                    f"has {awaited}; give the GPU pools two nodes, or remove it",
                )
            )
    return problems


def _topology_label_problems(cfg: GkeStackConfig) -> list[Problem]:
    """A Topology level of GKE's topology labels on pools whose nodes do not carry them
    (catalog `topology_needs_dense_capacity`): Kueue would find no node for the queue."""
    if not cfg.queues.enabled or cfg.topology_labelled:
        return []
    sparse = [
        p.name for p in cfg.pools if p.reservation is None and not cfg.compact_placement_of(p)
    ]
    return [
        Problem(
            _key(f"queues.topologyLevels[{i}]"),
            level,
            f"GKE labels {cfg.pool.machine_type} nodes with their topology only when "
            "they are reservation-bound or compactly placed, and pool(s) "
            f"{', '.join(sparse)} are neither, so Kueue would admit no job there; set their "
            "compactPlacement: true or a reservation, or leave this level out",
        )
        for i, level in enumerate(cfg.queues.topology_levels or [])
        if level.startswith(GCE_TOPOLOGY_LABELS)
    ]


def _cloud_args_made(cfg: GkeStackConfig) -> bool:
    """The stack can make its cloud args: every pool's machine type is one of the catalog's for
    the stack's platform (else its own rules have said so)."""
    machines = catalog().machines
    return all(
        pool.machine_type in machines and machines[pool.machine_type].platform == cfg.platform
        for pool in cfg.pools
    )


def _cloud_arg_problems(cfg: GkeStackConfig) -> list[Problem]:
    """The cloud layer's rules on the args the stack makes, at the stack keys that wrote them."""
    args = cloud_args(cfg)

    def name(path: ArgsPath) -> str:
        return _key(stack_key_of(cfg, path))

    # The GPU networks' layout follows each NIC group's ranges, whose count the group's own rule
    # names at its key (`network.nics.<group>.subnets`).
    found = [p for p in cloud_problems(args, name) if p.path != ("gpu_networks",)]
    return [Problem(name(p.path), p.value, p.message) for p in found]


def _stack_pool_problems(cfg: GkeStackConfig) -> list[Problem]:
    """The rules of keys a stack file has and the cloud layer's args do not (the platform, NIC
    group names, Network object names, Fast Socket, ...), on the one pool `cfg.gpu_pool`."""
    machine = catalog().machines.get(cfg.pool.machine_type)
    if machine is None:
        unknown = unknown_machine_type(cfg.pool.machine_type)
        return [Problem(_key("gpuPool.machineType"), cfg.pool.machine_type, unknown)]
    problems: list[Problem] = []
    if machine.platform != cfg.platform:
        problems.append(
            Problem(
                _key("gpuPool.machineType"),
                cfg.pool.machine_type,
                f"belongs to platform {machine.platform!r}, not {cfg.platform!r}; "
                "change gpu-fabric:platform or the machine type",
            )
        )
    problems += _nic_checks(cfg, machine)
    problems += _existing_network_checks(cfg)
    problems += _pool_checks(cfg, machine)
    # The platform's fabric, not the machine's: the image keys are the platform model's.
    problems += platform_fabric(cfg.platform).image_problems(cfg)
    problems += _name_checks(cfg)
    problems += _placement_checks(cfg, machine)
    problems += _no_effect_checks(cfg)
    problems += refused_nic_group_problems(cfg, machine)
    return problems


def _nic_checks(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    problems: list[Problem] = []
    known = [g.name for g in machine.nic_groups]
    for name, value in cfg.network.nics.items():
        if name not in known and name not in machine.refused_nic_groups:
            problems.append(
                Problem(
                    _key(f"network.nics.{name}"),
                    value.model_dump(by_alias=True, exclude_none=True),
                    f"{cfg.pool.machine_type} has no NIC group {name!r}; use one of: "
                    f"{', '.join(known)}",
                )
            )

    all_names: list[tuple[str, str]] = []
    for plan in cfg.nic_groups:
        group, base = plan.group, f"network.nics.{plan.group.name}"
        given = cfg.network.nics.get(group.name)
        if len(plan.subnets) != group.count:
            problems.append(
                Problem(
                    _key(f"{base}.subnets"),
                    plan.subnets,
                    f"{cfg.pool.machine_type} has {group.count} {group.name} NIC(s); give "
                    f"exactly {group.count} range(s)",
                )
            )
        if plan.firewall_source_ranges is not None and group.firewall_forbidden:
            problems.append(
                Problem(
                    _key(f"{base}.firewallSourceRanges"),
                    plan.firewall_source_ranges,
                    f"no firewall rule can be created here: {group.firewall_forbidden}; remove it",
                )
            )
        elif plan.firewall_source_ranges == []:
            problems.append(
                Problem(
                    _key(f"{base}.firewallSourceRanges"),
                    [],
                    "an empty list would block all traffic on these NICs; remove the key to allow "
                    "each VPC's own subnet, or list the ranges",
                )
            )
        if given and given.object_names is not None:
            problems += _object_name_checks(plan.group, given.object_names, base)
        all_names += [(f"{base}.objectNames", n) for n in plan.object_names]

    seen: dict[str, str] = {}
    for key, name in all_names:
        if name in seen or name == "default":
            problems.append(
                Problem(
                    _key(key),
                    name,
                    "Network object names must be unique and not 'default' (GKE manages that "
                    "one); pick another name",
                )
            )
        seen[name] = key
    return problems


def _object_name_checks(group: NicGroup, names: list[str], base: str) -> list[Problem]:
    key = _key(f"{base}.objectNames")
    if group.object_names_fixed:
        fixed = ", ".join(group.object_names)
        return [
            Problem(
                key,
                names,
                f"the {group.name} Network object names are fixed ({fixed}): "
                f"{group.object_names_fixed}; remove the key",
            )
        ]
    problems = []
    if len(names) != group.count:
        problems.append(
            Problem(key, names, f"give exactly {group.count} names, one per {group.name} NIC")
        )
    for name in names:
        if not _DNS_LABEL.match(name) or len(name) > 63:
            problems.append(
                Problem(key, name, "must be a DNS label: lowercase letters, digits and hyphens")
            )
    return problems


def _existing_network_checks(cfg: GkeStackConfig) -> list[Problem]:
    """Primary network ranges beside `primary.existing`, whose subnet owns its ranges."""
    primary = cfg.network.primary
    if primary.existing is None:
        return []
    return [
        Problem(
            _key(f"network.primary.{type(primary).model_fields[field].alias}"),
            getattr(primary, field),
            "has no effect with primary.existing (the existing subnet owns its ranges); remove it",
        )
        for field in sorted(primary.model_fields_set - {"existing"})
    ]


def _pool_checks(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    pool = cfg.pool
    problems: list[Problem] = []
    if pool.fast_socket:
        problems.append(
            Problem(
                _key("gpuPool.fastSocket"),
                True,
                f"NCCL Fast Socket cannot run beside {machine.fabric} (the GKE GPUDirect-TCPX "
                "guide: not with GPUDirect-TCPX; NVIDIA AICR's A4X networking guide: not with "
                "gIB); remove it",
            )
        )
    if pool.accelerator_network_profile is not None:
        problems.append(
            Problem(
                _key("gpuPool.acceleratorNetworkProfile"),
                pool.accelerator_network_profile,
                "GKE-managed accelerator networking cannot be combined with additional node "
                "networks and Device-type Networks, which this stack creates for every GPU NIC; "
                "remove it",
            )
        )
    if pool.local_ssd and machine.local_ssd_count is None:
        problems.append(
            Problem(
                _key("gpuPool.localSsd"),
                True,
                f"the catalog has no verified local SSD count for {pool.machine_type}, and GKE "
                "needs the exact count; remove it (or add the count to the catalog)",
            )
        )
    if pool.driver_install is DriverInstall.BUNDLE and pool.gpu_driver_version is not None:
        problems.append(
            Problem(
                _key("gpuPool.gpuDriverVersion"),
                pool.gpu_driver_version.value,
                "has no effect with driverInstall: bundle (GKE's install is disabled); remove it",
            )
        )
    return problems


# GKE creates these StorageClasses itself (the PD and Filestore CSI drivers' defaults).
GKE_STORAGE_CLASSES = {"standard", "standard-rwo", "premium-rwo", "standard-rwx", "premium-rwx"}


def _name_checks(cfg: GkeStackConfig) -> list[Problem]:
    """A StorageClass name GKE already owns."""
    storage = getattr(cfg, "storage_class", None)
    if storage is not None and storage.name in GKE_STORAGE_CLASSES:
        return [
            Problem(
                _key("storageClass.name"),
                storage.name,
                "GKE creates and owns a StorageClass of this name "
                f"({', '.join(sorted(GKE_STORAGE_CLASSES))}); pick another, such as "
                "hyperdisk-balanced",
            )
        ]
    return []


def _placement_checks(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    """Compact placement turned off where the machine's nodes come through a workload policy
    (A4X: without it the NVLink domain is not formed)."""
    pool = cfg.pool
    if "workload_policy" not in machine.placement or pool.compact_placement is not False:
        return []
    policy = machine.placement["workload_policy"]
    return [
        Problem(
            _key("gpuPool.compactPlacement"),
            False,
            f"{pool.machine_type} nodes are placed through a workload policy "
            f"({policy['type']}, {policy['accelerator_topology']}); without it the NVLink domain "
            "is not formed. Remove the key",
        )
    ]


def refused_nic_group_problems(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    """A NIC group other machines have that cannot work on this one (a gVNIC NIC on A3 Mega)."""
    return [
        Problem(
            _key(f"network.nics.{name}"),
            value.model_dump(by_alias=True, exclude_none=True),
            f"refused on {cfg.pool.machine_type}: {machine.refused_nic_groups[name]}; remove it",
        )
        for name, value in cfg.network.nics.items()
        if name in machine.refused_nic_groups
    ]


def pool_list_problems(cfg: GkeStackConfig) -> list[Problem]:
    """One of `gpuPool`/`gpuPools`; unique pool names; one machine type; one zone where the
    fabric's VPCs are zonal (a RoCE network profile)."""
    if cfg.gpu_pool is not None and cfg.gpu_pools is not None:
        return [
            Problem(
                _key("gpuPools"),
                [p.name for p in cfg.gpu_pools],
                f"set either {_key('gpuPool')} (one pool) or {_key('gpuPools')}, not both; move "
                "gpuPool into the list under its name (its resources keep their URNs)",
            )
        ]
    if not cfg.pools:
        return [
            Problem(
                _key("gpuPool"),
                MISSING,
                f"required: set {_key('gpuPool')} (one pool) or a non-empty {_key('gpuPools')}",
            )
        ]
    return []


def _no_effect_checks(cfg: GkeStackConfig) -> list[Problem]:
    """Options that would do nothing (or something unwanted) here."""
    problems = []
    installer = cfg.installer
    if installer.owner.value == "external" and installer.await_rollout:
        problems.append(
            Problem(
                _key("installer.awaitRollout"),
                True,
                "has no effect with installer.owner: external (this stack creates no installer to "
                "wait for); remove it",
            )
        )
    return problems
