"""`gpu_fabric.testing`: a user's own program planned offline with the package's engine."""

from __future__ import annotations

import pulumi
import pytest

from gpu_fabric.testing import plan
from tools.package_check import a3_program


def test_a_users_program_is_planned_with_the_inputs_that_reached_the_engine():
    planned = plan(a3_program, stack="dev", project="ml-infra")
    (cluster,) = planned.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["name"] == "train"
    assert cluster.urn.startswith("urn:pulumi:dev::ml-infra::")
    assert planned.outputs["clusterId"]  # the mocks' id


def test_a_preview_leaves_what_a_provider_computes_unknown():
    assert plan(a3_program, preview=True).outputs["clusterId"] is None  # unknown at preview


def test_a_program_reads_the_stack_outputs_it_is_given():
    def program() -> None:
        other = pulumi.StackReference("other", stack_name="org/net/prod")
        pulumi.export("vpc", other.require_output("vpc"))

    planned = plan(program, stack_outputs={"org/net/prod": {"vpc": "vpc-1"}})
    assert planned.outputs == {"vpc": "vpc-1"}


def test_what_a_program_raises_is_raised_and_the_next_plan_starts_clean():
    def failing() -> None:
        raise pulumi.RunError("refused")

    with pytest.raises(pulumi.RunError, match="refused"):
        plan(failing)
    assert plan(a3_program).of_type("gcp:container/cluster:Cluster")
