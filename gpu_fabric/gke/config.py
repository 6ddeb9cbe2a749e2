"""Typed stack configuration of the GKE platforms: the models and their per-field checks.

Stack files (`stacks/Pulumi.<stack>.yaml`) hold `gpu-fabric:*` keys in camelCase plus `gcp:project`.
Each GKE platform has its own model (`GkeA3HighConfig`, `GkeA4xConfig`) with only its own keys, on a
shared base; cross-field rules live in `checks.py`. Defaults that depend on the machine type come
from the catalog through the properties of the models, so components never re-derive them.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Protocol

from pydantic import AfterValidator, Field

from ..catalog import Fabric, Machine, catalog
from ..config_base import (
    ConfigModel,
    StackModel,
)
from ..images import ImageRef
from ..problems import NAMESPACE
from ..storage.config import STORAGE_DESCRIPTION
from ..versions import (
    ChartVersionText,
    gke_version_or_minor,
    is_minor,
)
from ..workloads.checks import WELL_KNOWN_NODE_LABELS
from .cluster.config import GKE_DEFAULT_MAX_PODS_PER_NODE, GkeConfig, ReleaseChannel
from .names import GcpProjectId, GcpRegion, ResourceName, node_account_id
from .network.config import NetworkConfig, NicGroupConfig, NicGroupPlan
from .node_labels import GCE_TOPOLOGY_LABELS, NODE_POOL_LABEL
from .pool.config import CapacityMode, DriverInstall, GpuDriverVersion, GpuPoolConfig
from .training_volumes import GkeStorageConfig

GCP_PROJECT_KEY = "gcp:project"

# --- field types -------------------------------------------------------------------------------


def _moved(to: str):
    """A key that moved: refused with where it went, so a stack file never keeps a dead key."""

    def refuse(value):
        raise ValueError(
            f"moved to gpu-fabric:{to} (the training queue makes the fabric's runtime); "
            f"remove this key and set gpu-fabric:{to} if the default does not suit"
        )

    return refuse


class InstallerOwner(str, Enum):
    """Who owns the NCCL plugin installer DaemonSet in kube-system."""

    STACK = "stack"
    """This stack creates and updates it (what the README promises), and deletes it with the
    stack or on a replacement."""
    HANDOVER = "handover"
    """As `stack`, but `retainOnDelete`: the step before `external`, so that once the DaemonSets
    leave the stack Pulumi forgets them and leaves them in the cluster."""
    EXTERNAL = "external"
    """Something outside the stack does (e.g. NVIDIA AICR's bundle on A4X): not created here."""


# --- sections ----------------------------------------------------------------------------------


class InstallerConfig(ConfigModel):
    """The NCCL plugin installer DaemonSet: who owns it, and whether `pulumi up` waits for it."""

    owner: InstallerOwner = Field(
        InstallerOwner.STACK,
        description="Who owns the NCCL plugin installer DaemonSet: `stack` (created here), "
        "`handover` (created here and `retainOnDelete`: run `pulumi up` with it before "
        "`external`, so the DaemonSets stay in the cluster when they leave the stack) or "
        "`external` (e.g. NVIDIA AI Cluster Runtime's bundle; not created, `make verify` still "
        "checks it). Straight from `stack` to `external`, `pulumi up` deletes them.",
    )
    await_rollout: bool = Field(
        False,
        description="Let `pulumi up` wait for the installer to roll out on every GPU node "
        "(default: `pulumi.com/skipAwait`); refused with an external owner.",
    )


class TcpxImagesConfig(ConfigModel):
    """A coupled installer/daemon pair; both are given together."""

    installer: ImageRef = Field(
        description="NCCL GPUDirect-TCPX installer image (A3 High); set together with `daemon`."
    )
    daemon: ImageRef = Field(
        description="tcpx-daemon (RxDM) image; must be the installer's known pair."
    )


class GibImagesConfig(ConfigModel):
    installer: ImageRef = Field(
        description="NCCL gIB installer image (arm64 on A4X, amd64 on A3 Ultra and A4); default "
        "from the catalog."
    )


class A3HighImagesConfig(ConfigModel):
    """Overrides of the catalog's pinned images (gke-a3-high)."""

    tcpx: TcpxImagesConfig | None = Field(
        None, description="The TCPX installer and daemon, overriding the catalog's pair."
    )
    pause: ImageRef | None = Field(
        None, description="Pause image of the installer DaemonSets; default from the catalog."
    )


class A4xImagesConfig(ConfigModel):
    """Overrides of the catalog's pinned images (gke-a4x)."""

    gib: GibImagesConfig | None = Field(
        None, description="The gIB installer, overriding the catalog's."
    )
    pause: ImageRef | None = Field(
        None, description="Pause image of the installer DaemonSets; default from the catalog."
    )
    training_runtime: Annotated[ImageRef, AfterValidator(_moved("queues.runtimeImage"))] | None = (
        Field(None, description="Moved to `gpu-fabric:queues.runtimeImage`; refused here.")
    )


class TcpxoImagesConfig(ConfigModel):
    """A coupled GPUDirect-TCPXO installer/RxDM pair; both are given together."""

    installer: ImageRef = Field(
        description="NCCL GPUDirect-TCPXO installer image (A3 Mega); set together with `daemon`, "
        "as a known pair."
    )
    daemon: ImageRef = Field(
        description="RxDM (`tcpgpudmarxd`) image; must be the installer's known pair."
    )


class A3MegaImagesConfig(ConfigModel):
    """Overrides of the catalog's pinned images (gke-a3-mega)."""

    tcpxo: TcpxoImagesConfig | None = Field(
        None, description="The TCPXO installer and RxDM, overriding the catalog's pair."
    )
    nri_device_injector: ImageRef | None = Field(
        None, description="NRI device injector image; default: the catalog's upstream digest."
    )
    pause: ImageRef | None = Field(
        None, description="Pause image of the installer DaemonSets; default from the catalog."
    )


class RdmaImagesConfig(ConfigModel):
    """Overrides of the catalog's pinned images (gke-a3-ultra, gke-a4)."""

    gib: GibImagesConfig | None = Field(
        None, description="The gIB installer, overriding the catalog's."
    )
    pause: ImageRef | None = Field(
        None, description="Pause image of the installer DaemonSets; default from the catalog."
    )


class PlatformImages(Protocol):
    """What the `images` section of every GKE platform has (each platform's own model)."""

    @property
    def pause(self) -> str | None: ...


class StorageClassConfig(ConfigModel):
    """The Hyperdisk StorageClass of platforms whose nodes cannot attach Persistent Disk."""

    name: ResourceName = Field(
        "hyperdisk-balanced", description="Hyperdisk StorageClass name; not `standard-rwo`."
    )
    is_default: bool = Field(
        False, description="Make it the cluster's default StorageClass (and `standard-rwo` not)."
    )


def platforms_of(fabric: Fabric, *, nvlink: bool = False) -> Any:
    """The GKE platforms whose catalog machines take `fabric`, with NVLink domains or without, as
    the `Literal` of a model's `platform`: the catalog's machine entries, not the models, say which
    platforms there are (a new family on an existing fabric is a catalog entry). The models differ
    only in the keys of their fabric (its images) and of NVLink domains."""
    platforms = {
        m.platform
        for m in catalog().machines.values()
        if m.fabric is fabric and m.nvlink_domains is nvlink
    }
    return Literal[tuple(sorted(platforms))]


class GkeStackConfig(StackModel):
    """What every GKE stack has, validated; each GKE platform adds its own keys."""

    project: GcpProjectId = Field(
        alias=GCP_PROJECT_KEY,
        description="GCP project ID (the provider's own key; also the Workload Identity pool, "
        "IAM target and RoCE profile).",
    )
    region: GcpRegion = Field(
        description="Region of the cluster and every subnet; set explicitly on every resource."
    )
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    gke: GkeConfig
    gpu_pool: GpuPoolConfig | None = Field(None, description="The GPU node pool (or `gpuPools`).")
    gpu_pools: list[GpuPoolConfig] | None = Field(
        None,
        description="Several GPU node pools instead of `gpuPool`: one machine type, unique names, "
        "one zone where the fabric has a RoCE VPC (A4X, A3 Ultra, A4); errors name "
        "`gpuPools[i].<key>`.",
    )
    installer: InstallerConfig = Field(default_factory=InstallerConfig)
    avoid_scheduled_maintenance: bool = Field(
        False,
        description="Keep the training runtime's pods off GPU nodes with host maintenance "
        "scheduled (GKE's `cloud.google.com/scheduled-maintenance-time` node label, GKE "
        "1.31.1-gke.2008000+): a job does not start on a node about to go down. Off by default: "
        "with many nodes under notice a job may wait for capacity.",
    )
    storage: GkeStorageConfig = Field(  # type: ignore[assignment]
        default_factory=GkeStorageConfig, description=STORAGE_DESCRIPTION
    )
    if TYPE_CHECKING:
        # Declared for type checkers only: each platform's model has its own section.
        images: PlatformImages

    ONLY_HERE: ClassVar[dict[str, str]] = {}
    """Keys of this platform alone, with why they mean nothing elsewhere (for error messages)."""
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **StackModel.FABRIC_KEYS,
        "installer": "the NCCL plugin installer is a DaemonSet in the cluster",
        "images": "the fabric's DaemonSets and pods run in the cluster",
        "avoid_scheduled_maintenance": "the training runtime is in the cluster",
    }

    # Derived values, so components never re-derive defaults.

    @property
    def pools(self) -> list[GpuPoolConfig]:
        """Every GPU pool: `gpuPools`, or the one `gpuPool`."""
        if self.gpu_pools is not None:
            return list(self.gpu_pools)
        return [self.gpu_pool] if self.gpu_pool else []

    @property
    def pool(self) -> GpuPoolConfig:
        """The GPU pool (the first of `gpuPools`): they all have one machine type."""
        return self.gpu_pool or self.pools[0]

    @property
    def machine(self) -> Machine:
        return catalog().machines[self.pool.machine_type]

    @property
    def name_prefix(self) -> str:
        return self.network.prefix or self.gke.name

    @property
    def nic_groups(self) -> list[NicGroupPlan]:
        plans = []
        for group in self.machine.nic_groups:
            given = self.network.nics.get(group.name) or NicGroupConfig()
            plans.append(
                NicGroupPlan(
                    group=group,
                    # `is None`, not `or`: an empty list is used as written (and refused).
                    subnets=list(group.default_subnets if given.subnets is None else given.subnets),
                    mtu=group.mtu if given.mtu is None else given.mtu,
                    firewall_source_ranges=given.firewall_source_ranges,
                    object_names=list(
                        group.object_names if given.object_names is None else given.object_names
                    ),
                )
            )
        return plans

    @property
    def network_object_names(self) -> list[str]:
        """The Network objects of every NIC group, in NIC order (what pods name)."""
        return [name for plan in self.nic_groups for name in plan.object_names]

    def gpu_driver_version_of(self, pool: GpuPoolConfig) -> GpuDriverVersion:
        if pool.driver_install is DriverInstall.BUNDLE:
            return GpuDriverVersion.INSTALLATION_DISABLED
        return pool.gpu_driver_version or GpuDriverVersion.LATEST

    def local_ssd_count_of(self, pool: GpuPoolConfig) -> int:
        count = self.machine.local_ssd_count
        return count if count and pool.local_ssd is not False else 0

    def capacity_of(self, pool: GpuPoolConfig) -> CapacityMode:
        """The pool's capacity mode: as written, else `reservation` where it names one."""
        if pool.capacity is not None:
            return pool.capacity
        return CapacityMode.ON_DEMAND if pool.reservation is None else CapacityMode.RESERVATION

    def compact_placement_of(self, pool: GpuPoolConfig) -> bool:
        if pool.compact_placement is not None:
            return pool.compact_placement
        capacity = self.capacity_of(pool)
        if pool.queued_provisioning:
            return False  # a queued pool is not compactly placed (cluster-toolkit)
        if capacity is CapacityMode.FLEX_START:
            # cluster-toolkit's gke-node-pool: compact placement with flex-start only where the
            # machine allows it (catalog `flex_start_compact_placement`).
            return self.machine.flex_start_compact_placement
        if capacity is CapacityMode.SPOT:
            return False  # Spot VMs come where capacity is spare, not packed (cluster-toolkit)
        return self.machine.placement_with_reservation or pool.reservation is None

    @property
    def release_channel(self) -> ReleaseChannel:
        """The stack's channel, or its machine's."""
        given = self.gke.release_channel
        return given or ReleaseChannel(self.machine.gke.release_channel)

    @property
    def topology_labelled(self) -> bool:
        """Every GPU pool's nodes carry GKE's topology labels (`catalog topology_needs_dense_
        capacity`: a reservation or compact placement where the machine needs one)."""
        return not self.machine.topology_needs_dense_capacity or all(
            pool.reservation is not None or self.compact_placement_of(pool) for pool in self.pools
        )

    @property
    def topology_levels(self) -> list[str] | None:
        """The queue's default Topology: the machine's levels, without GKE's topology labels
        where a pool's nodes lack them (None when only the node would be left: no Topology)."""
        levels = self.machine.topology_levels
        if self.topology_labelled:
            return levels
        kept = [level for level in levels if not level.startswith(GCE_TOPOLOGY_LABELS)]
        return kept if len(kept) > 1 else None

    @property
    def node_labels(self) -> list[str]:
        """The labels GKE can put on the GPU nodes, which a Topology level may name."""
        carried = [*WELL_KNOWN_NODE_LABELS, NODE_POOL_LABEL]
        return carried + [label for label in self.machine.topology_levels if label not in carried]

    def boot_disk_type_of(self, pool: GpuPoolConfig) -> str:
        return pool.boot_disk.type or self.machine.boot_disk_types[0]

    @property
    def gpu_driver_version(self) -> GpuDriverVersion:
        return self.gpu_driver_version_of(self.pool)

    @property
    def local_ssd_count(self) -> int:
        return self.local_ssd_count_of(self.pool)

    @property
    def boot_disk_type(self) -> str:
        return self.boot_disk_type_of(self.pool)

    @property
    def max_pods_per_node(self) -> int:
        return self.gke.max_pods_per_node or GKE_DEFAULT_MAX_PODS_PER_NODE

    @property
    def pause_image(self) -> str:
        return self.images.pause or catalog().images.pause

    @property
    def cluster_name(self) -> str:
        """The name every resource of the stack derives from."""
        return self.gke.name

    @property
    def owned_names(self) -> dict[str, tuple[str, str]]:
        """Names that must be unique in their scope: stack key -> (scope, name)."""
        scope = f"GCP project {self.project}"
        names = {
            "gke.name": (scope, f"cluster {self.gke.name}"),
            "gke.name (node service account)": (
                scope,
                f"service account {node_account_id(self.gke.name)}",
            ),
        }
        if self.network.prefix:
            names["network.prefix"] = (scope, f"VPC name prefix {self.name_prefix}")
        else:
            names["gke.name (VPC name prefix)"] = (scope, f"VPC name prefix {self.name_prefix}")
        return names

    @property
    def exclusive_resources(self) -> dict[str, tuple[str, str, str]]:
        """Existing resources this stack names that only one stack may hold: stack key -> (scope,
        resource, why). Another stack file that holds one too is refused as a copy.

        - A GPU pool's specific reservation (or block): its capacity is a fixed number of VMs,
          consumed by the pools that name it (GKE docs, "Consume reserved zonal resources",
          https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations); two
          clusters' pools on it would split those VMs, leaving one cluster's nodes pending.
          Compared as written: two blocks of one reservation are two resources.
        - Not here: compact placement policies (named after `gke.name` and the pool, checked with
          the cluster name by `owned_names`), and an existing network, subnet and secondary
          ranges (`network.primary.existing`): several clusters may share one VPC and subnet,
          and whether they may share a secondary range (pods or Services) is the GKE API's to
          decide at creation; not checked here.
        """
        resources = {}
        single = self.gpu_pool is not None and self.gpu_pools is None
        for i, pool in enumerate(self.pools):
            if pool.reservation is None:
                continue
            base = "gpuPool" if single else f"gpuPools[{i}]"
            project = pool.reservation.project or self.project
            resources[f"{base}.reservation.name"] = (
                f"GCP project {project}, zone {pool.zone}",
                f"reservation {pool.reservation.name}",
                "a reservation's VMs are consumed by the pools that name it; two clusters would "
                "split them",
            )
        return resources

    @property
    def nvlink_driver_version(self) -> str:
        """The NVIDIA DRA driver chart of the ComputeDomains (where `has_nvlink_domains`)."""
        return catalog().nvidia_dra_driver.compute_domains_version

    @property
    def hyperdisk_storage_class(self) -> StorageClassConfig:
        """The Hyperdisk StorageClass the stack makes where the machine attaches no Persistent
        Disk (catalog `persistent_disk`)."""
        return StorageClassConfig()

    @property
    def has_nvlink_domains(self) -> bool:
        """The stack installs the NVIDIA DRA driver's ComputeDomains (gke/fabrics/nvlink.py): the
        machine has NVLink domains (A4X) and the stack owns the installers (an external owner,
        NVIDIA AICR's bundle, brings its own driver)."""
        return self.machine.nvlink_domains and self.installer.owner is not InstallerOwner.EXTERNAL

    @property
    def warnings(self) -> list[str]:
        """Advice that is not fatal: the stack deploys, but you may want to change it."""
        warnings = []
        version = gke_version_or_minor(self.gke.version)
        advised = self.machine.gke.advisory_floor_for(version.minor)
        if advised and not is_minor(version) and version < advised:
            warnings.append(
                f"{NAMESPACE}:gke.version: {version} is below {advised}, the security patch "
                f"cluster-toolkit requires for {self.pool.machine_type} on {version.minor} "
                "(warning, not fatal)"
            )
        if self.gke.master_authorized_networks is None:
            warnings.append(
                f"{NAMESPACE}:gke.masterAuthorizedNetworks: not set, so the control plane's public "
                "endpoint admits any address (credentials still required); list the ranges that "
                "deploy and operate the cluster (warning, not fatal)"
            )
        return warnings


