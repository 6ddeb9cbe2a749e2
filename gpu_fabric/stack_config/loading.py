"""Loading: Pulumi's config map into the stack's validated config, every problem in one
`ConfigError` before any resource is registered."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..config_base import NAMESPACE, Layers
from ..problems import MISSING, ConfigError, Problem
from ..problems import key as stack_key
from ..pulumi_internals import sdk
from ..registry import Platform
from ..secrets import secret_texts
from ..stack_file import STACKS_DIR
from .copies import copied_stack_problems
from .masking import without_secrets
from .models import CROSS_FIELD_RULES, MODELS, PROVIDER_KEYS, StackConfig, adapter
from .namespaces import OTHER_NAMESPACES, credential_problems, key_problems
from .pydantic_errors import problem_from_pydantic
from .references import cloud_stack_problems
from .second_round import cross_field_problems_despite
from .written import written_problems


def parse(
    raw: dict[str, Any], stack: str = "", secret: frozenset[str] = frozenset()
) -> StackConfig:
    """Validate a raw config mapping (camelCase keys, as in a stack file) or raise ConfigError.

    `secret`: the raw mapping's top-level keys that Pulumi holds as secrets (their problems say
    so: a secret is text, and only a text key may hold one)."""
    written = without_secrets(written_problems(raw), raw, secret)
    try:
        cfg = _validated(raw)
    except ValidationError as err:
        keys = {p.key for p in written}
        found = [problem_from_pydantic(e, secret) for e in _as_the_union_reports(err, raw)]
        found = without_secrets(found, raw, secret)
        first = written + [p for p in found if p.key not in keys]
        raise ConfigError(stack, first + _despite(raw, err, first, secret)) from None
    if written:
        raise ConfigError(stack, written)
    problems = _whole_config_problems(cfg)
    if problems:
        raise ConfigError(stack, without_secrets(problems, raw, secret))
    return cfg


def _whole_config_problems(cfg: StackConfig) -> list[Problem]:
    return layer_problems(cfg) + CROSS_FIELD_RULES[Platform(cfg.platform)](cfg)


def _despite(
    raw: dict[str, Any], err: ValidationError, first: list[Problem], secret: frozenset[str]
) -> list[Problem]:
    """The whole-config rules' problems the first round's refusals would otherwise hide (only
    for a known platform: the rules are the platform's)."""
    if _known_platform(raw) is None:
        return []
    found = cross_field_problems_despite(
        raw,
        [tuple(e["loc"]) for e in err.errors()],
        {p.key for p in first},
        _validated,
        _whole_config_problems,
    )
    return without_secrets(found, raw, secret)


def _validated(raw: dict[str, Any]) -> StackConfig:
    """The config model of the raw mapping's platform, validated. As JSON, which is what Pulumi
    hands a program: strict models then take enum values and literals as written, and refuse
    every coercion (see ConfigModel). A known platform's own model validates it (the models'
    schemas are built on first use, so a plan builds only its platform's); the union of every
    model, otherwise, says what the platform must be."""
    platform = _known_platform(raw)
    if platform is None:
        return adapter().validate_json(json.dumps(raw))
    return MODELS[platform].model_validate_json(json.dumps(raw))


def _known_platform(raw: dict[str, Any]) -> Platform | None:
    value = raw.get("platform")
    return next((p for p in MODELS if isinstance(value, str) and value == p.value), None)


def _as_the_union_reports(err: ValidationError, raw: dict[str, Any]) -> list:
    """The errors, each located under its platform (the union's tag) as the union reports them."""
    platform = _known_platform(raw)
    if platform is None:
        return list(err.errors())
    return [{**e, "loc": (platform.value, *e["loc"])} for e in err.errors()]


FABRIC_FIELDS = {
    "queues": "the training queue is in the cluster",
    "node_wait_timeout": "the wait for usable GPU nodes is in-cluster",
}
"""Top-level fields only the fabric layer reads, with where they act."""


def _as_written(value: Any) -> Any:
    return (
        value.model_dump(by_alias=True, exclude_defaults=True)
        if hasattr(value, "model_dump")
        else value
    )


def layer_problems(cfg) -> list[Problem]:
    """`gpu-fabric:layers` and `gpu-fabric:cloudStack` go together."""
    if cfg.layers is Layers.FABRIC and cfg.cloud_stack is None:
        return [
            Problem(
                stack_key("cloudStack"),
                MISSING,
                "required with gpu-fabric:layers: fabric; name the stack that runs the cloud "
                "layer (<organization>/<project>/<stack>), whose outputs this stack reads",
            )
        ]
    in_the_cluster = [f for f in FABRIC_FIELDS if f in cfg.model_fields_set]
    if cfg.layers is Layers.CLOUD and in_the_cluster:
        return [
            Problem(
                stack_key(type(cfg).model_fields[name].alias or name),
                _as_written(getattr(cfg, name)),
                f"has no effect with gpu-fabric:layers: cloud ({FABRIC_FIELDS[name]}, which the "
                "fabric stack runs); move it to the fabric stack's file",
            )
            for name in in_the_cluster
        ]
    if cfg.layers is not Layers.FABRIC and cfg.cloud_stack is not None:
        return [
            Problem(
                stack_key("cloudStack"),
                cfg.cloud_stack,
                f"has no effect with gpu-fabric:layers: {cfg.layers.value} (only a fabric stack "
                "reads another stack); remove it, or set gpu-fabric:layers: fabric",
            )
        ]
    return []


def parse_pulumi_config(
    values: dict[str, Any],
    stack: str,
    project: str = NAMESPACE,
    stacks_dir: Path | None = STACKS_DIR,
    secret_keys: Collection[str] = (),
):
    """Validate Pulumi's config map (keys and values) into the stack's config, or raise.

    `stacks_dir`: the stack files whose names this stack must not take (None: do not look).
    `secret_keys`: the keys Pulumi holds as secrets (`gpu-fabric:gpuNodes`, `gcp:project`).
    """
    problems = key_problems(values, project)
    known = {k: v for k, v in values.items() if k.partition(":")[0] in (project, *OTHER_NAMESPACES)}
    secret = frozenset(
        key if key in PROVIDER_KEYS else key.partition(":")[2]
        for key in secret_keys
        if key in PROVIDER_KEYS or key.partition(":")[0] == project
    )
    try:
        cfg = parse(raw_from_pulumi_config(known, project), stack, secret)
    except ConfigError as err:
        raise ConfigError(stack, problems + err.problems) from None
    if stacks_dir is not None:
        # A wrong reference is reported as what it is, not as a copy of the stack it names.
        wrong_reference = cloud_stack_problems(stack, cfg, stacks_dir, project)
        problems += wrong_reference or copied_stack_problems(stack, cfg, stacks_dir, project)
    if problems:
        raise ConfigError(stack, problems)
    return cfg


def raw_from_pulumi_config(values: dict[str, Any], project: str = NAMESPACE) -> dict[str, Any]:
    """Turn Pulumi's flat config map (`gpu-fabric:gke` -> JSON text) into a raw mapping.

    Every `gpu-fabric:*` key is kept, so an unknown top-level key is reported, not ignored; the
    provider keys of `PROVIDER_KEYS` are read under their field names.
    """
    raw: dict[str, Any] = {}
    for key, value in values.items():
        namespace, _, name = key.partition(":")
        if key in PROVIDER_KEYS:
            raw[key] = value
        elif namespace == project and "." not in name:
            raw[name] = _decode(value)
    return raw


def _decode(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def load_stack_config() -> tuple[StackConfig, set[str]]:
    """Read and validate the current stack's config (call before registering any resource).

    Also returns the texts of its secret keys, which must stay secret in whatever uses them.
    """
    import pulumi

    values = {**sdk("config_env")(), **sdk("config_values").get()}
    secret_keys = [k for k in values if sdk("is_config_secret")(k)]
    secret_keys += sdk("config_secret_keys_env")()
    plain_credentials = credential_problems(values, set(secret_keys))
    cfg = parse_pulumi_config(
        values, pulumi.get_stack(), pulumi.get_project(), secret_keys=secret_keys
    )
    if plain_credentials:
        raise ConfigError(pulumi.get_stack(), plain_credentials)
    for warning in cfg.warnings:
        pulumi.log.warn(warning)
    return cfg, secret_texts(values, secret_keys)
