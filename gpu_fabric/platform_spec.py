"""What a platform is to the rest of the program: one `PlatformSpec` per platform package.

Every registry (the config models by `gpu-fabric:platform`, their cross-field rules, the provider
keys read as fields, the stack builder, `make verify`'s checks) is derived from the list of specs
in `gpu_fabric/registry.py`. Config and checks import no component module: the builder and the
verify checks are named by module and imported only when a stack is built or verified.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, get_args

from .config_base import StackModel
from .problems import Problem


@dataclass(frozen=True)
class PlatformSpec:
    """One platform package's parts."""

    models: tuple[type[StackModel], ...]
    """Its stack config models; each one's `platform` field names the platforms it parses."""
    rules: Callable[[Any], list[Problem]]
    """Its cross-field rules: every problem of a parsed config."""
    provider_keys: tuple[str, ...]
    """Provider keys the config reads as fields (`gcp:project`)."""
    stack: str
    """Module with `GpuCluster` (a `LayeredCluster`): what a stack of it registers, relative to
    this package (`.gke.gpu_cluster`), relative, so the package imports under any name."""
    verify: str
    """Module with `expected_from(cfg)`, `read_snapshot(expected, api_client)`, `check(...)`."""

    @property
    def platforms(self) -> dict[str, type[StackModel]]:
        """Platform name (`gpu-fabric:platform`) -> the model that parses it."""
        return {
            getattr(value, "value", value): model
            for model in self.models
            for value in get_args(model.model_fields["platform"].annotation)
        }

    def stack_module(self) -> ModuleType:
        return importlib.import_module(self.stack, __package__)

    def verify_module(self) -> ModuleType:
        return importlib.import_module(self.verify)
