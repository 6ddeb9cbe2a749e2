"""Typed view of `catalog.yaml`: per-machine facts and pinned images.

The table is data; this module only parses it, so a new machine type is a YAML entry plus tests.
"""

from __future__ import annotations

import difflib
import functools
import ipaddress
import re
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from . import yaml_files
from .versions import GKE_VERSION, MINOR_VERSION, Version

CATALOG_FILE = Path(__file__).with_name("catalog.yaml")


def minor_tuple(minor: str) -> tuple[int, int]:
    """`"1.27"` -> `(1, 27)`, for comparing minors."""
    return MINOR_VERSION.parse(minor).minor_parts


class DeviceMode(str, Enum):
    """`GKENetworkParamSet.spec.deviceMode` (gke-networking-api CRD enum)."""

    NET_DEVICE = "NetDevice"
    RDMA = "RDMA"
    DPDK_VFIO = "DPDK-VFIO"


class Fabric(str, Enum):
    """A GKE GPU network fabric: `Machine.fabric`, and the key of the catalog's `fabrics:` table.

    Each has one module in gpu_fabric/gke/fabrics/ (`tcpx.py`, `tcpxo.py`, `gib.py`) that the rest
    of the code asks (`gpu_fabric.gke.fabrics.by_name.fabric_of`), instead of comparing these
    values.
    """

    TCPX = "gpudirect-tcpx"
    """GPUDirect-TCPX (A3 High)."""
    TCPXO = "gpudirect-tcpxo"
    """GPUDirect-TCPXO (A3 Mega)."""
    GIB = "gpudirect-rdma"
    """GPUDirect-RDMA over the gIB NCCL plugin (A3 Ultra, A4, A4X)."""

    def __str__(self) -> str:
        return self.value


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Accelerator(_Data):
    type: str
    """GKE accelerator type, e.g. `nvidia-h100-80gb`."""
    count: int
    """GPUs per node."""


class NicNames(_Data):
    """Format strings over {prefix}, {n} (1-based) and {i} (0-based NIC index in the group)."""

    network: str
    subnet: str
    firewall: str | None = None


class NicGroup(_Data):
    """Additional NICs of one kind, in NIC order."""

    name: str
    """Key of the group under `network.nics` in stack config."""
    count: int
    vpc_per_nic: bool
    """One VPC per NIC (True) or one VPC with a subnet per NIC (False)."""
    mtu: int
    allowed_mtus: list[int] | None = None
    """The only MTUs the fabric works with, where its docs name them (None: any valid MTU)."""
    device_mode: DeviceMode
    """`deviceMode` of the GKENetworkParamSets."""
    object_names: list[str]
    """Names of the Network/GKENetworkParamSet pairs, in NIC order."""
    object_names_fixed: str | None = None
    """Why the names cannot be renamed (something outside gpu-fabric asserts them), if so."""
    default_subnets: list[str]
    names: NicNames
    network_profile: str | None = None
    """Suffix of the zonal network profile, e.g. `vpc-roce` -> `<zone>-vpc-roce`."""
    firewall_forbidden: str | None = None
    """Why this group's VPC may have no firewall rule, if it may not."""

    @model_validator(mode="after")
    def _one_per_nic(self) -> NicGroup:
        if not len(self.object_names) == len(self.default_subnets) == self.count:
            raise ValueError(f"nic group {self.name}: one object name and subnet per NIC")
        if (self.names.firewall is None) != (self.firewall_forbidden is not None):
            raise ValueError(f"nic group {self.name}: a firewall name exactly where allowed")
        return self


