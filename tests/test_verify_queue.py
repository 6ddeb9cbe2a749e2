"""`make verify`'s check of the training queue (verify/queue.py), against recorded-shape objects."""

from __future__ import annotations

import copy
from pathlib import Path

import kubernetes_validate
import pytest

from gpu_fabric import yaml_files
from gpu_fabric.registry import spec_of
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from gpu_fabric.stack_file import stack_config
from gpu_fabric.workloads.queues import queue_manifests
from tests.conftest import assert_reports
from tests.recorded_cluster import client_for_routes
from tests.test_manifests import validate
from verify.queue import QueueSnapshot, queue_problems, read_queue_snapshot

FIXTURE = Path(__file__).with_name("fixtures") / "a4x-prod-training-queue-healthy.yaml"
STACK = "a4x-prod"


def recorded() -> dict:
    return copy.deepcopy(yaml_files.read(FIXTURE))


TRAINER_DEPLOYMENTS = "/apis/apps/v1/namespaces/kubeflow-system/deployments"


def queue_routes(objects: dict) -> dict:
    """The API paths `read_queue_snapshot` reads, answered from `objects`."""
    kueue = "/apis/kueue.x-k8s.io/v1beta2"
    return {
        "/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager": objects[
            "kueue"
        ],
        "/apis/apps/v1/namespaces/jobset-system/deployments/jobset-controller": objects["jobset"],
        f"{TRAINER_DEPLOYMENTS}/kubeflow-trainer-controller-manager": objects["trainer"],
        "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed-rdma": (
            objects["runtime"]
        ),
        f"{kueue}/clusterqueues/gpu-fabric": objects["clusterqueue"],
        "/apis/resource.k8s.io/v1/namespaces/training/resourceclaimtemplates/"
        "gpu-fabric-nvlink-channel": objects["channel"],
        f"{kueue}/namespaces/training/localqueues/default": objects["localqueue"],
        "/api/v1/nodes": objects["nodes"],
    }


def snapshot_of(objects: dict) -> QueueSnapshot:
    return QueueSnapshot(
        controllers={
            "kueue-system/kueue-controller-manager": objects["kueue"],
            "jobset-system/jobset-controller": objects["jobset"],
            "kubeflow-system/kubeflow-trainer-controller-manager": objects["trainer"],
        },
        cluster_queue=objects["clusterqueue"],
        local_queues={"training": objects["localqueue"]},
        runtime=objects["runtime"],
        claim_templates={"training/gpu-fabric-nvlink-channel": objects["channel"]},
        flavor_nodes={"a4x-highgpu": objects["nodes"]["items"]},
    )


@pytest.fixture(scope="module")
def queue():
    cfg = parse_with_cloud_stack_file(stack_config(STACK), STACK)
    return spec_of(cfg.platform).training_queue_module().training_queue_of(cfg)


def test_fixture_objects_are_valid_api_objects():
    objects = recorded()
    for key in ("kueue", "jobset", "trainer", "runtime", "channel", "clusterqueue", "localqueue"):
        validate(objects[key])
    for node in objects["nodes"]["items"]:
        kubernetes_validate.validate(node, "1.34", strict=True)


def test_a_healthy_queue_passes(queue):
    assert queue_problems(queue, snapshot_of(recorded())) == []


def _no_kueue(o):
    o["kueue"] = None


def _jobset_unavailable(o):
    o["jobset"]["status"]["conditions"][0].update(status="False", message="0 of 1 ready")


def _inactive(o):
    o["clusterqueue"]["status"]["conditions"][0].update(
        status="False", message="Can't admit new workloads: references missing ResourceFlavor(s)"
    )


def _no_runtime(o):
    o["runtime"] = None


def _no_channel(o):
    o["channel"] = None


def _trainer_unavailable(o):
    o["trainer"]["status"]["conditions"][0].update(status="False", message="0 of 1 ready")


def _no_nodes(o):
    o["nodes"]["items"] = []


def _unlabelled(o):
    del o["nodes"]["items"][1]["metadata"]["labels"]["cloud.google.com/gce-topology-host"]


