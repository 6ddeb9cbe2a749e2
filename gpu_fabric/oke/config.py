"""Typed stack configuration of the `oke-dranet` platform: models and per-field checks.

Stack files hold `gpu-fabric:*` keys in camelCase plus the two `oci:` provider keys this program
reads, `oci:tenancyOcid` (the dynamic group of the RDMA nodes lives in the tenancy) and `oci:region`
(availability domains and service gateways are regional). Cross-field rules live in `checks.py`.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field

from ..catalog import OciShape, catalog, closest_known
from ..config_base import (
    ADVISED_SYSTEM_NODES,
    Cidr,
    ConfigModel,
    Layers,
    NodeCount,
    SourceRanges,
    StackModel,
    VersionText,
    system_node_count,
)
from ..images import ImageRef
from ..problems import key
from ..versions import OkeVersionOrMinorText
from .ssh_keys import SshPublicKeys

TENANCY_KEY = "oci:tenancyOcid"
REGION_KEY = "oci:region"

# ocid1.<resource type>.<realm>.[region][.future use].<unique id>
# (OCI docs, "Resource Identifiers").
_OCID = re.compile(r"^ocid1\.([a-z0-9]+)\.(oc[0-9]+)\.([a-z0-9-]*)(\.[a-z0-9-]*)?\.[a-z0-9]+$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def ocid_kind(value: str) -> str | None:
    """The resource type of an OCID (`compartment`, `image`, ...), or None if it is not one."""
    match = _OCID.match(value)
    return match.group(1) if match else None


def ocid_place(value: str) -> tuple[str, str] | None:
    """The realm and region parts of an OCID (`("oc1", "iad")`; the region may be empty), or None
    if it is not one."""
    match = _OCID.match(value)
    return (match.group(2), match.group(3)) if match else None


def _ocid(*kinds: str):
    def check(value: str) -> str:
        kind = ocid_kind(value)
        if kind is None:
            raise ValueError(
                "not an OCID; copy it from the console or the OCI CLI "
                f"(ocid1.{kinds[0]}.oc1..., e.g. `oci iam compartment list`)"
            )
        if kind not in kinds:
            raise ValueError(
                f"an OCID of a {kind}, but this key takes the OCID of a {' or '.join(kinds)}; "
                f"use an ocid1.{kinds[0]}... value"
            )
        return value

    return check


def _dns_label(max_len: int, pattern: re.Pattern = _DNS_LABEL, starts: str = "a letter or digit"):
    def check(value: str) -> str:
        if not pattern.match(value) or len(value) > max_len:
            raise ValueError(
                f"must be 1-{max_len} characters of lowercase letters, digits and hyphens, "
                f"starting with {starts} and ending with a letter or digit"
            )
        return value

    return check


# Shape names: `VM.` or `BM.`, then dot-separated parts of letters, digits and hyphens (OCI docs,
# "Compute Shapes": VM.Standard.E5.Flex, BM.Standard.E5.192, BM.GPU.B4.8, VM.GPU3.1,
# BM.GPU.A100-v2.8, BM.GPU.L40S-NC.4).
_SHAPE = re.compile(r"^(VM|BM)\.[A-Za-z0-9]+(-[A-Za-z0-9]+)*(\.[A-Za-z0-9]+(-[A-Za-z0-9]+)*)*$")


def _shape(value: str) -> str:
    if _SHAPE.match(value):
        return value
    known = [*catalog().oci_shapes, *catalog().oke.cpu_shapes.names]
    guess = closest_known(value, known)
    fix = f"did you mean {guess!r}?" if guess else "e.g. VM.Standard.E5.Flex or BM.GPU.B4.8"
    raise ValueError(
        "not an OCI shape name: VM. or BM. and dot-separated letters, digits and hyphens, case "
        f'as OCI writes it (OCI docs, "Compute Shapes"; `oci compute shape list`); {fix}'
    )


CompartmentId = Annotated[str, AfterValidator(_ocid("compartment", "tenancy"))]
TenancyId = Annotated[str, AfterValidator(_ocid("tenancy"))]
ImageId = Annotated[str, AfterValidator(_ocid("image"))]
VcnId = Annotated[str, AfterValidator(_ocid("vcn"))]
SubnetId = Annotated[str, AfterValidator(_ocid("subnet"))]
KubernetesVersion = OkeVersionOrMinorText
Shape = Annotated[str, AfterValidator(_shape)]
# The cluster name also makes the VCN's DNS label, which must start with a letter.
Name = Annotated[str, AfterValidator(_dns_label(40, _NAME, "a letter"))]
ClaimName = Annotated[str, AfterValidator(_dns_label(63))]


class Cni(str, Enum):
    """`cluster_pod_network_options[].cni_type` of an OKE cluster."""

    VCN_NATIVE = "OCI_VCN_IP_NATIVE"
    """Pods get addresses from a VCN subnet (oci-hpc-oke's default)."""
    FLANNEL = "FLANNEL_OVERLAY"
    """Pods get addresses from `oke.podsCidr`, an overlay outside the VCN."""


# --- sections ----------------------------------------------------------------------------------


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


# A defined tag: namespace and key are letters, digits, `-` and `_` (OCI docs, "Tags").
_TAG_PART = re.compile(r"^[A-Za-z0-9_-]{1,100}$")


def _tag_part(value: str) -> str:
    if not _TAG_PART.match(value):
        raise ValueError("a tag namespace or key: letters, digits, - and _ only")
    return value


TagPart = Annotated[str, AfterValidator(_tag_part)]


class JoinTagConfig(ConfigModel):
    """An existing defined tag that marks the GPU nodes, so the dynamic group that may join the
    cluster matches them alone instead of every instance of the compartment."""

    namespace: TagPart = Field(description="The tag namespace (it must exist).")
    key: TagPart = Field(description="The tag key in it (it must exist).")


class AgentPluginsConfig(ConfigModel):
    """Oracle Cloud Agent plugins beyond the two RDMA ones, which oci-hpc-oke also enables."""

    run_command: bool = Field(
        False,
        description="Compute Instance Run Command: commands sent to the nodes through the OCI "
        "API (off: it is a remote shell for whoever holds the IAM right).",
    )
    rdma_gpu_monitoring: bool = Field(
        False, description="Compute RDMA GPU Monitoring: GPU and RDMA health metrics."
    )


class GpuNodesConfig(ConfigModel):
    """The self-managed RDMA GPU nodes, in one compute cluster."""

    shape: Shape = Field("BM.GPU.B4.8", description="A GPU shape of the catalog (`oci_shapes`).")
    count: NodeCount = Field(description="GPU nodes, 0 or more.")
    availability_domain: str = Field(
        description="The AD of the compute cluster, e.g. Uocm:US-ASHBURN-AD-1, one for all nodes "
        "(checked against the region's AD count)."
    )
    image_id: ImageId = Field(
        description="A GPU image OCID with the NVIDIA driver and DOCA-OFED (as oci-hpc-oke "
        "imports), of `oci:region`."
    )
    boot_volume_size_gbs: int = Field(512, ge=50, le=32768, description="Boot volume, GB.")
    ssh_public_key: SshPublicKeys | None = Field(
        None,
        description="Authorized SSH public keys of the nodes, one `TYPE BASE64 [COMMENT]` line "
        "each (a .pub file's contents; never a private key or a path).",
    )
    join_tag: JoinTagConfig | None = Field(
        None,
        description="An existing defined tag set to the cluster name on the GPU nodes; the join "
        "dynamic group matches only them.",
    )
    agent_plugins: AgentPluginsConfig = Field(
        default_factory=lambda: AgentPluginsConfig(),
        description="Optional Oracle Cloud Agent plugins (the two RDMA plugins are always on); "
        "read at creation: a change reaches new instances only.",
    )


class DranetConfig(ConfigModel):
    """DRANET's OKE provider."""

    child_cidr: Cidr | None = Field(
        None,
        description="Range of the pods' rail children; default DRANET's own 10.208.0.0/12 "
        "(passed to the chart only when set). It overlaps neither the VCN, the pod range, the "
        "service range nor Oracle Cloud Agent's 10.224.0.0/12.",
    )


class DranetChartConfig(ConfigModel):
    version: VersionText | None = Field(
        None,
        description="DRANET chart version; default from the catalog. With the image tag, one of "
        "the catalog's `oke.dranet.known_pairs`.",
    )
    image_tag: VersionText | None = Field(
        None,
        description="DRANET image tag; default from the catalog. It must be the chart version's "
        "pair (the v1.4 line lacks the OKE RDMA provider).",
    )


class DraGpuChartConfig(ConfigModel):
    version: VersionText | None = Field(
        None, description="NVIDIA DRA GPU driver chart version; default from the catalog."
    )


class ChartsConfig(ConfigModel):
    """Overrides of the catalog's pinned charts."""

    dranet: DranetChartConfig = Field(default_factory=DranetChartConfig)
    dra_gpu_driver: DraGpuChartConfig = Field(default_factory=DraGpuChartConfig)


class OkeImagesConfig(ConfigModel):
    nccl_tests: ImageRef | None = Field(
        None, description="Image of the optional NCCL MPIJobs; default from the catalog."
    )


class ClaimShape(ConfigModel):
    """What one pod claims on a GPU node: a ResourceClaimTemplate of that name."""

    name: ClaimName = Field(description="Name of the ResourceClaimTemplate, a unique DNS label.")
    gpus: int = Field(ge=0, description="GPUs per pod (from the NVIDIA DRA driver), at most 8.")
    rails: int = Field(ge=0, description="RDMA rails per pod (from DRANET), at most 16.")
    aligned: bool = Field(
        True,
        description="GPUs and rails in pairs on the same PCIe roots (at most 2 GPUs and 4 rails "
        "per root, split evenly).",
    )
    roots: int | None = Field(
        None,
        ge=1,
        description="PCIe roots an aligned claim spreads over, at most 4; default the fewest that "
        "hold it.",
    )


class OkeDranetConfig(StackModel):
    """oke-dranet: OKE with BM.GPU.B4.8 RDMA nodes, DRANET and the NVIDIA DRA GPU driver."""

    platform: Literal["oke-dranet"] = Field(description="What the stack builds.")
    tenancy_ocid: TenancyId = Field(
        alias=TENANCY_KEY,
        description="The tenancy OCID (the provider's own key; the dynamic group lives there).",
    )
    oci_region: str = Field(
        alias=REGION_KEY,
        description="The OCI region (the provider's own key), e.g. us-ashburn-1, one of the "
        "catalog's list.",
    )
    compartment_id: CompartmentId = Field(
        description="Compartment (or tenancy) OCID of every resource."
    )
    network: OkeNetworkConfig = Field(default_factory=OkeNetworkConfig)
    oke: OkeClusterConfig
    gpu_nodes: GpuNodesConfig
    dranet: DranetConfig = Field(default_factory=DranetConfig)
    charts: ChartsConfig = Field(default_factory=ChartsConfig)
    images: OkeImagesConfig = Field(default_factory=OkeImagesConfig)
    claims: list[ClaimShape] = Field(
        default_factory=list,
        description="Claim shapes, one ResourceClaimTemplate each; each fits one node.",
    )
    nccl_tests: bool | list[ClaimName] = Field(
        False,
        description="The DRANET-on-OKE write-up's all_reduce_perf MPIJobs: true for every aligned "
        "claim, or the names of the aligned claims to run together (they fit a node together; "
        "two nodes needed).",
    )

    ONLY_HERE: ClassVar[dict[str, str]] = {}
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **StackModel.FABRIC_KEYS,
        "dranet": "DRANET runs in the cluster",
        "charts": "the DRANET and DRA GPU driver charts are in-cluster releases",
        "images": "the NCCL test jobs run in the cluster",
        "claims": "the ResourceClaimTemplates are in the cluster",
        "nccl_tests": "the NCCL test jobs run in the cluster",
    }

    # Derived values, so components never re-derive defaults.

    @property
    def shape(self) -> OciShape:
        return catalog().oci_shapes[self.gpu_nodes.shape]

    @property
    def nccl_claims(self) -> list[ClaimShape]:
        """The aligned claims the NCCL jobs run over."""
        if self.nccl_tests is True:
            return [c for c in self.claims if c.aligned and c.gpus and c.rails]
        if not self.nccl_tests:
            return []
        return [c for c in self.claims if c.name in self.nccl_tests]

    @property
    def child_cidr(self) -> str:
        """The DRANET child range in effect (configured, or DRANET's default)."""
        return self.dranet.child_cidr or catalog().oke.dranet.default_child_cidr

    @property
    def vcn_cidr(self) -> str:
        existing = self.network.existing
        return existing.vcn_cidr if existing else self.network.vcn_cidr

    @property
    def workers_subnet_cidr(self) -> str:
        existing = self.network.existing
        return existing.workers_subnet_cidr if existing else self.network.workers_subnet_cidr

    @property
    def dranet_version(self) -> str:
        return self.charts.dranet.version or catalog().oke.dranet.version

    @property
    def dranet_image_tag(self) -> str:
        return self.charts.dranet.image_tag or catalog().oke.dranet.image_tag

    @property
    def dra_gpu_driver_version(self) -> str:
        return self.charts.dra_gpu_driver.version or catalog().nvidia_dra_driver.version

    @property
    def nccl_tests_image(self) -> str:
        return self.images.nccl_tests or catalog().oke.nccl_tests_image

    @property
    def cluster_name(self) -> str:
        """The name every resource of the stack derives from."""
        return self.oke.name

    @property
    def owned_names(self) -> dict[str, tuple[str, str]]:
        """Names that must be unique in their scope: stack key -> (scope, name)."""
        return {"oke.name": (f"compartment {self.compartment_id}", f"cluster {self.oke.name}")}

    @property
    def warnings(self) -> list[str]:
        """Advice that is not fatal: the stack deploys, but you may want to change it."""
        warnings = []
        count = self.oke.system_pool.node_count
        if count < ADVISED_SYSTEM_NODES:
            warnings.append(
                f"{key('oke.systemPool.nodeCount')}: {count} system node is a single point of "
                "failure: when it goes, CoreDNS and the other system pods have nowhere to move; "
                f"set {ADVISED_SYSTEM_NODES} or more (warning, not fatal)"
            )
        if self.layers is Layers.CLOUD and self.network.existing is None:
            if not self.network.api_allowed_cidrs:
                warnings.append(
                    f"{key('network.apiAllowedCidrs')}: [] admits nothing from outside the VCN "
                    "to the private API endpoint (port 6443): the fabric stack's `pulumi up` "
                    "must run on a host inside the VCN (a runner in the workers subnet, or "
                    "through an OCI Bastion port-forwarding session to the endpoint); or list "
                    "your VPN's or FastConnect's range here (warning, not fatal)"
                )
        return warnings
