"""The config model of every platform, from the platform specs: one union, picked by
`gpu-fabric:platform`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, Union

from pydantic import Field, TypeAdapter

from ..config_base import StackModel
from ..problems import Problem
from ..registry import SPECS, Platform

MODELS: dict[Platform, type[StackModel]] = {
    Platform(name): model for spec in SPECS for name, model in spec.platforms.items()
}
"""The config model of each platform, from the platform specs."""
CROSS_FIELD_RULES: dict[Platform, Callable[[Any], list[Problem]]] = {
    Platform(name): spec.rules for spec in SPECS for name in spec.platforms
}
if TYPE_CHECKING:
    # To a type checker, any platform's model: the union below is built from the specs at import.
    StackConfig: TypeAlias = StackModel
else:
    StackConfig = Annotated[
        Union[tuple(dict.fromkeys(MODELS.values()))],  # noqa: UP007 (built from the specs)
        Field(discriminator="platform"),
    ]
"""Any platform's config; `cfg.platform` says which."""
PROVIDER_KEYS = {key for spec in SPECS for key in spec.provider_keys}
"""The provider keys the program reads, each under its own name (a field alias)."""


@functools.cache
def adapter() -> TypeAdapter:
    """The union of every platform's model, built when first asked for: a stack of a known
    platform is validated by its own model alone (stack_config.loading)."""
    return TypeAdapter(StackConfig)
