"""A configuration problem names the stack key, the bad value and the fix; all go out at once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

NAMESPACE = "gpu-fabric"
"""The config namespace of the stack keys (`gpu-fabric:gke.version`): the Pulumi project's name."""
MISSING = object()
"""The value of a Problem whose key is not set."""
NO_VALUE = object()
"""The value of a Problem about a whole file (its key says where)."""


class UnshownValueError(ValueError):
    """A refusal whose value the problem must not echo (key material): it shows `shown`."""

    def __init__(self, message: str, shown: str):
        super().__init__(message)
        self.shown = shown


def key(path: str) -> str:
    """The stack key of a config path: `gke.version` -> `gpu-fabric:gke.version`."""
    return f"{NAMESPACE}:{path}"


@dataclass(frozen=True)
class Problem:
    key: str
    """Full stack key, e.g. `gpu-fabric:gke.version`."""
    value: Any
    message: str
    """What is wrong and the fix."""

    def __str__(self) -> str:
        key = _visible(self.key)
        if self.value is NO_VALUE:
            return f"{key}: {self.message}"
        shown = "(not set)" if self.value is MISSING else json.dumps(self.value, default=str)
        if len(shown) > MAX_SHOWN:
            shown = f"{shown[:MAX_SHOWN]}... ({len(shown)} characters)"
        return f"{key}: {shown}: {self.message}"


def _visible(text: str) -> str:
    """`text` with each character that prints as nothing or moves the cursor escaped (`\u200b`),
    as the value beside it is (JSON): a key with a zero-width space looks like the right key."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


MAX_SHOWN = 200
"""A value longer than this, as JSON, is shown cut with its length: a huge value (a pasted file,
a runaway string) must not bury the message."""


class ConfigError(Exception):
    """The stack configuration is invalid; nothing may be registered."""

    def __init__(self, stack: str, problems: list[Problem]):
        self.stack = stack
        self.problems = problems
        lines = [f"stack {stack!r}: {len(problems)} configuration problem(s):"]
        lines += [f"  - {p}" for p in problems]
        super().__init__("\n".join(lines))


def deploy_path_without_effect(deploy_path: str, layers: Any) -> Problem:
    """`network.existing.deployPath` in a stack that does not run both layers: it only lets
    `layers: all` apply in-cluster objects from where `pulumi up` runs."""
    return Problem(
        key("network.existing.deployPath"),
        deploy_path,
        f"has no effect with gpu-fabric:layers: {layers.value} (it lets a stack that runs both "
        "layers reach the private API endpoint from where `pulumi up` runs); remove it",
    )


def private_endpoint_fix(network: str, public_option: str) -> str:
    """What to do when one stack would apply in-cluster objects to an API endpoint that the host
    running `pulumi up` cannot reach (README, "Split deployment")."""
    return (
        f"the cluster's API endpoint is private and `pulumi up` runs outside the {network}, so "
        "every in-cluster object would time out after the cloud resources are created. Do one "
        "of: (1) split the layers: `gpu-fabric:layers: cloud` here, and a fabric stack "
        "(`gpu-fabric:layers: fabric`, `gpu-fabric:cloudStack: <org>/<project>/<this stack>`) run "
        f'from a host inside the {network} (README, "Split deployment"); (2) {public_option}; '
        f"(3) an existing {network} (network.existing) with network.existing.deployPath saying how "
        "the runner reaches the endpoint (VPN, peering, a runner inside it)"
    )


def timeout_without_wait(timeout: str | None, awaited_nodes: int) -> list[Problem]:
    """`nodeWaitTimeout` where no GPU node is awaited (the wait exists only for a pool with
    nodes): it would time nothing out."""
    if timeout is None or awaited_nodes:
        return []
    return [
        Problem(
            key("nodeWaitTimeout"),
            timeout,
            "has no effect: no GPU node is awaited (every GPU pool is at 0 nodes, so there is no "
            "wait); remove it, or give a pool nodes",
        )
    ]
