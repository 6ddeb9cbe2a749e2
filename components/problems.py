"""A configuration problem names the stack key, the bad value and the fix; all go out at once."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .config_base import NAMESPACE

MISSING = object()
"""The value of a Problem whose key is not set."""
NO_VALUE = object()
"""The value of a Problem about a whole file (its key says where)."""


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
        if self.value is NO_VALUE:
            return f"{self.key}: {self.message}"
        shown = "(not set)" if self.value is MISSING else json.dumps(self.value, default=str)
        return f"{self.key}: {shown}: {self.message}"


class ConfigError(Exception):
    """The stack configuration is invalid; nothing may be registered."""

    def __init__(self, stack: str, problems: list[Problem]):
        self.problems = problems
        lines = [f"stack {stack!r}: {len(problems)} configuration problem(s):"]
        lines += [f"  - {p}" for p in problems]
        super().__init__("\n".join(lines))
