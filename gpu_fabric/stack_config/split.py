"""A split deployment has one source of truth for each key: the stack whose layer reads it.

The cloud stack (`gpu-fabric:layers: cloud`) holds the cloud layer's keys and exports them as its
`cloudConfig` output, as validated; its fabric stack (`gpu-fabric:layers: fabric`) holds only
`platform`, `layers`, `cloudStack` and the fabric layer's keys (each model's `FABRIC_KEYS`). The
fabric stack's own file is checked alone first (`fabric_stack_of`: what it may hold, each value
as far as it is checked alone); before it registers anything, the program reads the cloud
stack's outputs and checks the two together (`FabricStack.merged`) with every rule of the
platform, so a fabric stack can never disagree with the cluster it runs on: there is no copy.
A key written in the stack whose layer does not read it is refused, naming the stack that does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ..config_base import Layers, StackModel
from ..layers import CLOUD_CONFIG_OUTPUT
from ..problems import MISSING, ConfigError, Problem
from ..problems import key as stack_key
from .references import referenced_stack

"""The cloud stack's output that holds its cloud layer's keys, as its stack file writes them, in
JSON text: a stack output's numbers reach another stack as floats (Pulumi's property values are
protobuf Struct numbers), which a whole-number key refuses; text arrives as written."""


def key_of(model: type[StackModel], name: str) -> str:
    """The stack file key of a top-level field (`gpu_nodes` -> `gpuNodes`, `oci:region`)."""
    return model.model_fields[name].alias or name


def cloud_fields(model: type[StackModel]) -> list[str]:
    """The top-level fields the cloud layer reads: all but the fabric layer's and every stack's."""
    return [
        name
        for name in model.model_fields
        if name not in model.FABRIC_KEYS and name not in model.STACK_KEYS
    ]


def cloud_keys(model: type[StackModel]) -> set[str]:
    """The raw keys of `cloud_fields` (`gpuNodes`, `oci:region`)."""
    return {key_of(model, name) for name in cloud_fields(model)}


def fabric_keys(model: type[StackModel]) -> dict[str, str]:
    """The raw keys of the model's `FABRIC_KEYS`, with where each acts."""
    return {key_of(model, name): where for name, where in model.FABRIC_KEYS.items()}


def cloud_stack_required() -> Problem:
    """A fabric stack without `gpu-fabric:cloudStack`."""
    return Problem(
        stack_key("cloudStack"),
        MISSING,
        "required with gpu-fabric:layers: fabric; name the stack that runs the cloud layer "
        "(<organization>/<project>/<stack>), whose outputs this stack reads",
    )


def _stack_file_key(key: str) -> str:
    """A top-level raw key as the stack file writes it (`gpuNodes` -> `gpu-fabric:gpuNodes`)."""
    return key if ":" in key else stack_key(key)


def cloud_config_of(cfg: StackModel) -> str:
    """What a cloud stack exports for its fabric stack (`CLOUD_CONFIG_OUTPUT`): `platform` and
    every cloud key it sets, as its stack file writes them (validated, defaults left out, so that
    the fabric stack validates exactly what the cloud stack did)."""
    model = type(cfg)
    keys = cfg.model_dump(
        mode="json", by_alias=True, exclude_unset=True, include=set(cloud_fields(model))
    )
    return json.dumps({"platform": cfg.platform, **keys}, sort_keys=True)


