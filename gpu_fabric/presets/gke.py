"""Machine presets: a GKE family's two layers from what only their owner knows.

    from gpu_fabric.gke import a3_high

    a3 = a3_high("train", project="my-project", region="us-central1", zone="us-central1-c",
                 version="1.33", gpu_subnets=[f"192.168.{n}.0/24" for n in range(1, 5)],
                 primary=PrimaryRanges("10.0.0.0/20", "10.64.0.0/19", "10.65.0.0/19"))
    cloud = GkeCloud("train", a3.cloud_args)
    fabric = GkeFabric("train", a3.fabric_args(cloud))

A preset writes the stack config a stack file of that family would hold and validates it as
`pulumi up` does (every rule of the stack config, `make plan`'s wording), so the machine type,
MTUs, NIC and VPC names, local SSDs, boot disk, driver and pinned images come from the catalog
through the same code the repository's own stacks use (`from_stack.cloud_args`,
`gpu_cluster.fabric_args`, by way of gpu_fabric/presets/preset.py).
Anything else a stack file may set goes in `overrides`, in the stack file's words
(`{"gpuPool": {"reservation": "my-reservation"}}`; docs/config-reference.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..catalog import catalog
from ..gke.config import GCP_PROJECT_KEY
from .preset import Preset, preset_of


class PrimaryRanges(NamedTuple):
    """The primary VPC's subnet and its secondary ranges for pods and services."""

    subnet_cidr: str
    pods_cidr: str
    services_cidr: str


def preset(
    platform: str,
    name: str,
    *,
    project: str,
    region: str,
    zone: str,
    version: str,
    nic_subnets: Mapping[str, list[str]],
    primary: PrimaryRanges,
    node_count: int = 2,
    machine_type: str | None = None,
    reservation: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Preset:
    """The preset of `platform` (`gke-a3-high`): its catalog machine (`machine_type` where the
    platform has several) in one pool of `node_count` nodes in `zone` (from `reservation`, which A3
    Ultra, A4 and A4X need), each NIC group's subnets in NIC order (`{"gpu": [...]}`), the cluster
    named `name` (also the prefix of its VPCs). Raises `ConfigError` naming each refused key."""
    if machine_type is None:
        machines = sorted(catalog().machines_of(platform))
        if len(machines) != 1:
            raise ValueError(f"{platform} builds {machines}: name one as machine_type")
        (machine_type,) = machines
    raw: dict[str, Any] = {
        "platform": platform,
        GCP_PROJECT_KEY: project,
        "region": region,
        "network": {
            "prefix": name,
            "nics": {group: {"subnets": list(cidrs)} for group, cidrs in nic_subnets.items()},
            "primary": {
                "subnetCidr": primary.subnet_cidr,
                "podsCidr": primary.pods_cidr,
                "servicesCidr": primary.services_cidr,
            },
        },
        "gke": {"name": name, "version": version},
        "gpuPool": {
            "name": machine_type.rsplit("-", 1)[0],  # a3-highgpu, as the stack files name it
            "machineType": machine_type,
            "zone": zone,
            "nodeCount": node_count,
        },
    }
    if reservation is not None:
        raw["gpuPool"]["reservation"] = {"name": reservation}
    return preset_of(raw, name, overrides)


def a3_high(name: str, *, gpu_subnets: list[str], **common: Any) -> Preset:
    """a3-highgpu-8g over GPUDirect-TCPX: four GPU NICs, one VPC each (`gpu_subnets`, 4)."""
    return preset("gke-a3-high", name, nic_subnets={"gpu": gpu_subnets}, **common)


def a3_mega(name: str, *, gpu_subnets: list[str], **common: Any) -> Preset:
    """a3-megagpu-8g over GPUDirect-TCPXO: eight GPU NICs, one VPC each (`gpu_subnets`, 8)."""
    return preset("gke-a3-mega", name, nic_subnets={"gpu": gpu_subnets}, **common)


def a3_ultra(name: str, *, gvnic_subnet: str, rdma_subnets: list[str], **common: Any) -> Preset:
    """a3-ultragpu-8g over gIB: a gVNIC VPC and a RoCE VPC of eight subnets."""
    return preset("gke-a3-ultra", name, nic_subnets=_gib(gvnic_subnet, rdma_subnets), **common)


def a4(name: str, *, gvnic_subnet: str, rdma_subnets: list[str], **common: Any) -> Preset:
    """a4-highgpu-8g over gIB: a gVNIC VPC and a RoCE VPC of eight subnets."""
    return preset("gke-a4", name, nic_subnets=_gib(gvnic_subnet, rdma_subnets), **common)


def a4x(name: str, *, gvnic_subnet: str, rdma_subnets: list[str], **common: Any) -> Preset:
    """a4x-highgpu-4g (GB200) over gIB: a gVNIC VPC and a RoCE VPC of four subnets."""
    return preset("gke-a4x", name, nic_subnets=_gib(gvnic_subnet, rdma_subnets), **common)


def _gib(gvnic_subnet: str, rdma_subnets: list[str]) -> dict[str, list[str]]:
    return {"gvnic": [gvnic_subnet], "rdma": rdma_subnets}
