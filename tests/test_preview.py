"""Every stack plans as `pulumi preview` runs it (offline/engine.py `preview=True`): each computed
output unknown. It registers the same resources, with the same inputs wherever they are known, and
no check or `apply` fails or drops a resource on an unknown value."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from offline import engine
from tests.conftest import planned

UNKNOWN = pulumi.output.Unknown


def known_differences(preview: Any, full: Any, path: str = "") -> list[str]:
    """Paths where `preview` holds a known value other than `full`'s."""
    if isinstance(preview, UNKNOWN):
        return []
    if isinstance(preview, dict) and isinstance(full, dict):
        keys = set(preview) | set(full)
        return [
            d
            for k in sorted(keys)
            for d in known_differences(preview.get(k), full.get(k), f"{path}.{k}")
        ]
    if isinstance(preview, list) and isinstance(full, list) and len(preview) == len(full):
        return [
            d
            for i, (p, f) in enumerate(zip(preview, full, strict=True))
            for d in known_differences(p, f, f"{path}[{i}]")
        ]
    return [] if preview == full else [path or "."]


@pytest.mark.parametrize("stack", engine.stack_names())
def test_a_preview_registers_what_the_full_plan_does_with_its_known_inputs(stack):
    preview, full = engine.run(stack, preview=True), planned(stack)
    by_urn = {r.urn: r for r in full.resources}
    assert sorted(r.urn for r in preview.resources) == sorted(by_urn)
    unknown = 0
    for resource in preview.resources:
        other = by_urn[resource.urn]
        assert resource.type == other.type
        assert sorted(resource.dependencies) == sorted(other.dependencies), resource.name
        assert known_differences(resource.inputs, other.inputs) == [], resource.name
        unknown += any(isinstance(v, UNKNOWN) for v in resource.inputs.values())
    # The comparison means something: computed values reached inputs unknown, except in a fabric
    # stack, whose inputs come from its cloud stack's outputs (read, and known, at preview).
    if not preview.cloud_stack:
        assert unknown


def test_a_preview_leaves_the_computed_outputs_unknown():
    preview = engine.run("a3-prod", preview=True)
    (pool,) = [
        r for r in preview.of_type("gcp:container/nodePool:NodePool") if "system" not in r.name
    ]
    assert isinstance(pool.inputs["cluster"], UNKNOWN)  # the cluster's id
    assert preview.outputs["clusterId"] is None and planned("a3-prod").outputs["clusterId"]
