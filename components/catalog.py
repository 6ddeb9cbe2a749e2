"""Typed view of `catalog.yaml`: per-machine facts and pinned images.

The table is data; this module only parses it, so a new machine type is a YAML entry plus tests.
"""

from __future__ import annotations

import functools
import re
from enum import Enum
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, model_validator

CATALOG_FILE = Path(__file__).with_name("catalog.yaml")

_GKE_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)-gke\.(\d+)$")


@functools.total_ordering
class GkeVersion:
    """A full GKE version such as `1.33.5-gke.1080000`, ordered by (major, minor, patch, gke build)."""

    def __init__(self, text: str):
        match = _GKE_VERSION.match(text)
        if not match:
            raise ValueError(
                f"{text!r} is not a full GKE version; use the MAJOR.MINOR.PATCH-gke.BUILD form "
                "from `gcloud container get-server-config`, e.g. 1.33.5-gke.1080000"
            )
        self.text = text
        self.parts = tuple(int(p) for p in match.groups())

    @property
    def minor(self) -> str:
        """`MAJOR.MINOR`, e.g. `1.33`."""
        return f"{self.parts[0]}.{self.parts[1]}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GkeVersion) and self.parts == other.parts

    def __lt__(self, other: GkeVersion) -> bool:
        return self.parts < other.parts

    def __hash__(self) -> int:
        return hash(self.parts)

    def __str__(self) -> str:
        return self.text


def minor_tuple(minor: str) -> tuple[int, int]:
    """`"1.27"` -> `(1, 27)`, for comparing minors."""
    major, _, rest = minor.partition(".")
    return int(major), int(rest)


class DeviceMode(str, Enum):
    """`GKENetworkParamSet.spec.deviceMode` (gke-networking-api CRD enum)."""

    NET_DEVICE = "NetDevice"
    RDMA = "RDMA"
    DPDK_VFIO = "DPDK-VFIO"


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Accelerator(_Data):
    type: str
    """GKE accelerator type, e.g. `nvidia-h100-80gb`."""
    count: int
    """GPUs per node."""


class GpuNics(_Data):
    count: int
    """Additional NICs that carry GPU traffic."""
    mtu: int
    """MTU of the GPU VPCs."""
    device_mode: DeviceMode
    """`deviceMode` of the GKENetworkParamSets."""
    network_object_names: list[str]
    """Names of the Network/GKENetworkParamSet pairs, in NIC order."""

    @model_validator(mode="after")
    def _one_name_per_nic(self) -> GpuNics:
        if len(self.network_object_names) != self.count:
            raise ValueError("gpu_nics.network_object_names needs one name per GPU NIC")
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

    @model_validator(mode="after")
    def _floors_parse(self) -> GkeVersionRules:
        for floors in (self.patch_floors, self.advisory_floors):
            for minor, floor in floors.items():
                if GkeVersion(floor).minor != minor:
                    raise ValueError(f"patch floor {floor} is filed under minor {minor}")
        return self

    def floor_for(self, minor: str) -> GkeVersion | None:
        """The patch floor of a minor, or None where the minor has no floor of its own."""
        floor = self.patch_floors.get(minor)
        return GkeVersion(floor) if floor else None

    def advisory_floor_for(self, minor: str) -> GkeVersion | None:
        floor = self.advisory_floors.get(minor)
        return GkeVersion(floor) if floor else None


class Machine(_Data):
    platform: str
    """The gpu-fabric platform that builds this machine type."""
    fabric: str
    """GPU network fabric, e.g. `gpudirect-tcpx`."""
    accelerator: Accelerator
    arch: str
    """CPU architecture of the nodes (`amd64`, `arm64`)."""
    gpu_nics: GpuNics
    local_ssd_count: int
    """The exact local SSD count GKE accepts for ephemeral storage on this machine type."""
    installer: str
    """Key of the installer image set in `images`."""
    gke: GkeVersionRules


class TcpxImages(_Data):
    installer: str
    """NCCL + GPUDirect-TCPX plugin installer image."""
    daemon: str
    """tcpx-daemon (RxDM) image; must match the installer."""
    known_pairs: dict[str, str]
    """Installer tag -> daemon tag."""


class Images(_Data):
    tcpx: TcpxImages
    pause: str
    """Pause container of the installer DaemonSets."""


class Catalog(_Data):
    machines: dict[str, Machine]
    images: Images


@functools.cache
def catalog() -> Catalog:
    """The parsed catalog (read once)."""
    return Catalog.model_validate(yaml.safe_load(CATALOG_FILE.read_text()))


def image_tag(image: str) -> str:
    """The tag of an image reference (`repo/name:tag[@digest]`), or '' when it has none."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else ""
