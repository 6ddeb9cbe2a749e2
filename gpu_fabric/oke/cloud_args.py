"""What OKE's cloud layer (`cloud.py`) takes: typed dicts, so every Pulumi language can pass them
to a hosted `OkeCloud`; the args a stack config makes (`cloud_args`); and where a stack file writes
each of them (`STACK_KEYS`), the one map between stack keys and property paths, so a rule of the
args (cloud_rules.py) names either."""

from typing import NotRequired, TypedDict

from .cluster.config import Cni
from .config import OkeDranetConfig
from .file_storage.args import OkeFileSystem
from .lustre.args import OkeLustreFileSystem
from .training_volumes import created_file_systems, lustre_file_systems


class OkeVcn(TypedDict):
    """The VCN to create, with its private subnets."""

    vcn_cidr: str
    """The VCN's range."""
    api_subnet_cidr: str
    """The Kubernetes API endpoint's subnet."""
    load_balancer_subnet_cidr: str
    """Load balancers' subnet."""
    workers_subnet_cidr: str
    """The nodes' primary VNICs."""
    pods_subnet_cidr: NotRequired[str]
    """Pods' subnet (VCN-native pod networking only)."""


class OkeExistingVcn(TypedDict):
    """A VCN and subnets the stack does not own (the NSGs are still created in it)."""

    vcn_id: str
    """The VCN."""
    vcn_cidr: str
    """Its range (the NSG rules admit it)."""
    api_subnet_id: str
    """The Kubernetes API endpoint's subnet."""
    load_balancer_subnet_id: str
    """Load balancers' subnet."""
    workers_subnet_id: str
    """The nodes' subnet."""
    pods_subnet_id: NotRequired[str]
    """Pods' subnet (VCN-native pod networking only)."""


class OkeSystemPool(TypedDict):
    """The managed CPU pool for cluster add-ons."""

    shape: str
    """A flexible VM shape."""
    ocpus: int
    """OCPUs per node."""
    memory_gbs: int
    """Memory per node."""
    node_count: int
    """Nodes."""
    image_id: str
    """An OKE node image of the region."""


class OkeGpuNodes(TypedDict):
    """The self-managed RDMA GPU nodes, in one compute cluster."""

    shape: str
    """A bare-metal RDMA GPU shape of the catalog (BM.GPU.B4.8)."""
    count: int
    """Nodes."""
    availability_domain: str
    """Their availability domain (that of the compute cluster)."""
    image_id: str
    """A GPU image with the RDMA drivers (DOCA-OFED)."""
    boot_volume_size_gbs: int
    """Boot volume size."""
    capacity_reservation_id: NotRequired[str]
    """A compute capacity reservation the instances launch under (unset: the default, if any)."""
    ssh_public_key: NotRequired[str]
    """An SSH public key for the `opc` user."""
    join_tag_namespace: NotRequired[str]
    """With join_tag_key: only instances with this defined tag may join (dynamic group rule)."""
    join_tag_key: NotRequired[str]
    """The defined tag's key."""
    nvme_raid: NotRequired[int]
    """Stripe the local NVMe drives at first boot (RAID 0 or 10) for the runtime's, kubelet's and
    the pods' logs' storage (unset: off)."""
    run_command_plugin: NotRequired[bool]
    """Enable the Compute Instance Run Command plugin (unset: off)."""
    rdma_gpu_monitoring_plugin: NotRequired[bool]
    """Enable the Compute RDMA GPU Monitoring plugin (unset: off)."""


class OkeCloudArgs(TypedDict):
    """What OKE's cloud layer builds."""

    tenancy_id: str
    """The tenancy (the dynamic group lives there)."""
    home_region: NotRequired[str]
    """The tenancy's home region, where the dynamic group and join policy are written (through a
    provider for it unless it is `oci:region`); unset: looked up from the tenancy's region
    subscriptions."""
    compartment_id: str
    """Compartment of every resource."""
    cluster_name: str
    """Cluster name; the VCN, NSGs, group and policy names derive from it."""
    kubernetes_version: str
    """Kubernetes version (`v1.36.1`)."""
    vcn: NotRequired[OkeVcn]
    """The VCN to create (one of this and existing_vcn)."""
    existing_vcn: NotRequired[OkeExistingVcn]
    """An existing VCN to use."""
    api_allowed_cidrs: list[str]
    """Ranges that may reach the Kubernetes API endpoint."""
    ssh_allowed_cidrs: list[str]
    """Ranges that may reach the nodes over SSH."""
    cni: str
    """`OCI_VCN_IP_NATIVE` or `FLANNEL_OVERLAY`."""
    pods_cidr: NotRequired[str]
    """Flannel's Pod range (overlay only)."""
    services_cidr: str
    """The Service range."""
    public_endpoint: bool
    """A public API endpoint (with a non-empty api_allowed_cidrs)."""
    deletion_protection: bool
    """Protect the cluster from `pulumi destroy`."""
    max_pods_per_node: int
    """Pods per node (VCN-native: secondary VNIC addresses)."""
    system_pool: OkeSystemPool
    """The CPU system pool."""
    gpu_nodes: OkeGpuNodes
    """The RDMA GPU nodes."""
    file_systems: NotRequired[list[OkeFileSystem]]
    """OCI File Storage file systems to create for the training volumes, with a mount target in
    the workers' subnet (unset: none)."""
    lustre_file_systems: NotRequired[list[OkeLustreFileSystem]]
    """File Storage with Lustre file systems to create for the training volumes, in the workers'
    subnet (unset: none)."""


