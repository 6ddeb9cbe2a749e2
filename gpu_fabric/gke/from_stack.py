"""What a validated stack config gives GKE's cloud layer: `cloud_args`, with each pool's
`pool_args` and the GPU VPCs of `gpu_networks` (the fabric layer's, which also take the cloud
layer's outputs, are `gpu_cluster.fabric_args`). A pool setting reaches its args under its own
name. The cloud layer's rules run on these args (checks.py), and `stack_key_of` says which stack
key wrote each path they name: the one map between the two."""

from __future__ import annotations

from typing import cast

from pydantic.alias_generators import to_camel

from ..layer_inputs import ArgsPath
from .buckets.volumes import training_buckets
from .cloud_args import GkeCloudArgs
from .cluster.args import GkeMonitoring
from .config import GkeStackConfig
from .names import placement_policy_name
from .network.args import GkeGpuNetwork
from .network.rules import nic_of
from .pool.args import GkeGpuPool, pool_key, stack_path_of
from .pool.config import DriverInstall, GpuPoolConfig
from .training_volumes import (
    filestore_instances,
    lustre_instances,
    uses_filestore,
    uses_lustre,
)

# NVIDIA AICR's A4X networking guide: with a bundle-installed driver, GKE's own device plugin
# stays off these nodes.
NO_GKE_DEVICE_PLUGIN_LABEL = {"gke-no-default-nvidia-gpu-device-plugin": "true"}


def pool_args(cfg: GkeStackConfig, pool: GpuPoolConfig) -> GkeGpuPool:
    """The pool's typed args: its settings under their own names, then what the stack derives."""
    keys = GkeGpuPool.__required_keys__ | GkeGpuPool.__optional_keys__
    same_name = {
        key: value
        for key, value in pool.model_dump(mode="json").items()
        if key in keys and value is not None and not isinstance(value, dict)
    }
    out = cast(GkeGpuPool, same_name)
    out["gpu_driver_version"] = cfg.gpu_driver_version_of(pool).value
    out["local_ssd_count"] = cfg.local_ssd_count_of(pool)
    out["boot_disk_type"] = cfg.boot_disk_type_of(pool)
    out["boot_disk_size_gb"] = pool.boot_disk.size_gb
    if pool.driver_install is DriverInstall.BUNDLE:
        out["labels"] = NO_GKE_DEVICE_PLUGIN_LABEL
    if cfg.compact_placement_of(pool):
        out["compact_placement_name"] = placement_policy_name(cfg.gke.name, pool.name)
    if pool.reservation:
        out["reservation"] = pool.reservation.name
        if pool.reservation.project:
            out["reservation_project"] = pool.reservation.project
    if pool.autoscaling is not None:
        out["max_node_count"] = pool.autoscaling.max_nodes
        out["location_policy"] = pool.autoscaling.location_policy
    out["max_surge"] = pool.upgrade.max_surge
    out["max_unavailable"] = pool.upgrade.max_unavailable
    return out


def _named(pattern: str, prefix: str, nic: int) -> str:
    """Fill a catalog name pattern for the NIC at 0-based index `nic` of its group."""
    return pattern.format(prefix=prefix, n=nic + 1, i=nic)


def gpu_networks(cfg: GkeStackConfig) -> list[GkeGpuNetwork]:
    """The VPCs of every NIC group, named by the catalog's patterns, in NIC order (a NIC whose
    group has no range for it gets no subnet: the group's `subnets` rule says so, checks.py)."""
    prefix, vpcs = cfg.name_prefix, []
    for plan in cfg.nic_groups:
        group, names = plan.group, plan.group.names
        nics = list(range(group.count))
        for vpc_nics in [[nic] for nic in nics] if group.vpc_per_nic else [nics]:
            first = vpc_nics[0]
            vpc: GkeGpuNetwork = {
                "network_name": _named(names.network, prefix, first),
                "subnets": [
                    {"name": _named(names.subnet, prefix, nic), "cidr": plan.subnets[nic]}
                    for nic in vpc_nics
                    if nic < len(plan.subnets)
                ],
                "mtu": plan.mtu,
            }
            if group.network_profile:
                vpc["network_profile"] = (
                    f"projects/{cfg.project}/global/networkProfiles/"
                    f"{cfg.pool.zone}-{group.network_profile}"
                )
            if names.firewall:
                vpc["firewall_name"] = _named(names.firewall, prefix, first)
            if plan.firewall_source_ranges is not None:
                vpc["firewall_source_ranges"] = plan.firewall_source_ranges
            vpcs.append(vpc)
    return vpcs


