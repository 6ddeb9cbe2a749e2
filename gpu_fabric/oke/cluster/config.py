"""The stack config of the OKE cluster (`gpu-fabric:oke`): its name, version, CNI and system
pool."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from pydantic import Field

from ...config_base import (
    Cidr,
    ConfigModel,
    NodeCount,
    system_node_count,
)
from ..ids import (
    ImageId,
    KubernetesVersion,
    Name,
    Shape,
)


class Cni(str, Enum):
    """`cluster_pod_network_options[].cni_type` of an OKE cluster."""

    VCN_NATIVE = "OCI_VCN_IP_NATIVE"
    """Pods get addresses from a VCN subnet (oci-hpc-oke's default)."""
    FLANNEL = "FLANNEL_OVERLAY"
    """Pods get addresses from `oke.podsCidr`, an overlay outside the VCN."""


class SystemPoolConfig(ConfigModel):
    """The small managed CPU node pool for system components."""

    shape: Shape = Field(
        "VM.Standard.E5.Flex",
        description="System node pool shape, a flexible VM shape; a GPU shape (`BM.GPU*`, "
        "`VM.GPU*`) is refused.",
    )
    # Sanity bounds only: each shape's own limits (OCPUs, memory, GB per OCPU) are read from
    # ListShapes at preview (shape_limits.py); VM.Standard.E5.Flex alone takes up to 94 OCPUs.
    ocpus: int = Field(
        4, ge=1, le=256, description="OCPUs per node, within the shape's limits (ListShapes)."
    )
    memory_gbs: int = Field(
        32, ge=1, le=4096, description="Memory per node in GB, within the shape's limits."
    )
    node_count: Annotated[
        NodeCount, system_node_count("the RDMA GPU nodes are for GPU work", "set 2 (the default)")
    ] = Field(
        2,
        description="System nodes, in the GPU nodes' availability domain: at least 1 (1 warns).",
    )
    image_id: ImageId = Field(
        description="An OKE node image OCID for the shape (Oracle Linux), of `oci:region`."
    )


class OkeClusterConfig(ConfigModel):
    """The ENHANCED OKE cluster."""

    name: Name = Field(description="Cluster name; also the prefix of every resource name.")
    kubernetes_version: KubernetesVersion = Field(
        description="An OKE minor, e.g. v1.36, which the stack resolves at preview to OKE's newest "
        "patch of it (`oci.containerengine.get_cluster_option`), or a full version to pin, e.g. "
        "v1.36.1 (OKE stops offering a patch after some months: new nodes then fail); v1.34 or "
        "newer. A minor is the version at creation: OKE upgrades are yours (`oci ce cluster "
        "update`), and the stack does not roll them back; a pinned version stays managed."
    )
    cni: Cni = Field(Cni.VCN_NATIVE, description="The pod network: VCN-native or flannel.")
    pods_cidr: Cidr | None = Field(
        None,
        description="Pod overlay range (`FLANNEL_OVERLAY` only), outside the VCN and clear of "
        "Oracle Cloud Agent's 10.224.0.0/12; default 10.244.0.0/16.",
    )
    services_cidr: Cidr = Field(
        "10.96.0.0/16",
        description="Service range, outside the VCN and clear of Oracle Cloud Agent's "
        "10.224.0.0/12.",
    )
    max_pods_per_node: int = Field(31, ge=1, le=110, description="VCN-native pods per node.")
    public_endpoint: bool = Field(
        False, description="A public IP on the API endpoint (with `network.existing` only)."
    )
    deletion_protection: bool = Field(True, description="Pulumi `protect` on the cluster.")
    home_region: str | None = Field(
        None,
        description="The tenancy's home region, e.g. us-ashburn-1: the GPU nodes' dynamic group "
        "and join policy are created there (IAM writes only succeed in the home region), through "
        "a second `oci` provider with the stack's `oci:` keys unless it is `oci:region`; unset: "
        "looked up from the tenancy's region subscriptions at preview.",
    )
    system_pool: SystemPoolConfig

    @property
    def effective_pods_cidr(self) -> str | None:
        """The overlay pod range, None with the VCN-native CNI (pods use the pod subnet)."""
        if self.cni is Cni.FLANNEL:
            return self.pods_cidr or "10.244.0.0/16"
        return None