class GkeVersionRules(_Data):
    min_minor: str
    """Oldest supported GKE minor."""
    patch_floors: dict[str, str]
    """Minor -> oldest supported patch of that minor."""
    advisory_floors: dict[str, str] = {}
    """Minor -> recommended patch; older patches get a warning, not an error."""
    unsupported_from_minor: str | None = None
    """First GKE minor on which the machine type is not supported."""
    unsupported_reason: str | None = None
    """Why `unsupported_from_minor` is a limit, with its source."""
    default_driver_from: str | None = None
    """First GKE version whose `DEFAULT` GPU driver serves the GPUs; older ones need `LATEST`."""
    release_channel: Literal["RAPID", "REGULAR", "STABLE", "EXTENDED"] = "REGULAR"
    """The release channel a cluster of this machine is on unless its stack says otherwise."""

    @model_validator(mode="after")
    def _floors_parse(self) -> GkeVersionRules:
        for floors in (self.patch_floors, self.advisory_floors):
            for minor, floor in floors.items():
                if GKE_VERSION.parse(floor).minor != minor:
                    raise ValueError(f"patch floor {floor} is filed under minor {minor}")
        if self.default_driver_from is not None:
            GKE_VERSION.parse(self.default_driver_from)
        return self

    def floor_for(self, minor: str) -> Version | None:
        """The patch floor of a minor, or None where the minor has no floor of its own."""
        floor = self.patch_floors.get(minor)
        return GKE_VERSION.parse(floor) if floor else None

    def advisory_floor_for(self, minor: str) -> Version | None:
        floor = self.advisory_floors.get(minor)
        return GKE_VERSION.parse(floor) if floor else None


class Machine(_Data):
    platform: str
    """The gpu-fabric platform that builds this machine type."""
    fabric: Fabric
    """GPU network fabric (an entry of the catalog's `fabrics:`)."""
    accelerator: Accelerator
    arch: str
    """CPU architecture of the nodes (`amd64`, `arm64`)."""
    nic_groups: list[NicGroup]
    local_ssd_count: int | None
    """The exact local SSD count GKE accepts for ephemeral storage; None where not verified."""
    primary_mtu: int | None = None
    """The primary VPC's MTU its blueprints set; None: GCP's default (1460)."""
    boot_disk_types: list[str]
    """Boot disk types the machine can attach; the first is the default."""
    placement: dict[str, Any]
    """`gcp.compute.ResourcePolicy` arguments of its compact placement policy."""
    placement_with_reservation: bool = True
    """A pool that consumes a reservation gets the placement policy by default too."""
    reservation_bound: bool = False
    """Capacity comes only from reservations (the reservation-bound provisioning model)."""
    flex_start: bool = False
    """Compute Engine offers it as flex-start VMs (a GKE pool's `capacity: flex-start`)."""
    flex_start_compact_placement: bool = False
    """A flex-start pool of it may be compactly placed."""
    gke: GkeVersionRules
    max_nodes_per_placement: int | None = None
    """Most nodes one compact placement (workload policy) holds; None where not limited."""
    refused_nic_groups: dict[str, str] = {}
    """NIC groups other machines have that this one must not get, with why."""
    topology_levels: list[str]
    """Kueue's Topology levels for its nodes, widest first, the node last."""
    topology_needs_dense_capacity: bool = False
    """GKE labels its nodes with their topology (`cloud.google.com/gce-topology-*`) only when
    they are reservation-bound or compactly placed."""
    nvlink_domains: bool = False
    """Its GPUs reach other nodes' GPUs over NVLink (GB200 NVL72), through the NVIDIA DRA
    driver's ComputeDomains."""
    persistent_disk: bool = True
    """Its nodes attach Persistent Disk; where not (Hyperdisk only), the stack makes a Hyperdisk
    StorageClass for the cluster's volumes."""

    def nic_group(self, name: str) -> NicGroup | None:
        return next((g for g in self.nic_groups if g.name == name), None)


class TcpxImages(_Data):
    installer: str
    """NCCL + GPUDirect-TCPX plugin installer image."""
    daemon: str
    """tcpx-daemon (RxDM) image; must match the installer."""
    known_pairs: dict[str, str]
    """Installer tag -> daemon tag."""


