"""`LustreInstances`: the Managed Lustre instances of the training volumes, the VPC's Private
Service Access they are reached through, and the firewall rule that lets the instances' servers
reach the nodes' Lustre clients (cluster-toolkit examples/gke-managed-lustre.yaml, narrowed to the
nodes' service account).

What waits for what: the range waits for the VPC; the peering for the range; each instance for
the peering; the firewall rule for the range. Nothing in the cluster waits for them but the pods
that mount them.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from .args import GkeLustreInstance
from .driver import LUSTRE_PORT, PSA_PREFIX_LENGTH, ip_of


@dataclass
class LustreInstancesArgs:
    name: str
    """The cluster's name: the range's and the rule's names start with it."""
    project: str
    """The cluster's project."""
    network: pulumi.Input[str]
    """The cluster's VPC (self link), which the instances join."""
    node_service_account: pulumi.Input[str]
    """The nodes' service account: the only targets of the Lustre port's rule."""
    instances: list[GkeLustreInstance]
    """The instances to create."""


class LustreInstances(pulumi.ComponentResource):
    ips: pulumi.Output[dict[str, str]]
    """Each instance's id -> its IP (its mount point's)."""

    def __init__(
        self, name: str, args: LustreInstancesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:gke:LustreInstances", name, None, opts)
        # The range, its peering (one per VPC) and the rule have fixed names: a replacement is
        # deleted first (else 409 "already exists"); the instances on the range follow it.
        replaced_first = pulumi.ResourceOptions(parent=self, delete_before_replace=True)
        network_id = pulumi.Output.from_input(args.network).apply(
            lambda link: link.split("/compute/v1/", 1)[-1]
        )
        services = gcp.compute.GlobalAddress(
            f"{name}-psa",
            name=f"{args.name}-psa",
            project=args.project,
            purpose="VPC_PEERING",
            address_type="INTERNAL",
            prefix_length=PSA_PREFIX_LENGTH,
            network=args.network,
            opts=replaced_first,
        )
        peering = gcp.servicenetworking.Connection(
            f"{name}-psa-peering",
            network=network_id,
            service="servicenetworking.googleapis.com",
            reserved_peering_ranges=[services.name],
            opts=replaced_first,
        )
        gcp.compute.Firewall(
            f"{name}-lustre",
            name=f"{args.name}-lustre",
            project=args.project,
            network=args.network,
            direction="INGRESS",
            source_ranges=[pulumi.Output.concat(services.address, f"/{PSA_PREFIX_LENGTH}")],
            target_service_accounts=[args.node_service_account],
            allows=[{"protocol": "tcp", "ports": [str(LUSTRE_PORT)]}],
            description="Managed Lustre's servers to the GKE nodes' Lustre clients",
            opts=replaced_first,
        )
        ips = {}
        for instance in args.instances:
            made = gcp.lustre.Instance(
                f"{name}-{instance['instance_id']}",
                instance_id=instance["instance_id"],
                project=args.project,
                location=instance["zone"],
                filesystem=instance["filesystem"],
                capacity_gib=str(instance["capacity_gib"]),
                per_unit_storage_throughput=str(instance["throughput_per_tib"]),
                network=network_id,
                # It holds the data set or the checkpoints: a `pulumi destroy` or a replacement
                # stops at it.
                opts=pulumi.ResourceOptions(parent=self, protect=True, depends_on=[peering]),
            )
            ips[instance["instance_id"]] = made.mount_point.apply(ip_of)
        self.ips = pulumi.Output.all(**ips)
        self.register_outputs({"ips": self.ips})
