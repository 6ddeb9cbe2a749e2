"""The stack configuration: one model per platform, picked by `gpu-fabric:platform`; loading.

`parse` validates a raw mapping (as in a stack file) into the platform's model and then runs that
platform's cross-field rules. Every failure is a `Problem` naming the stack key, the bad value and
the fix; all of them are raised together in one `ConfigError`, before any resource is registered.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from .config_base import NAMESPACE, ConfigModel, Platform
from .gke import checks as gke_checks
from .gke.config import GkeA3HighConfig, GkeA3MegaConfig, GkeA4xConfig, GkeRdmaConfig
from .oke import checks as oke_checks
from .oke.config import REGION_KEY, TENANCY_KEY, OkeDranetConfig
from .problems import MISSING, ConfigError, Problem

StackConfig = Annotated[
    GkeA3HighConfig | GkeA3MegaConfig | GkeA4xConfig | GkeRdmaConfig | OkeDranetConfig,
    Field(discriminator="platform"),
]
"""Any platform's config; `cfg.platform` says which."""

MODELS: dict[Platform, type[ConfigModel]] = {
    Platform.GKE_A3_HIGH: GkeA3HighConfig,
    Platform.GKE_A4X: GkeA4xConfig,
    Platform.GKE_A3_MEGA: GkeA3MegaConfig,
    Platform.GKE_A3_ULTRA: GkeRdmaConfig,
    Platform.GKE_A4: GkeRdmaConfig,
    Platform.OKE_DRANET: OkeDranetConfig,
}
CROSS_FIELD_RULES: dict[Platform, Callable[[Any], list[Problem]]] = {
    Platform.GKE_A3_HIGH: gke_checks.cross_field_problems,
    Platform.GKE_A4X: gke_checks.cross_field_problems,
    Platform.GKE_A3_MEGA: gke_checks.cross_field_problems,
    Platform.GKE_A3_ULTRA: gke_checks.cross_field_problems,
    Platform.GKE_A4: gke_checks.cross_field_problems,
    Platform.OKE_DRANET: oke_checks.cross_field_problems,
}
PROVIDER_KEYS: dict[str, str] = {
    "project": "gcp:project",
    "tenancyOcid": TENANCY_KEY,
    "ociRegion": REGION_KEY,
}
"""Model field (camelCase) -> the provider's own stack key it is read from."""

_ADAPTER: TypeAdapter = TypeAdapter(StackConfig)


# --- pydantic's per-field errors, in the stack file's words ------------------------------------


def _stack_key(loc: tuple) -> str:
    if loc and loc[0] in PROVIDER_KEYS:
        return PROVIDER_KEYS[loc[0]]
    path = ".".join(str(part) if not isinstance(part, int) else f"[{part}]" for part in loc)
    return f"{NAMESPACE}:{path.replace('.[', '[')}"


def _nested_models(annotation: Any) -> list[type[BaseModel]]:
    candidates = [annotation, *getattr(annotation, "__args__", ())]
    return [
        c
        for c in itertools.chain(candidates, *(getattr(c, "__args__", ()) for c in candidates))
        if isinstance(c, type) and issubclass(c, BaseModel)
    ]


def _model_at(model: type[BaseModel], path: tuple) -> type[BaseModel] | None:
    """The config model that owns the key at the end of `path` (a field path under `model`)."""
    for part in path[:-1]:
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        if field is None:  # a dict key (e.g. a NIC group name): the value's model is next
            continue
        nested = _nested_models(field.annotation)
        if not nested:
            return None
        model = nested[0]
    return model


def _has_key(model: type[BaseModel], path: tuple) -> bool:
    owner = _model_at(model, path)
    return owner is not None and any(
        path[-1] in (n, f.alias) for n, f in owner.model_fields.items()
    )


def _unknown_key(platform: Platform, path: tuple, value: Any) -> Problem:
    key = _stack_key(path)
    dotted = ".".join(str(p) for p in path if not isinstance(p, int))
    owners = [p for p, m in MODELS.items() if p is not platform and _has_key(m, path)]
    if owners:
        why = next(
            (MODELS[p].ONLY_HERE[dotted] for p in owners if dotted in MODELS[p].ONLY_HERE), ""
        )
        names = " and ".join(p.value for p in owners)
        return Problem(
            key,
            value,
            f"not for platform {platform.value}: a key of {names}"
            f"{f' ({why})' if why else ''}; remove it",
        )
    model = _model_at(MODELS[platform], path)
    known = sorted(f.alias or n for n, f in model.model_fields.items()) if model else []
    known = [k for k in known if k != "platform"]
    close = difflib.get_close_matches(str(path[-1]), known, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return Problem(key, value, f"unknown key; {hint}remove it or use one of: {', '.join(known)}")


def _problem_from_pydantic(error: dict) -> Problem:
    kind = error["type"]
    if kind == "union_tag_not_found":
        return Problem(
            f"{NAMESPACE}:platform",
            MISSING,
            f"required; one of {', '.join(p.value for p in MODELS)}",
        )
    if kind == "union_tag_invalid":
        return Problem(
            f"{NAMESPACE}:platform",
            error["ctx"]["tag"],
            f"must be one of {', '.join(p.value for p in MODELS)}",
        )
    platform, *rest = error["loc"]
    path = tuple(rest)
    key = _stack_key(path)
    if kind == "missing":
        return Problem(key, MISSING, "required; set it in the stack file")
    if kind == "extra_forbidden":
        return _unknown_key(Platform(platform), path, error["input"])
    if kind == "value_error":
        return Problem(key, error["input"], str(error["ctx"]["error"]))
    if kind == "enum":
        return Problem(key, error["input"], f"must be one of {error['ctx']['expected']}")
    if kind == "literal_error":
        return Problem(key, error["input"], f"must be {error['ctx']['expected']}")
    return Problem(key, error["input"], f"{error['msg']}; fix the value in the stack file")


# --- loading -----------------------------------------------------------------------------------


def parse(raw: dict[str, Any], stack: str = "") -> StackConfig:
    """Validate a raw config mapping (camelCase keys, as in a stack file) or raise ConfigError."""
    try:
        cfg = _ADAPTER.validate_python(raw)
    except ValidationError as err:
        raise ConfigError(stack, [_problem_from_pydantic(e) for e in err.errors()]) from None
    problems = CROSS_FIELD_RULES[cfg.platform](cfg)
    if problems:
        raise ConfigError(stack, problems)
    return cfg


def raw_from_pulumi_config(values: dict[str, Any]) -> dict[str, Any]:
    """Turn Pulumi's flat config map (`gpu-fabric:gke` -> JSON text) into a raw mapping.

    Every `gpu-fabric:*` key is kept, so an unknown top-level key is reported, not ignored; the
    provider keys of `PROVIDER_KEYS` are read under their field names.
    """
    from_provider = {stack_key: field for field, stack_key in PROVIDER_KEYS.items()}
    raw: dict[str, Any] = {}
    for key, value in values.items():
        namespace, _, name = key.partition(":")
        if key in from_provider:
            raw[from_provider[key]] = value
        elif namespace == NAMESPACE:
            raw[name] = _decode(value)
    return raw


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def load_stack_config() -> StackConfig:
    """Read and validate the current stack's config (call before registering any resource)."""
    import pulumi
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    cfg = parse(raw_from_pulumi_config(values), pulumi.get_stack())
    for warning in cfg.warnings:
        pulumi.log.warn(warning)
    return cfg