class GkeA3HighConfig(GkeStackConfig):
    """gke-a3-high: a3-highgpu-8g with GPUDirect-TCPX (the GKE GPUDirect-TCPX guide)."""

    platform: platforms_of(Fabric.TCPX) = Field(description="What the stack builds.")  # type: ignore[valid-type]
    images: A3HighImagesConfig = Field(default_factory=A3HighImagesConfig)
    smoke_test: bool = Field(
        False,
        description="Deploy the two TCPX test pods of the GKE GPUDirect-TCPX guide.",
    )
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **GkeStackConfig.FABRIC_KEYS,
        "smoke_test": "the test pods run in the cluster",
    }

    ONLY_HERE: ClassVar[dict[str, str]] = {
        # Said of every other platform's stack: why the key is A3 High's, not what that one runs.
        "images.tcpx": "the GPUDirect-TCPX installer and RxDM of a3-highgpu-8g; another "
        "machine's fabric has its own images key (a TCPX plugin on a gIB cluster is refused: "
        "NVIDIA AICR's A4X networking guide)",
        "smokeTest": "the smoke test is the GKE GPUDirect-TCPX guide's test of a3-highgpu-8g; "
        "on the other machines `make verify BANDWIDTH=1` tests the fabric",
    }

    @property
    def tcpx_images(self) -> TcpxImagesConfig:
        pinned = catalog().images.tcpx
        return self.images.tcpx or TcpxImagesConfig(
            installer=pinned.installer, daemon=pinned.daemon
        )


