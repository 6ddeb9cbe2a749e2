"""The base of every stack-config section: how a stack file's keys are read."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ConfigModel(BaseModel):
    """A section of stack config: camelCase keys, unknown keys refused, immutable once parsed.

    Strict: a value is used as written or refused, never coerced (`nodeCount: yes` is not 1, a
    version `1.30` is not the text "1.3", an empty text is not "the default"). Keys are read by
    their stack-file names (aliases) only, so `gpu-fabric:project` cannot stand in for the
    provider's own `gcp:project`.
    """

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        str_min_length=1,
        alias_generator=to_camel,
        validate_by_name=False,
        validate_by_alias=True,
        defer_build=True,
    )
