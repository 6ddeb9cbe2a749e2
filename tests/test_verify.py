"""`make verify`: the fail-closed fabric check, against recorded-shape API objects."""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes.client import ApiClient

import verify.__main__ as verify_cli
import verify.gke as verify_gke
from gpu_fabric import yaml_files
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from offline.engine import stack_config
from tests.recorded_cluster import (
    RecordedCluster,
    assert_broken_case_reported,
    client_for_routes,
    run_verify,
)
from tests.test_manifests import CRD_SCHEMAS, validate
from tests.test_verify_health import health_routes
from tests.test_verify_queue import queue_routes
from tests.test_verify_queue import recorded as queue_recorded
from verify.gke import Snapshot, check, expected_from

FIXTURE = Path(__file__).with_name("fixtures") / "a4x-prod-healthy.yaml"


def recorded() -> dict:
    return yaml_files.read(FIXTURE)


def snapshot_of(objects: dict) -> Snapshot:
    return Snapshot(
        param_sets=objects["gkenetworkparamsets"]["items"],
        networks=objects["networks"]["items"],
        daemon_set=objects["daemonset"],
        pods=objects["pods"]["items"],
    )


@pytest.fixture(scope="module")
def expected():
    cfg = parse_with_cloud_stack_file(stack_config("a4x-prod"), "a4x-prod")
    return expected_from(cfg)


def test_expectations_come_from_the_stack(expected):
    assert [(n.name, n.device_mode, n.vpc, n.subnet) for n in expected.networks] == [
        ("gvnic-1", "NetDevice", "a4x-prod-gvnic", "a4x-prod-gvnic"),
        *[(f"rdma-{i}", "RDMA", "a4x-prod-rdma", f"a4x-prod-rdma-sub-{i}") for i in range(4)],
    ]
    assert (expected.installer_namespace, expected.installer_name) == (
        "kube-system",
        "nccl-rdma-installer",
    )
    assert expected.installer_selector == {"k8s-app": "nccl-rdma-installer"}


def test_fixture_objects_are_valid_api_objects():
    objects = recorded()
    for obj in objects["gkenetworkparamsets"]["items"] + objects["networks"]["items"]:
        assert (obj["apiVersion"], obj["kind"]) in CRD_SCHEMAS
        validate(obj)
    for obj in [objects["daemonset"], *objects["pods"]["items"]]:
        validate(obj)


def test_healthy_cluster_passes(expected):
    assert check(expected, snapshot_of(recorded())) == []


def _drop(kind: str, name: str):
    def change(objects):
        objects[kind]["items"] = [
            o for o in objects[kind]["items"] if o["metadata"]["name"] != name
        ]

    return change


def _item(kind: str, name: str) -> callable:
    def get(objects):
        return next(o for o in objects[kind]["items"] if o["metadata"]["name"] == name)

    return get


def _set_ready(kind, name, status, reason="Pending", message=""):
    def change(objects):
        ready = next(
            c for c in _item(kind, name)(objects)["status"]["conditions"] if c["type"] == "Ready"
        )
        ready.update(status=status, reason=reason, message=message)

    return change