def cloud_args(cfg: GkeStackConfig) -> GkeCloudArgs:
    """The cloud layer's args of a validated stack config."""
    gke, primary = cfg.gke, cfg.network.primary
    args: GkeCloudArgs = {
        "cluster_name": gke.name,
        "project": cfg.project,
        "region": cfg.region,
        "version": gke.version,
        "gpu_networks": gpu_networks(cfg),
        "gpu_pools": [pool_args(cfg, pool) for pool in cfg.pools],
        "deletion_protection": gke.deletion_protection,
        "private_nodes": gke.private_nodes,
        "system_machine_type": gke.system_pool.machine_type,
        "system_node_count": gke.system_pool.node_count,
        "node_account_roles": gke.node_account_roles,
        "release_channel": cfg.release_channel.value,
    }
    if primary.existing is not None:
        e = primary.existing
        args["existing_network"] = {
            "network": e.network,
            "subnetwork": e.subnetwork,
            "pods_range_name": e.pods_range_name,
            "services_range_name": e.services_range_name,
        }
    else:
        args["primary_network"] = {
            "subnet_cidr": primary.subnet_cidr,
            "pods_cidr": primary.pods_cidr,
            "services_cidr": primary.services_cidr,
            "cloud_nat": primary.cloud_nat,
        }
        mtu = primary.mtu if primary.mtu is not None else cfg.machine.primary_mtu
        if mtu is not None:
            args["primary_network"]["mtu"] = mtu
    if gke.master_authorized_networks is not None:
        args["master_authorized_networks"] = [
            {"cidr_block": n.cidr_block, "display_name": n.display_name}
            for n in gke.master_authorized_networks
        ]
    args["monitoring"] = monitoring_of(cfg)
    storage = cfg.storage
    buckets = [(use, v.gcs) for use, v in storage.volumes() if v.gcs is not None]
    if buckets:
        args["training_buckets"] = training_buckets(buckets, cfg.queues.namespaces)
    if uses_filestore(storage):
        args["filestore_csi"] = True
        filestores = filestore_instances(storage, gke.name, cfg.pools[0].zone, cfg.region)
        if filestores:
            args["filestore_instances"] = filestores
    if uses_lustre(storage):
        args["lustre_csi"] = True
        instances = lustre_instances(storage, gke.name, cfg.pools[0].zone)
        if instances:
            args["lustre_instances"] = instances
    if gke.max_pods_per_node is not None:
        args["max_pods_per_node"] = gke.max_pods_per_node
    return args


def monitoring_of(cfg: GkeStackConfig) -> GkeMonitoring:
    """What the cluster sends to Cloud Monitoring: managed DCGM unless asked otherwise or a
    pool's driver is a bundle's (GKE installs its own driver for it)."""
    monitoring = cfg.gke.monitoring
    bundled = any(pool.driver_install is DriverInstall.BUNDLE for pool in cfg.pools)
    return {
        "dcgm": monitoring.dcgm
        if monitoring.dcgm is not None
        else monitoring.managed_prometheus and not bundled,
        "managed_prometheus": monitoring.managed_prometheus,
    }


CLOUD_STACK_KEYS: dict[tuple[str, ...], str] = {
    ("cluster_name",): "gke.name",
    ("region",): "region",
    ("version",): "gke.version",
    ("release_channel",): "gke.releaseChannel",
    ("master_authorized_networks",): "gke.masterAuthorizedNetworks",
    ("system_machine_type",): "gke.systemPool.machineType",
    ("system_node_count",): "gke.systemPool.nodeCount",
    ("max_pods_per_node",): "gke.maxPodsPerNode",
    ("monitoring", "dcgm"): "gke.monitoring.dcgm",
    ("monitoring", "managed_prometheus"): "gke.monitoring.managedPrometheus",
    ("gpu_pools",): "gpuPools",
    **{
        ("primary_network", field): f"network.primary.{to_camel(field)}"
        for field in ("subnet_cidr", "pods_cidr", "services_cidr", "mtu", "cloud_nat")
    },
}
"""A `GkeCloudArgs` path of the cluster or the primary network -> the stack key that writes it."""


def stack_key_of(cfg: GkeStackConfig, path: ArgsPath) -> str:
    """The stack key (without the namespace) that wrote a path of `cloud_args(cfg)`: a pool's
    field under `gpuPool` or `gpuPools[i]`, a GPU network's under its NIC group
    (`network.nics.rdma.subnets[3]`), the rest by `CLOUD_STACK_KEYS`."""
    head = path[0]
    if head == "gpu_pools" and len(path) > 2:
        field = str(path[2])
        single = cfg.gpu_pool is not None and cfg.gpu_pools is None
        return stack_path_of(field) if single else pool_key(int(path[1]), field)
    if head == "gpu_networks" and len(path) > 2:
        subnet = int(path[3]) if path[2] == "subnets" and len(path) > 3 else 0
        group, nic = nic_of(cfg.machine, int(path[1]), subnet)
        base = f"network.nics.{group.name}"
        field = str(path[2])
        return f"{base}.subnets[{nic}]" if field == "subnets" else f"{base}.{to_camel(field)}"
    return CLOUD_STACK_KEYS[tuple(str(part) for part in path)]
