"""`make verify`'s check of node health (verify/health.py), against recorded-shape objects of a
healthy cluster (tests/fixtures/node-health-healthy.yaml) and broken copies of it."""

from __future__ import annotations

import copy
import datetime
from pathlib import Path

import kubernetes_validate
import pytest

from gpu_fabric import yaml_files
from gpu_fabric.health.args import HealthSettings
from tests.conftest import assert_reports
from tests.recorded_cluster import client_for_routes
from verify.health import HealthSnapshot, health_problems, health_report, read_health_snapshot

FIXTURE = Path(__file__).with_name("fixtures") / "node-health-healthy.yaml"
NOW = datetime.datetime(2026, 12, 4, 11, 0, tzinfo=datetime.UTC)
HEALTH: HealthSettings = {
    "gpus_per_node": 8,
    "rdma": True,
    "gpu_pools": [{"node_labels": {"cloud.google.com/gke-nodepool": "a4-highgpu"}}],
    "taint_failed_nodes": True,
    "rules": "gmp",
}


def recorded() -> dict:
    return copy.deepcopy(yaml_files.read(FIXTURE))


def snapshot_of(objects: dict) -> HealthSnapshot:
    return HealthSnapshot(
        detector=objects["detector"],
        taint_controller=objects["controller"],
        gpu_nodes=objects["nodes"]["items"],
    )


def test_the_recorded_objects_are_valid_kubernetes_objects():
    objects = recorded()
    for name in ("detector", "controller"):
        kubernetes_validate.validate(objects[name], "1.34", strict=True)
    for node in objects["nodes"]["items"]:
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "Node", **node}, "1.34", True)


def test_a_healthy_cluster_has_no_problem():
    assert health_problems(HEALTH, snapshot_of(recorded()), NOW) == []
    assert health_report(HEALTH, snapshot_of(recorded())) == [
        "node checks (GpuCount, GpuEcc, GpuXid, RdmaLink): 2 GPU node(s) read"
    ]


def _condition(objects: dict, node: int, kind: str) -> dict:
    conditions = objects["nodes"]["items"][node]["status"]["conditions"]
    return next(c for c in conditions if c["type"] == kind)


def _fail(objects, node=1, kind="RdmaLink", status="True", message="Healthcheck:: RDMA Link Error"):
    condition = _condition(objects, node, kind)
    condition.update(status=status, reason=f"{kind}HasIssues", message=message)


def _taint(objects, node=1, value="RdmaLink"):
    taints = objects["nodes"]["items"][node]["spec"]["taints"]
    taints.append({"key": "gpu-fabric.dev/unhealthy", "value": value, "effect": "NoSchedule"})


