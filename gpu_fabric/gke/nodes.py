"""The GPU node pool: accelerators, gVNIC, additional node networks and compact placement."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_gcp as gcp

from .cluster import OAUTH_SCOPES, SHIELDED_INSTANCE


@dataclass(frozen=True)
class NodeNetwork:
    """One additional node network, in NIC order."""

    network: pulumi.Input[str]
    """VPC name."""
    subnetwork: pulumi.Input[str]
    """Subnet name."""


@dataclass(frozen=True)
class Reservation:
    name: str
    project: str | None = None
    """Owner project of a shared reservation."""

    @property
    def value(self) -> str:
        return f"projects/{self.project}/reservations/{self.name}" if self.project else self.name


@dataclass(frozen=True)
class PlacementPolicy:
    name: str
    """Name of the `gcp.compute.ResourcePolicy` (regional)."""
    policy: dict
    """Its policy arguments, e.g. `group_placement_policy` or `workload_policy` (catalog)."""


@dataclass(frozen=True)
class UpgradeSettings:
    """Surge upgrade settings of a node pool."""

    max_surge: int
    max_unavailable: int


# Create and update wait for every GPU VM to boot and join (GPU driver install, local SSDs), which
# on a large pool outlasts the provider's 30-minute default; cluster-toolkit's gke-node-pool
# exposes `timeout_create`/`timeout_update` for this (main.tf `timeouts {}`), without defaults.
GPU_POOL_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="30m")


@dataclass(frozen=True)
class GpuNodePoolArgs:
    name: str
    """Node pool name."""
    cluster_id: pulumi.Input[str]
    """The cluster's ID; the pool waits for the cluster and nothing inside it."""
    location: str
    """The cluster's location."""
    region: str
    """Region of the placement policy."""
    zone: str
    """The one zone of the pool."""
    version: str
    """Pinned GKE node version."""
    machine_type: str
    """A machine type of the catalog."""
    accelerator_type: str
    """The GPU type the machine carries (catalog)."""
    accelerator_count: int
    """GPUs per node (catalog)."""
    gpu_driver_version: str
    """DEFAULT, LATEST or INSTALLATION_DISABLED."""
    node_count: int
    """Nodes."""
    service_account: pulumi.Input[str]
    """The nodes' service account (email)."""
    node_networks: list[NodeNetwork]
    """Additional node networks in NIC order. Immutable: a change recreates the pool."""
    local_ssd_count: int = 0
    """Local SSDs as ephemeral storage; 0 for none."""
    placement: PlacementPolicy | None = None
    """Compact placement through this policy; None for none."""
    reservation: Reservation | None = None
    """A specific reservation to consume; None for any matching one."""
    boot_disk_type: str = "pd-balanced"
    """Boot disk type."""
    boot_disk_size_gb: int = 200
    """Boot disk size, GB."""
    labels: dict[str, str] = field(default_factory=dict)
    """Node labels."""
    upgrade: UpgradeSettings | None = None
    """Surge upgrade settings; None for GKE's default (max surge 1, max unavailable 0)."""
    depends_on: list[pulumi.Resource] = field(default_factory=list)
    """Resources nodes need at boot (the node account's role grants)."""


class GpuNodePool(pulumi.ComponentResource):
    """A COS node pool with gVNIC, GPUs, and an additional NIC per GPU subnet, compactly placed.

    It depends on the cluster and the GPU networks only. It does not wait for the Network objects:
    GKE resolves them when pods ask for them, and node networks are set on the VMs by name.
    """

    node_pool_name: pulumi.Output[str]
    placement_policy: pulumi.Output[str] | None
    """Name of the compact placement policy, if any."""

    def __init__(
        self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:GpuNodePool", name, None, opts)

        placement: gcp.container.NodePoolPlacementPolicyArgsDict | None = None
        self.placement_policy = None
        if args.placement:
            policy = gcp.compute.ResourcePolicy(
                f"{name}-placement",
                name=args.placement.name,
                region=args.region,
                **args.placement.policy,
                # A fixed name cannot coexist with its replacement (409 "already exists").
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True),
            )
            # Compact placement is zonal; the pool has exactly one zone.
            placement = {"type": "COMPACT", "policy_name": policy.name}
            self.placement_policy = policy.name

        node_config: gcp.container.NodePoolNodeConfigArgsDict = {
            "machine_type": args.machine_type,
            "image_type": "COS_CONTAINERD",  # gVNIC and multi-networking need COS
            "gvnic": {"enabled": True},
            "guest_accelerators": [
                {
                    "type": args.accelerator_type,
                    "count": args.accelerator_count,
                    "gpu_driver_installation_config": {
                        "gpu_driver_version": args.gpu_driver_version
                    },
                }
            ],
            "boot_disk": {"disk_type": args.boot_disk_type, "size_gb": args.boot_disk_size_gb},
            "service_account": args.service_account,
            "oauth_scopes": OAUTH_SCOPES,
            "shielded_instance_config": SHIELDED_INSTANCE,
            "workload_metadata_config": {"mode": "GKE_METADATA"},
        }
        if args.labels:
            node_config["labels"] = args.labels
        if args.local_ssd_count:
            node_config["ephemeral_storage_local_ssd_config"] = {
                "local_ssd_count": args.local_ssd_count
            }
        if args.reservation:
            node_config["reservation_affinity"] = {
                "consume_reservation_type": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name",
                "values": [args.reservation.value],
            }

        pool = gcp.container.NodePool(
            name,
            name=args.name,
            cluster=args.cluster_id,
            location=args.location,
            node_locations=[args.zone],
            version=args.version,
            node_count=args.node_count,
            management={"auto_upgrade": False, "auto_repair": True},
            placement_policy=placement,
            network_config={
                "additional_node_network_configs": [
                    {"network": n.network, "subnetwork": n.subnetwork} for n in args.node_networks
                ]
            },
            node_config=node_config,
            upgrade_settings=(
                {
                    "strategy": "SURGE",
                    "max_surge": args.upgrade.max_surge,
                    "max_unavailable": args.upgrade.max_unavailable,
                }
                if args.upgrade
                else None
            ),
            # The pool's name is fixed (workloads and the fabric select it by name), so Pulumi's
            # default create-before-replace would fail with 409 "already exists": delete first.
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=args.depends_on,
                delete_before_replace=True,
                custom_timeouts=GPU_POOL_TIMEOUTS,
            ),
        )

        self.node_pool_name = pool.name
        self.register_outputs(
            {"node_pool_name": self.node_pool_name, "placement_policy": self.placement_policy}
        )
