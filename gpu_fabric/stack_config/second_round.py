"""Problems in one round: the cross-field rules also run when some value was refused on its own.

Without this, a value pydantic refuses (`gpuPool.nodeCount: -1`) would hide every rule that needs
the whole config (`gke.version` below its fabric's floor) until the first is fixed: one typo per
`pulumi up`. So the refused values are taken out (an unknown key goes, a bad value falls back to
its default), the rest is validated again, and the rules' problems on keys that were not refused
are reported with the first ones. Where a refused value has no default, or sits in a list (taking
it out would renumber the others), the rules cannot run without guessing: the first round's
problems stand alone.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from ..problems import Problem


def without_refused(raw: dict[str, Any], locations: list[tuple]) -> dict[str, Any] | None:
    """`raw` without the value at each of `locations` (keys under the platform model), or None
    when one cannot be taken out without guessing (a list item, or a required key)."""
    kept = copy.deepcopy(raw)
    for location in locations:
        if not location or any(isinstance(part, int) for part in location):
            return None
        node: Any = kept
        for part in location[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or location[-1] not in node:
            return None  # a missing required key: nothing to take out, no default to use
        del node[location[-1]]
    return kept


def _under(key: str, refused: set[str]) -> bool:
    """Whether a problem's stack key is a refused key, inside one, or holds one."""
    return any(
        key == other or key.startswith((f"{other}.", f"{other}[")) or other.startswith(f"{key}.")
        for other in refused
    )


def cross_field_problems_despite(
    raw: dict[str, Any],
    locations: list[tuple],
    refused_keys: set[str],
    validate: Callable[[dict[str, Any]], Any],
    rules: Callable[[Any], list[Problem]],
) -> list[Problem]:
    """The rules' problems with the refused values taken out, on keys other than the refused."""
    kept = without_refused(raw, locations)
    if kept is None:
        return []
    try:
        cfg = validate(kept)
    except ValidationError:
        return []  # what the first round refused still shapes the rest: no guess
    return [p for p in rules(cfg) if not _under(p.key, refused_keys)]
