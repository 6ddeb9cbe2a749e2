"""Cross-field rules of the GKE platforms' stack configuration.

Each rule returns `Problem`s that name the stack key, the bad value and the fix;
`cross_field_problems(cfg)` runs them all on a config whose fields already parsed
(`gpu_fabric/stack_config/`).
"""

from __future__ import annotations

import ipaddress
import itertools
import math
import re

from ..catalog import Machine, NicGroup, catalog
from ..config_base import WIDEST_PUBLIC_SOURCE, public_addresses
from ..problems import MISSING, Problem, timeout_without_wait
from ..problems import key as _key
from ..versions import gke_version_or_minor
from ..workloads.checks import queue_problems
from .config import GkeStackConfig
from .fabrics.by_name import FABRICS, platform_fabric
from .from_stack import pool_args
from .names import placement_policy_name
from .network.rules import mtu_problem
from .node_labels import GCE_TOPOLOGY_LABELS
from .pool.args import pool_key, stack_path_of
from .pool.config import DriverInstall
from .pool.rules import (
    LOCKED_OUT,
    pool_problems,
    pool_set_problems,
    system_pool_refusal,
    unknown_machine_type,
    version_problems,
    zone_problem,
)

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


# --- cross-field rules -------------------------------------------------------------------------


def cross_field_problems(cfg: GkeStackConfig) -> list[Problem]:
    """Every cross-field problem of a GKE stack: of its one `gpuPool`, or of each of `gpuPools`,
    and of its training queue on the machine's Topology and fabric."""
    if cfg.gpu_pool is not None and cfg.gpu_pools is None:
        problems = _single_pool_problems(cfg)
    else:
        problems = several_pool_problems(cfg)
    first = cfg.gpu_pool or next(iter(cfg.gpu_pools or []), None)
    machine = catalog().machines.get(first.machine_type) if first else None
    if machine is not None and machine.fabric in FABRICS:
        fabric = FABRICS[machine.fabric]
        problems += queue_problems(
            cfg.queues, cfg.topology_levels, fabric.pod_security, cfg.node_labels
        )
        problems += _topology_label_problems(cfg)
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


def _single_pool_problems(cfg: GkeStackConfig) -> list[Problem]:
    """Every cross-field problem of a GKE stack with the one pool `cfg.gpu_pool`."""
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
    wrong_zone = zone_problem(cfg.pool.zone, cfg.region, _key("region"))
    if wrong_zone:
        problems.append(Problem(_key("gpuPool.zone"), cfg.pool.zone, wrong_zone))
    if cfg.gke.master_authorized_networks == []:
        problems.append(Problem(_key("gke.masterAuthorizedNetworks"), [], LOCKED_OUT))
    problems += _pool_args_checks(cfg, machine)
    problems += _nic_checks(cfg, machine)
    problems += _range_checks(cfg)
    problems += _pool_checks(cfg, machine)
    # The platform's fabric, not the machine's: the image keys are the platform model's.
    problems += platform_fabric(cfg.platform).image_problems(cfg)
    problems += _name_checks(cfg)
    problems += _placement_checks(cfg, machine)
    problems += _capacity_checks(cfg)
    problems += _authorized_network_checks(cfg)
    problems += _no_effect_checks(cfg)
    problems += _mtu_checks(cfg)
    problems += placement_size_problems(cfg, machine)
    problems += pod_range_capacity_problems(cfg)
    problems += services_range_problems(cfg)
    problems += refused_nic_group_problems(cfg, machine)
    return problems


