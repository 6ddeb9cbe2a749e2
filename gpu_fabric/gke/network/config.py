"""The stack config of a GKE cluster's networks (`gpu-fabric:network`): the primary VPC, created
or existing, and the settings of each NIC group of the machine (its VPCs and Network objects)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, Field

from ...catalog import NicGroup
from ...config_base import Cidr, ConfigModel, SourceRanges
from ..names import NamePrefix


def _mtu(value: int) -> int:
    if not 1300 <= value <= 8896:
        raise ValueError(
            "a VPC MTU must be within 1300..8896; GPUDirect-TCPX uses 8244, RDMA VPCs 8896"
        )
    return value


Mtu = Annotated[int, AfterValidator(_mtu)]


class ExistingNetwork(ConfigModel):
    """A primary VPC and subnet that exist already, with their secondary ranges."""

    network: str = Field(description="Name or self link of the existing VPC.")
    subnetwork: str = Field(description="Name or self link of the existing subnet in the region.")
    pods_range_name: str = Field(description="Secondary range of the subnet for pods.")
    services_range_name: str = Field(description="Secondary range of the subnet for services.")


class PrimaryNetworkConfig(ConfigModel):
    """The cluster's own network (node eth0, pods, services)."""

    subnet_cidr: Cidr = Field("10.0.0.0/20", description="Primary subnet range of the nodes.")
    pods_cidr: Cidr = Field(
        "10.64.0.0/19",
        description="Pod secondary range (`<cluster>-pods`); it must hold every node the stack "
        "can create at its max pods per node.",
    )
    services_cidr: Cidr = Field(
        "10.65.0.0/19",
        description="Service secondary range (`<cluster>-services`), a /27 or wider.",
    )
    cloud_nat: bool = Field(
        True,
        description="A router and Cloud NAT, so private nodes reach registries outside Google.",
    )
    mtu: Mtu | None = Field(
        None,
        description="MTU of the primary VPC; default the machine's (A3 High and A3 Mega: 8244, "
        "as cluster-toolkit's blueprints), else GCP's 1460. Set at creation: a deployed VPC keeps "
        "its MTU (GCP: never change it while VMs run; stop them, `gcloud compute networks update "
        "--mtu`, start them).",
    )
    existing: ExistingNetwork | None = Field(
        None,
        description="An existing network to use instead of creating one; then set no CIDRs here.",
    )


class NicGroupConfig(ConfigModel):
    """Settings of one group of additional NICs (see the catalog's `nic_groups`)."""

    subnets: list[Cidr] | None = Field(
        None,
        description="One IPv4 range per NIC of the group, in NIC order; default from the catalog "
        "(`gpu`: A3, `192.168.N.0/24`; `gvnic`: A4X, `192.168.0.0/24`; `rdma`: A4X, "
        "`192.168.1-4.0/24`). No two ranges of the stack overlap.",
    )
    mtu: Mtu | None = Field(
        None,
        description="MTU of the group's VPC(s), within 1300..8896; default from the catalog "
        "(8244 on A3 High and A3 Mega, 8896 on A4X, A3 Ultra and A4). Where the catalog lists the "
        "MTUs the fabric's docs name (`allowed_mtus`), one of those: A3 High (GPUDirect-TCPX) "
        "8244 only, A3 Mega (GPUDirect-TCPXO) 8244 or 8896, the RoCE VPC of A3 Ultra and A4 8896 "
        "only (GKE's RDMA VPC docs).",
    )
    firewall_source_ranges: SourceRanges | None = Field(
        None,
        description="Sources the group's internal firewall rule allows; default: each VPC's own "
        "subnets. No `/0`, not empty, at most a /8 of public addresses; refused for `rdma` (no "
        "firewall on an RDMA VPC).",
    )
    object_names: list[str] | None = Field(
        None,
        description="Network/GKENetworkParamSet names (`gpu` only; fixed on A4X), unique; default "
        "from the catalog. On A3 Mega with `installer.owner: external`, names without `gpu-nic` "
        "warn: NVIDIA AICR's validation finds GPU NICs only in Network objects whose names "
        "contain it (renaming replaces the Network objects).",
    )


class NetworkConfig(ConfigModel):
    """VPCs: the primary network and the VPCs of the additional NICs."""

    prefix: NamePrefix | None = Field(
        None,
        description="Prefix of the GPU VPC, subnet and firewall names; default: `gke.name`.",
    )
    nics: dict[str, NicGroupConfig] = Field(
        default_factory=dict,
        description="Settings per NIC group of the machine, by group name (`gpu` on A3; `gvnic` "
        "and `rdma` on A4X, A3 Ultra and A4).",
    )
    primary: PrimaryNetworkConfig = Field(default_factory=PrimaryNetworkConfig)


@dataclass(frozen=True)
class NicGroupPlan:
    """A catalog NIC group with the stack's settings applied."""

    group: NicGroup
    subnets: list[str]
    mtu: int
    firewall_source_ranges: list[str] | None
    object_names: list[str]