class GibImages(_Data):
    installer: str
    """NCCL gIB plugin installer image (arm64, A4X)."""
    installer_amd64: str
    """NCCL gIB plugin installer image (amd64, A3 Ultra and A4)."""


class FabricFacts(_Data):
    """One GKE GPU fabric: what its in-cluster layer installs (catalog `fabrics:`)."""

    installers: dict[str, str]
    """Node architecture (`Machine.arch`) -> its NCCL installer, a vendored upstream manifest in
    gpu_fabric/gke/fabrics/upstream/."""
    images: str
    """Key of its pinned images under `images:` (and of its `gpu-fabric:images.<key>` override)."""
    nri_device_injector: bool = False
    """Its RxDM daemon gets its GPU devices from the NRI device injector, which comes with the
    installer (whoever owns the installer applies it too)."""
    runtime: str
    """Name of the Kubeflow Trainer ClusterTrainingRuntime wired for it (the training queue's)."""
    quiet_martians: dict[str, str] = {}
    """Node architecture -> host name of its RDMA NICs (`gpu{i}rdma0`) whose martian-packet
    logging the installer turns off first (cluster-toolkit's `disable-log-martian`)."""


class ArchImage(_Data):
    """An image whose pods run on GPU nodes: every node architecture a machine has must be in
    its manifest list, or its pods never pull there (`no matching manifest`)."""

    reference: str
    """REGISTRY/REPOSITORY:TAG@sha256:DIGEST, the digest of its multi-arch index."""
    architectures: list[str]
    """The platforms its index lists (`amd64`, `arm64`)."""
    rdma_user_space: bool
    """It ships libibverbs (rdma-core): NCCL's IB transport loads it at run time; without it
    NCCL falls back to sockets on RDMA fabrics whose device plugins inject device nodes only."""


class Images(_Data):
    tcpx: TcpxImages
    tcpxo: TcpxImages
    """The GPUDirect-TCPXO installer and RxDM (tcpgpudmarxd) daemon, a known pair."""
    nri_device_injector: str
    gib: GibImages
    pause: str
    """Pause container of the installer DaemonSets."""
    training_runtime: ArchImage
    """Default training image of every fabric's ClusterTrainingRuntime."""


class PcieRoot(_Data):
    """One PCIe root of a bare-metal GPU shape, with the GPUs and RDMA rails behind it."""

    name: str
    """`resource.kubernetes.io/pcieRoot` of its devices, e.g. `pci0000:3e`."""
    numa_node: int
    gpus: list[int]
    """GPU numbers in nvidia-smi order (DRA drivers number them differently)."""
    rails: list[str]
    """RDMA rail interface names, e.g. `rdma4`."""


class OciShape(_Data):
    """An OCI bare-metal GPU shape with RDMA rails."""

    platform: str
    gpu_model: str
    rail_speed_gbps: int
    nccl_env: dict[str, str]
    """NCCL's environment for the shape's RDMA rails (traffic class, timeouts, QPs)."""
    pcie_roots: list[PcieRoot]

    @property
    def gpu_count(self) -> int:
        return sum(len(r.gpus) for r in self.pcie_roots)

    @property
    def rail_count(self) -> int:
        return sum(len(r.rails) for r in self.pcie_roots)

    @property
    def gpus_per_root(self) -> int:
        """GPUs on each root (every root of a shape has the same, checked when loading)."""
        return len(self.pcie_roots[0].gpus)

    @property
    def rails_per_root(self) -> int:
        return len(self.pcie_roots[0].rails)

    @model_validator(mode="after")
    def _uniform_roots(self) -> OciShape:
        if len({(len(r.gpus), len(r.rails)) for r in self.pcie_roots}) != 1:
            raise ValueError("every PCIe root of a shape must have as many GPUs and rails")
        return self


class DaemonSetRef(_Data):
    name: str
    selector: dict[str, str]
    """`spec.selector.matchLabels`: how `make verify` finds its pods."""