BROKEN = {
    "param set missing": (
        _drop("gkenetworkparamsets", "rdma-2"),
        ["GKENetworkParamSet rdma-2: missing"],
    ),
    "network missing": (_drop("networks", "gvnic-1"), ["Network gvnic-1: missing"]),
    "wrong device mode": (
        lambda o: _item("gkenetworkparamsets", "rdma-1")(o)["spec"].update(deviceMode="NetDevice"),
        ["GKENetworkParamSet rdma-1: deviceMode is 'NetDevice', expected 'RDMA'"],
    ),
    "wrong subnet": (
        lambda o: _item("gkenetworkparamsets", "rdma-3")(o)["spec"].update(vpcSubnet="other"),
        ["GKENetworkParamSet rdma-3: vpcSubnet is 'other', the stack has 'a4x-prod-rdma-sub-3'"],
    ),
    "broken parametersRef": (
        lambda o: _item("networks", "rdma-0")(o)["spec"]["parametersRef"].update(name="rdma-9"),
        ["Network rdma-0: parametersRef is"],
    ),
    "not a Device network": (
        lambda o: _item("networks", "rdma-0")(o)["spec"].update(type="L3"),
        ["Network rdma-0: type is 'L3', expected 'Device'"],
    ),
    "param set not ready": (
        _set_ready(
            "gkenetworkparamsets",
            "rdma-0",
            "False",
            "DeviceModeSubnetAlreadyInUse",
            "subnet is used by another param set",
        ),
        [
            "GKENetworkParamSet rdma-0: is not Ready (DeviceModeSubnetAlreadyInUse: subnet is used "
            "by another param set)"
        ],
    ),
    "network without conditions": (
        lambda o: _item("networks", "gvnic-1")(o).pop("status"),
        ["Network gvnic-1: has no Ready condition yet"],
    ),
    "installer missing": (
        lambda o: o.update(daemonset=None),
        ["DaemonSet kube-system/nccl-rdma-installer: missing"],
    ),
    "installer not rolled out": (
        lambda o: o["daemonset"]["status"].update(numberReady=1, numberAvailable=1),
        [
            "DaemonSet kube-system/nccl-rdma-installer: 1 of 2 pods ready",
            "DaemonSet kube-system/nccl-rdma-installer: 1 of 2 pods available",
        ],
    ),
    "installer on no node": (
        lambda o: o["daemonset"]["status"].update(
            desiredNumberScheduled=0,
            currentNumberScheduled=0,
            numberReady=0,
            numberAvailable=0,
            updatedNumberScheduled=0,
        ),
        ["DaemonSet kube-system/nccl-rdma-installer: scheduled on no node"],
    ),
    "installer update not observed": (
        lambda o: o["daemonset"]["metadata"].update(generation=2),
        ["DaemonSet kube-system/nccl-rdma-installer: the controller has not seen generation 2"],
    ),
    "pod pending": (
        lambda o: o["pods"]["items"][0]["status"].update(phase="Pending"),
        ["Pod kube-system/nccl-rdma-installer-ab12c: Pending"],
    ),
    "pod failed": (
        lambda o: o["pods"]["items"][1]["status"].update(phase="Failed"),
        ["Pod kube-system/nccl-rdma-installer-de34f: Failed"],
    ),
    "installer crash-looping": (
        lambda o: o["pods"]["items"][0]["status"]["initContainerStatuses"][0].update(
            state={"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}}
        ),
        [
            "Pod kube-system/nccl-rdma-installer-ab12c: container nccl-rdma-installer "
            "CrashLoopBackOff"
        ],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_cluster_names_each_missing_piece(expected, case):
    assert_broken_case_reported(BROKEN, case, recorded, snapshot_of, check, expected)


def test_several_broken_pieces_are_all_listed(expected):
    objects = recorded()
    for case in ("param set missing", "installer missing", "wrong device mode"):
        BROKEN[case][0](objects)
    problems = check(expected, snapshot_of(objects))
    assert len(problems) == 3


# --- reading the cluster through the official client ------------------------------------------


def client_for(objects: dict, queue: dict | None = None) -> tuple[ApiClient, RecordedCluster]:
    return client_for_routes(
        {
            "/apis/networking.gke.io/v1/gkenetworkparamsets": objects["gkenetworkparamsets"],
            "/apis/networking.gke.io/v1/networks": objects["networks"],
            "/apis/apps/v1/namespaces/kube-system/daemonsets/nccl-rdma-installer": objects[
                "daemonset"
            ],
            "/api/v1/namespaces/kube-system/pods": objects["pods"],
            # The training queue's (every platform checks it: tests/test_verify_queue.py).
            **(routes := queue_routes(queue or queue_recorded())),
            # Node health's, its checks' conditions on the queue's nodes (test_verify_health.py).
            **health_routes(routes["/api/v1/nodes"]),
        }
    )


def test_read_snapshot_through_the_kubernetes_client(expected):
    api_client, cluster = client_for(recorded())
    snapshot = verify_gke.read_snapshot(expected, api_client)
    assert check(expected, snapshot) == []
    assert snapshot.daemon_set["status"]["numberReady"] == 2
    assert (
        snapshot.pods[0]["status"]["initContainerStatuses"][0]["state"]["terminated"]["reason"]
        == "Completed"
    )
    assert any("labelSelector=k8s-app%3Dnccl-rdma-installer" in r for r in cluster.requests)


def test_read_snapshot_treats_a_404_daemon_set_as_missing(expected):
    objects = recorded()
    objects["daemonset"] = None
    api_client, _ = client_for(objects)
    snapshot = verify_gke.read_snapshot(expected, api_client)
    assert snapshot.daemon_set is None
    assert check(expected, snapshot) == ["DaemonSet kube-system/nccl-rdma-installer: missing"]


def test_a_queue_that_admits_nothing_fails_verify(monkeypatch, capsys):
    queue = queue_recorded()
    queue["clusterqueue"]["status"]["conditions"][0]["status"] = "False"
    out = run_verify(monkeypatch, capsys, "a4x-prod", client_for(recorded(), queue)[0], 1)
    assert "ClusterQueue gpu-fabric: not active, admits nothing" in out


def test_a_healthy_fabric_and_queue_say_so(monkeypatch, capsys):
    out = run_verify(monkeypatch, capsys, "a4x-prod", client_for(recorded())[0], 0)
    assert "the training queue training/default admits" in out


@pytest.mark.parametrize("broken, code", [(None, 0), ("installer crash-looping", 1)])
def test_verify_command_exit_codes(monkeypatch, capsys, broken, code):
    objects = recorded()
    if broken:
        BROKEN[broken][0](objects)
    out = run_verify(monkeypatch, capsys, "a4x-prod", client_for(objects)[0], code)
    if broken:
        assert "CrashLoopBackOff" in out


def test_verify_command_reports_an_unreachable_cluster(monkeypatch, capsys):
    def unreachable(stack, kubeconfig):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(verify_cli, "api_client_for", unreachable)
    assert verify_cli.main(["a4x-prod"]) == 2
    assert "cannot read the cluster: no route to host" in capsys.readouterr().err


def test_verify_works_for_the_a3_stack_too():
    cfg = parse_with_cloud_stack_file(stack_config("a3-prod"), "a3-prod")
    expected = expected_from(cfg)
    assert [(n.name, n.device_mode, n.vpc) for n in expected.networks] == [
        (f"vpc{n}", "NetDevice", f"a3-prod-net-{n}") for n in range(1, 5)
    ]
    assert expected.installer_name == "nccl-tcpx-installer"
    empty = Snapshot()
    assert len(check(expected, empty)) == 9  # 4 pairs missing + the installer


def test_a_fabric_stack_is_verified_through_its_cloud_stacks_kubeconfig(monkeypatch, capsys):
    asked = []

    def client_for(stack, kubeconfig):
        asked.append(stack)
        raise RuntimeError("no cluster here")

    monkeypatch.setattr(verify_cli, "api_client_for", client_for)
    assert verify_cli.main(["oke-dranet-fabric"]) == 2
    assert asked == ["oke-dranet"]


def test_a_missing_kubeconfig_names_the_path_and_the_command_that_writes_one(
    monkeypatch, capsys, tmp_path
):
    missing = tmp_path / "nope.yaml"
    assert verify_cli.main(["a4x-prod", "--kubeconfig", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"no kubeconfig file at {missing}" in err
    assert "gcloud container clusters get-credentials a4x-prod --location us-central1" in err
    assert "make verify STACK=a4x-prod KUBECONFIG_FILE=kubeconfig.yaml" in err


def test_without_a_kubeconfig_it_says_where_it_looked(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "config"))
    monkeypatch.setattr(verify_cli, "_stack_kubeconfig", lambda stack: None)
    monkeypatch.setattr(verify_cli.shutil, "which", lambda name: None)
    assert verify_cli.main(["oke-dranet-fabric"]) == 2
    err = capsys.readouterr().err
    assert f"no kubeconfig file at {tmp_path / 'config'}" in err
    assert "the Pulumi CLI is not on PATH" in err
    assert "oci ce cluster create-kubeconfig --cluster-id $(pulumi stack output clusterId" in err
    assert "-s oke-dranet)" in err


def test_a3_mega_checks_the_nri_device_injector_as_the_installer():
    # The tcpxo-daemon gets its GPUs from the NRI device injector DaemonSet
    # (container-engine-accelerators gpudirect-tcpxo), so `make verify` checks its rollout too.
    cfg = parse_with_cloud_stack_file(stack_config("a3-mega-prod"), "a3-mega-prod")
    expected = expected_from(cfg)
    assert expected.injector == ("kube-system", "device-injector", {"k8s-app": "device-injector"})
    assert "kube-system/device-injector rolled out" in expected.summary
    missing = check(expected, Snapshot())
    assert "DaemonSet kube-system/device-injector: missing" in missing
    assert len(missing) == 18  # 8 pairs missing + the installer + the injector

    objects = recorded()
    healthy = objects["daemonset"]
    stuck = {**healthy, "status": {**healthy["status"], "numberReady": 0}}
    snapshot = Snapshot(injector_daemon_set=stuck, injector_pods=[])
    desired = healthy["status"]["desiredNumberScheduled"]
    assert f"DaemonSet kube-system/device-injector: 0 of {desired} pods ready" in check(
        expected, snapshot
    )
    rolled_out = Snapshot(injector_daemon_set=healthy, injector_pods=objects["pods"]["items"])
    assert not [p for p in check(expected, rolled_out) if "device-injector" in p]

    api_client, cluster = client_for_routes(
        {
            "/apis/networking.gke.io/v1/gkenetworkparamsets": {"items": []},
            "/apis/networking.gke.io/v1/networks": {"items": []},
            "/apis/apps/v1/namespaces/kube-system/daemonsets/device-injector": healthy,
            "/api/v1/namespaces/kube-system/pods": objects["pods"],
        }
    )
    read = verify_gke.read_snapshot(expected, api_client)
    assert read.injector_daemon_set["status"] == healthy["status"]
    assert any("labelSelector=k8s-app%3Ddevice-injector" in r for r in cluster.requests)


def test_other_gke_platforms_expect_no_device_injector(expected):
    assert expected.injector is None


def test_verify_fails_naming_the_node_and_the_check_that_failed(monkeypatch, capsys):
    api_client, cluster = client_for(recorded())
    nodes = cluster.routes["/api/v1/nodes"]
    node = nodes["items"][0]
    (condition,) = [c for c in node["status"]["conditions"] if c["type"] == "GpuEcc"]
    condition.update(status="True", message="uncorrected ECC errors: GPU 2: 3")
    out = run_verify(monkeypatch, capsys, "a4x-prod", api_client, 1)
    assert (
        f"Node {node['metadata']['name']}: GpuEcc failed (uncorrected ECC errors: GPU 2: 3); "
        "not tainted yet." in out
    )
