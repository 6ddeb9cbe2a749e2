"""The ACK network: a VPC with node and Terway pod vSwitches, or existing ones.

The ACK cluster and the Lingjun cluster live in one region and one VPC (Alibaba, "Create and manage
a Lingjun node pool"), so a stack either creates the VPC the Lingjun cluster is then bound to, or
(the usual case, the Lingjun cluster being older than the stack) names that Lingjun VPC's vSwitches.
Nothing here opens ingress: ACK creates the cluster's own security group (VPC-internal rules) and
the API server gets no internet endpoint unless `ack.publicEndpoint` asks for one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud.vpc as vpc


@dataclass(frozen=True)
class VswitchArgs:
    zone_id: str
    """The vSwitch's zone."""
    cidr: str
    """Its range, inside the VPC."""


@dataclass(frozen=True)
class AckNetworkArgs:
    name: str
    """Prefix of every VPC and vSwitch name."""
    vpc_cidr: str
    """Range of the VPC."""
    node_vswitches: list[VswitchArgs] = field(default_factory=list)
    """vSwitches of the nodes and the API server."""
    pod_vswitches: list[VswitchArgs] = field(default_factory=list)
    """Terway pod vSwitches."""


@dataclass(frozen=True)
class ExistingAckNetworkArgs:
    """An existing VPC and vSwitches: nothing is created."""

    vpc_id: str
    """The VPC's id (`vpc-...`)."""
    node_vswitch_ids: list[str]
    """Ids of the node vSwitches (`vsw-...`)."""
    pod_vswitch_ids: list[str]
    """Ids of the Terway pod vSwitches."""


class Network(pulumi.ComponentResource):
    """The VPC of an ACK cluster and its node and pod vSwitches (or existing ones)."""

    vpc_id: pulumi.Output[str]
    node_vswitch_ids: list[pulumi.Output[str]]
    """vSwitches of the nodes and the API server."""
    pod_vswitch_ids: list[pulumi.Output[str]]
    """Terway pod vSwitches."""

    def __init__(
        self,
        name: str,
        args: AckNetworkArgs | ExistingAckNetworkArgs,
        opts: pulumi.ResourceOptions | None = None,
    ):
        super().__init__("gpu-fabric:ack:Network", name, None, opts)
        if isinstance(args, ExistingAckNetworkArgs):
            self.vpc_id = pulumi.Output.from_input(args.vpc_id)
            self.node_vswitch_ids = [pulumi.Output.from_input(i) for i in args.node_vswitch_ids]
            self.pod_vswitch_ids = [pulumi.Output.from_input(i) for i in args.pod_vswitch_ids]
        else:
            child = pulumi.ResourceOptions(parent=self)
            network = vpc.Network(
                f"{name}-vpc", vpc_name=f"{args.name}-vpc", cidr_block=args.vpc_cidr, opts=child
            )
            self.vpc_id = network.id

            def vswitch(part: str, i: int, spec: VswitchArgs) -> pulumi.Output[str]:
                return vpc.Switch(
                    f"{name}-{part}-{i}",
                    vswitch_name=f"{args.name}-{part}-{i}",
                    vpc_id=network.id,
                    cidr_block=spec.cidr,
                    zone_id=spec.zone_id,
                    opts=child,
                ).id

            self.node_vswitch_ids = [
                vswitch("node", i, v) for i, v in enumerate(args.node_vswitches)
            ]
            self.pod_vswitch_ids = [vswitch("pod", i, v) for i, v in enumerate(args.pod_vswitches)]
        self.register_outputs({"vpc_id": self.vpc_id})
