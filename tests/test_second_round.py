"""Every problem in one round: a value refused on its own does not hide the rules over the whole
config (gpu_fabric/stack_config/second_round.py)."""

from __future__ import annotations

from gpu_fabric.stack_config.second_round import without_refused
from tests.conftest import problems

FLOOR = "gpu-fabric:gke.version"
BELOW_THE_FLOOR = {FLOOR: "1.28.1-gke.1"}  # under the TCPX floor of minor 1.28


def test_an_unknown_key_does_not_hide_a_version_below_its_floor():
    found = problems({**BELOW_THE_FLOOR, "gpu-fabric:gpuPool.nodeCnt": 2})
    assert [p.key for p in found] == ["gpu-fabric:gpuPool.nodeCnt", FLOOR]
    assert "floor" in found[1].message


def test_a_refused_value_with_a_default_does_not_hide_it_either():
    found = problems({**BELOW_THE_FLOOR, "gpu-fabric:network.mtu": "8244"})
    assert {p.key for p in found} == {"gpu-fabric:network.mtu", FLOOR}


def test_without_a_default_to_fall_back_on_the_rules_wait_for_the_fix():
    # The machine type decides the floor: with it refused, no floor can be checked.
    found = problems({**BELOW_THE_FLOOR, "gpu-fabric:gpuPool.machineType": "a3-highgpu-9g"})
    assert [p.key for p in found] == ["gpu-fabric:gpuPool.machineType"]


def test_a_rule_on_a_refused_key_is_not_reported_twice():
    found = problems({FLOOR: 1.28})  # not text: refused, and not checked against the floor again
    assert [p.key for p in found] == [FLOOR]


def test_what_can_be_taken_out_and_what_cannot():
    raw = {"gke": {"version": "x", "name": "a"}, "gpuPools": [{"name": "p"}]}
    assert without_refused(raw, [("gke", "version")]) == {
        "gke": {"name": "a"},
        "gpuPools": raw["gpuPools"],
    }
    assert raw["gke"] == {"version": "x", "name": "a"}  # the caller's mapping is left as it was
    assert without_refused(raw, [("gpuPools", 0, "name")]) is None  # a list item: no renumbering
    assert without_refused(raw, [("gke", "zone")]) is None  # missing and required: no default
