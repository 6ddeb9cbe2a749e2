"""The stack config of the claims (`gpu-fabric:claims`): GPUs and rails per PCIe root."""

from __future__ import annotations

from pydantic import Field

from ...config_base import (
    ConfigModel,
)
from ..ids import (
    ClaimName,
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
