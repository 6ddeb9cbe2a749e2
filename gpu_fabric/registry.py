"""The platforms this program builds: one line per platform (README, "Adding a platform")."""

from __future__ import annotations

from enum import Enum

from . import ack, gke, oke
from .platform_spec import PlatformSpec

SPECS: tuple[PlatformSpec, ...] = (gke.PLATFORM, oke.PLATFORM, ack.PLATFORM)


def spec_of(platform: str) -> PlatformSpec:
    """The spec of a platform name (`gke-a3-high`)."""
    return next(s for s in SPECS if getattr(platform, "value", platform) in s.platforms)


Platform = Enum(  # type: ignore[misc]  # built from the specs: no hand-kept list
    "Platform",
    {name.upper().replace("-", "_"): name for spec in SPECS for name in spec.platforms},
    type=str,
)
"""What a stack builds (`gpu-fabric:platform`): every platform of every spec."""
