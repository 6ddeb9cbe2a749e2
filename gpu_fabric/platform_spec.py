"""What a platform is to the rest of the program: one `PlatformSpec` per platform package.

Every registry (the config models by `gpu-fabric:platform`, their cross-field rules, the provider
keys read as fields, the stack builder, `make verify`'s checks and benchmarks, the offline plan's
mocks and views) is derived from the list of specs in `gpu_fabric/registry.py`; no shared module
names a platform (tests/test_platform_names.py). Config and checks import no component module:
the builder, the training queue, the mocks and the plan's views are the platform package's modules
of those roles, each imported only when a stack is built, planned or verified.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple, get_args

from .config_base import StackModel
from .problems import Problem


class GpuHardware(NamedTuple):
    """What a stack's GPU nodes are, as the catalog's NCCL thresholds are keyed."""

    fabric: str
    """`Machine.fabric` on GKE, the OCI shape's `platform` on OKE, the platform name on ACK."""
    machine: str | None
    """The machine type or shape; None where the catalog has none."""
    gpus_per_node: int | None


@dataclass(frozen=True)
class PlatformSpec:
    """One platform package's parts."""

    models: tuple[type[StackModel], ...]
    """Its stack config models; each one's `platform` field names the platforms it parses."""
    rules: Callable[[Any], list[Problem]]
    """Its cross-field rules: every problem of a parsed config."""
    provider_keys: tuple[str, ...]
    """Provider keys the config reads as fields (`gcp:project`)."""
    hardware: Callable[[Any], GpuHardware]
    """What a parsed config's GPU nodes are (the benchmark and the NCCL judge look them up)."""
    cloud: str
    """The cloud provider's Pulumi package: its types' prefix and its config namespace (`gcp`),
    whose keys a stack of this platform may set."""
    sdk: str
    """The provider's Python SDK module (`pulumi_gcp`): its config module lists the keys."""
    sdk_requirement: str
    """The SDK's requirement (`pulumi-gcp>=10.2.0,<11`): pyproject.toml's extra of this package
    (tests/test_platform_specs.py keeps the two equal)."""
    credential_keys: tuple[str, ...]
    """Provider keys that hold a credential: in a stack file only as Pulumi secrets."""
    credential_path_keys: tuple[str, ...] = ()
    """Those of `credential_keys` that take a file's path instead of the credential: a path is
    not a secret."""

    @property
    def package(self) -> str:
        """The platform package's name (`gke`): its folder, and its extra in pyproject.toml."""
        return self.models[0].__module__.split(".")[-2]

    @property
    def platforms(self) -> dict[str, type[StackModel]]:
        """Platform name (`gpu-fabric:platform`) -> the model that parses it."""
        return {
            getattr(value, "value", value): model
            for model in self.models
            for value in get_args(model.model_fields["platform"].annotation)
        }

    def _module(self, role: str) -> ModuleType:
        """The package's module of a role every platform package has (docs/architecture.md,
        "Adding a platform"; tests/test_platform_specs.py asks each for what is read from it),
        imported when first asked for: reading the spec imports no cloud SDK, and a package
        installed with one cloud's extra plans with another platform's mocks."""
        return importlib.import_module(f".{self.package}.{role}", __package__)

    def stack_module(self) -> ModuleType:
        """`gpu_cluster`: `GpuCluster` (a `LayeredCluster`), what a stack of it registers."""
        return self._module("gpu_cluster")

    def training_queue_module(self) -> ModuleType:
        """`training_queue`: `training_queue_of(cfg)`, the stack's training queue
        (`workloads/queues.py`), for the fabric layer and `make verify`."""
        return self._module("training_queue")

    def health_module(self) -> ModuleType:
        """`health`: `health_of(cfg)`, the stack's node health settings (`health/`), for the
        fabric layer and `make verify`."""
        return self._module("health")

    def mocks_module(self) -> ModuleType:
        """`offline_mocks`: `CloudMocks(config)`, the cloud provider's resource outputs and
        function results in the offline plan, and `UNREAD_PLACEHOLDERS`, what a provider key
        planned offline takes when the stack file leaves it to an ESC environment."""
        return self._module("offline_mocks")

    def plan_view_module(self) -> ModuleType:
        """`plan_view`: `KEY_SETTINGS` (input paths `make plan` prints per resource type), `NOUNS`
        (readable names of types, for `make graph`) and `ACRONYMS` (words it writes in
        capitals)."""
        return self._module("plan_view")


def lazy_attributes(package: str, module: str, names: tuple[str, ...]) -> Callable[[str], Any]:
    """A platform package's `__getattr__` (PEP 562): `names` come from `module` (e.g.
    `gpu_fabric.presets.gke`), imported when one is first asked for, so that reading the
    package's spec imports no cloud SDK (and the presets, above the platforms, import it)."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    return __getattr__