STACK_KEYS = {
    ("kubernetes_version",): "oke.kubernetesVersion",
    ("vcn", "vcn_cidr"): "network.vcnCidr",
    ("vcn", "api_subnet_cidr"): "network.apiSubnetCidr",
    ("vcn", "load_balancer_subnet_cidr"): "network.loadBalancerSubnetCidr",
    ("vcn", "workers_subnet_cidr"): "network.workersSubnetCidr",
    ("vcn", "pods_subnet_cidr"): "network.podsSubnetCidr",
    ("existing_vcn",): "network.existing",
    ("existing_vcn", "vcn_cidr"): "network.existing.vcnCidr",
    ("api_allowed_cidrs",): "network.apiAllowedCidrs",
    ("services_cidr",): "oke.servicesCidr",
    ("pods_cidr",): "oke.podsCidr",
    ("public_endpoint",): "oke.publicEndpoint",
    ("system_pool", "shape"): "oke.systemPool.shape",
    ("gpu_nodes", "join_tag_key"): "gpuNodes.joinTag",
}
"""An args path (without list indexes) -> where a stack file writes it (for the paths the rules
of cloud_rules.py name; `layer_inputs.stack_key_in`)."""


def cloud_args(cfg: OkeDranetConfig) -> OkeCloudArgs:
    """The cloud layer's args of a validated stack config."""
    net, oke, nodes = cfg.network, cfg.oke, cfg.gpu_nodes
    vcn_native = oke.cni is Cni.VCN_NATIVE
    args: OkeCloudArgs = {
        "tenancy_id": cfg.tenancy_ocid,
        "compartment_id": cfg.compartment_id,
        "cluster_name": oke.name,
        "kubernetes_version": oke.kubernetes_version,
        "api_allowed_cidrs": list(net.api_allowed_cidrs),
        "ssh_allowed_cidrs": list(net.ssh_allowed_cidrs),
        "cni": oke.cni.value,
        "services_cidr": oke.services_cidr,
        "public_endpoint": oke.public_endpoint,
        "deletion_protection": oke.deletion_protection,
        "max_pods_per_node": oke.max_pods_per_node,
        "system_pool": {
            "shape": oke.system_pool.shape,
            "ocpus": oke.system_pool.ocpus,
            "memory_gbs": oke.system_pool.memory_gbs,
            "node_count": oke.system_pool.node_count,
            "image_id": oke.system_pool.image_id,
        },
        "gpu_nodes": {
            "shape": nodes.shape,
            "count": nodes.count,
            "availability_domain": nodes.availability_domain,
            "image_id": nodes.image_id,
            "boot_volume_size_gbs": nodes.boot_volume_size_gbs,
            "run_command_plugin": nodes.agent_plugins.run_command,
            "rdma_gpu_monitoring_plugin": nodes.agent_plugins.rdma_gpu_monitoring,
        },
    }
    if oke.effective_pods_cidr is not None:
        args["pods_cidr"] = oke.effective_pods_cidr
    if oke.home_region is not None:
        args["home_region"] = oke.home_region
    if nodes.nvme_raid is not None:
        args["gpu_nodes"]["nvme_raid"] = nodes.nvme_raid
    if nodes.reservation is not None:
        args["gpu_nodes"]["capacity_reservation_id"] = nodes.reservation
    if nodes.ssh_public_key is not None:
        args["gpu_nodes"]["ssh_public_key"] = nodes.ssh_public_key
    if nodes.join_tag is not None:
        args["gpu_nodes"]["join_tag_namespace"] = nodes.join_tag.namespace
        args["gpu_nodes"]["join_tag_key"] = nodes.join_tag.key
    existing = net.existing
    if existing is not None:
        args["existing_vcn"] = {
            "vcn_id": existing.vcn_id,
            "vcn_cidr": existing.vcn_cidr,
            "api_subnet_id": existing.api_subnet_id,
            "load_balancer_subnet_id": existing.load_balancer_subnet_id,
            "workers_subnet_id": existing.workers_subnet_id,
        }
        if vcn_native and existing.pods_subnet_id is not None:
            args["existing_vcn"]["pods_subnet_id"] = existing.pods_subnet_id
    else:
        args["vcn"] = {
            "vcn_cidr": net.vcn_cidr,
            "api_subnet_cidr": net.api_subnet_cidr,
            "load_balancer_subnet_cidr": net.load_balancer_subnet_cidr,
            "workers_subnet_cidr": net.workers_subnet_cidr,
        }
        if vcn_native and net.pods_subnet_cidr is not None:
            args["vcn"]["pods_subnet_cidr"] = net.pods_subnet_cidr
    file_systems = created_file_systems(cfg.storage)
    if file_systems:
        args["file_systems"] = file_systems
    lustre = lustre_file_systems(cfg.storage)
    if lustre:
        args["lustre_file_systems"] = lustre
    return args
