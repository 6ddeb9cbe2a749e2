"""GKE's training queue (gpu_fabric/gke/training_queue.py): its runtime kept off GPU nodes under
host maintenance notice when a stack asks."""

from __future__ import annotations

import pytest

from tests.conftest import run_stack
from tests.stacks import stack_with_default_capacity


@pytest.mark.parametrize(
    "machine", ["a3-highgpu-8g", "a4x-highgpu-4g"], ids=["no-fabric-affinity", "gib-affinity"]
)
def test_asked_the_runtime_keeps_jobs_off_nodes_under_maintenance_notice(machine):
    from tests.test_manifests import validate
    from tests.test_workloads_runtime import RUNTIME

    stack = stack_with_default_capacity(machine)
    default = run_stack({}, stack).of_type(RUNTIME)[0].inputs
    asked = run_stack({"gpu-fabric:avoidScheduledMaintenance": True}, stack).of_type(RUNTIME)[0]
    pod = asked.inputs["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"][
        "template"
    ]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    notice = {"key": "cloud.google.com/scheduled-maintenance-time", "operator": "DoesNotExist"}
    assert terms and all(notice in term["matchExpressions"] for term in terms)
    assert "scheduled-maintenance-time" not in str(default)
    validate(asked.inputs)
