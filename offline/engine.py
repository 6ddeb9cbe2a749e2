"""The repository's stack program, planned in-process under Pulumi mocks from its stack files.

This is how gpu-fabric is seen on a machine without the Pulumi CLI or provider plugins: the
offline plan (`make plan`) and the tests both use it. Nothing here talks to a cloud. The engine
itself is the package's (`gpu_fabric/testing/engine.py`); this module reads the stack files as
the CLI would (ESC environments and encrypted values planned with placeholders, a fabric stack's
cloud stack planned first) and runs `program/__main__.py` with it.
"""

from __future__ import annotations

import json
import re
import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from gpu_fabric.config_base import is_stack_reference
from gpu_fabric.problems import MISSING, ConfigError, Problem
from gpu_fabric.registry import SPECS, spec_of
from gpu_fabric.stack_file import (  # noqa: F401 (the plan's readers take them from here)
    SECRET_PLACEHOLDER,
    STACKS_DIR,
    read_stack_file,
    stack_config,
    stack_config_and_secrets,
    stack_environments,
)
from gpu_fabric.testing.engine import (  # noqa: F401 (the plan's readers take them from here)
    HELM_RELEASE,
    Plan,
    Registration,
    _RecordingMonitor,
    manifest,
    run_program,
)

ROOT = Path(__file__).resolve().parents[1]
PROJECT = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())["name"]
PROGRAM = ROOT / "program" / "__main__.py"


LAST_RUN: Plan | None = None
"""The most recent run's plan, kept even when the program raised (tests inspect it)."""


def _unread_placeholders() -> dict[str, str]:
    """What a provider key takes offline when its value cannot be read: every cloud's mocks'."""
    return {k: v for spec in SPECS for k, v in spec.mocks_module().UNREAD_PLACEHOLDERS.items()}


def _with_environment_placeholders(
    stack: str, values: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """A stack file that imports Pulumi ESC environments, planned offline: their config cannot be
    read here, so each provider key the platform needs and the file leaves to them gets the
    mocks' placeholder, and a warning names it unchecked (the real CLI reads the environment and
    checks it)."""
    environments = stack_environments(STACKS_DIR / f"Pulumi.{stack}.yaml")
    platform = values.get(f"{PROJECT}:platform")
    if not environments or not isinstance(platform, str):
        return values, []
    try:
        spec = spec_of(platform)
    except StopIteration:
        return values, []  # the program names the unknown platform
    placeholders = _unread_placeholders()
    missing = [key for key in spec.provider_keys if key not in values and key in placeholders]
    if not missing:
        return values, []
    names = ", ".join(map(str, environments))
    warnings = [
        f"{key}: not in the stack file, and the ESC environment(s) it imports ({names}) are not "
        f"read offline: planned with the placeholder {placeholders[key]!r}, unchecked; `pulumi "
        "preview` reads the environment and checks it"
        for key in missing
    ]
    return {**values, **{key: placeholders[key] for key in missing}}, warnings


def _with_secret_stand_ins(
    stack: str, values: dict[str, str], secret_keys: list[str]
) -> tuple[dict[str, str], list[str]]:
    """A stack file's encrypted (`secure:`) values, planned offline: the real CLI decrypts them
    and the program checks them then; here they read as SECRET_PLACEHOLDER, which a range, a name
    or a choice check refuses. Each such value gives way to its field's default (a provider key:
    the mocks' placeholder), with a warning naming it unchecked. A required field without a
    default cannot be planned offline: the problem says so."""
    from gpu_fabric.stack_config import parse_pulumi_config

    warnings: list[str] = []
    if not secret_keys:
        return values, warnings  # nothing encrypted: nothing to stand in for
    stood_in: set[str] = set()
    for _ in range(len(values) + 1):
        try:
            parse_pulumi_config(values, stack, PROJECT, stacks_dir=None, secret_keys=secret_keys)
            return values, warnings
        except ConfigError as err:
            # Masked as secret or not, a field without a default is then reported as not set.
            required = [
                p
                for p in err.problems
                if p.key in stood_in and (p.value is MISSING or p.message.startswith("required"))
            ]
            if required:
                raise ConfigError(
                    stack,
                    [
                        Problem(
                            p.key,
                            SECRET_PLACEHOLDER,
                            "is encrypted (secure:) and required, with no default to plan with "
                            "offline: check it with `pulumi preview`, which decrypts it, or "
                            "keep it in plain text",
                        )
                        for p in required
                    ],
                ) from None
            undecrypted = [p.key for p in err.problems if p.value == SECRET_PLACEHOLDER]
            if not undecrypted:
                return values, warnings  # the program reports what is wrong
            stood_in.update(undecrypted)
            changed = {**values}
            for key in undecrypted:
                changed = _without(changed, key)
                warnings.append(
                    f"{key}: encrypted (secure:), so the offline plan cannot read it: planned "
                    "with its default, unchecked; `pulumi preview` decrypts and checks it"
                )
            if changed == values:
                return values, warnings
            values = changed
    return values, warnings


def _without(values: dict[str, str], key: str) -> dict[str, str]:
    """`values` without the stack key `key` (`gpu-fabric:network.primary.subnetCidr`,
    `gcp:project`): a provider key takes its cloud's offline placeholder, a nested one its
    field's default."""
    placeholders = _unread_placeholders()
    if key in placeholders:
        return {**values, key: placeholders[key]}
    namespace, _, path = key.partition(":")
    top, _, rest = path.partition(".")
    text = values.get(f"{namespace}:{top}")
    if not rest or not isinstance(text, str):
        return {k: v for k, v in values.items() if k != key}
    document = json.loads(text)
    parts = [p for p in re.split(r"\.|\[(\d+)\]", rest) if p]
    node = document
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.get(part, {})
    if not isinstance(node, dict):
        return values  # an item of a list has no default: the program reports it
    node.pop(parts[-1], None)
    return {**values, f"{namespace}:{top}": json.dumps(document)}


def stack_names() -> list[str]:
    """Every stack with a file in stacks/."""
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS_DIR.glob("Pulumi.*.yaml"))