class ChartPin(_Data):
    """A Helm chart pulled from its OCI registry at a pinned version, into its namespace."""

    chart: str
    """OCI chart reference, `oci://...`."""
    version: str
    namespace: str

    def at(self, version: str) -> ChartPin:
        """The same chart at `version` (a stack's override of the pin)."""
        return ChartPin(chart=self.chart, version=version, namespace=self.namespace)


class HelmChart(ChartPin):
    daemon_set: DaemonSetRef
    """The node DaemonSet the chart renders (what `make verify` checks)."""


class NvidiaDraChart(HelmChart):
    compute_domains_version: str
    """The chart version A4X's ComputeDomains install (`version` is OKE's)."""


class DranetChart(HelmChart):
    image_tag: str
    default_child_cidr: str
    """The OKE provider's child range when none is configured."""
    oca_rdma_cidr: str
    """Oracle Cloud Agent's RDMA range (the rails' own addresses): no child range may overlap it."""
    known_pairs: dict[str, str]
    """Chart version -> image tag: the only pairs an override may form."""

    @model_validator(mode="after")
    def _pinned_pair_known(self) -> DranetChart:
        if self.known_pairs.get(self.version) != self.image_tag:
            raise ValueError("dranet: the pinned chart version and image tag must be a known pair")
        return self


class OciRegion(_Data):
    """One OCI region, by its identifier (`us-ashburn-1`)."""

    key: str
    """The region key, lower case (`iad`): OCIDs and availability domains may name it instead."""
    realm: str
    """`oc1` (commercial), `oc2`, ...: the realm part of the region's OCIDs."""
    availability_domains: int | None = None
    """How many availability domains it has; None where not recorded (any AD number is taken)."""

    @model_validator(mode="after")
    def _sane(self) -> OciRegion:
        if not re.fullmatch(r"[a-z]{3}", self.key) or not re.fullmatch(r"oc[0-9]+", self.realm):
            raise ValueError(f"region key {self.key!r} or realm {self.realm!r} is malformed")
        if self.availability_domains is not None and not 1 <= self.availability_domains <= 3:
            raise ValueError("an OCI region has 1 to 3 availability domains")
        return self


class OciRegions(_Data):
    source: str
    regions: dict[str, OciRegion]
    """By region identifier."""

    @model_validator(mode="after")
    def _unique_keys(self) -> OciRegions:
        keys = [r.key for r in self.regions.values()]
        if len(keys) != len(set(keys)):
            raise ValueError("two OCI regions share a region key")
        return self

    def named(self, text: str) -> str | None:
        """The identifier of the region `text` names, by identifier or key (any case), or None."""
        lowered = text.lower()
        if lowered in self.regions:
            return lowered
        return next((name for name, r in self.regions.items() if r.key == lowered), None)


class ShapeNames(_Data):
    """Known names, compared with a value for a "did you mean"; a name not here is not refused."""

    source: str
    names: list[str]


class OkeCatalog(_Data):
    min_kubernetes: str
    namespace: str
    """The fabric layer's namespace: the DRA drivers' tools, test pods and claim templates."""
    dranet: DranetChart
    nccl_tests_image: str
    topology_levels: list[str]
    """Kueue's Topology levels for the GPU nodes, widest first, the node last."""
    regions: OciRegions
    cpu_shapes: ShapeNames


class AddonConfigKey(_Data):
    """One key of an add-on's config schema, as recorded."""

    type: str
    """Its JSON-schema type: `boolean`, `string`, ..."""
    verified: bool
    """False when the key is a guess (UNVERIFIED) rather than read from Alibaba's docs or schema."""
    source: str
    """Where the key comes from."""


class AddonConfigSchema(_Data):
    """An add-on's config schema (`cs.get_kubernetes_addon_metadata(...).config_schema`) as
    recorded, so that a stack's keys are checked at preview, before the cluster exists."""

    versions: str
    """The add-on versions it was recorded for."""
    source: str
    recorded: str
    """When (ISO date)."""
    keys: dict[str, AddonConfigKey]
    """By key; a dotted key is a nested property."""


