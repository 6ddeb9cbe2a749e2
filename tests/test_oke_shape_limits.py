"""A system pool's OCPUs and memory are checked at preview against ListShapes' limits of its
shape, in its availability domain: a pool OKE would fail to launch fails the preview instead."""

from __future__ import annotations

import pytest

from gpu_fabric.oke import offline_mocks
from gpu_fabric.oke.nodes.shape_limits import ShapeConfigOutOfBounds, shape_config_problems
from offline import engine
from offline.plan import main as plan_main
from tests.conftest import encode, run_stack, stack_values

STACK = "oke-dranet"
E5 = {**offline_mocks.FLEX_SHAPES["VM.Standard.E5.Flex"], "name": "VM.Standard.E5.Flex"}


def _as_results(shape: dict) -> dict:
    """A ListShapes entry as the SDK hands it to an apply (snake_case mappings)."""
    memory = shape["memoryOptions"][0]
    return {
        "name": shape["name"],
        "ocpu_options": shape["ocpuOptions"],
        "memory_options": [
            {
                "min_in_gbs": memory["minInGbs"],
                "max_in_gbs": memory["maxInGbs"],
                "min_per_ocpu_in_gbs": memory["minPerOcpuInGbs"],
                "max_per_ocpu_in_gbs": memory["maxPerOcpuInGbs"],
            }
        ],
    }


@pytest.mark.parametrize(
    "ocpus, memory, says",
    [
        (95, 128, "ocpus 95 is outside the shape's 1-94 OCPUs"),
        (32, 1100, "memoryGbs 1100 is outside the shape's 1-1049 GB"),
        (
            4,
            300,
            "75 GB per OCPU, outside the shape's 1-64: set oke.systemPool.memoryGbs between 4",
        ),
    ],
)
def test_a_shape_config_outside_the_shapes_limits_is_named(ocpus, memory, says):
    (problem,) = shape_config_problems(_as_results(E5), ocpus, memory)
    assert says in problem


def test_the_examples_system_pool_fits_its_shape():
    assert shape_config_problems(_as_results(E5), 4, 32) == []


def test_the_first_preview_reads_the_shapes_of_the_pools_compartment_and_domain(monkeypatch):
    """Read with the configured compartment, not the new cluster's (unknown at a first
    preview, which would leave the check unrun until the cluster exists)."""
    asked = []
    answer = offline_mocks.CloudMocks.call

    def call(self, token, args):
        if token == "oci:Core/getShapes:getShapes":
            asked.append(dict(args))
        return answer(self, token, args)

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", call)
    values = stack_values(STACK)
    engine.run(STACK, encode(values), preview=True)
    assert asked == [
        {
            "compartmentId": values["gpu-fabric:compartmentId"],
            "availabilityDomain": "Uocm:US-ASHBURN-AD-1",
        }
    ]
    plan = run_stack(stack=STACK, cached=False)
    (pool,) = plan.of_type("oci:ContainerEngine/nodePool:NodePool")
    assert pool.inputs["nodeShapeConfig"] == {"ocpus": 4, "memoryInGbs": 32}


def test_memory_the_shape_cannot_take_fails_the_plan_naming_the_key():
    changes = {"gpu-fabric:oke.systemPool.memoryGbs": 300}
    with pytest.raises(ShapeConfigOutOfBounds, match="oke.systemPool.memoryGbs between 4 and 256"):
        run_stack(changes, stack=STACK, cached=False)


def test_a_shape_the_availability_domain_does_not_offer_is_refused(monkeypatch):
    monkeypatch.setattr(offline_mocks, "FLEX_SHAPES", {})
    with pytest.raises(ShapeConfigOutOfBounds, match="is not offered to this compartment"):
        run_stack(stack=STACK, cached=False)


def test_make_plan_reports_it_as_a_problem_without_a_traceback(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(offline_mocks, "FLEX_SHAPES", {})
    assert plan_main([STACK, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: oke.systemPool.shape") and "Traceback" not in err


def test_a_system_pool_as_large_as_its_shape_takes_is_accepted():
    """The config's bounds are sanity bounds: VM.Standard.E5.Flex takes 94 OCPUs."""
    changes = {"gpu-fabric:oke.systemPool.ocpus": 94, "gpu-fabric:oke.systemPool.memoryGbs": 1049}
    plan = run_stack(changes, stack=STACK, cached=False)
    (pool,) = plan.of_type("oci:ContainerEngine/nodePool:NodePool")
    assert pool.inputs["nodeShapeConfig"] == {"ocpus": 94, "memoryInGbs": 1049}