BROKEN = {
    "kueue missing": (_no_kueue, ["Deployment kueue-system/kueue-controller-manager: missing"]),
    "jobset not available": (
        _jobset_unavailable,
        ["Deployment jobset-system/jobset-controller: not available (0 of 1 ready)"],
    ),
    "queue inactive": (_inactive, ["ClusterQueue gpu-fabric: not active, admits nothing"]),
    "runtime missing": (
        _no_runtime,
        ["ClusterTrainingRuntime torch-distributed-rdma: missing (a TrainJob naming it"],
    ),
    "no nvlink channel": (
        _no_channel,
        ["ResourceClaimTemplate training/gpu-fabric-nvlink-channel: missing (the runtime's pods"],
    ),
    "trainer not available": (
        _trainer_unavailable,
        [
            "Deployment kubeflow-system/kubeflow-trainer-controller-manager: not available "
            "(0 of 1 ready)"
        ],
    ),
    "no node in the flavor": (
        _no_nodes,
        ["ResourceFlavor {flavor}: no node has cloud.google.com/gke-nodepool=a4x-highgpu"],
    ),
    "node without a level": (
        _unlabelled,
        [
            "Node gke-a4x-prod-a4x-highgpu-0a1b2c3d-efgh (flavor {flavor}): lacks the Topology "
            "label(s) cloud.google.com/gce-topology-host"
        ],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_each_broken_queue_is_reported(queue, case):
    change, wanted = BROKEN[case]
    objects = recorded()
    change(objects)
    # The flavor's name ends in a hash of its spec (queue_objects._named).
    (flavor,) = [f["metadata"]["name"] for f in queue_manifests(queue).flavors.values()]
    wanted = [line.format(flavor=flavor) for line in wanted]
    assert_reports(queue_problems(queue, snapshot_of(objects)), wanted)


def test_the_snapshot_is_read_through_the_kubernetes_client(queue):
    api_client, cluster = client_for_routes(queue_routes(recorded()))
    snapshot = read_queue_snapshot(queue, api_client)
    assert queue_problems(queue, snapshot) == []
    assert any(
        "labelSelector=cloud.google.com/gke-nodepool%3Da4x-highgpu" in r for r in cluster.requests
    )


def test_a_missing_local_queue_reads_as_missing(queue):
    objects = recorded()
    objects["localqueue"] = None
    api_client, _ = client_for_routes(queue_routes(objects))
    assert queue_problems(queue, read_queue_snapshot(queue, api_client)) == [
        "LocalQueue training/default: missing"
    ]


def test_every_teams_local_queue_and_claim_templates_are_checked(queue):
    """With teams, each training namespace must have its LocalQueue and the runtime's claim
    templates: a team whose namespace lacks them is named."""
    teams = {**queue, "team_namespaces": ["llm"]}
    objects = recorded()
    routes = queue_routes(objects)
    api_client, _ = client_for_routes(routes)
    assert queue_problems(teams, read_queue_snapshot(teams, api_client)) == [
        "ClusterQueue gpu-fabric-llm: missing",
        "LocalQueue llm/default: missing",
        "ResourceClaimTemplate llm/gpu-fabric-nvlink-channel: missing (the runtime's pods claim "
        "from it, and cannot start without it)",
    ]
    kueue = "/apis/kueue.x-k8s.io/v1beta2"
    routes[f"{kueue}/namespaces/llm/localqueues/default"] = objects["localqueue"]
    team_queue = copy.deepcopy(objects["clusterqueue"])
    team_queue["metadata"]["name"] = "gpu-fabric-llm"
    routes[f"{kueue}/clusterqueues/gpu-fabric-llm"] = team_queue
    routes[
        "/apis/resource.k8s.io/v1/namespaces/llm/resourceclaimtemplates/gpu-fabric-nvlink-channel"
    ] = objects["channel"]
    api_client, _ = client_for_routes(routes)
    assert queue_problems(teams, read_queue_snapshot(teams, api_client)) == []
