"""The ACK network: the Lingjun cluster's VPC and vSwitches, which exist already.

The ACK cluster and the Lingjun cluster live in one region and one VPC (Alibaba, "Create and manage
a Lingjun node pool"), and a Lingjun cluster is created outside the stack, in its own VPC; so the
stack names that VPC's vSwitches and creates none. Nothing here opens ingress: ACK creates the
cluster's own security group (VPC-internal rules) and the API server gets no internet endpoint
unless `ack.publicEndpoint` asks for one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi


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
    """The VPC of an ACK cluster and its node and pod vSwitches, as given."""

    vpc_id: pulumi.Output[str]
    node_vswitch_ids: list[pulumi.Output[str]]
    """vSwitches of the nodes and the API server."""
    pod_vswitch_ids: list[pulumi.Output[str]]
    """Terway pod vSwitches."""

    def __init__(
        self, name: str, args: ExistingAckNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:ack:Network", name, None, opts)
        self.vpc_id = pulumi.Output.from_input(args.vpc_id)
        self.node_vswitch_ids = [pulumi.Output.from_input(i) for i in args.node_vswitch_ids]
        self.pod_vswitch_ids = [pulumi.Output.from_input(i) for i in args.pod_vswitch_ids]
        self.register_outputs({"vpc_id": self.vpc_id})