class RdmaDevicePlugin(_Data):
    """The ACK add-on `ack-rdma-device-plugin` (Alibaba's Lingjun RDMA guide)."""

    name: str
    """Add-on name (`KubernetesAddon.name`)."""
    version: str
    non_host_network_min_version: str
    """First version with RDMA for non-hostNetwork pods."""
    non_host_network_key: str
    """JSON key of that switch in the add-on config (UNVERIFIED: not published)."""
    config_schema: AddonConfigSchema
    """The add-on's config keys as recorded (preview checks the switch's key against them)."""
    daemon_set: str
    namespace: str
    resource: str
    """Extended resource its pods request, e.g. `rdma/hca`."""


class LingjunNodes(_Data):
    """What ACK puts on every node of a Lingjun node pool."""

    worker_label: dict[str, str]
    gpus: int
    """GPUs of one node (`nvidia.com/gpu`)."""
    taint: dict[str, str]
    """`key` and `effect` of the taint ACK adds."""


class ReservedRange(_Data):
    """A range a network may not use, with what holds it and the source."""

    cidr: str
    what: str
    source: str

    @model_validator(mode="after")
    def _parses(self) -> ReservedRange:
        ipaddress.IPv4Network(self.cidr)
        return self


class ReservedAddresses(_Data):
    """Addresses the cloud keeps in every subnet, whatever its size."""

    count: int
    source: str


class CpfsCsi(_Data):
    """What a cluster needs to mount CPFS for Lingjun."""

    addons: list[str]
    """Add-ons the stack installs beside the cluster's CSI add-ons (`cs.KubernetesAddon` names;
    ACK's current version of each)."""
    min_kubernetes: str
    """Oldest ACK minor the driver supports."""
    source: str


class AckCatalog(_Data):
    min_kubernetes: str
    """Oldest ACK minor that takes Lingjun node pools, e.g. `1.31`."""
    cluster_spec: str
    cluster_addons: list[str]
    """Add-ons installed with the cluster (`ManagedKubernetes.addons[].name`)."""
    rdma_device_plugin: RdmaDevicePlugin
    lingjun_nodes: LingjunNodes
    topology_levels: list[str]
    """Kueue's Topology levels for the Lingjun nodes, widest first, the node last."""
    vpc_reserved_ranges: list[ReservedRange]
    """Ranges no VPC (so no vSwitch) may overlap."""
    vswitch_reserved_addresses: ReservedAddresses
    cpfs_csi: CpfsCsi


class ControllerChart(ChartPin):
    """A chart whose controller is one Deployment in its namespace."""

    controller: str
    """The controller Deployment's name under the release name gpu-fabric gives it."""
    min_version: str | None = None
    """The oldest chart version a stack may override the pin with (None: any)."""


class Workloads(_Data):
    """What users' training jobs run on, on every platform."""

    kueue: ControllerChart
    jobset: ControllerChart
    trainer: ControllerChart
    """Kubeflow Trainer, which runs TrainJobs on the fabric's ClusterTrainingRuntime."""
    trainer_for_kueue: dict[str, str]
    """Kueue minor -> the Trainer minor its TrainJob integration is built against."""
    rdma_runtime: str
    """The ClusterTrainingRuntime's name on OKE and ACK."""


class HealthPins(_Data):
    """What watches the GPU nodes on every platform (`gpu_fabric/health/`)."""

    namespace: str
    """Where the node checks, their taint controller and their alert rules live."""
    node_problem_detector: ChartPin
    """node-problem-detector, which runs the GPU and RDMA checks and reports node conditions."""
    kube_prometheus_stack: ChartPin
    """Prometheus, Alertmanager, Grafana and node-exporter where the stack installs them (OKE,
    ACK)."""
    dcgm_exporter: str
    """NVIDIA's DCGM exporter image where the stack runs it (OKE, ACK)."""
    taint_controller: str
    """The image the taint controller's script runs in (a Python)."""


