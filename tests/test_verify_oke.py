"""`make verify STACK=oke-dranet`: fail-closed, on API-shaped objects built from the
DRANET-on-OKE write-up."""

from __future__ import annotations

from pathlib import Path

import kubernetes_validate
import pytest

import verify.oke as verify_oke
from gpu_fabric import yaml_files
from gpu_fabric.stack_config import parse_with_cloud_stack_file
from offline.engine import stack_config
from tests.recorded_cluster import assert_broken_case_reported, client_for_routes, run_verify
from verify.oke import Snapshot, check, expected_from

FIXTURE = Path(__file__).with_name("fixtures") / "oke-dranet-healthy.yaml"
DRANET = "kube-system/dranet"
GPU_PLUGIN = "dra-driver-nvidia-gpu/dra-driver-nvidia-gpu-kubelet-plugin"


def recorded() -> dict:
    return yaml_files.read(FIXTURE)


def snapshot_of(objects: dict) -> Snapshot:
    return Snapshot(
        device_classes=objects["deviceclasses"]["items"],
        daemon_sets=dict(objects["daemonsets"]),
        pods={k: v["items"] for k, v in objects["pods"].items()},
        nodes=objects["nodes"]["items"],
        resource_slices=objects["resourceslices"]["items"],
        namespace=objects["namespace"],
        config_map=objects["configmap"],
    )


@pytest.fixture(scope="module")
def expected():
    return expected_from(parse_with_cloud_stack_file(stack_config("oke-dranet"), "oke-dranet"))


def test_expectations_come_from_the_stack_and_the_catalog(expected):
    assert [(d.namespace, d.name) for d in expected.daemon_sets] == [
        ("kube-system", "dranet"),
        ("dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu-kubelet-plugin"),
    ]
    assert [r.name for r in expected.roots] == [
        "pci0000:00",
        "pci0000:3e",
        "pci0000:7d",
        "pci0000:ba",
    ]
    assert expected.device_classes == ["dra.net", "gpu.nvidia.com"]


def test_fixture_objects_are_valid_api_objects():
    objects = recorded()
    items = [
        *objects["deviceclasses"]["items"],
        *objects["nodes"]["items"],
        *objects["resourceslices"]["items"],
        *objects["daemonsets"].values(),
        *(p for pods in objects["pods"].values() for p in pods["items"]),
        objects["namespace"],
        objects["configmap"],
    ]
    for obj in items:
        kubernetes_validate.validate(obj, "1.34", strict=True)


def test_healthy_cluster_passes(expected):
    assert check(expected, snapshot_of(recorded())) == []


def _slice(objects: dict, node: str, driver: str) -> dict:
    return next(
        s["spec"]
        for s in objects["resourceslices"]["items"]
        if s["spec"]["nodeName"] == node and s["spec"]["driver"] == driver
    )


def _move_rail(objects: dict) -> None:
    rail = next(
        d
        for d in _slice(objects, "10.140.66.66", "dra.net")["devices"]
        if d["attributes"]["dra.net/ifName"]["string"] == "rdma5"
    )
    rail["attributes"]["resource.kubernetes.io/pcieRoot"]["string"] = "pci0000:00"


def _drop_gpu(objects: dict) -> None:
    _slice(objects, "10.140.82.106", "gpu.nvidia.com")["devices"].pop()


