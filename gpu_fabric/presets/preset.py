"""What every platform's presets share: a stack config written for the caller, validated as a
stack file is, and the two layers' args it makes (each platform's module here says what it
fills in; docs/architecture.md, "Machine presets").
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config_base import Layers
from ..registry import spec_of
from ..stack_config import parse
from ..stack_config.loading import parse_whole


@dataclass(frozen=True)
class Preset:
    """A validated stack config, and the two layers' args it makes."""

    config: Any
    """The platform's validated stack config (what `make plan` would plan)."""

    @property
    def cluster(self) -> Any:
        """The platform's `GpuCluster`: its layers and how the config becomes their args."""
        return spec_of(self.config.platform).stack_module().GpuCluster

    @property
    def cloud_args(self) -> Any:
        return self.cluster.cloud_args(self.config)

    def fabric_args(self, cloud: Any, provider: Any = None) -> Any:
        """The fabric layer's args on `cloud`'s cluster (the platform's cloud layer), through
        its own Kubernetes provider unless `provider` is given."""
        outputs = self.cluster.needs_of(cloud)
        return self.cluster.fabric_args(self.config, provider or cloud.kubernetes_provider, outputs)


def preset_of(raw: Mapping[str, Any], name: str, overrides: Mapping[str, Any] | None) -> Preset:
    """The preset of a stack config in the stack file's words (`raw`, with `overrides` written
    over it); raises `ConfigError` naming each refused key."""
    return Preset(parse(merged(raw, overrides or {}), f"preset {name}"))


def split_preset_of(
    raw: Mapping[str, Any], name: str, overrides: Mapping[str, Any] | None
) -> Preset:
    """`preset_of` for a platform whose API endpoint is private, so that one program cannot
    apply both layers from outside the network: the config is checked as a split deployment's
    two stacks are together (every rule of the platform, a fabric stack's view of it), and the
    caller runs each layer where it can (the cloud layer anywhere, the fabric layer from a host
    that reaches the endpoint, `fabric_args` taking the cloud layer's outputs)."""
    split = {"layers": Layers.FABRIC.value, "cloudStack": name}
    return Preset(parse_whole(merged(raw, overrides or {}) | split, f"preset {name}"))


def merged(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `overrides` written over it, mappings merged key by key."""
    result = copy.deepcopy(dict(base))
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result
