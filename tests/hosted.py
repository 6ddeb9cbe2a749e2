"""What a hosted layer refuses, built from the good args of tests/test_layer_inputs.py with some
changed: its InputPropertiesError's property paths and reasons."""

from __future__ import annotations

from typing import Any

from tests.test_layer_inputs import _build, _refused


def hosted_reasons(layer: str, *changes: tuple[tuple, Any]) -> dict[str, str]:
    """Property path -> reason of every problem `layer` (`AckCloud`, ...) refuses in GOOD's args
    with `changes`, each (path of keys and indexes, value)."""
    return _refused(lambda: _build(layer, *changes))[1]
