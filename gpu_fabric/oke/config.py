"""Typed stack configuration of the `oke-dranet` platform: models and per-field checks.

Stack files hold `gpu-fabric:*` keys in camelCase plus the two `oci:` provider keys this program
reads, `oci:tenancyOcid` (the dynamic group of the RDMA nodes lives in the tenancy) and `oci:region`
(availability domains and service gateways are regional). Cross-field rules live in `checks.py`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from ..catalog import OciShape, catalog
from ..config_base import (
    ADVISED_SYSTEM_NODES,
    ConfigModel,
    Layers,
    StackModel,
)
from ..images import ImageRef
from ..problems import key
from ..storage.config import STORAGE_DESCRIPTION
from .claims.config import ClaimShape
from .cluster.config import OkeClusterConfig
from .dranet.config import ChartsConfig, DranetConfig
from .ids import ClaimName, CompartmentId, TenancyId
from .network.config import OkeNetworkConfig
from .nodes.config import GpuNodesConfig
from .training_volumes import OkeStorageConfig

TENANCY_KEY = "oci:tenancyOcid"
REGION_KEY = "oci:region"


# --- sections ----------------------------------------------------------------------------------


class OkeImagesConfig(ConfigModel):
    nccl_tests: ImageRef | None = Field(
        None, description="Image of the optional NCCL MPIJobs; default from the catalog."
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
    storage: OkeStorageConfig = Field(  # type: ignore[assignment]
        default_factory=OkeStorageConfig, description=STORAGE_DESCRIPTION
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
