"""A queue several teams share (gpu_fabric/workloads/queue_objects.py, queues.py): a TrainJob of
each team lands in its team's ClusterQueue, the teams share the GPUs by weight in one Cohort,
jobs name a priority, and Kueue's waitForPodsReady is set on purpose."""

from __future__ import annotations

import pytest

from gpu_fabric import yaml_files
from gpu_fabric.workloads.queue_objects import PRIORITY_CLASSES
from tests.conftest import assert_single_rule, run_stack
from tests.stacks import stacks_on
from tests.test_workloads_queues import kueue_objects, release, with_queues

GKE = stacks_on("gke")[0]
TEAMS = {"teams": [{"namespace": "vision", "weight": 2}, {"namespace": "llm"}]}


def trainjob(namespace: str) -> dict:
    """A user's ten-line TrainJob: no queue label, so Kueue gives it its namespace's `default`
    LocalQueue (Kueue docs, "Setup default LocalQueue")."""
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "train", "namespace": namespace},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}},
    }


def cluster_queue_of(plan, job: dict) -> dict:
    """The ClusterQueue Kueue admits `job` to: its namespace's LocalQueue (the job's
    `kueue.x-k8s.io/queue-name` label, else `default`), whose ClusterQueue selects the
    namespace."""
    namespace = job["metadata"]["namespace"]
    name = job["metadata"].get("labels", {}).get("kueue.x-k8s.io/queue-name", "default")
    objects = kueue_objects(plan)
    (local,) = [
        q
        for q in objects["LocalQueue"]
        if (q["metadata"]["namespace"], q["metadata"]["name"]) == (namespace, name)
    ]
    (queue,) = [
        q for q in objects["ClusterQueue"] if q["metadata"]["name"] == local["spec"]["clusterQueue"]
    ]
    selector = queue["spec"]["namespaceSelector"]["matchLabels"]
    assert selector == {"kubernetes.io/metadata.name": namespace}
    return queue


def test_a_trainjob_of_each_team_lands_in_its_teams_queue_sharing_the_cohort_by_weight():
    plan = run_stack(with_queues(GKE, TEAMS), GKE)
    vision = cluster_queue_of(plan, trainjob("vision"))
    llm = cluster_queue_of(plan, trainjob("llm"))
    assert (vision["metadata"]["name"], llm["metadata"]["name"]) == ("gpu-fabric", "gpu-fabric-llm")
    (cohort,) = kueue_objects(plan)["Cohort"]
    assert vision["spec"]["cohortName"] == llm["spec"]["cohortName"] == cohort["metadata"]["name"]
    assert (vision["spec"]["fairSharing"], llm["spec"]["fairSharing"]) == (
        {"weight": 2},
        {"weight": 1},
    )
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    assert yaml_files.load(text)["fairSharing"] == {
        "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    }


def test_one_namespace_keeps_one_queue_without_a_cohort_or_fair_sharing():
    plan = run_stack(stack=GKE)
    (queue,) = kueue_objects(plan)["ClusterQueue"]
    assert "cohortName" not in queue["spec"] and "Cohort" not in kueue_objects(plan)
    assert queue["spec"]["preemption"] == {"withinClusterQueue": "LowerPriority"}
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    assert "fairSharing" not in yaml_files.load(text)


def test_jobs_name_one_of_five_priorities():
    classes = kueue_objects(run_stack(stack=GKE))["WorkloadPriorityClass"]
    assert {c["metadata"]["name"]: c["value"] for c in classes} == PRIORITY_CLASSES
    assert list(PRIORITY_CLASSES.values()) == sorted(PRIORITY_CLASSES.values())


@pytest.mark.parametrize(
    "given, wanted",
    [
        ({}, {"timeout": "45m"}),
        (
            {"waitForPodsReady": {"timeout": "1h", "backoffLimitCount": 3}},
            {"timeout": "1h", "backoffLimitCount": 3},
        ),
    ],
)
def test_wait_for_pods_ready_is_set_on_purpose(given, wanted):
    """Kueue 0.19 turns it on by default (30m); the stack writes it out, with its requeue
    backoff."""
    plan = run_stack(with_queues(GKE, given), GKE)
    text = release(plan, "kueue").inputs["values"]["managerConfig"]["controllerManagerConfigYaml"]
    wait = yaml_files.load(text)["waitForPodsReady"]
    strategy = {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}
    if "backoffLimitCount" in wanted:
        strategy["backoffLimitCount"] = wanted["backoffLimitCount"]
    assert wait == {
        "timeout": wanted["timeout"],
        "blockAdmission": False,
        "requeuingStrategy": strategy,
    }


@pytest.mark.parametrize(
    "changes, key, says",
    [
        (
            {"waitForPodsReady": {"timeout": "5m"}},
            "queues.waitForPodsReady.timeout",
            "shorter than 10m",
        ),
        (
            {"teams": [{"namespace": "a", "weight": 0}]},
            "queues.teams[0].weight",
            "greater than or equal to 1",
        ),
    ],
)
def test_a_wrong_team_or_wait_setting_is_refused(changes, key, says):
    assert_single_rule(with_queues(GKE, changes), f"gpu-fabric:{key}", None, says, GKE)


def test_a_hosted_fabric_layer_refuses_a_wait_too_short_for_a_gpu_node():
    from tests.hosted import hosted_reasons
    from tests.test_workloads_queues import GOOD_QUEUE

    queue = {**GOOD_QUEUE, "wait_for_pods_ready": {"timeout": "5m"}}
    reasons = hosted_reasons("GkeFabric", (("training_queue",), queue))
    assert list(reasons) == ["trainingQueue.waitForPodsReady.timeout"]
    assert "shorter than 10m" in reasons["trainingQueue.waitForPodsReady.timeout"]


def test_every_trainjob_the_queue_docs_show_is_valid_and_about_ten_lines():
    """The team and flex-start examples of docs/training-queue.md, against Trainer's pinned CRD."""
    import re
    from pathlib import Path

    from tests.test_manifests import validate

    text = (Path(__file__).resolve().parents[1] / "docs" / "training-queue.md").read_text()
    jobs = [
        block
        for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
        if "kind: TrainJob" in block
    ]
    assert len(jobs) >= 2
    for block in jobs:
        job = yaml_files.load(block)
        validate(job)
        assert len(block.strip().splitlines()) <= 12
