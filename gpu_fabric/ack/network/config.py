"""The stack config of the Lingjun cluster's existing VPC (`gpu-fabric:network.existing`)."""

from __future__ import annotations

from pydantic import Field

from ...config_base import (
    Cidr,
    ConfigModel,
)
from ..ids import (
    VpcId,
    VswitchId,
    ZoneId,
)


class ExistingVswitch(ConfigModel):
    """A vSwitch that exists already; its zone and range are repeated for the plan-time checks."""

    id: VswitchId = Field(description="The vSwitch id, `vsw-...`.")
    zone_id: ZoneId = Field(description="Its zone.")
    cidr: Cidr = Field(description="Its range.")


class ExistingVpc(ConfigModel):
    vpc_id: VpcId = Field(description="The VPC id, `vpc-...`: the Lingjun cluster's VPC.")
    vpc_cidr: Cidr = Field(description="The VPC's range (for the plan-time checks).")
    # At least one of each: checks.py names the Lingjun zone in its message.
    node_vswitches: list[ExistingVswitch] = Field(description="Node vSwitches.")
    pod_vswitches: list[ExistingVswitch] = Field(description="Terway pod vSwitches.")
    deploy_path: str | None = Field(
        None,
        description="How the host that runs `pulumi up` reaches the intranet API endpoint (a VPN "
        "gateway, Express Connect, CEN): with it, `layers: all` is allowed.",
    )


class AckNetworkConfig(ConfigModel):
    """The Lingjun cluster's VPC and vSwitches (`existing`): ACK requires the ACK and Lingjun
    clusters in one VPC, and a Lingjun cluster is created outside the stack, so the stack creates
    no VPC."""

    existing: ExistingVpc | None = Field(
        None,
        description="The Lingjun cluster's VPC and its vSwitches, required: ACK requires the ACK "
        "and Lingjun clusters in one VPC.",
    )