def misplaced_key_problems(
    model: type[StackModel], raw: Mapping[str, Any], layers: str, other_stack: str | None
) -> list[Problem]:
    """Keys written in a split stack whose layer does not read them: a cloud stack's fabric keys
    and a fabric stack's cloud keys, each naming the stack that reads it (`other_stack`: the
    fabric stack of a cloud stack, if one is known; a fabric stack's cloud stack)."""
    if layers == Layers.CLOUD.value:
        fabric = fabric_keys(model)
        there = (
            f"the fabric stack {other_stack}"
            if other_stack
            else "the fabric stack (gpu-fabric:layers: fabric) whose gpu-fabric:cloudStack is "
            "this stack"
        )
        return [
            Problem(
                _stack_file_key(key),
                value,
                f"has no effect with gpu-fabric:layers: cloud ({fabric[key]}, which the fabric "
                f"layer builds): it is a key of {there}; move it to that stack's file",
            )
            for key, value in raw.items()
            if key in fabric
        ]
    if layers == Layers.FABRIC.value:
        cloud = cloud_keys(model)
        named = other_stack or "named by gpu-fabric:cloudStack"
        return [
            Problem(
                _stack_file_key(key),
                value,
                f"is a key of the cloud stack {named}, which holds the cluster's keys: a "
                f"fabric stack reads them from that stack's `{CLOUD_CONFIG_OUTPUT}` output, so "
                "that the two cannot disagree; set it in the cloud stack's file (then its "
                "`pulumi up`) and remove it here",
            )
            for key, value in raw.items()
            if key in cloud
        ]
    return []


def top_key(problem_key: str) -> str:
    """The top-level raw key a problem's stack key is under (`gpu-fabric:dranet.childCidr` ->
    `dranet`; a provider key stays as it is)."""
    if not problem_key.startswith(stack_key("")):
        return problem_key
    return problem_key.partition(":")[2].split(".", 1)[0].split("[", 1)[0]


def without_fabric_key_problems(model: type[StackModel], problems: list[Problem]) -> list[Problem]:
    """A cloud stack's problems but those on a fabric key: there the key has its default, and its
    fabric stack, which holds the key, checks it together with this stack's keys."""
    fabric = fabric_keys(model)
    return [p for p in problems if top_key(p.key) not in fabric]


@dataclass(frozen=True)
class FabricStack:
    """A fabric stack's own config, checked alone: its fabric keys as written. `merged` adds the
    cloud stack's `cloudConfig` and gives the whole stack config, checked by every rule."""

    model: type[StackModel]
    """The platform's config model."""
    stack: str
    cloud_stack: str
    raw: dict[str, Any]
    """`platform`, `layers`, `cloudStack` and the fabric keys, as written."""
    secret: frozenset[str]
    """The raw keys Pulumi holds as secrets."""
    validate_whole: Callable[[dict[str, Any], str, frozenset[str]], StackModel] = field(
        repr=False, compare=False
    )
    """The loader's whole-config validation (stack_config.loading.parse_whole)."""

    layers = Layers.FABRIC
    owned_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """A fabric stack names no cloud resource (its cloud stack's names are checked there)."""
    warnings: tuple[str, ...] = ()

    @property
    def platform(self) -> str:
        return self.raw["platform"]

    def merged(self, cloud_config: Any, cloud_secret: bool) -> StackModel:
        """The whole stack config: `cloud_config` (the cloud stack's `cloudConfig` output, None
        if it has none) under this stack's own keys, checked by every rule of the platform.
        `cloud_secret`: the output is a Pulumi secret (its values are not shown in a problem)."""
        reference = self.cloud_stack
        reference_key = stack_key("cloudStack")
        if isinstance(cloud_config, str):
            try:
                cloud_config = json.loads(cloud_config)
            except ValueError:
                cloud_config = None
        if not isinstance(cloud_config, Mapping):
            raise ConfigError(
                self.stack,
                [
                    Problem(
                        reference_key,
                        reference,
                        f"that stack has no `{CLOUD_CONFIG_OUTPUT}` output, which a gpu-fabric "
                        "cloud stack (gpu-fabric:layers: cloud) exports: name the cloud stack "
                        "(a stack that runs both layers, or a fabric stack, has none); if it is "
                        f"one, its last `pulumi up` ran an older gpu-fabric (run `pulumi up -s "
                        f"{reference}`: it adds the output and changes no resource), or its "
                        "secrets cannot be decrypted from here (its secrets provider must be "
                        "readable by this stack's runner)",
                    )
                ],
            )
        theirs = cloud_config.get("platform")
        if theirs != self.platform:
            raise ConfigError(
                self.stack,
                [
                    Problem(
                        reference_key,
                        reference,
                        f"names a stack that runs {theirs} and this stack runs {self.platform}: "
                        f"name the cloud stack of this stack's {self.platform} cluster",
                    )
                ],
            )
        cloud = cloud_keys(self.model)
        foreign = sorted(set(cloud_config) - cloud - {"platform"})
        if foreign:
            raise ConfigError(
                self.stack,
                [
                    Problem(
                        reference_key,
                        reference,
                        f"that stack's `{CLOUD_CONFIG_OUTPUT}` holds {', '.join(foreign)}, which "
                        "this version of gpu-fabric does not take from a cloud stack: the two "
                        "stacks ran different gpu-fabric versions; run both with one (then "
                        f"`pulumi up -s {reference}` first)",
                    )
                ],
            )
        raw = {k: v for k, v in cloud_config.items() if k != "platform"} | self.raw
        secret = self.secret | (frozenset(cloud_config) - {"platform"} if cloud_secret else set())
        try:
            return self.validate_whole(raw, self.stack, frozenset(secret))
        except ConfigError as err:
            raise ConfigError(self.stack, [self._located(p, cloud) for p in err.problems]) from None

    def _located(self, problem: Problem, cloud: set[str]) -> Problem:
        """A problem on a key of the cloud stack says where that key is set."""
        if top_key(problem.key) not in cloud:
            return problem
        return Problem(
            problem.key,
            problem.value,
            f"{problem.message} (a key of the cloud stack {self.cloud_stack}, read from its "
            f"`{CLOUD_CONFIG_OUTPUT}` output: change it there and run its `pulumi up`, or change "
            "this stack's keys)",
        )