AICR_GPU_NIC_MARK = "gpu-nic"
"""What NVIDIA AICR looks for in an A3 Mega GPU NIC's Network object name."""


class GkeA3MegaConfig(GkeStackConfig):
    """gke-a3-mega: a3-megagpu-8g (8x H100 Mega) with GPUDirect-TCPXO over 8 GPU NICs."""

    platform: platforms_of(Fabric.TCPXO) = Field(description="What the stack builds.")  # type: ignore[valid-type]
    images: A3MegaImagesConfig = Field(default_factory=A3MegaImagesConfig)

    ONLY_HERE: ClassVar[dict[str, str]] = {
        "images.tcpxo": "GPUDirect-TCPXO runs on a3-megagpu-8g only",
        "images.nriDeviceInjector": "the NRI device injector serves the TCPXO daemon",
    }

    @property
    def tcpxo_images(self) -> TcpxoImagesConfig:
        pinned = catalog().images.tcpxo
        return self.images.tcpxo or TcpxoImagesConfig(
            installer=pinned.installer, daemon=pinned.daemon
        )

    @property
    def nri_device_injector_image(self) -> str:
        return self.images.nri_device_injector or catalog().images.nri_device_injector

    @property
    def warnings(self) -> list[str]:
        """The shared warnings, and Network object names an external owner's validation misses.

        NVIDIA AI Cluster Runtime (AICR), which an external installer owner
        deploys the TCPXO bundle with on A3 Mega, looks for the GPU NICs only in Network objects
        whose names contain `gpu-nic`; upstream's (and the catalog's) `vpc1`..`vpc8` do not, so its
        validation finds no GPU NIC. The names are this stack's to choose (`objectNames`).
        """
        warnings = super().warnings
        if self.installer.owner is not InstallerOwner.EXTERNAL:
            return warnings
        for plan in self.nic_groups:
            missed = [n for n in plan.object_names if AICR_GPU_NIC_MARK not in n]
            if missed:
                key = f"{NAMESPACE}:network.nics.{plan.group.name}.objectNames"
                suggested = ", ".join(f"gpu-nic-{n}" for n in range(1, len(plan.object_names) + 1))
                warnings.append(
                    f"{key}: {', '.join(missed)} do not contain `{AICR_GPU_NIC_MARK}`, and NVIDIA "
                    "AICR's A3 Mega validation finds GPU NICs only in Network objects whose names "
                    f"do; with installer.owner external, set {key} to [{suggested}] (workloads "
                    "then name these networks in their interfaces annotation; renaming replaces "
                    "the Network objects) (warning, not fatal)"
                )
        return warnings


