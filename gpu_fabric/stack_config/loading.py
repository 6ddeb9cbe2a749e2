"""Loading: Pulumi's config map into the stack's validated config, every problem in one
`ConfigError` before any resource is registered."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from ..config_base import Layers, StackModel
from ..layers import CLOUD_CONFIG_OUTPUT
from ..problems import NAMESPACE, ConfigError, Problem
from ..problems import key as stack_key
from ..pulumi_internals import sdk
from ..registry import Platform
from ..secrets import secret_texts
from ..stack_file import STACKS_DIR, file_config_and_secrets
from .copies import copied_stack_problems
from .masking import without_secrets
from .models import CROSS_FIELD_RULES, MODELS, PROVIDER_KEYS, StackConfig, adapter
from .namespaces import OTHER_NAMESPACES, credential_problems, key_problems
from .pydantic_errors import problem_from_pydantic
from .references import (
    cloud_stack_problems,
    fabric_stack_reading,
    reader_problems,
    referenced_stack,
)
from .second_round import cross_field_problems_despite
from .split import (
    FabricStack,
    cloud_config_of,
    cloud_keys,
    cloud_stack_required,
    fabric_keys,
    fabric_stack_of,
    misplaced_key_problems,
    without_fabric_key_problems,
)
from .written import written_problems


def parse(
    raw: dict[str, Any],
    stack: str = "",
    secret: frozenset[str] = frozenset(),
    fabric_stack: str | None = None,
) -> StackConfig | FabricStack:
    """Validate a raw config mapping (camelCase keys, as in a stack file) or raise ConfigError.

    `secret`: the raw mapping's top-level keys that Pulumi holds as secrets (their problems say
    so: a secret is text, and only a text key may hold one). A fabric stack's file holds only its
    own keys: it gives a `FabricStack`, whose `merged` with its cloud stack's outputs is the whole
    config (stack_config/split.py). `fabric_stack`: the stack that reads this cloud stack, if
    known (a fabric key here is refused naming it)."""
    platform = _known_platform(raw)
    if platform is not None and _is_fabric_stack(raw, MODELS[platform]):
        written = without_secrets(written_problems(raw), raw, secret)
        try:
            fabric = fabric_stack_of(
                MODELS[platform],
                raw,
                stack,
                secret,
                _validated,
                parse_whole,
                lambda error, secret: problem_from_pydantic(
                    cast(ErrorDetails, {**error, "loc": (platform.value, *error["loc"])}), secret
                ),
            )
        except ConfigError as err:
            keys = {p.key for p in written}
            found = without_secrets([p for p in err.problems if p.key not in keys], raw, secret)
            raise ConfigError(stack, written + found) from None
        if written:
            raise ConfigError(stack, written)
        return fabric
    return parse_whole(raw, stack, secret, fabric_stack)


def _is_fabric_stack(raw: dict[str, Any], model: type[StackModel]) -> bool:
    """A fabric stack's file: `layers: fabric`, or a `cloudStack` with a `layers` that is no
    value (a typo), or missing or `all` in a file without the cluster's keys: the problem is then
    that key, not every cluster key the file rightly leaves out (whose fix, adding them, would be
    refused as misplaced)."""
    layers = raw.get("layers")
    if layers == Layers.FABRIC.value:
        return True
    if "cloudStack" not in raw or layers == Layers.CLOUD.value:
        return False
    known = {layer.value for layer in Layers}
    mistyped = "layers" in raw and not (isinstance(layers, str) and layers in known)
    return mistyped or not set(raw) & cloud_keys(model)


def parse_whole(
    raw: dict[str, Any],
    stack: str = "",
    secret: frozenset[str] = frozenset(),
    fabric_stack: str | None = None,
) -> StackConfig:
    """`parse` of a whole stack config (a fabric stack's: merged with its cloud stack's)."""
    written = without_secrets(written_problems(raw), raw, secret)
    platform = _known_platform(raw)
    if platform is not None and raw.get("layers") == Layers.CLOUD.value:
        model = MODELS[platform]
        misplaced = misplaced_key_problems(model, raw, Layers.CLOUD.value, fabric_stack)
        written += without_secrets(misplaced, raw, secret)
        raw = {k: v for k, v in raw.items() if k not in fabric_keys(model)}
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
    problems = layer_problems(cfg) + CROSS_FIELD_RULES[Platform(cfg.platform)](cfg)
    if cfg.layers is Layers.CLOUD:
        # A fabric key's value is its fabric stack's, which checks it with this stack's keys.
        return without_fabric_key_problems(type(cfg), problems)
    return problems


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


def layer_problems(cfg) -> list[Problem]:
    """`gpu-fabric:layers` and `gpu-fabric:cloudStack` go together."""
    if cfg.layers is Layers.FABRIC and cfg.cloud_stack is None:
        return [cloud_stack_required()]
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
    raw = raw_from_pulumi_config(known, project)
    reader = None
    if stacks_dir is not None and raw.get("layers") == Layers.CLOUD.value:
        reader = fabric_stack_reading(stack, stacks_dir, project)
    try:
        cfg = parse(raw, stack, secret, reader)
    except ConfigError as err:
        raise ConfigError(stack, problems + err.problems) from None
    if stacks_dir is not None:
        # A wrong reference is reported as what it is, not as a copy of the stack it names.
        wrong_reference = cloud_stack_problems(stack, cfg, stacks_dir, project)
        wrong_reference = wrong_reference or reader_problems(stack, cfg, stacks_dir, project)
        problems += wrong_reference or copied_stack_problems(
            stack, cfg, stacks_dir, project, parse_pulumi_config
        )
    if problems:
        raise ConfigError(stack, problems)
    return cfg


def parse_with_cloud_stack_file(
    values: dict[str, Any], stack: str, project: str = NAMESPACE, stacks_dir: Path = STACKS_DIR
) -> StackConfig:
    """`parse_pulumi_config`, and a fabric stack merged with the cloud stack whose file is in
    `stacks_dir`, as its `cloudConfig` output would give it once that file is deployed: for the
    commands that read a stack without the engine (`make verify`, the NCCL judge, the scan)."""
    cfg = parse_pulumi_config(values, stack, project, stacks_dir)
    if not isinstance(cfg, FabricStack):
        return cfg
    named = referenced_stack(cfg.cloud_stack)
    path = stacks_dir / f"Pulumi.{named}.yaml"
    parts = cfg.cloud_stack.split("/")
    if len(parts) == 3 and parts[1] != project:
        raise ConfigError(
            stack,
            [
                Problem(
                    stack_key("cloudStack"),
                    cfg.cloud_stack,
                    f"names a stack of project {parts[1]}, whose stack file is not beside this "
                    f"one (project {project}); run this command in that stack's checkout",
                )
            ],
        )
    if not path.is_file():
        raise ConfigError(
            stack,
            [
                Problem(
                    stack_key("cloudStack"),
                    cfg.cloud_stack,
                    f"read here from {path}, which does not exist: a fabric stack's cluster "
                    "keys are its cloud stack's; put that stack's file beside this one",
                )
            ],
        )
    cloud_values, secret_keys = file_config_and_secrets(path)
    cloud = parse_pulumi_config(cloud_values, named, project, stacks_dir, secret_keys)
    return cfg.merged(cloud_config_of(cloud), bool(secret_keys))


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

    from .in_program import cloud_stack_outputs, refused

    values = {**sdk("config_env")(), **sdk("config_values").get()}
    secret_keys = [k for k in values if sdk("is_config_secret")(k)]
    secret_keys += sdk("config_secret_keys_env")()
    plain_credentials = credential_problems(values, set(secret_keys))
    stack = pulumi.get_stack()
    try:
        cfg = parse_pulumi_config(values, stack, pulumi.get_project(), secret_keys=secret_keys)
        if plain_credentials:
            raise ConfigError(stack, plain_credentials)
        texts = secret_texts(values, secret_keys)
        if isinstance(cfg, FabricStack):
            outputs, secret_outputs = cloud_stack_outputs(stack, cfg.cloud_stack)
            exported = outputs.get(CLOUD_CONFIG_OUTPUT)
            cloud_secret = CLOUD_CONFIG_OUTPUT in secret_outputs
            cfg = cfg.merged(exported, cloud_secret)
            if cloud_secret:
                # The output says only that some cloud key is secret, not which: every text of
                # it stays secret in what this stack derives from it.
                texts |= secret_texts({"cloud": exported}, ["cloud"])
    except ConfigError as err:
        raise refused(err) from None
    for warning in cfg.warnings:
        pulumi.log.warn(warning)
    return cfg, texts