def fabric_stack_of(
    model: type[StackModel],
    raw: dict[str, Any],
    stack: str,
    secret: frozenset[str],
    validate: Callable[[dict[str, Any]], StackModel],
    validate_whole: Callable[[dict[str, Any], str, frozenset[str]], StackModel],
    problem_of: Callable[[Any, frozenset[str]], Problem],
) -> FabricStack:
    """A fabric stack's own file, checked alone, or ConfigError: a cloud key in it is refused
    naming the cloud stack; the fabric keys are validated by the platform's model (every problem
    but the cloud keys it does not hold). The rules that take the whole config run in `merged`."""
    reference = raw.get("cloudStack")
    named = referenced_stack(reference) if isinstance(reference, str) else None
    problems = misplaced_key_problems(model, raw, Layers.FABRIC.value, named)
    cloud = cloud_keys(model)
    own = {k: v for k, v in raw.items() if k not in cloud}
    try:
        validate(own)
    except ValidationError as err:
        problems += [
            problem_of(e, secret)
            for e in err.errors()
            if not (e["type"] == "missing" and len(e["loc"]) == 1 and e["loc"][0] in cloud)
        ]
    if reference is None and not any(p.key == stack_key("cloudStack") for p in problems):
        problems.append(cloud_stack_required())
    layers = raw.get("layers")
    if layers in (None, Layers.ALL.value):
        # A file with a cloudStack and no cluster keys is a fabric stack that left out or lost
        # its `layers` (default `all`): that key is the one to fix, not the cluster keys.
        problems.append(
            Problem(
                stack_key("layers"),
                layers if layers is not None else MISSING,
                "this file names gpu-fabric:cloudStack, which only a fabric stack reads, so it "
                "runs the fabric layer; set gpu-fabric:layers: fabric (a stack that runs both "
                "layers names no cloudStack: remove it and add the cluster's keys)",
            )
        )
    if problems:
        raise ConfigError(stack, problems)
    assert isinstance(reference, str)  # the model took it, and it is required here
    return FabricStack(
        model=model,
        stack=stack,
        cloud_stack=reference,
        raw=own,
        secret=secret,
        validate_whole=validate_whole,
    )
