"""What GKE's cloud layer (`cloud.py`) takes: typed dicts, so every Pulumi language can pass them
to a hosted `GkeCloud`, and the node pools (`nodes.py`) can read a pool's without importing the
layer."""

from typing import NotRequired, TypedDict

import pulumi


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


class GkeAuthorizedNetwork(TypedDict):
    """A range that may reach the control plane."""

    cidr_block: str
    """The range."""
    display_name: NotRequired[str]
    """What it is."""


class GkeGpuPool(TypedDict):
    """A GPU node pool on the layer's GPU networks."""

    name: str
    """Node pool name."""
    zone: str
    """Its one zone."""
    machine_type: str
    """A machine type of the catalog (a3-highgpu-8g, a4x-highgpu-4g, ...); it decides the GPUs."""
    node_count: int
    """Nodes."""
    gpu_driver_version: str
    """GKE-installed driver (`LATEST`, `DEFAULT`) or `INSTALLATION_DISABLED`."""
    local_ssd_count: int
    """Local SSDs for ephemeral storage (0: none)."""
    boot_disk_type: str
    """Boot disk type."""
    boot_disk_size_gb: int
    """Boot disk size."""
    labels: NotRequired[dict[str, str]]
    """Node labels."""
    compact_placement_name: NotRequired[str]
    """Name of a compact placement policy for the pool (none: no compact placement)."""
    reservation: NotRequired[pulumi.Input[str]]
    """A specific reservation to consume (name; an Output too, e.g. another stack's, checked
    once known)."""
    reservation_project: NotRequired[str]
    """The owner project of a shared reservation."""
    max_surge: NotRequired[int]
    """Surge upgrade: extra nodes during an upgrade (unset: 0)."""
    max_unavailable: NotRequired[int]
    """Surge upgrade: nodes upgraded, unavailable, at once (unset: 1)."""
    allow_unsupported_gke_version: NotRequired[bool]
    """Accept a GKE minor the catalog marks unsupported for the machine type (A3 High on 1.34+)."""
    # BEGIN GENERATED: pool options (`make docs`, from GpuPoolConfig: tools/pool_options.py)
    create_timeout: NotRequired[str]
    (
        "How long Pulumi waits for the pool's creation (90m, 2h); GPU nodes boot, install their "
        "driver and attach every NIC before GKE reports the pool running."
    )
    update_timeout: NotRequired[str]
    (
        "How long Pulumi waits for an update of the pool (90m, 2h); an upgrade replaces one node "
        "at a time, so a pool of many nodes needs more."
    )
    # END GENERATED


class GkeCloudArgs(TypedDict):
    """What GKE's cloud layer builds."""

    cluster_name: str
    """Cluster name; the names of the primary network's parts derive from it."""
    project: str
    """GCP project."""
    region: str
    """Region of the cluster and the networks."""
    version: str
    """GKE version at creation (control plane and pools): a minor (`1.33`, GKE's newest patch of
    it now) or a full version (`1.33.5-gke.1862000`)."""
    release_channel: NotRequired[str]
    """GKE release channel (unset: the pools' machine's, catalog `gke.release_channel`:
    REGULAR, or EXTENDED for A3 High; UNSPECIFIED: none, the version pinned, auto-upgrade
    off)."""
    gpu_networks: list[GkeGpuNetwork]
    """The GPU VPCs, in NIC order."""
    gpu_pools: list[GkeGpuPool]
    """The GPU node pools; each attaches every GPU subnet."""
    primary_network: NotRequired[GkePrimaryNetwork]
    """The primary network to create (one of this and existing_network)."""
    existing_network: NotRequired[GkeExistingNetwork]
    """An existing primary network to use."""
    deletion_protection: bool
    """GKE's deletion protection on the cluster."""
    private_nodes: bool
    """Nodes without external addresses."""
    master_authorized_networks: NotRequired[list[GkeAuthorizedNetwork]]
    """Ranges that may reach the control plane (unset: any)."""
    system_machine_type: str
    """Machine type of the CPU system pool."""
    system_node_count: int
    """Nodes of the CPU system pool."""
    max_pods_per_node: NotRequired[int]
    """Pods per node (sizes the Pod range)."""
    node_account_roles: NotRequired[list[str]]
    """Project roles of the nodes' service account (unset: GKE's node role and Artifact
    Registry reader)."""
