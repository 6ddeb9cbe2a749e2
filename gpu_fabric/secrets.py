"""Config marked secret stays secret in everything the program derives from it.

Pulumi hands a program the plain text of `secure:` values and of keys listed as secret, and the
models here are plain data; so the stack registers a transformation that wraps every resource input
holding such a text (an SSH key in instance metadata, a secret project ID in a service account's
email) in `Output.secret`, Outputs once they resolve; the stack outputs get the same treatment.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pulumi

from .pulumi_internals import sdk

MIN_SECRET_LENGTH = 4
"""Shorter texts (`true`, `2`) would match everywhere and say nothing about a secret."""


def secret_texts(values: dict[str, Any], secret_keys: Iterable[str]) -> set[str]:
    """The leaf texts of the secret keys' values (objects arrive as JSON text)."""
    texts: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif value is not None and len(str(value)) >= MIN_SECRET_LENGTH:
            texts.add(str(value))

    for key in secret_keys:
        value = values.get(key)
        try:
            walk(json.loads(value) if isinstance(value, str) else value)
        except ValueError:
            walk(value)
    return texts


def holds_secret(value: Any, texts: set[str]) -> bool:
    """True if a plain input (dicts, lists, Args objects, text) contains one of `texts`."""
    if isinstance(value, str):
        return any(text in value for text in texts)
    if isinstance(value, dict):
        return any(holds_secret(v, texts) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_secret(v, texts) for v in value)
    if sdk("is_input_type")(type(value)):
        return holds_secret(sdk("input_type_to_dict")(value), texts)
    return False


def keep_secret(value: Any, texts: set[str]) -> Any:
    """`value`, made secret if it holds one of `texts`; an Output is looked into once resolved."""
    if not texts:
        return value
    if isinstance(value, pulumi.Output) or _has_outputs(value):
        return pulumi.Output.from_input(value).apply(
            lambda resolved: (
                pulumi.Output.secret(resolved) if holds_secret(resolved, texts) else resolved
            )
        )
    return pulumi.Output.secret(value) if holds_secret(value, texts) else value


def _has_outputs(value: Any) -> bool:
    if isinstance(value, pulumi.Output):
        return True
    if isinstance(value, dict):
        return any(_has_outputs(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_outputs(v) for v in value)
    return False


def mark_derived_secrets(texts: set[str]) -> None:
    """Register the stack transformation (before any resource is registered)."""
    if not texts:
        return

    def transformation(args: pulumi.ResourceTransformationArgs):
        props = {key: keep_secret(value, texts) for key, value in args.props.items()}
        return pulumi.ResourceTransformationResult(props, args.opts)

    pulumi.runtime.register_stack_transformation(transformation)
