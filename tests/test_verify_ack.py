"""`make verify STACK=ack-lingjun`: fail-closed, on API-shaped objects built from Alibaba's
Lingjun RDMA guide."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest

import verify.ack as verify_ack
from gpu_fabric import yaml_files
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from offline.engine import stack_config
from tests.recorded_cluster import assert_broken_case_reported, client_for_routes, run_verify
from verify.ack import Snapshot, check, expected_from

FIXTURE = Path(__file__).with_name("fixtures") / "ack-lingjun-healthy.yaml"
DS = "kube-system/ack-rdma-dp-ds"
NODE_A, NODE_B = "e01-cn-wulanchabu-c-0a1b2c", "e01-cn-wulanchabu-c-3d4e5f"


def recorded() -> dict:
    return yaml_files.read(FIXTURE)


def snapshot_of(objects: dict) -> Snapshot:
    return Snapshot(
        nodes=objects["nodes"]["items"],
        daemon_set=objects["daemonset"],
        pods=objects["pods"]["items"],
    )


@pytest.fixture(scope="module")
def expected():
    return expected_from(parse_with_cloud_stack_file(stack_config("ack-lingjun"), "ack-lingjun"))


def test_expectations_come_from_the_catalog(expected):
    assert (expected.namespace, expected.daemon_set, expected.resource) == (
        "kube-system",
        "ack-rdma-dp-ds",
        "rdma/hca",
    )
    assert expected.worker_label == {"alibabacloud.com/lingjun-worker": "true"}


def test_fixture_objects_are_valid_api_objects():
    objects = recorded()
    for obj in [*objects["nodes"]["items"], objects["daemonset"], *objects["pods"]["items"]]:
        kubernetes_validate.validate(obj, "1.34", strict=True)


def test_healthy_cluster_passes(expected):
    assert check(expected, snapshot_of(recorded())) == []


def _node(objects: dict, name: str) -> dict:
    return next(n for n in objects["nodes"]["items"] if n["metadata"]["name"] == name)


BROKEN = {
    "add-on DaemonSet missing": (
        lambda o: o.update(daemonset=None, pods={"items": []}),
        [f"DaemonSet {DS}: missing"],
    ),
    "rolled out on one of two Lingjun nodes": (
        lambda o: o["daemonset"]["status"].update(
            desiredNumberScheduled=1,
            currentNumberScheduled=1,
            numberReady=1,
            numberAvailable=1,
            updatedNumberScheduled=1,
        ),
        [f"DaemonSet {DS}: scheduled on 1 of the 2 GPU nodes"],
    ),
    "a pod not ready": (
        lambda o: o["daemonset"]["status"].update(numberReady=1, numberAvailable=1),
        [f"DaemonSet {DS}: 1 of 2 pods ready"],
    ),
    "a pod crash-looping": (
        lambda o: o["pods"]["items"][0]["status"]["containerStatuses"][0].update(
            state={"waiting": {"reason": "CrashLoopBackOff"}}
        ),
        ["Pod kube-system/ack-rdma-dp-ds-7xk2d: container rdma-dp CrashLoopBackOff"],
    ),
    "no plugin pod on a Lingjun node": (
        lambda o: o["pods"]["items"].pop(1),
        [f"Node {NODE_B}: no running ack-rdma-dp-ds pod"],
    ),
    "a node without rdma/hca": (
        lambda o: [
            _node(o, NODE_A)["status"][p].pop("rdma/hca") for p in ("capacity", "allocatable")
        ],
        [
            f"Node {NODE_A}: no rdma/hca in its capacity",
            f"Node {NODE_A}: no rdma/hca in its allocatable",
        ],
    ),
    "zero rdma/hca allocatable": (
        lambda o: _node(o, NODE_B)["status"]["allocatable"].update({"rdma/hca": "0"}),
        [f"Node {NODE_B}: no rdma/hca in its allocatable"],
    ),
    "no Lingjun node joined": (
        lambda o: o["nodes"]["items"].__setitem__(slice(0, 2), []),
        ["no Lingjun node (alibabacloud.com/lingjun-worker=true) has joined the cluster"],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_each_broken_piece_is_reported(expected, case):
    assert_broken_case_reported(BROKEN, case, recorded, snapshot_of, check, expected)


def ack_client(objects: dict):
    return client_for_routes(
        {
            "/api/v1/nodes": objects["nodes"],
            "/apis/apps/v1/namespaces/kube-system/daemonsets/ack-rdma-dp-ds": objects["daemonset"],
            "/api/v1/namespaces/kube-system/pods": objects["pods"],
        }
    )


def test_read_snapshot_through_the_kubernetes_client(expected):
    api_client, cluster = ack_client(recorded())
    snapshot = verify_ack.read_snapshot(expected, api_client)
    assert check(expected, snapshot) == []
    assert len(snapshot.nodes) == 5 and len(snapshot.pods) == 2
    # The pods are listed by the DaemonSet's own selector, not by assumed labels.
    assert any("labelSelector=app%3Dack-rdma-dp" in r for r in cluster.requests)


def test_a_missing_daemon_set_is_a_404_and_lists_no_pods(expected):
    objects = recorded()
    objects["daemonset"] = None
    api_client, cluster = ack_client(objects)
    snapshot = verify_ack.read_snapshot(expected, api_client)
    assert snapshot.daemon_set is None and snapshot.pods == []
    assert f"DaemonSet {DS}: missing" in check(expected, snapshot)


@pytest.mark.parametrize("broken, code", [(None, 0), ("a node without rdma/hca", 1)])
def test_verify_command_exit_codes(monkeypatch, capsys, broken, code):
    objects = recorded()
    if broken:
        BROKEN[broken][0](objects)
    run_verify(monkeypatch, capsys, "ack-lingjun", ack_client(objects)[0], code)