def _pool_args_checks(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    """The rules of the pool's args, its machine on the GKE version among them (pool/rules.py),
    as a hosted GkeCloud runs them, at the stack keys that wrote each field."""
    args, version = pool_args(cfg, cfg.pool), gke_version_or_minor(cfg.gke.version)
    found = [*version_problems(version, args, machine), *pool_problems(args, machine)]
    return [Problem(_key(stack_path_of(p.field)), p.value, p.message) for p in found]


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


def _range_checks(cfg: GkeStackConfig) -> list[Problem]:
    problems: list[Problem] = []
    ranges = [
        (_key(f"network.nics.{plan.group.name}.subnets[{i}]"), cidr)
        for plan in cfg.nic_groups
        for i, cidr in enumerate(plan.subnets)
    ]
    primary = cfg.network.primary
    if primary.existing is None:
        ranges += [
            (_key("network.primary.subnetCidr"), primary.subnet_cidr),
            (_key("network.primary.podsCidr"), primary.pods_cidr),
            (_key("network.primary.servicesCidr"), primary.services_cidr),
        ]
    else:
        for field in sorted(primary.model_fields_set - {"existing"}):
            problems.append(
                Problem(
                    _key(f"network.primary.{type(primary).model_fields[field].alias}"),
                    getattr(primary, field),
                    "has no effect with primary.existing (the existing subnet owns its ranges); "
                    "remove it",
                )
            )
    for (key_a, a), (key_b, b) in itertools.combinations(ranges, 2):
        if ipaddress.ip_network(a).overlaps(ipaddress.ip_network(b)):
            problems.append(
                Problem(key_b, b, f"overlaps {key_a} ({a}); pick a range that does not overlap")
            )
    return problems


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


SYSTEM_POOL_NAME = "system"
# GKE creates these StorageClasses itself (the PD and Filestore CSI drivers' defaults).
GKE_STORAGE_CLASSES = {"standard", "standard-rwo", "premium-rwo", "standard-rwx", "premium-rwx"}


def _name_checks(cfg: GkeStackConfig) -> list[Problem]:
    """Names that collide with what the stack or GKE already owns."""
    problems = []
    if cfg.pool.name == SYSTEM_POOL_NAME:
        problems.append(
            Problem(
                _key("gpuPool.name"),
                cfg.pool.name,
                "the stack's CPU system pool is called 'system'; give the GPU pool another name",
            )
        )
    storage = getattr(cfg, "storage_class", None)
    if storage is not None and storage.name in GKE_STORAGE_CLASSES:
        problems.append(
            Problem(
                _key("storageClass.name"),
                storage.name,
                "GKE creates and owns a StorageClass of this name "
                f"({', '.join(sorted(GKE_STORAGE_CLASSES))}); pick another, such as "
                "hyperdisk-balanced",
            )
        )
    return problems


def _placement_checks(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    """Machines that only come as reserved, compactly placed capacity (A4X: Compute Engine docs,
    "About instances that use the reservation-bound model")."""
    problems = []
    pool = cfg.pool
    if "workload_policy" in machine.placement and pool.compact_placement is False:
        problems.append(
            Problem(
                _key("gpuPool.compactPlacement"),
                False,
                f"{pool.machine_type} nodes are placed through a workload policy "
                f"({machine.placement['workload_policy']['type']}, "
                f"{machine.placement['workload_policy']['accelerator_topology']}); without it the "
                "NVLink domain is not formed. Remove the key",
            )
        )
    if machine.reservation_bound and pool.reservation is None:
        problems.append(
            Problem(
                _key("gpuPool.reservation"),
                MISSING,
                f"{pool.machine_type} capacity is reservation-bound: a pool without a reservation "
                "cannot be provisioned; name the reservation (or NAME/reservationBlocks/BLOCK)",
            )
        )
    return problems


# Compute Engine keeps 4 addresses of every subnet's primary range (network, gateway, second-to-
# last, broadcast: VPC docs "Reserved IP addresses in IPv4 subnets"); /29 is the smallest range.
RESERVED_PER_SUBNET = 4
SMALLEST_SUBNET_PREFIX = 29
# The system pool is regional: its count is per zone, and a region has at most 4 zones today.
MAX_ZONES_PER_REGION = 4


def _capacity_checks(cfg: GkeStackConfig) -> list[Problem]:
    """Every range must hold the nodes the stack can create."""
    problems = []
    gpu_nodes = sum(pool.node_count for pool in cfg.pools)  # the pools share the GPU VPCs
    ranges = [
        (_key(f"network.nics.{plan.group.name}.subnets[{i}]"), cidr, gpu_nodes)
        for plan in cfg.nic_groups
        for i, cidr in enumerate(plan.subnets)
    ]
    primary = cfg.network.primary
    if primary.existing is None:
        system_nodes = cfg.gke.system_pool.node_count * MAX_ZONES_PER_REGION
        ranges.append(
            (_key("network.primary.subnetCidr"), primary.subnet_cidr, gpu_nodes + system_nodes)
        )
    for key, cidr, nodes in ranges:
        network = ipaddress.ip_network(cidr)
        if network.prefixlen > SMALLEST_SUBNET_PREFIX:
            problems.append(
                Problem(
                    key, cidr, f"Compute Engine subnets are /{SMALLEST_SUBNET_PREFIX} or larger"
                )
            )
        elif network.num_addresses - RESERVED_PER_SUBNET < nodes:
            problems.append(
                Problem(
                    key,
                    cidr,
                    f"holds {network.num_addresses - RESERVED_PER_SUBNET} nodes, and the stack can "
                    f"create {nodes} with an address here; pick a larger range",
                )
            )
    return problems


def _authorized_network_checks(cfg: GkeStackConfig) -> list[Problem]:
    networks = cfg.gke.master_authorized_networks or []
    public = public_addresses([n.cidr_block for n in networks])
    if public > WIDEST_PUBLIC_SOURCE:
        return [
            Problem(
                _key("gke.masterAuthorizedNetworks"),
                [n.cidr_block for n in networks],
                f"together these ranges admit {public:,} public addresses, more than a /8: the "
                "control plane would be open to the internet in all but name; list only the "
                "ranges that deploy and operate the cluster",
            )
        ]
    return []


def placement_size_problems(cfg: GkeStackConfig, machine: Machine) -> list[Problem]:
    """A pool under a compact placement that holds a bounded number of nodes (A4X `1x72`: 18)."""
    pool, limit = cfg.pool, machine.max_nodes_per_placement
    if not cfg.compact_placement_of(pool) or limit is None or pool.node_count <= limit:
        return []
    topology = machine.placement.get("workload_policy", {}).get("accelerator_topology", "")
    return [
        Problem(
            _key("gpuPool.nodeCount"),
            pool.node_count,
            f"a {pool.machine_type} pool under its {topology} workload policy holds at most "
            f"{limit} nodes (one NVLink domain); use {limit} or fewer, and another pool (and "
            "reservation) for more",
        )
    ]


def pod_range_capacity_problems(cfg: GkeStackConfig) -> list[Problem]:
    """The pod range must hold a per-node range for every node the stack can create.

    GKE gives each node a pod range of twice its max pods, rounded up to a power of two (110 pods:
    a /24), from the cluster's pod range ("Configure maximum Pods per node"); a node that finds no
    free range does not come up. An existing network's ranges are not known here: not checked.
    """
    primary = cfg.network.primary
    if primary.existing is not None:
        return []
    per_node = 2 ** math.ceil(math.log2(2 * cfg.max_pods_per_node))
    pods = ipaddress.ip_network(primary.pods_cidr)
    capacity = pods.num_addresses // per_node
    system = cfg.gke.system_pool.node_count * MAX_ZONES_PER_REGION
    gpu_nodes = sum(pool.node_count for pool in cfg.pools)
    nodes = gpu_nodes + system
    if nodes <= capacity:
        return []
    needed = 32 - math.ceil(math.log2(nodes * per_node))
    return [
        Problem(
            _key("network.primary.podsCidr"),
            primary.pods_cidr,
            f"holds {capacity} nodes at {cfg.max_pods_per_node} pods per node (a "
            f"/{32 - int(math.log2(per_node))} each), but the stack can create {nodes} "
            f"({gpu_nodes} GPU, up to {system} system in {MAX_ZONES_PER_REGION} "
            f"zones); use a /{needed} or wider, or lower {_key('gke.maxPodsPerNode')}",
        )
    ]


# The smallest Services (ClusterIP) secondary range GKE takes: a /27, 32 Services; GKE's default
# is a /20 (GKE docs, "VPC-native clusters", IP address ranges and cluster sizing:
# https://cloud.google.com/kubernetes-engine/docs/concepts/alias-ips). The cluster's own Services
# (kubernetes, kube-dns, metrics-server, the GPU fabric's) take several before any workload's.
SMALLEST_SERVICES_PREFIX = 27


def services_range_problems(cfg: GkeStackConfig) -> list[Problem]:
    """The Services range must be one GKE accepts (a /27 or wider). An existing network's range
    is not known here: not checked."""
    primary = cfg.network.primary
    if primary.existing is not None:
        return []
    services = ipaddress.ip_network(primary.services_cidr)
    if services.prefixlen <= SMALLEST_SERVICES_PREFIX:
        return []
    return [
        Problem(
            _key("network.primary.servicesCidr"),
            primary.services_cidr,
            f"holds {services.num_addresses} Service addresses; GKE's Services range is a "
            f"/{SMALLEST_SERVICES_PREFIX} (32 Services) or wider, and the cluster's own Services "
            "take several; use a /20 (4,096 Services, GKE's default) or at least a "
            f"/{SMALLEST_SERVICES_PREFIX}",
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


def several_pool_problems(cfg: GkeStackConfig) -> list[Problem]:
    """`gpuPools`: the list's own rules, then every single-pool rule on each pool (keys
    `gpuPools[i].*`); a rule about the whole cluster is reported once."""
    problems = pool_list_problems(cfg)
    if problems:
        return problems
    for i, pool in enumerate(cfg.pools):
        # The full list stays on the copy, so rules over every node (pod capacity) see them all.
        single = cfg.model_copy(update={"gpu_pool": pool})
        for problem in _single_pool_problems(single):
            moved = Problem(
                problem.key.replace(_key("gpuPool."), _key(f"gpuPools[{i}]."), 1),
                problem.value,
                problem.message,
            )
            if moved not in problems:
                problems.append(moved)
    return problems


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
    problems = [
        Problem(_key(pool_key(i, p.field)), p.value, p.message)
        for i, p in pool_set_problems([pool.model_dump() for pool in cfg.pools])
    ]
    return problems + derived_name_problems(cfg)


def derived_name_problems(cfg: GkeStackConfig) -> list[Problem]:
    """The cloud names derived from each pool's (its compact placement policy's) must be unique
    across the pools: two pools cannot own one policy."""
    problems: list[Problem] = []
    owner: dict[str, int] = {}
    named = [pool.name for pool in cfg.pools]
    for i, pool in enumerate(cfg.pools):
        if (
            not cfg.compact_placement_of(pool) or pool.name in named[:i]
        ):  # a duplicate name: reported
            continue
        name = placement_policy_name(cfg.gke.name, pool.name)
        if name in owner:
            problems.append(
                Problem(
                    _key(f"gpuPools[{i}].name"),
                    pool.name,
                    f"its compact placement policy would be named {name}, as that of "
                    f"gpuPools[{owner[name]}] ({_key('gke.name')}: {cfg.gke.name}); give the "
                    "pools names that differ",
                )
            )
        owner.setdefault(name, i)
    return problems


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
    problems += _system_pool_type_checks(cfg.gke.system_pool.machine_type)
    return problems


def _system_pool_type_checks(machine_type: str) -> list[Problem]:
    """The system pool takes no GPU machine type: by the GPU families the catalog records for GCP
    (any a3-*, g2-*, ...), not only the types it builds."""
    refusal = system_pool_refusal(machine_type)
    return [Problem(_key("gke.systemPool.machineType"), machine_type, refusal)] if refusal else []


def _mtu_checks(cfg: GkeStackConfig) -> list[Problem]:
    """A GPU NIC group's MTU, where the fabric's docs allow only some (GPUDirect-TCPX/TCPXO)."""
    return [
        Problem(
            _key(f"network.nics.{plan.group.name}.mtu"), plan.mtu, f"{wrong}, or remove the key"
        )
        for plan in cfg.nic_groups
        if (wrong := mtu_problem(plan.group, cfg.pool.machine_type, plan.mtu))
    ]
