"""How a configuration problem reads (gpu_fabric/problems.py): its key and value shown as they
are, escaped and cut where that is what lets them be read."""

from __future__ import annotations

from gpu_fabric.problems import Problem

KEY = "gpu-fabric:cloudStack"


def test_a_huge_value_is_shown_cut_with_its_length():
    shown = str(Problem(KEY, "x" * 5000, "must name a stack"))
    assert len(shown) < 300 and "(5002 characters)" in shown
    assert str(Problem(KEY, "short", "m")) == f'{KEY}: "short": m'


def test_a_key_with_an_invisible_character_shows_it_escaped():
    shown = str(Problem("gpu-fabric:gke\u200b", {"name": "x"}, "unknown key"))
    assert shown.startswith("gpu-fabric:gke\\u200b: ")
    assert "\u200b" not in shown
