"""The GPU node pool: accelerators, gVNIC, additional node networks and compact placement.

A pool setting has one shape between the stack config and the node pool: `GkeGpuPool` (cloud.py),
the pool's typed args, which `GkeCloud` takes per pool; the cluster adds `PoolCluster`. A stack's
`GpuPoolConfig` fields reach it under their own names (`from_stack.pool_args`). A pool option
(a config field marked `POOL_OPTION`, whose `GkeGpuPool` field `make docs` writes) is its config
field, its use here through `pool_option`, and a test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_gcp as gcp

from ...catalog import catalog
from ..cluster.component import OAUTH_SCOPES, POOL_VERSION_MOVED_BY_GKE, SHIELDED_INSTANCE
from .args import GkeGpuPool, capacity_of
from .config import GpuPoolConfig, UpgradeConfig
from .reservations import checked_reservation


def _size(pool: GkeGpuPool) -> dict[str, Any]:
    """A fixed `node_count`, or the autoscaler from `node_count` to `max_node_count` (total
    limits across the pool's zones, as cluster-toolkit's gke-node-pool sets them; `node_count`
    "should not be used alongside autoscaling": pulumi-gcp NodePool)."""
    if "max_node_count" not in pool:
        return {"node_count": pool["node_count"]}
    return {
        "autoscaling": {
            "total_min_node_count": pool["node_count"],
            "total_max_node_count": pool["max_node_count"],
            "location_policy": pool.get("location_policy", "ANY"),
        }
    }


@dataclass(frozen=True)
class NodeNetwork:
    """One additional node network, in NIC order."""

    network: pulumi.Input[str]
    """VPC name."""
    subnetwork: pulumi.Input[str]
    """Subnet name."""


def pool_option(pool: GkeGpuPool, name: str) -> Any:
    """A pool option (a `GpuPoolConfig` field marked `POOL_OPTION`) as the pool's args give it,
    else the config field's default: the hosted layer may leave an option out."""
    return pool.get(name, GpuPoolConfig.model_fields[name].default)


def reservation_value(pool: GkeGpuPool) -> pulumi.Output[str]:
    """The pool's reservation as node affinity names it: a shared one by its owner project."""
    project = pool.get("reservation_project")
    name = pulumi.Output.from_input(pool["reservation"])
    return name.apply(lambda n: f"projects/{project}/reservations/{n}" if project else n)


GPU_POOL_DELETE_TIMEOUT = "30m"
"""Create and update wait for every GPU VM to boot and join (GPU driver install, local SSDs),
which on a large pool outlasts the provider's 30-minute default: they are the pool options
`createTimeout` and `updateTimeout` (60m by default), as cluster-toolkit's gke-node-pool exposes
`timeout_create`/`timeout_update` (main.tf `timeouts {}`). Deleting keeps 30 minutes."""