BROKEN = {
    "a failed check, not tainted yet": (
        _fail,
        [
            "Node gke-a4-a4-highgpu-2: RdmaLink failed (Healthcheck:: RDMA Link Error); not "
            "tainted yet. Check the port"
        ],
    ),
    "a failed check, tainted": (
        lambda o: (_fail(o), _taint(o)),
        ["Node gke-a4-a4-highgpu-2: RdmaLink failed (Healthcheck:: RDMA Link Error); tainted."],
    ),
    "an unknown verdict": (
        lambda o: _fail(
            o, 0, "GpuEcc", "Unknown", "nvidia-smi failed (exit 9): NVIDIA-SMI has failed"
        ),
        ["Node gke-a4-a4-highgpu-1: GpuEcc unknown (nvidia-smi failed (exit 9)"],
    ),
    "a stale verdict": (
        lambda o: _condition(o, 0, "GpuXid").update(lastHeartbeatTime="2026-12-04T10:37:00Z"),
        ["Node gke-a4-a4-highgpu-1: GpuXid is stale (last written 23m ago;"],
    ),
    "a check never reported": (
        lambda o: o["nodes"]["items"][1]["status"]["conditions"].pop(0),
        ["Node gke-a4-a4-highgpu-2: no GpuCount condition (node-problem-detector has not"],
    ),
    "a tainted node with no failed check": (
        _taint,
        ["Node gke-a4-a4-highgpu-2: tainted gpu-fabric.dev/unhealthy=RdmaLink with no failed"],
    ),
    "a node without the detector": (
        lambda o: o["detector"]["status"].update(numberReady=1),
        ["DaemonSet gpu-health/node-problem-detector: 1 of 2 pods ready"],
    ),
    "no detector": (
        lambda o: o.update(detector=None),
        ["DaemonSet gpu-health/node-problem-detector: missing"],
    ),
    "the controller down": (
        lambda o: o["controller"]["status"]["conditions"][0].update(
            status="False", message="Deployment does not have minimum availability."
        ),
        ["Deployment gpu-health/gpu-taint-controller: not available (Deployment does not"],
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_broken_case_is_reported_naming_the_node_and_the_check(case):
    change, wanted = BROKEN[case]
    objects = recorded()
    change(objects)
    assert_reports(health_problems(HEALTH, snapshot_of(objects), NOW), wanted)


def test_a_fabric_without_rdma_does_not_ask_for_the_rdma_check():
    objects = recorded()
    for node in objects["nodes"]["items"]:
        node["status"]["conditions"] = [
            c for c in node["status"]["conditions"] if c["type"] != "RdmaLink"
        ]
    assert health_problems({**HEALTH, "rdma": False}, snapshot_of(objects), NOW) == []


def test_the_snapshot_is_read_from_the_api():
    objects = recorded()
    api_client, cluster = client_for_routes(
        {
            "/apis/apps/v1/namespaces/gpu-health/daemonsets/node-problem-detector": objects[
                "detector"
            ],
            "/apis/apps/v1/namespaces/gpu-health/deployments/gpu-taint-controller": objects[
                "controller"
            ],
            "/api/v1/nodes": objects["nodes"],
        }
    )
    snapshot = read_health_snapshot(HEALTH, api_client)
    assert [n["metadata"]["name"] for n in snapshot.gpu_nodes] == [
        "gke-a4-a4-highgpu-1",
        "gke-a4-a4-highgpu-2",
    ]
    assert health_problems(HEALTH, snapshot, NOW) == []
    assert any("labelSelector=cloud.google.com" in r for r in cluster.requests)


def health_routes(nodes: dict) -> dict:
    """The API paths node health reads, with `nodes` (a NodeList) given the recorded GPU nodes'
    healthy node-problem-detector conditions, written a minute ago: for a whole `make verify`
    run, which reads the clock."""
    objects = recorded()
    conditions = objects["nodes"]["items"][0]["status"]["conditions"]
    written = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)
    checks = [
        {**c, "lastHeartbeatTime": written.strftime("%Y-%m-%dT%H:%M:%SZ")}
        for c in conditions
        if c["type"] != "Ready"
    ]
    nodes = copy.deepcopy(nodes)
    for node in nodes["items"]:
        status = node.setdefault("status", {})
        status["conditions"] = [*status.get("conditions", []), *checks]
    return {
        "/apis/apps/v1/namespaces/gpu-health/daemonsets/node-problem-detector": objects["detector"],
        "/apis/apps/v1/namespaces/gpu-health/deployments/gpu-taint-controller": objects[
            "controller"
        ],
        "/api/v1/nodes": nodes,
    }


# --- the stack's Prometheus: every GPU node's DCGM metrics fresh --------------------------------

PROMETHEUS_QUERY = (
    "/api/v1/namespaces/monitoring/services/kube-prometheus-stack-prometheus:9090/proxy/"
    "api/v1/query"
)


def _with_metrics(objects: dict) -> HealthSnapshot:
    snapshot = snapshot_of(objects)
    snapshot.gpus_in_metrics = {
        item["metric"]["Hostname"]: int(item["value"][1])
        for item in objects["prometheus"]["data"]["result"]
    }
    return snapshot


OWN_PROMETHEUS: HealthSettings = {**HEALTH, "rules": "prometheus-operator", "prometheus": "stack"}


def test_every_gpu_nodes_metrics_fresh_is_no_problem():
    assert health_problems(OWN_PROMETHEUS, _with_metrics(recorded()), NOW) == []


def test_a_node_missing_from_the_metrics_or_short_of_gpus_is_reported():
    objects = recorded()
    result = objects["prometheus"]["data"]["result"]
    result[0]["value"][1] = "7"
    result.pop(1)
    assert_reports(
        health_problems(OWN_PROMETHEUS, _with_metrics(objects), NOW),
        [
            "Node gke-a4-a4-highgpu-1: 7 of 8 GPUs in DCGM's metrics of the last 5 minutes",
            "Node gke-a4-a4-highgpu-2: 0 of 8 GPUs in DCGM's metrics of the last 5 minutes",
        ],
    )


def test_the_metrics_are_read_from_the_stacks_prometheus_through_the_api_server():
    objects = recorded()
    routes = {
        "/apis/apps/v1/namespaces/gpu-health/daemonsets/node-problem-detector": objects["detector"],
        "/apis/apps/v1/namespaces/gpu-health/deployments/gpu-taint-controller": objects[
            "controller"
        ],
        "/api/v1/nodes": objects["nodes"],
        PROMETHEUS_QUERY: objects["prometheus"],
    }
    api_client, cluster = client_for_routes(routes)
    snapshot = read_health_snapshot(OWN_PROMETHEUS, api_client)
    assert snapshot.gpus_in_metrics == {"gke-a4-a4-highgpu-1": 8, "gke-a4-a4-highgpu-2": 8}
    assert any("query=count" in r for r in cluster.requests)
    # Prometheus unreachable: said, not raised.
    del routes[PROMETHEUS_QUERY]
    api_client, _ = client_for_routes(routes)
    snapshot = read_health_snapshot(OWN_PROMETHEUS, api_client)
    assert_reports(
        health_problems(OWN_PROMETHEUS, snapshot, NOW),
        ["Prometheus kube-prometheus-stack-prometheus:9090: not queried ("],
    )
