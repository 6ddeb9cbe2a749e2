"""What loading needs of the Pulumi engine when it runs inside `pulumi preview` or `pulumi up`:
a refusal the CLI prints without a Python stack, and a cloud stack's outputs read before any
resource is registered."""

from __future__ import annotations

from typing import Any

import pulumi

from ..problems import ConfigError, Problem
from ..problems import key as stack_key

READ_STACK_OUTPUTS = "pulumi:pulumi:readStackOutputs"
"""The engine's built-in function that reads another stack's outputs: the one a StackReference
is read with (pulumi/pulumi pkg/resource/deploy/builtins.go, `readStackReference`). Called as an
invoke, it answers before the program registers anything; the engine calls it under `pulumi
preview` too."""


class ConfigRefused(ConfigError, pulumi.RunError):
    """A ConfigError in the program: the Python language host prints a `RunError`'s message
    without the traceback it prints for any other exception (pulumi.errors.RunError)."""


def refused(err: ConfigError) -> ConfigRefused:
    return ConfigRefused(err.stack, err.problems)


def cloud_stack_outputs(stack: str, reference: str) -> tuple[dict[str, Any], frozenset[str]]:
    """The outputs of the stack `reference` names and the names of its secret ones, or a
    ConfigError on `gpu-fabric:cloudStack` saying why they cannot be read."""
    try:
        result = pulumi.runtime.invoke(READ_STACK_OUTPUTS, {"name": reference})
    except Exception as err:  # the engine's error: no such stack, no access, no backend
        raise ConfigError(
            stack,
            [
                Problem(
                    stack_key("cloudStack"),
                    reference,
                    f"its outputs cannot be read ({err}); name a stack of this backend that "
                    "you may read (`pulumi stack ls -a`) and whose `pulumi up` has run",
                )
            ],
        ) from None
    value = result.value or {}
    return dict(value.get("outputs") or {}), frozenset(value.get("secretOutputNames") or ())