class NcclThreshold(_Data):
    """The bus bandwidth an nccl-tests run must reach on one fabric (`make nccl-judge STACK=...`).

    A run passes when its busbw at `size`, out-of-place and in-place, is at least `min_busbw`.
    """

    fabric: str
    """`Machine.fabric` on GKE, the OCI shape's `platform` on OKE, `ack-lingjun` on ACK."""
    machine: str | None = None
    """The GKE machine type or OCI shape; None where the catalog has no machine for the fabric."""
    collective: str
    """The nccl-tests collective, without `_perf`: `all_gather`, `all_reduce`, ..."""
    nodes: int
    gpus_per_node: int
    """GPUs (nccl-tests ranks) per node in the run."""
    size: int
    """The judged message size in bytes, nccl-tests' `size` column."""
    busbw: float
    """The expected bus bandwidth at `size`, GB/s."""
    tolerance_pct: float
    """How far below `busbw` a run may be and still pass, in percent."""
    source: str
    """Where `busbw` comes from."""
    estimate: bool = False
    """`busbw` is derived, not published."""
    estimate_reason: str | None = None
    """Why it is an estimate and how it was derived (required with `estimate`)."""

    @model_validator(mode="after")
    def _sane(self) -> NcclThreshold:
        if self.estimate != (self.estimate_reason is not None):
            raise ValueError(
                f"nccl threshold {self.key}: an estimate needs estimate_reason (why and how it "
                "was derived), and a published figure has none"
            )
        if not 0 <= self.tolerance_pct < 100 or self.busbw <= 0 or self.size <= 0:
            raise ValueError(
                f"nccl threshold {self.key}: busbw and size must be positive and "
                "tolerance_pct in [0, 100)"
            )
        return self

    @property
    def key(self) -> str:
        """`fabric/machine collective NODESxGPUS`, how messages name the entry."""
        return (
            f"{self.fabric}/{self.machine or '-'} {self.collective} "
            f"{self.nodes}x{self.gpus_per_node}"
        )

    @property
    def min_busbw(self) -> float:
        """`busbw` less the tolerance, rounded half up to 0.01 GB/s (what nccl-tests prints)."""
        exact = Decimal(str(self.busbw)) * (100 - Decimal(str(self.tolerance_pct))) / 100
        return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class GpuFamilies(_Data):
    """One cloud's GPU machine families, by name prefix, with their source."""

    prefixes: list[str]
    source: str

    def family_of(self, machine_type: str) -> str | None:
        """The GPU family prefix `machine_type` starts with (any case), or None."""
        lowered = machine_type.lower()
        return next((p for p in self.prefixes if lowered.startswith(p.lower())), None)

    def system_pool_refusal(self, machine_type: str, kind: str, instead: str) -> str | None:
        """Why a system pool cannot take `machine_type` (None: it can): it is of a GPU family,
        and the system pool runs system pods such as CoreDNS. `kind`: what the cloud calls it
        (`machine type`, `shape`); `instead`: the CPU one to name in the fix (with its kind)."""
        family = self.family_of(machine_type)
        if family is None:
            return None
        return (
            f"is a GPU {kind} (the {family}* family; {self.source}): the system pool runs system "
            f"pods such as CoreDNS and needs no GPU; use a {instead}"
        )


class Source(_Data):
    """A document the catalog and the code cite by its id (`sources: <id>`): what a reader opens."""

    title: str
    """Its title, as the document gives it."""
    cited_as: str
    """The short name code, messages and docs call it by."""
    url: str | None = None
    """Where to read it; None when the address is not recorded (then the title is the way)."""
    version: str | None = None
    """The version or date read, where known."""


class ManagedNamespaces(_Data):
    names: list[str]
    prefixes: list[str]

    def owns(self, namespace: str) -> bool:
        return namespace in self.names or namespace.startswith(tuple(self.prefixes))


