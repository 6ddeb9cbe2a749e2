"""gpu_fabric/versions.py: one version type, a grammar per way a cloud writes versions."""

from __future__ import annotations

import pytest

from gpu_fabric.versions import (
    ACK_VERSION,
    ADDON_VERSION,
    GKE_VERSION,
    MINOR_VERSION,
    OKE_VERSION,
    Version,
)
from tests.conftest import only_problem


@pytest.mark.parametrize(
    ("grammar", "text", "parts"),
    [
        (GKE_VERSION, "1.33.5-gke.1862000", (1, 33, 5, 1862000)),
        (ACK_VERSION, "1.33.3-aliyun.1", (1, 33, 3, 1)),
        (OKE_VERSION, "v1.34.1", (1, 34, 1)),
        (ADDON_VERSION, "1.1.5", (1, 1, 5)),
        (MINOR_VERSION, "1.30", (1, 30)),
        (ADDON_VERSION, "0.10.0", (0, 10, 0)),
    ],
)
def test_each_grammar_parses_its_form(grammar, text, parts):
    version = grammar.parse(text)
    assert (
        version.parts == parts
        and str(version) == text
        and version.minor == f"{parts[0]}.{parts[1]}"
    )


@pytest.mark.parametrize(
    ("grammar", "text"),
    [
        (GKE_VERSION, "1.33.5"),
        (GKE_VERSION, "1.33.05-gke.1862000"),
        (ACK_VERSION, "1.33.3-gke.1"),
        (OKE_VERSION, "1.34.1"),
        (OKE_VERSION, "v01.34.1"),
        (ADDON_VERSION, "1.1"),
        (ADDON_VERSION, "1.01.5"),
        (MINOR_VERSION, "1.030"),
    ],
)
def test_other_forms_and_leading_zeros_are_refused_with_the_form(grammar, text):
    with pytest.raises(ValueError, match=grammar.what) as raised:
        grammar.parse(text)
    assert ("leading zeros" in str(raised.value)) == any(
        part.startswith("0") and len(part) > 1
        for part in text.lstrip("v").replace("-", ".").split(".")
    )


def test_versions_order_by_their_numbers_not_their_text():
    assert GKE_VERSION.parse("1.28.10-gke.1") > GKE_VERSION.parse("1.28.9-gke.99999")
    assert ADDON_VERSION.parse("1.10.0") > ADDON_VERSION.parse("1.9.9")
    assert Version("1.2", (1, 2)) == Version("other text", (1, 2))


def test_a_gke_version_with_a_leading_zero_is_refused_in_the_stack_file():
    problem = only_problem({"gpu-fabric:gke.version": "1.33.05-gke.1862000"})
    assert problem.key == "gpu-fabric:gke.version"
    assert "leading zeros" in problem.message and "MAJOR.MINOR.PATCH-gke.BUILD" in problem.message
