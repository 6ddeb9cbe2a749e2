"""Typed stack configuration of the GKE platforms: the models and their per-field checks.

Stack files (`stacks/Pulumi.<stack>.yaml`) hold `gpu-fabric:*` keys in camelCase plus `gcp:project`.
Each GKE platform has its own model (`GkeA3HighConfig`, `GkeA4xConfig`) with only its own keys, on a
shared base; cross-field rules live in `checks.py`. Defaults that depend on the machine type come
from the catalog through the properties of the models, so components never re-derive them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal, Protocol

from pydantic import AfterValidator, Field

from ..catalog import Machine, NicGroup, catalog
from ..config_base import (
    Cidr,
    ConfigModel,
    NodeCount,
    SourceRange,
    SourceRanges,
    StackModel,
    Timeout,
    system_node_count,
)
from ..images import ImageRef
from ..problems import NAMESPACE
from ..versions import (
    ChartVersionText,
    GkeVersionOrMinorText,
    gke_version_or_minor,
    is_minor,
)
from ..workloads.checks import WELL_KNOWN_NODE_LABELS
from .node_labels import GCE_TOPOLOGY_LABELS, NODE_POOL_LABEL

GCP_PROJECT_KEY = "gcp:project"

# --- field types -------------------------------------------------------------------------------

_RFC1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _gce_name(max_len: int):
    def check(value: str) -> str:
        if not _RFC1035.match(value) or len(value) > max_len:
            raise ValueError(
                f"must be 1-{max_len} characters of lowercase letters, digits and hyphens, "
                "starting with a letter and not ending with a hyphen"
            )
        return value

    return check


# GCP project IDs: 6-30 characters, lowercase letters, digits and hyphens, starting with a letter
# and not ending with a hyphen (Resource Manager docs, "Creating and managing projects").
# A domain-scoped project ID (`example.com:my-project`) is a project ID too.
_GCP_PROJECT = re.compile(r"^([a-z][-a-z0-9.]*[a-z0-9]:)?[a-z][-a-z0-9]{4,28}[a-z0-9]$")


def _gcp_project(value: str) -> str:
    if not _GCP_PROJECT.match(value):
        raise ValueError(
            "not a GCP project ID: 6-30 lowercase letters, digits and hyphens, starting with a "
            "letter (the ID, not the name or number); see `gcloud projects list`"
        )
    return value


# Compute Engine regions: us-central1, europe-west4, northamerica-northeast1; zones add -a..-z.
_GCP_REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
_GCP_ZONE = re.compile(r"^([a-z]+-[a-z]+[0-9]+)-[a-z]$")
# A reservation, or one block of it (`gcloud compute reservations blocks list`).
_RESERVATION = re.compile(
    r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?(/reservationBlocks/[a-z]([-a-z0-9]{0,61}[a-z0-9])?)?$"
)


def _gcp_region(value: str) -> str:
    zone = _GCP_ZONE.match(value)
    if zone:
        raise ValueError(f"is a zone, not a region; the region of this zone is {zone[1]}")
    if not _GCP_REGION.match(value):
        raise ValueError(
            "not a Compute Engine region; write it like us-central1 (`gcloud compute regions list`)"
        )
    return value


# Compute Engine machine types: lowercase family, then hyphen-separated lowercase parts
# (e2-standard-4, a3-highgpu-8g, c3-standard-4-lssd, n2-custom-4-16384; `gcloud compute
# machine-types list`). A space, capital or underscore is a typo GKE would refuse at creation.
_MACHINE_TYPE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")


def _machine_type(value: str) -> str:
    if _MACHINE_TYPE.match(value):
        return value
    fixed = re.sub(r"[\s_]+", "-", value.strip()).lower()
    hint = f"did you mean {fixed}? " if _MACHINE_TYPE.match(fixed) else ""
    raise ValueError(
        f"not a Compute Engine machine type; {hint}write it in lowercase, hyphen-separated, like "
        "e2-standard-4 or a3-highgpu-8g (`gcloud compute machine-types list`)"
    )


def _reservation(value: str) -> str:
    if not _RESERVATION.match(value):
        raise ValueError(
            "not a reservation name: lowercase letters, digits and hyphens, or "
            "NAME/reservationBlocks/BLOCK to target one block"
        )
    return value


def _mtu(value: int) -> int:
    if not 1300 <= value <= 8896:
        raise ValueError(
            "a VPC MTU must be within 1300..8896; GPUDirect-TCPX uses 8244, RDMA VPCs 8896"
        )
    return value


def _moved(to: str):
    """A key that moved: refused with where it went, so a stack file never keeps a dead key."""

    def refuse(value):
        raise ValueError(
            f"moved to gpu-fabric:{to} (the training queue makes the fabric's runtime); "
            f"remove this key and set gpu-fabric:{to} if the default does not suit"
        )

    return refuse


ResourceName = Annotated[str, AfterValidator(_gce_name(63))]
# GKE node pool names are at most 40 characters (GKE API, nodePools.create).
NodePoolName = Annotated[str, AfterValidator(_gce_name(40))]
ClusterName = Annotated[str, AfterValidator(_gce_name(40))]
# The prefix must leave room for the longest derived name, e.g. `<prefix>-gvnic-internal`.
NamePrefix = Annotated[str, AfterValidator(_gce_name(63 - len("-gvnic-internal")))]
Mtu = Annotated[int, AfterValidator(_mtu)]
GcpProjectId = Annotated[str, AfterValidator(_gcp_project)]
GcpRegion = Annotated[str, AfterValidator(_gcp_region)]
ReservationName = Annotated[str, AfterValidator(_reservation)]
MachineType = Annotated[str, AfterValidator(_machine_type)]


class GpuDriverVersion(str, Enum):
    """`gpu_driver_installation_config.gpu_driver_version` of a GKE GPU node pool."""

    DEFAULT = "DEFAULT"
    LATEST = "LATEST"
    INSTALLATION_DISABLED = "INSTALLATION_DISABLED"


class DriverInstall(str, Enum):
    """Who installs the NVIDIA driver (NVIDIA AICR's A4X networking guide, "Driver Installer")."""

    GKE = "gke"
    """GKE installs it (`gpuDriverVersion`)."""
    BUNDLE = "bundle"
    """A bundle installs it: GKE's install is disabled and its device plugin opted out."""


class ReleaseChannel(str, Enum):
    """GKE release channels (GKE docs, "About release channels"); UNSPECIFIED: none."""

    UNSPECIFIED = "UNSPECIFIED"
    RAPID = "RAPID"
    REGULAR = "REGULAR"
    STABLE = "STABLE"
    EXTENDED = "EXTENDED"


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


# GKE Standard's default, and its limits ("Configure maximum Pods per node", flexible-pod-cidr).
GKE_DEFAULT_MAX_PODS_PER_NODE = 110


# --- sections ----------------------------------------------------------------------------------


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


class AuthorizedNetwork(ConfigModel):
    cidr_block: SourceRange = Field(
        description="A range allowed to reach the control plane; no `/0`."
    )
    display_name: str = Field("", description="Label shown in the console.")


class SystemPoolConfig(ConfigModel):
    """The small CPU pool that runs system pods (the default pool is removed)."""

    machine_type: MachineType = Field(
        "e2-standard-4",
        description="Machine type of the CPU system pool; a GPU family (`a2-`, `a3-`, `a4-`, "
        "`a4x-`, `g2-`, `g4-`) is refused.",
    )
    node_count: Annotated[
        NodeCount,
        system_node_count("the default pool is removed", "set 1 or more", per=" per zone"),
    ] = Field(1, description="System nodes per zone of the cluster's region, at least 1.")


NODE_ACCOUNT_ROLES = ("roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader")
"""Least privilege for node VMs: Google's role for GKE node service accounts (logging,
monitoring, metadata: GKE docs, "Use least privilege IAM service accounts"), and the image reads
cluster-toolkit grants its node accounts (`roles/artifactregistry.reader`), for images in the
project's own registries."""

_ROLE = re.compile(r"^(roles|projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/roles)/[\w.]+$")


def _role(value: str) -> str:
    if not _ROLE.match(value):
        raise ValueError(
            "not an IAM role name: a predefined role (roles/artifactregistry.reader) or a "
            "project's custom role (projects/PROJECT/roles/ROLE)"
        )
    return value


NodeAccountRole = Annotated[str, AfterValidator(_role)]
"""A predefined role (`roles/artifactregistry.reader`) or a project's custom role."""


class GkeConfig(ConfigModel):
    """The GKE Standard cluster."""

    name: ClusterName = Field(description="Cluster name (1-40 characters).")
    version: GkeVersionOrMinorText = Field(
        description="A GKE minor, e.g. 1.33, which GKE resolves to its newest patch (of the "
        "release channel, if any) at preview through `gcp.container.get_engine_versions`, or a "
        "full version to pin, e.g. 1.33.5-gke.1862000 (GKE stops offering a patch after some "
        "months: a new pool then fails). At or above the machine's floors (its minimum minor, "
        "the fabric's patch floor of the minor, checked on the resolved patch) and below its "
        "limits; under cluster-toolkit's later security patch only a warning. Set at creation: "
        "GKE moves it later (upgrades), and the pools keep what GKE set."
    )
    deletion_protection: bool = Field(True, description="GKE deletion protection of the cluster.")
    private_nodes: bool = Field(True, description="Nodes without external IP addresses.")
    master_authorized_networks: list[AuthorizedNetwork] | None = Field(
        None,
        description="`{cidrBlock, displayName}` ranges allowed to reach the control plane, not "
        "empty (include where `pulumi up` runs); unset: any address (a warning).",
    )
    release_channel: ReleaseChannel | None = Field(
        None,
        description="GKE's release channel. Default: the machine's (catalog "
        "`gke.release_channel`): `REGULAR`, as cluster-toolkit's GPU blueprints, and `EXTENDED` "
        "for A3 High, whose last COS-121 minor (1.33) it keeps longest. In a channel GKE keeps "
        "the versions current, with cluster-toolkit's maintenance exclusion of minor and node "
        "upgrades until the minor's end of support (of extended support on `EXTENDED`, which "
        "GKE bills for that period); `gke.version` is the creation version, and node "
        "auto-upgrade is on (GKE requires it in a channel). `UNSPECIFIED`: no channel, "
        "`gke.version` pinned, node auto-upgrade off (the GPUDirect guides; GKE still upgrades "
        "a minor at its end of support).",
    )
    system_pool: SystemPoolConfig = Field(default_factory=SystemPoolConfig)
    node_account_roles: list[NodeAccountRole] = Field(
        default_factory=lambda: list(NODE_ACCOUNT_ROLES),
        min_length=1,
        description="Project roles of the nodes' service account: GKE's node role and what the "
        "nodes pull with (Artifact Registry reader, as cluster-toolkit grants); keep "
        "roles/container.defaultNodeServiceAccount (logging, monitoring).",
    )
    max_pods_per_node: int | None = Field(
        None,
        ge=8,
        le=256,
        description="The cluster's default max pods per node; GKE's 110 when unset. Set at "
        "creation (a change replaces the cluster); the pod range must hold every node at it.",
    )


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


class ReservationConfig(ConfigModel):
    """Consume a specific Compute Engine reservation."""

    name: ReservationName = Field(
        description="Reservation name, or NAME/reservationBlocks/BLOCK for one block of it."
    )
    project: GcpProjectId | None = Field(
        None, description="Owner project of a shared reservation; default: `gcp:project`."
    )


class BootDiskConfig(ConfigModel):
    type: str | None = Field(
        None,
        description="Boot disk type, one the machine can attach; default: the catalog's first "
        "(`pd-balanced` on A3, `hyperdisk-balanced` on A4X).",
    )
    size_gb: int = Field(200, ge=10, le=65536, description="Boot disk size in GB.")


class UpgradeConfig(ConfigModel):
    """How GKE upgrades a pool's nodes (surge upgrade): extra nodes, and nodes down at once.

    Unset keys take cluster-toolkit's gke-node-pool defaults (variables.tf `upgrade_settings`,
    main.tf `coalesce(max_surge, 0)`, `coalesce(max_unavailable, 1)`).
    """

    max_surge: int = Field(
        0, ge=0, description="Extra nodes GKE creates during an upgrade (0: none)."
    )
    max_unavailable: int = Field(
        1, ge=0, description="Nodes upgraded (unavailable) at once; not both 0."
    )


POOL_OPTION: dict = {"pool_option": True}
"""Marks a `GpuPoolConfig` field the node pool takes as it is written (`json_schema_extra`): `make
docs` writes its field into the hosted pool args (`GkeGpuPool`, by tools/pool_options.py), the
hosted layer checks it with this field's rule, and the node pool reads it with `pool_option`."""


def pool_options() -> list[str]:
    """The `GpuPoolConfig` fields marked POOL_OPTION, in their order."""
    return [
        name
        for name, field in GpuPoolConfig.model_fields.items()
        if field.json_schema_extra == POOL_OPTION
    ]


class GpuPoolConfig(ConfigModel):
    """The GPU node pool."""

    name: NodePoolName = Field("gpu-pool", description="GPU node pool name, unique, not `system`.")
    machine_type: MachineType = Field(
        description="A catalog machine type of the platform: `a3-highgpu-8g`, `a3-megagpu-8g`, "
        "`a4x-highgpu-4g`, `a3-ultragpu-8g` or `a4-highgpu-8g`."
    )
    zone: str = Field(
        description="The pool's one zone, inside `region` (compact placement is zonal; on A4X "
        "also the RoCE profile's zone)."
    )
    node_count: NodeCount = Field(description="GPU nodes, 0 or more.")
    driver_install: DriverInstall = Field(
        DriverInstall.GKE,
        description="Who installs the NVIDIA driver: `gke`, or `bundle` (GKE's install disabled, "
        "plus the device-plugin opt-out label).",
    )
    gpu_driver_version: GpuDriverVersion | None = Field(
        None,
        description="The GKE-installed driver version, with `driverInstall: gke` only; default "
        "`LATEST`.",
    )
    local_ssd: bool | None = Field(
        None,
        description="The catalog's local SSD count (16 on A3) as ephemeral storage; default "
        "`true` where the catalog has a count, refused where it has none.",
    )
    compact_placement: bool | None = Field(
        None,
        description="Compact placement through the catalog's policy (A3 `COLLOCATED`; A4X "
        "workload policy 1x72, at most 18 nodes). Default: on, but off for a pool that consumes "
        "a reservation on A3 Ultra and A4 (reserved capacity is densely colocated already, and "
        "cluster-toolkit's examples set no placement policy on reserved pools); a change "
        "replaces the pool.",
    )
    reservation: ReservationConfig | None = Field(
        None,
        description="Consume a specific reservation (one stack per reservation and zone); "
        "default: any matching reservation.",
    )
    boot_disk: BootDiskConfig = Field(default_factory=BootDiskConfig)
    upgrade: UpgradeConfig = Field(
        default_factory=UpgradeConfig,
        description="Surge upgrade settings; default maxSurge 0, maxUnavailable 1: one node at a "
        "time, in place (a reservation or quota in full use has no node to surge into), as "
        "cluster-toolkit's gke-node-pool.",
    )
    allow_unsupported_gke_version: bool = Field(
        False,
        description="Accept a GKE minor the catalog marks unsupported for the machine type (A3 "
        "High on 1.34+, catalog `gke.unsupported_from_minor`).",
    )
    fast_socket: bool = Field(
        False, description="NCCL Fast Socket; refused, no fabric here allows it."
    )
    accelerator_network_profile: str | None = Field(
        None,
        description="GKE-managed accelerator networking (`auto`); refused, it conflicts with the "
        "stack's own NICs.",
    )
    create_timeout: Timeout = Field(
        "60m",
        description="How long Pulumi waits for the pool's creation (90m, 2h); GPU nodes boot, "
        "install their driver and attach every NIC before GKE reports the pool running.",
        json_schema_extra=POOL_OPTION,
    )
    update_timeout: Timeout = Field(
        "60m",
        description="How long Pulumi waits for an update of the pool (90m, 2h); an upgrade "
        "replaces one node at a time, so a pool of many nodes needs more.",
        json_schema_extra=POOL_OPTION,
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


NAME_HASH_LEN = 6
"""Hex digits of the hash a cut name ends with."""


def fit_name(stem: str, limit: int, suffix: str = "") -> str:
    """`stem + suffix` if it fits in `limit` characters; else the stem cut, `-`, the first 6 hex
    digits of the sha256 of the whole name, and the suffix: two names that differ only past the
    cut stay apart (plain truncation gave `<cluster>-...-block-0001` and `...-block-0002` one
    63-character placement policy name). A name that fits is never changed."""
    full = f"{stem}{suffix}"
    if len(full) <= limit:
        return full
    digest = hashlib.sha256(full.encode()).hexdigest()[:NAME_HASH_LEN]
    cut = stem[: limit - len(suffix) - NAME_HASH_LEN - 1].rstrip("-")
    return f"{cut}-{digest}{suffix}"


# Compute Engine resource names: at most 63 characters (RFC 1035).
GCE_NAME_LIMIT = 63
# Service account IDs: 6-30 characters (IAM, "Creating service accounts").
ACCOUNT_ID_LIMIT = 30


def node_account_id(cluster_name: str) -> str:
    """`<cluster>-nodes`, cut with a hash (`fit_name`) to the 30 characters of an account ID."""
    return fit_name(cluster_name, ACCOUNT_ID_LIMIT, "-nodes")


def placement_policy_name(cluster_name: str, pool_name: str) -> str:
    """The compact placement policy of a pool: `<cluster>-<pool>-compact`, cut with a hash."""
    return fit_name(f"{cluster_name}-{pool_name}", GCE_NAME_LIMIT, "-compact")


@dataclass(frozen=True)
class NicGroupPlan:
    """A catalog NIC group with the stack's settings applied."""

    group: NicGroup
    subnets: list[str]
    mtu: int
    firewall_source_ranges: list[str] | None
    object_names: list[str]


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
    if TYPE_CHECKING:
        # Declared for type checkers only: each platform's model has its own section.
        images: PlatformImages

    ONLY_HERE: ClassVar[dict[str, str]] = {}
    """Keys of this platform alone, with why they mean nothing elsewhere (for error messages)."""
    FABRIC_KEYS: ClassVar[dict[str, str]] = {
        **StackModel.FABRIC_KEYS,
        "installer": "the NCCL plugin installer is a DaemonSet in the cluster",
        "images": "the fabric's DaemonSets and pods run in the cluster",
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

    def compact_placement_of(self, pool: GpuPoolConfig) -> bool:
        if pool.compact_placement is not None:
            return pool.compact_placement
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
    def has_nvlink_domains(self) -> bool:
        """The stack installs the NVIDIA DRA driver's ComputeDomains (gke/nvlink.py): the machine
        has NVLink domains (A4X) and the stack owns the installers (an external owner, NVIDIA
        AICR's bundle, brings its own driver)."""
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

    platform: Literal["gke-a3-high"] = Field(description="What the stack builds.")
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

    platform: Literal["gke-a3-mega"] = Field(description="What the stack builds.")
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

    platform: Literal["gke-a4x"] = Field(description="What the stack builds.")
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
        return self.nvidia_dra_driver_version or catalog().nvidia_dra_driver.compute_domains_version

    @property
    def hyperdisk_storage_class(self) -> StorageClassConfig:
        return self.storage_class or StorageClassConfig()


class GkeRdmaConfig(GkeStackConfig):
    """gke-a3-ultra and gke-a4: 8 GPUs, a gVNIC NIC and 8 RDMA NICs, GPUDirect-RDMA over gIB.

    One model for both platforms: they differ only in catalog facts (accelerator, version floors),
    never in keys (GKE's A4/A3 Ultra doc covers both with one network shape).
    """

    platform: Literal["gke-a3-ultra", "gke-a4"] = Field(description="What the stack builds.")
    images: RdmaImagesConfig = Field(default_factory=RdmaImagesConfig)

    @property
    def gib_installer_image(self) -> str:
        return self.images.gib.installer if self.images.gib else self.gib_installer_default

    @property
    def gib_installer_default(self) -> str:
        """The catalog's gIB installer for these nodes (amd64)."""
        return catalog().images.gib.installer_amd64
