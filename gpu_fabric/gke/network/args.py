"""What a hosted `GkeCloud` takes of its networks: typed dicts, so every Pulumi language can pass
them (the GPU VPCs in NIC order, and the primary network, created or existing)."""

from typing import NotRequired, TypedDict


class GkeSubnet(TypedDict):
    """One GPU subnet: one NIC of every GPU node."""

    name: str
    """Subnet name."""
    cidr: str
    """Its IPv4 range."""


class GkeGpuNetwork(TypedDict):
    """A GPU VPC and its subnets, in NIC order."""

    network_name: str
    """VPC name."""
    subnets: list[GkeSubnet]
    """One subnet per NIC the VPC carries."""
    mtu: int
    """VPC MTU (8244 for GPUDirect-TCPX/TCPXO, 8896 for RoCE)."""
    network_profile: NotRequired[str]
    """Network profile of an RDMA VPC (`projects/P/global/networkProfiles/ZONE-vpc-roce`)."""
    firewall_name: NotRequired[str]
    """An internal allow-all firewall rule of this name (none for RDMA VPCs)."""
    firewall_source_ranges: NotRequired[list[str]]
    """What the firewall rule admits; default: the VPC's own subnets."""


class GkePrimaryNetwork(TypedDict):
    """The cluster's own VPC, created: node subnet, Pod and Service ranges, Cloud NAT."""

    subnet_cidr: str
    """Node range."""
    pods_cidr: str
    """Pod secondary range (`<cluster>-pods`)."""
    services_cidr: str
    """Service secondary range (`<cluster>-services`)."""
    cloud_nat: bool
    """Cloud NAT, so private nodes can pull images from outside Google."""
    mtu: NotRequired[int]
    """The VPC's MTU, set at creation (unset: GCP's 1460)."""


class GkeExistingNetwork(TypedDict):
    """A primary network the stack does not own: its names only."""

    network: str
    """VPC name or self link."""
    subnetwork: str
    """Node subnet name or self link."""
    pods_range_name: str
    """Its Pod secondary range."""
    services_range_name: str
    """Its Service secondary range."""