BROKEN = {
    "DeviceClass dra.net missing": (
        lambda o: o["deviceclasses"]["items"].pop(0),
        ["DeviceClass dra.net: missing"],
    ),
    "DRANET missing": (
        lambda o: o["daemonsets"].update({DRANET: None}),
        ["DaemonSet kube-system/dranet: missing"],
    ),
    "GPU plugin on one of two GPU nodes": (
        lambda o: o["daemonsets"][GPU_PLUGIN]["status"].update(
            desiredNumberScheduled=1,
            currentNumberScheduled=1,
            numberReady=1,
            numberAvailable=1,
            updatedNumberScheduled=1,
        ),
        [f"DaemonSet {GPU_PLUGIN}: scheduled on 1 of the 2 GPU nodes"],
    ),
    "DRANET pod crash-looping": (
        lambda o: o["pods"][DRANET]["items"][0]["status"]["containerStatuses"][0].update(
            state={"waiting": {"reason": "CrashLoopBackOff"}}
        ),
        ["Pod kube-system/dranet-4xk2d: container dranet CrashLoopBackOff"],
    ),
    "a node without its rails": (
        lambda o: o["resourceslices"]["items"].pop(0),
        ["Node 10.140.66.66: publishes 0 RDMA rails (dra.net), expected 16"],
    ),
    "a rail on the wrong root": (
        _move_rail,
        [
            "Node 10.140.66.66: rails on pci0000:00 are ['rdma0', 'rdma1', 'rdma2', 'rdma3', "
            "'rdma5']",
            "Node 10.140.66.66: rails on pci0000:3e are ['rdma4', 'rdma6', 'rdma7']",
        ],
    ),
    "a GPU missing": (
        _drop_gpu,
        [
            "Node 10.140.82.106: publishes 7 GPUs (gpu.nvidia.com), expected 8",
            "Node 10.140.82.106: 1 GPUs on pci0000:ba, expected 2",
        ],
    ),
    "GPU without pcieRoot": (
        lambda o: _slice(o, "10.140.66.66", "gpu.nvidia.com")["devices"][0]["attributes"].pop(
            "resource.kubernetes.io/pcieRoot"
        ),
        ["Node 10.140.66.66: 1 GPUs on pci0000:3e, expected 2"],
    ),
    "no GPU node joined": (
        lambda o: o["nodes"]["items"].__setitem__(slice(0, 2), []),
        ["0 of the stack's 2 BM.GPU.B4.8 nodes have joined the cluster"],
    ),
    "one of two GPU nodes joined": (
        lambda o: o["nodes"]["items"].pop(1),
        ["1 of the stack's 2 BM.GPU.B4.8 nodes have joined the cluster"],
    ),
    "namespace not baseline": (
        lambda o: o["namespace"]["metadata"]["labels"].update(
            {"pod-security.kubernetes.io/enforce": "privileged"}
        ),
        ["Namespace rdma-dranet: pod-security.kubernetes.io/enforce is 'privileged'"],
    ),
    "tools edited": (
        lambda o: o["configmap"]["data"].update({"rail-map.sh": "#!/bin/sh\n"}),
        ["ConfigMap rdma-dranet/rdma-dranet-tools: rail-map.sh differs"],
    ),
    "tools missing": (
        lambda o: o.update(configmap=None),
        ["ConfigMap rdma-dranet/rdma-dranet-tools: missing"],
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_each_broken_piece_is_reported(expected, case):
    assert_broken_case_reported(BROKEN, case, recorded, snapshot_of, check, expected)


def _routes(objects: dict) -> dict:
    ds, pods = objects["daemonsets"], objects["pods"]
    return {
        "/apis/resource.k8s.io/v1/deviceclasses": objects["deviceclasses"],
        "/apis/resource.k8s.io/v1/resourceslices": objects["resourceslices"],
        "/api/v1/nodes": objects["nodes"],
        "/api/v1/namespaces/rdma-dranet": objects["namespace"],
        "/api/v1/namespaces/rdma-dranet/configmaps/rdma-dranet-tools": objects["configmap"],
        "/apis/apps/v1/namespaces/kube-system/daemonsets/dranet": ds[DRANET],
        "/apis/apps/v1/namespaces/dra-driver-nvidia-gpu/daemonsets/"
        "dra-driver-nvidia-gpu-kubelet-plugin": ds[GPU_PLUGIN],
        "/api/v1/namespaces/kube-system/pods": pods[DRANET],
        "/api/v1/namespaces/dra-driver-nvidia-gpu/pods": pods[GPU_PLUGIN],
    }


def oke_client(objects: dict):
    return client_for_routes(_routes(objects))


def test_read_snapshot_through_the_kubernetes_client(expected):
    api_client, cluster = oke_client(recorded())
    snapshot = verify_oke.read_snapshot(expected, api_client)
    assert check(expected, snapshot) == []
    assert len(snapshot.resource_slices) == 4
    assert any("labelSelector=app%3Ddranet" in r for r in cluster.requests)


@pytest.mark.parametrize("broken, code", [(None, 0), ("a rail on the wrong root", 1)])
def test_verify_command_exit_codes(monkeypatch, capsys, broken, code):
    objects = recorded()
    if broken:
        BROKEN[broken][0](objects)
    run_verify(monkeypatch, capsys, "oke-dranet", oke_client(objects)[0], code)