@dataclass(frozen=True)
class PoolCluster:
    """What a GPU node pool takes from its cluster rather than from the pool's settings."""

    cluster_id: pulumi.Input[str]
    """The cluster's ID; the pool waits for the cluster and nothing inside it."""
    region: str
    """The cluster's location, and the region of the placement policy."""
    version: pulumi.Input[str]
    """GKE node version at creation (the control plane's)."""
    service_account: pulumi.Input[str]
    """The nodes' service account."""
    node_networks: list[NodeNetwork]
    """Additional node networks in NIC order. Immutable: a change recreates the pool."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """Resources nodes need at boot (the node account's role grants)."""
    auto_upgrade: bool = False
    """Node auto-upgrade: on in a release channel (GKE requires it there)."""


@dataclass(frozen=True)
class GpuNodePoolArgs:
    pool: GkeGpuPool
    """The pool's settings."""
    cluster: PoolCluster
    """What comes from its cluster."""


class GpuNodePool(pulumi.ComponentResource):
    """A COS node pool with gVNIC, GPUs, and an additional NIC per GPU subnet, compactly placed.

    It depends on the cluster and the GPU networks only. It does not wait for the Network objects:
    GKE resolves them when pods ask for them, and node networks are set on the VMs by name.
    """

    node_pool_name: pulumi.Output[str]
    instance_groups: pulumi.Output[list[str]]
    """The pool's managed instance groups: new ones when the pool is replaced (its name stays)."""
    placement_policy: pulumi.Output[str] | None
    """Name of the compact placement policy, if any."""

    def __init__(
        self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:GpuNodePool", name, None, opts)
        pool, cluster = args.pool, args.cluster
        machine = catalog().machines[pool["machine_type"]]

        placement: gcp.container.NodePoolPlacementPolicyArgsDict | None = None
        self.placement_policy = None
        if pool.get("compact_placement_name"):
            policy = gcp.compute.ResourcePolicy(
                f"{name}-placement",
                name=pool["compact_placement_name"],
                region=cluster.region,
                # The machine's compact placement: a group placement or a workload policy.
                **machine.placement,
                # A fixed name cannot coexist with its replacement (409 "already exists").
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
            )
            # Compact placement is zonal; the pool has exactly one zone.
            placement = {"type": "COMPACT", "policy_name": policy.name}
            self.placement_policy = policy.name

        node_config: gcp.container.NodePoolNodeConfigArgsDict = {
            "machine_type": pool["machine_type"],
            "image_type": "COS_CONTAINERD",  # gVNIC and multi-networking need COS
            "gvnic": {"enabled": True},
            "guest_accelerators": [
                {
                    "type": machine.accelerator.type,
                    "count": machine.accelerator.count,
                    "gpu_driver_installation_config": {
                        "gpu_driver_version": pool["gpu_driver_version"]
                    },
                }
            ],
            "boot_disk": {
                "disk_type": pool["boot_disk_type"],
                "size_gb": pool["boot_disk_size_gb"],
            },
            "service_account": cluster.service_account,
            "oauth_scopes": OAUTH_SCOPES,
            "shielded_instance_config": SHIELDED_INSTANCE,
            "workload_metadata_config": {"mode": "GKE_METADATA"},
        }
        if pool.get("labels"):
            node_config["labels"] = pool["labels"]
        if pool["local_ssd_count"]:
            node_config["ephemeral_storage_local_ssd_config"] = {
                "local_ssd_count": pool["local_ssd_count"]
            }
        capacity = capacity_of(pool)
        if capacity in ("flex-start", "spot"):
            # cluster-toolkit's gke-node-pool (main.tf): `flex_start` / `spot` on the node
            # config, and NO_RESERVATION (a flex-start or Spot VM consumes no reservation).
            node_config["flex_start" if capacity == "flex-start" else "spot"] = True
            node_config["reservation_affinity"] = {"consume_reservation_type": "NO_RESERVATION"}
        if pool.get("reservation"):
            node_config["reservation_affinity"] = {
                "consume_reservation_type": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name",
                # Read and checked against the pool first (reservations.py).
                "values": [checked_reservation(pool, machine, reservation_value(pool), self)],
            }

        node_pool = gcp.container.NodePool(
            name,
            name=pool["name"],
            cluster=cluster.cluster_id,
            location=cluster.region,
            node_locations=[pool["zone"]],
            version=cluster.version,
            **_size(pool),
            # Flex-start pools run without auto-repair (cluster-toolkit's gke-node-pool
            # precondition; XPK `--no-enable-autorepair`): a repair would give up the VM.
            management={
                "auto_upgrade": cluster.auto_upgrade,
                "auto_repair": capacity != "flex-start",
            },
            placement_policy=placement,
            # Nodes only through ProvisioningRequests (Kueue's admission check asks for them).
            queued_provisioning={"enabled": True}
            if pool_option(pool, "queued_provisioning")
            else None,
            network_config={
                "additional_node_network_configs": [
                    {"network": n.network, "subnetwork": n.subnetwork}
                    for n in cluster.node_networks
                ]
            },
            node_config=node_config,
            # GKE's default surge upgrade creates one extra node, which a GPU pool at the full
            # size of its reservation or quota does not get: the upgrade stalls. One node at a
            # time, in place, as cluster-toolkit's gke-node-pool does by default (variables.tf
            # `upgrade_settings`; main.tf `coalesce(max_surge, 0)`, `coalesce(max_unavailable,
            # 1)`).
            upgrade_settings={
                "strategy": "SURGE",
                "max_surge": pool.get("max_surge", UpgradeConfig().max_surge),
                "max_unavailable": pool.get("max_unavailable", UpgradeConfig().max_unavailable),
            },
            # The pool's name is fixed (workloads and the fabric select it by name), so Pulumi's
            # default create-before-replace would fail with 409 "already exists": delete first.
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=cluster.depends_on,
                delete_before_replace=True,
                ignore_changes=POOL_VERSION_MOVED_BY_GKE,
                custom_timeouts=pulumi.CustomTimeouts(
                    create=pool_option(pool, "create_timeout"),
                    update=pool_option(pool, "update_timeout"),
                    delete=GPU_POOL_DELETE_TIMEOUT,
                ),
            ),
        )

        self.node_pool_name = node_pool.name
        self.instance_groups = node_pool.managed_instance_group_urls.apply(
            lambda urls: list(urls or [])
        )
        self.register_outputs(
            {"node_pool_name": self.node_pool_name, "placement_policy": self.placement_policy}
        )