def _referenced_outputs(
    stack: str,
    values: dict[str, str],
    cloud_outputs: dict[str, Any] | None,
    cloud_secret_outputs: list[str] | None = None,
) -> tuple[dict[str, dict[str, Any]], dict[str, list[str]]]:
    """A fabric stack's StackReference, answered offline: the outputs of the cloud stack's own
    offline plan (`cloud_outputs`, or that stack's file planned first), and the secret ones, by
    reference (the engine names them beside the outputs, `secretOutputNames`)."""
    reference = values.get(f"{PROJECT}:cloudStack")
    if not reference or values.get(f"{PROJECT}:layers") != "fabric":
        return {}, {}
    if not is_stack_reference(reference):
        return {}, {}  # the program refuses it, naming the key (config_base: `cloud_stack`)
    secret = list(cloud_secret_outputs or [])
    if cloud_outputs is None:
        cloud = reference.rsplit("/", 1)[-1]
        if cloud == stack:
            return {}, {}  # the program refuses it, naming the key ("names this stack itself")
        if not (STACKS_DIR / f"Pulumi.{cloud}.yaml").is_file():
            raise ConfigError(
                stack,
                [
                    Problem(
                        f"{PROJECT}:cloudStack",
                        reference,
                        f"offline, the cloud stack is planned from stacks/Pulumi.{cloud}.yaml, "
                        "which does not exist; name a stack of stacks/",
                    )
                ],
            )
        if stack_config_and_secrets(cloud)[0].get(f"{PROJECT}:layers") != "cloud":
            # Only a cloud stack exports `cloudConfig`, and the program refuses any other,
            # naming the key (stack_config/references.py); planning a fabric stack here would
            # read its own reference in turn, and a circle of them would never end.
            return {}, {}
        cloud_plan = run(cloud)
        cloud_outputs, secret = cloud_plan.outputs, sorted(cloud_plan.secret_outputs)
    return {reference: cloud_outputs}, {reference: secret}


def run(
    stack: str,
    config: dict[str, str] | None = None,
    secret_keys: list[str] | None = None,
    cloud_outputs: dict[str, Any] | None = None,
    program: Callable[[], Any] | None = None,
    preview: bool = False,
    cloud_secret_outputs: list[str] | None = None,
) -> Plan:
    """Run `__main__.py` for `stack` under mocks. `config` replaces the stack file's values.

    `preview`: as `pulumi preview` runs it, every output a provider computes (ids, endpoints,
    kubeconfigs) unknown, only what the program gave known; functions (`get_*`) still answer, as
    the engine reads them at preview too.

    A fabric stack's StackReference reads `cloud_outputs` (`cloud_secret_outputs` the secret ones
    of them), or the outputs of the referenced stack's own offline plan (planned first, from its
    stack file). `program` runs instead of
    `__main__.py` (a component built on its own, as another language's program would).

    Raises whatever the program raises (a ConfigError for bad config), after the engine settles.
    """
    unread: list[str] = []
    if config is None:
        values, secret_keys = stack_config_and_secrets(stack)
        values, unread = _with_environment_placeholders(stack, values)
        values, undecrypted = _with_secret_stand_ins(stack, values, secret_keys)
        unread += undecrypted
    else:
        values = config
    stack_outputs, secret_outputs = _referenced_outputs(
        stack, values, cloud_outputs, cloud_secret_outputs
    )
    global LAST_RUN
    plan = LAST_RUN = Plan(
        stack=stack, cloud_stack=next((r.rsplit("/", 1)[-1] for r in stack_outputs), "")
    )
    plan.warnings += unread
    main: Callable[[], Any] = program or (lambda: runpy.run_path(str(PROGRAM), run_name="__main__"))
    return run_program(
        main,
        plan,
        project=PROJECT,
        config=values,
        secret_keys=secret_keys,
        stack_outputs=stack_outputs,
        secret_outputs=secret_outputs,
        preview=preview,
    )
