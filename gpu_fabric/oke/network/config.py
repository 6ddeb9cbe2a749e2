"""The stack config of the OKE cluster's VCN (`gpu-fabric:network`): created, or existing."""

from __future__ import annotations

from pydantic import Field

from ...config_base import (
    Cidr,
    ConfigModel,
    SourceRanges,
)
from ..ids import (
    SubnetId,
    VcnId,
)


class ExistingVcn(ConfigModel):
    """A VCN and subnets that exist already. Their ranges are repeated here so that the DRANET child
    range can be checked against them at plan time (OCI does not check it; pods lose traffic)."""

    vcn_id: VcnId = Field(description="OCID of the VCN.")
    vcn_cidr: Cidr = Field(description="The VCN's IPv4 range (for the child range checks).")
    api_subnet_id: SubnetId = Field(description="OCID of the Kubernetes API endpoint's subnet.")
    workers_subnet_id: SubnetId = Field(
        description="OCID of the workers subnet (every node's primary VNIC)."
    )
    workers_subnet_cidr: Cidr = Field(description="That subnet's range (sizes the child range).")
    pods_subnet_id: SubnetId | None = Field(
        None, description="OCID of the pod subnet; required with the VCN-native CNI."
    )
    pods_subnet_cidr: Cidr | None = Field(None, description="That subnet's range.")
    load_balancer_subnet_id: SubnetId = Field(
        description="OCID of the service load balancers' subnet."
    )
    deploy_path: str | None = Field(
        None,
        description="How the host that runs `pulumi up` reaches the private API endpoint (a VPN, "
        "FastConnect, a peered VCN): with it, `layers: all` is allowed.",
    )


class OkeNetworkConfig(ConfigModel):
    """The VCN: created with its subnets, gateways and NSGs, or an existing one."""

    vcn_cidr: Cidr = Field("10.140.0.0/16", description="Range of the created VCN.")
    api_subnet_cidr: Cidr = Field(
        "10.140.0.0/28", description="Kubernetes API endpoint subnet, inside the VCN."
    )
    load_balancer_subnet_cidr: Cidr = Field(
        "10.140.1.0/24", description="Subnet of service load balancers (private)."
    )
    workers_subnet_cidr: Cidr = Field(
        "10.140.64.0/19",
        description="Primary VNIC subnet of every node; it sizes the DRANET child range (at least "
        "4 bits longer than it, for 16 rails).",
    )
    pods_subnet_cidr: Cidr = Field(
        "10.140.128.0/17",
        description="Pod subnet, with the VCN-native CNI only (refused with flannel).",
    )
    api_allowed_cidrs: SourceRanges = Field(
        default_factory=list,
        description="Ranges outside the VCN that may reach the private API endpoint on 6443 (a "
        "VPN); no `/0`.",
    )
    ssh_allowed_cidrs: SourceRanges = Field(
        default_factory=list, description="Ranges that may SSH to the nodes; no `/0`."
    )
    existing: ExistingVcn | None = Field(
        None, description="Use this VCN and its subnets; then set no ranges here."
    )
