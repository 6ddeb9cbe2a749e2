"""What ACK's cloud layer (`cloud.py`) takes: typed dicts, so every Pulumi language can pass them
to a hosted `AckCloud`; the args a stack config makes (`cloud_args`); and where a stack file writes
each of them (`STACK_KEYS`), the one map between stack keys and property paths, so a rule of the
args (cloud_rules.py) names either."""

from typing import NotRequired, TypedDict

from .config import AckLingjunConfig
from .cpfs.volumes import uses_cpfs


class AckExistingVpc(TypedDict):
    """A VPC and vSwitches the stack does not own."""

    vpc_id: str
    """The VPC."""
    node_vswitch_ids: list[str]
    """The nodes' vSwitches."""
    pod_vswitch_ids: list[str]
    """The pods' vSwitches."""


class AckSystemPool(TypedDict):
    """The ECS system pool."""

    instance_types: list[str]
    """ECS instance types."""
    node_count: int
    """Nodes."""
    key_name: str
    """An ECS key pair of the region."""
    system_disk_category: str
    """System disk category."""
    system_disk_size: int
    """System disk size (GiB)."""


class AckLingjun(TypedDict):
    """The Lingjun node pool, bound to an existing Lingjun cluster and node group."""

    pool_name: str
    """The node pool's name."""
    cluster_id: str
    """The Lingjun cluster."""
    group_id: str
    """Its node group (a group binds to one pool only)."""


class AckCloudArgs(TypedDict):
    """What ACK's cloud layer builds."""

    cluster_name: str
    """Cluster name; the VPC's parts are named after it."""
    kubernetes_version: str
    """ACK Kubernetes version (`1.33.3-aliyun.1`)."""
    existing_vpc: NotRequired[AckExistingVpc]
    """The Lingjun cluster's VPC and vSwitches, required (ACK requires both clusters in one VPC;
    a Lingjun cluster is created outside the stack)."""
    service_cidr: str
    """The Service range."""
    ip_stack: str
    """`ipv4` (Lingjun pools refuse dual stack)."""
    proxy_mode: str
    """kube-proxy mode."""
    public_endpoint: bool
    """Expose the API server on an EIP."""
    deletion_protection: bool
    """Protect the cluster from deletion."""
    system_pool: AckSystemPool
    """The ECS system pool."""
    lingjun: AckLingjun
    """The Lingjun node pool."""
    rdma_addon_version: str
    """Version of the ack-rdma-device-plugin add-on."""
    non_host_network: bool
    """RDMA for pods off the host network (add-on switch)."""
    non_host_network_key: str
    """The add-on config key of that switch (UNVERIFIED in the catalog; checked at preview
    against the catalog's recorded schema, at deploy time against the add-on's own)."""
    cpfs_csi: NotRequired[bool]
    """Install CPFS for Lingjun's CSI add-ons (catalog `ack.cpfs_csi`), for its training volumes
    (unset: false)."""


STACK_KEYS = {
    ("kubernetes_version",): "ack.kubernetesVersion",
    ("existing_vpc", "node_vswitch_ids"): "network.existing.nodeVswitches",
    ("existing_vpc", "pod_vswitch_ids"): "network.existing.podVswitches",
    ("system_pool", "instance_types"): "ack.systemPool.instanceTypes",
    ("lingjun", "group_id"): "lingjun.groupId",
    ("rdma_addon_version",): "rdma.addonVersion",
    ("non_host_network_key",): "rdma.nonHostNetworkKey",
}
"""An args path (without list indexes) -> where a stack file writes it (for the paths the rules
of cloud_rules.py name; `layer_inputs.stack_key_in`)."""


def cloud_args(cfg: AckLingjunConfig) -> AckCloudArgs:
    """The cloud layer's args of a stack config (without `existing_vpc` where the config names no
    VPC, which the config's and the layer's rules refuse alike)."""
    ack, existing, system = cfg.ack, cfg.network.existing, cfg.ack.system_pool
    args: AckCloudArgs = {
        "cluster_name": ack.name,
        "kubernetes_version": ack.kubernetes_version,
        "service_cidr": ack.service_cidr,
        "ip_stack": ack.ip_stack,
        "proxy_mode": ack.proxy_mode,
        "public_endpoint": ack.public_endpoint,
        "deletion_protection": ack.deletion_protection,
        "system_pool": {
            "instance_types": list(system.instance_types),
            "node_count": system.node_count,
            "key_name": system.key_name,
            "system_disk_category": system.system_disk_category,
            "system_disk_size": system.system_disk_size,
        },
        "lingjun": {
            "pool_name": cfg.lingjun.pool_name,
            "cluster_id": cfg.lingjun.cluster_id,
            "group_id": cfg.lingjun.group_id,
        },
        "rdma_addon_version": cfg.rdma_addon_version,
        "non_host_network": cfg.rdma.non_host_network,
        "non_host_network_key": cfg.non_host_network_key,
    }
    if uses_cpfs(cfg.storage):
        args["cpfs_csi"] = True
    if existing is not None:
        args["existing_vpc"] = {
            "vpc_id": existing.vpc_id,
            "node_vswitch_ids": [v.id for v in existing.node_vswitches],
            "pod_vswitch_ids": [v.id for v in existing.pod_vswitches],
        }
    return args
