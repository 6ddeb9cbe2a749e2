"""What GKE's cloud layer (`cloud.py`) takes: typed dicts, so every Pulumi language can pass them
to a hosted `GkeCloud`; each concern's own are in its folder (`pool/args.py`, `network/args.py`,
`cluster/args.py`)."""

from typing import NotRequired, TypedDict

from .buckets.args import GkeTrainingBucket
from .cluster.args import GkeAuthorizedNetwork, GkeMonitoring
from .filestore.args import GkeFilestoreInstance
from .lustre.args import GkeLustreInstance
from .network.args import GkeExistingNetwork, GkeGpuNetwork, GkePrimaryNetwork
from .pool.args import GkeGpuPool


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
    monitoring: NotRequired[GkeMonitoring]
    """What GKE sends to Cloud Monitoring (unset: managed Prometheus, and the GPUs' DCGM metrics
    unless a pool's driver is not GKE's)."""
    system_machine_type: str
    """Machine type of the CPU system pool."""
    system_node_count: int
    """Nodes of the CPU system pool."""
    max_pods_per_node: NotRequired[int]
    """Pods per node (sizes the Pod range)."""
    node_account_roles: NotRequired[list[str]]
    """Project roles of the nodes' service account (unset: GKE's node role and Artifact
    Registry reader)."""
    filestore_csi: NotRequired[bool]
    """GKE's Filestore CSI driver, for training volumes on Filestore (unset: off)."""
    filestore_instances: NotRequired[list[GkeFilestoreInstance]]
    """Filestore instances to create on the primary VPC (unset: none; needs `filestore_csi`)."""
    lustre_csi: NotRequired[bool]
    """GKE's Managed Lustre CSI driver, for training volumes on Managed Lustre (unset: off)."""
    lustre_instances: NotRequired[list[GkeLustreInstance]]
    """Managed Lustre instances to create in the primary VPC, with its Private Service Access
    and the Lustre port open from it to the nodes (unset: none; needs `lustre_csi` and a primary
    network the stack creates)."""
    training_buckets: NotRequired[list[GkeTrainingBucket]]
    """Cloud Storage buckets the training namespaces mount (created or existing; unset: none).
    With any, the cluster's Cloud Storage FUSE CSI driver is on."""
