"""What the models cannot see once they have parsed a value: blank keys, items written twice,
private key material."""

from __future__ import annotations

import json
import re
from typing import Any

from ..problems import Problem
from .pydantic_errors import stack_key_of

_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----|PuTTY-User-Key-File")


def written_problems(raw: dict[str, Any]) -> list[Problem]:
    """What the models cannot see once they have parsed a value: a key left blank (null), which
    would read as "unset" and take its default, and an item written twice in a list, which would
    make two resources of one name (Pulumi stops on the duplicate URN) or count one range twice."""
    problems: list[Problem] = []

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, str) and _PRIVATE_KEY.search(value):
            problems.append(
                Problem(
                    stack_key_of(path),
                    "[private key material, not shown]",
                    "holds a private key, which would be written in plain text into every "
                    "resource that takes it; give the public key (ssh-ed25519 AAAA... or "
                    "ssh-rsa AAAA...), and keep the private key out of the stack",
                )
            )
            return
        if isinstance(value, dict):
            items: list[tuple[Any, Any]] = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
            seen: dict[str, int] = {}
            for i, item in items:
                text = json.dumps(item, sort_keys=True)
                if text in seen:
                    problems.append(
                        Problem(
                            stack_key_of((*path, i)),
                            item,
                            f"repeats item [{seen[text]}] of the list; keep one",
                        )
                    )
                seen.setdefault(text, i)
        else:
            return
        for key, item in items:
            if item is None:
                problems.append(
                    Problem(
                        stack_key_of((*path, key)),
                        None,
                        "is blank (null), which would silently take the default; give it a "
                        "value, or remove the key",
                    )
                )
            else:
                walk(item, (*path, key))

    walk(raw, ())
    return problems
