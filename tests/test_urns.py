"""A stack's URNs are its users' state: no refactor may change one without an alias.

`tests/fixtures/urns/<stack>.txt` holds every URN of the committed stack files. A change here means
`pulumi up` would delete and recreate those resources: add aliases instead, or, for a resource that
is new, add its URN to the file in the commit that adds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from offline import engine

FIXTURES = Path(__file__).parent / "fixtures" / "urns"


@pytest.mark.parametrize("stack", sorted(p.stem for p in FIXTURES.glob("*.txt")))
def test_urns_are_unchanged(stack):
    expected = (FIXTURES / f"{stack}.txt").read_text().split()
    assert sorted(r.urn for r in engine.run(stack).resources) == expected