class GkeA4xConfig(GkeStackConfig):
    """gke-a4x: a4x-highgpu-4g (GB200) with GPUDirect-RDMA over gIB (NVIDIA AICR's A4X
    networking guide)."""

    platform: platforms_of(Fabric.GIB, nvlink=True) = Field(  # type: ignore[valid-type]
        description="What the stack builds."
    )
    images: A4xImagesConfig = Field(default_factory=A4xImagesConfig)
    storage_class: StorageClassConfig | None = Field(
        None, description="The Hyperdisk StorageClass (created by default)."
    )
    training_runtime: Annotated[bool, AfterValidator(_moved("queues.runtime"))] | None = Field(
        None,
        description="Moved to `gpu-fabric:queues.runtime` (the training queue's "
        "torch-distributed-rdma runtime, on by default); refused here.",
    )
    nvidia_dra_driver_version: ChartVersionText | None = Field(
        None,
        description="NVIDIA DRA driver chart version (its ComputeDomains give a job NVLink "
        "across nodes); default: the catalog's (`nvidia_dra_driver.compute_domains_version`).",
    )
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **GkeStackConfig.FABRIC_KEYS,
        "storage_class": "the StorageClass is in the cluster",
        "training_runtime": "the training runtime is in the cluster",
        "nvidia_dra_driver_version": "the NVIDIA DRA driver is an in-cluster release",
    }

    ONLY_HERE: ClassVar[dict[str, str]] = {
        "images.gib": "the gIB plugin is for GPUDirect-RDMA machines, and cannot run beside "
        "GPUDirect-TCPX",
        "images.trainingRuntime": "it moved to gpu-fabric:queues.runtimeImage",
        "nvidiaDraDriverVersion": "only A4X's GB200 nodes have NVLink domains",
        "storageClass": "the Hyperdisk StorageClass is for nodes that cannot attach Persistent "
        "Disk",
        "trainingRuntime": "it moved to gpu-fabric:queues.runtime",
    }

    @property
    def gib_installer_image(self) -> str:
        return self.images.gib.installer if self.images.gib else self.gib_installer_default

    @property
    def gib_installer_default(self) -> str:
        """The catalog's gIB installer for these nodes (arm64)."""
        return catalog().images.gib.installer

    @property
    def nvlink_driver_version(self) -> str:
        return self.nvidia_dra_driver_version or super().nvlink_driver_version

    @property
    def hyperdisk_storage_class(self) -> StorageClassConfig:
        return self.storage_class or super().hyperdisk_storage_class


class GkeRdmaConfig(GkeStackConfig):
    """gke-a3-ultra and gke-a4: 8 GPUs, a gVNIC NIC and 8 RDMA NICs, GPUDirect-RDMA over gIB.

    One model for both platforms: they differ only in catalog facts (accelerator, version floors),
    never in keys (GKE's A4/A3 Ultra doc covers both with one network shape).
    """

    platform: platforms_of(Fabric.GIB) = Field(description="What the stack builds.")  # type: ignore[valid-type]
    images: RdmaImagesConfig = Field(default_factory=RdmaImagesConfig)

    @property
    def gib_installer_image(self) -> str:
        return self.images.gib.installer if self.images.gib else self.gib_installer_default

    @property
    def gib_installer_default(self) -> str:
        """The catalog's gIB installer for these nodes (amd64)."""
        return catalog().images.gib.installer_amd64
