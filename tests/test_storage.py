"""Training storage (gpu_fabric/storage/): the volumes a stack names once, mounted by every
fabric's runtime at /data and /checkpoints, so a user's TrainJob of ten lines finds them."""

from __future__ import annotations

import kubernetes_validate
import pytest

from gpu_fabric.storage.mounts import CHECKPOINTS_PATH, DATA_PATH
from tests.conftest import DELETE, assert_single_rule, run_stack
from tests.stacks import CLUSTER_KEY_STACKS
from tests.test_workloads_runtime import node_container, resolve, runtime_of, user_job

STORAGE = {"data": {"claim": "training-data"}, "checkpoints": {"claim": "llama-checkpoints"}}
STORAGE_KINDS = {"PersistentVolume", "PersistentVolumeClaim"}
"""What the training volumes add to a cluster."""


@pytest.mark.parametrize("stack", CLUSTER_KEY_STACKS)
def test_a_users_job_finds_the_data_and_checkpoint_mounts_through_every_runtime(stack):
    from tests.test_manifests import validate

    plan = run_stack({"gpu-fabric:storage": STORAGE}, stack=stack)
    runtime = runtime_of(plan)
    job = user_job(runtime["metadata"]["name"])  # a TrainJob with no volume of its own
    validate(job)
    for pod in resolve(runtime, job):
        validate(pod)
        mounts = {m["mountPath"]: m for m in node_container(pod).get("volumeMounts", [])}
        volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
        data, checkpoints = mounts[DATA_PATH], mounts[CHECKPOINTS_PATH]
        assert data["readOnly"] is True and not checkpoints.get("readOnly")
        assert volumes[data["name"]]["persistentVolumeClaim"] == {
            "claimName": "training-data",
            "readOnly": True,
        }
        assert volumes[checkpoints["name"]]["persistentVolumeClaim"] == {
            "claimName": "llama-checkpoints",
            "readOnly": False,
        }


@pytest.mark.parametrize("stack", CLUSTER_KEY_STACKS)
def test_no_storage_mounts_nothing(stack):
    plan = run_stack({"gpu-fabric:storage": DELETE}, stack=stack)
    assert not [r for kind in STORAGE_KINDS for r in plan.of_type(f"kubernetes:core/v1:{kind}")]
    pod = resolve(runtime_of(plan), user_job("r"))[0]
    paths = {m["mountPath"] for m in node_container(pod).get("volumeMounts", [])}
    assert not {DATA_PATH, CHECKPOINTS_PATH} & paths


def test_a_volume_needs_a_claim_name_kubernetes_takes():
    stack = CLUSTER_KEY_STACKS[0]
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"claim": "Training_Data"}}},
        "gpu-fabric:storage.data.claim",
        "Training_Data",
        "not a PersistentVolumeClaim name",
        stack,
    )


@pytest.mark.parametrize("off", [{"runtime": False}, {"enabled": False}])
def test_a_volume_no_runtime_mounts_is_refused(off):
    stack = CLUSTER_KEY_STACKS[0]
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"claim": "training-data"}}, "gpu-fabric:queues": off},
        "gpu-fabric:storage.data",
        None,
        "only the fabric's training runtime mounts it",
        stack,
    )


def bound_volumes(plan) -> list[tuple[dict, dict]]:
    """(claim, volume) of every training volume the plan binds, each a valid Kubernetes object,
    the two naming each other with no StorageClass, the volume `Retain`ed."""
    volumes = {
        v.inputs["metadata"]["name"]: v.inputs
        for v in plan.of_type("kubernetes:core/v1:PersistentVolume")
    }
    pairs = []
    for made in plan.of_type("kubernetes:core/v1:PersistentVolumeClaim"):
        claim = made.inputs
        volume = volumes[claim["spec"]["volumeName"]]
        for obj in (claim, volume):
            kubernetes_validate.validate(obj, "1.34", strict=True)
        namespace, name = claim["metadata"]["namespace"], claim["metadata"]["name"]
        assert volume["spec"]["claimRef"] == {"namespace": namespace, "name": name}
        assert volume["spec"]["storageClassName"] == claim["spec"]["storageClassName"] == ""
        assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        assert volume["spec"]["accessModes"] == claim["spec"]["accessModes"]
        pairs.append((claim, volume))
    assert len(pairs) == len(volumes)
    return pairs
