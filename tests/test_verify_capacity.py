"""`make verify` on a pool that starts at zero and a queued pool (verify/queue.py): no node is no
problem where the pool keeps none, the ProvisioningRequest admission check must be Active, and each
pool's capacity and nodes are reported."""

from __future__ import annotations

import copy

import pytest

from gpu_fabric.registry import spec_of
from gpu_fabric.workloads.queue_objects import PROVISIONING
from tests.conftest import parse_stack, stack_values
from tests.stacks import stacks_on
from verify.queue import QueueSnapshot, queue_problems, queue_report

READY = {"type": "Active", "status": "True", "reason": "Active"}
ACTIVE_CHECK = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "AdmissionCheck",
    "metadata": {"name": PROVISIONING},
    # What Kueue v0.19.2's controller writes once it has read the ProvisioningRequestConfig
    # (pkg/controller/admissionchecks/provisioning/admissioncheck_reconciler.go).
    "status": {
        "conditions": [{**READY, "message": "The admission check is active"}],
    },
}
BAD_PARAMETERS = {
    **ACTIVE_CHECK,
    "status": {
        "conditions": [
            {
                "type": "Active",
                "status": "False",
                "reason": "BadParametersRef",
                "message": 'provisioningrequestconfigs.kueue.x-k8s.io "gpu-fabric-provisioning" '
                "not found",
            }
        ]
    },
}


def _queued_stack() -> str:
    return next(
        s
        for s in stacks_on("gke")
        if stack_values(s)["gpu-fabric:gpuPool"].get("queuedProvisioning")
    )


@pytest.fixture(scope="module")
def queue():
    cfg = parse_stack({}, _queued_stack())
    return spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)


def healthy(queue, check=ACTIVE_CHECK) -> QueueSnapshot:
    """Everything the queue needs is there; its queued pool has no node (none between jobs)."""
    controllers = {
        name: {"status": {"conditions": [{"type": "Available", "status": "True"}]}}
        for name in (
            "kueue-system/kueue-controller-manager",
            "jobset-system/jobset-controller",
            "kubeflow-system/kubeflow-trainer-controller-manager",
        )
    }
    return QueueSnapshot(
        controllers=controllers,
        cluster_queue={"status": {"conditions": [READY]}},
        admission_check=copy.deepcopy(check) if check else None,
        local_queues={"training": {"metadata": {"name": "default"}}},
        runtime={"metadata": {"name": queue["runtime"]["name"]}},
        flavor_nodes={pool["name"]: [] for pool in queue["pools"]},
    )


def test_a_queued_pool_with_no_node_and_an_active_check_passes_and_is_reported(queue):
    snapshot = healthy(queue)
    assert queue_problems(queue, snapshot) == []
    (pool,) = queue["pools"]
    assert queue_report(queue, snapshot) == [
        f"pool {pool['name']} (flex-start, queued, keeps 0): 0 node(s) now"
    ]


@pytest.mark.parametrize(
    "check, says",
    [
        (None, "missing (queued pools' jobs are never admitted)"),
        ({**ACTIVE_CHECK, "status": {}}, "no Active condition: Kueue's ProvisioningRequest"),
        (BAD_PARAMETERS, "not active (BadParametersRef:"),
    ],
    ids=["missing", "never-taken-up", "bad-parameters"],
)
def test_an_admission_check_that_is_not_active_fails_verify(queue, check, says):
    snapshot = healthy(queue, check)
    (problem,) = queue_problems(queue, snapshot)
    assert problem.startswith(f"AdmissionCheck {PROVISIONING}: ") and says in problem


def test_a_pool_that_keeps_nodes_and_has_none_still_fails(queue):
    kept = copy.deepcopy(queue)
    kept["pools"][0]["min_nodes"] = 1
    (problem,) = queue_problems(kept, healthy(kept))
    assert problem.startswith("ResourceFlavor ") and "no node has" in problem
