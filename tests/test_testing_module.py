"""`gpu_fabric.testing`: a user's own program planned offline with the package's engine."""

from __future__ import annotations

import pulumi
import pytest

from gpu_fabric import GkeCloud, GkeFabric
from gpu_fabric.gke import PrimaryRanges, a3_high
from gpu_fabric.testing import plan


def _a3() -> None:
    a3 = a3_high(
        "train",
        project="my-project",
        region="us-central1",
        zone="us-central1-c",
        version="1.33",
        gpu_subnets=[f"192.168.{n}.0/24" for n in range(1, 5)],
        primary=PrimaryRanges("10.0.0.0/20", "10.64.0.0/19", "10.65.0.0/19"),
    )
    cloud = GkeCloud("train", a3.cloud_args)
    GkeFabric("train", a3.fabric_args(cloud))
    pulumi.export("clusterId", cloud.cluster_id)


def test_a_users_program_is_planned_with_the_inputs_that_reached_the_engine():
    planned = plan(_a3, stack="dev", project="ml-infra")
    (cluster,) = planned.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["name"] == "train"
    assert cluster.urn.startswith("urn:pulumi:dev::ml-infra::")
    assert planned.outputs["clusterId"]  # the mocks' id


def test_a_preview_leaves_what_a_provider_computes_unknown():
    assert plan(_a3, preview=True).outputs["clusterId"] is None  # unknown at preview


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
    assert plan(_a3).of_type("gcp:container/cluster:Cluster")