class Catalog(_Data):
    machines: dict[str, Machine]
    """GKE machine types."""
    fabrics: dict[Fabric, FabricFacts]
    """GKE's GPU fabrics, one entry each."""
    oci_shapes: dict[str, OciShape]
    images: Images
    oke: OkeCatalog
    ack: AckCatalog
    gpu_families: dict[str, GpuFamilies]
    """By cloud (`gke`, `oke`, `ack`): machine families a system pool refuses."""
    nvidia_dra_driver: NvidiaDraChart
    """The NVIDIA DRA driver for GPUs: OKE's GPUs, A4X's ComputeDomains."""
    gke_namespaces: ManagedNamespaces
    """Namespaces GKE makes and manages itself."""
    workloads: Workloads
    health: HealthPins
    nccl_thresholds: list[NcclThreshold] = []
    """Bus bandwidth floors of nccl-tests runs, per fabric, collective and node count."""
    sources: dict[str, Source] = {}
    """The documents the platforms were built from, by id (`sources: <id>` in a citation)."""

    def stack_namespaces(self) -> set[str]:
        """The namespaces the stacks' charts and layers create, on any platform."""
        pins = self.workloads
        return {
            pins.kueue.namespace,
            pins.jobset.namespace,
            pins.trainer.namespace,
            self.nvidia_dra_driver.namespace,
            self.oke.namespace,
            self.health.namespace,
            self.health.kube_prometheus_stack.namespace,
        }

    def machines_of(self, platform: str) -> dict[str, Machine]:
        """The machine types a platform (`gke-a3-high`) builds, by name."""
        return {name: m for name, m in self.machines.items() if m.platform == platform}

    @model_validator(mode="after")
    def _every_fabric_complete(self) -> Catalog:
        missing = [f.value for f in Fabric if f not in self.fabrics]
        if missing:
            raise ValueError(f"fabrics: no entry for {', '.join(missing)}")
        for name, facts in self.fabrics.items():
            if facts.images not in Images.model_fields:
                raise ValueError(f"fabrics.{name}.images: {facts.images} is not a key of images")
        for machine_type, machine in self.machines.items():
            others = {m.fabric for m in self.machines_of(machine.platform).values()}
            if others != {machine.fabric}:
                raise ValueError(
                    f"machine {machine_type}: its platform's machines differ in fabric"
                )
            if machine.arch not in self.fabrics[machine.fabric].installers:
                raise ValueError(
                    f"machine {machine_type}: fabric {machine.fabric} has no installer for "
                    f"{machine.arch} nodes"
                )
        runtime = self.images.training_runtime
        for arch in sorted({m.arch for m in self.machines.values()} | {"amd64"}):
            # OCI and Alibaba's GPU shapes here are amd64 (BM.GPU.B4.8, Lingjun's efg1).
            if arch not in runtime.architectures:
                raise ValueError(
                    f"images.training_runtime: {runtime.reference} lists no {arch} image, "
                    f"which {arch} GPU nodes pull; pick a multi-arch image"
                )
        if not runtime.rdma_user_space:
            raise ValueError(
                "images.training_runtime: an image without rdma-core leaves NCCL on sockets "
                "over RDMA NICs; pick one that ships it"
            )
        return self


def closest_known(value: str, known: list[str]) -> str | None:
    """The known value `value` most likely means: the same one in another case or with spaces
    around it, else the closest by `difflib`; None when none is close."""
    text = value.strip()
    same = next((k for k in known if k.lower() == text.lower()), None)
    if same is not None:
        return same
    by_lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(text.lower(), list(by_lower), n=1, cutoff=0.8)
    return by_lower[close[0]] if close else None


@functools.cache
def catalog() -> Catalog:
    """The parsed catalog (read once)."""
    return Catalog.model_validate(yaml_files.load(CATALOG_FILE.read_text()))
