"""The stack config of DRANET and the NVIDIA DRA GPU driver (`gpu-fabric:dranet`, `charts`)."""

from __future__ import annotations

from pydantic import Field

from ...config_base import (
    Cidr,
    ConfigModel,
    VersionText,
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
