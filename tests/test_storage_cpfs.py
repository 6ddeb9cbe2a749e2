"""ACK's `cpfs` training volumes (gpu_fabric/ack/cpfs/): an existing CPFS for Lingjun file system,
the CSI add-ons it needs installed by the cloud layer, bound in every training namespace by the
fabric layer, mounted by the runtime; the documented requirements checked at plan time."""

from __future__ import annotations

import pytest

from gpu_fabric.ack.cpfs.volumes import DRIVER
from gpu_fabric.catalog import catalog
from tests.conftest import assert_single_rule, run_stack
from tests.stacks import cluster_key_stacks_on
from tests.test_storage import bound_volumes
from tests.test_workloads_runtime import node_container, resolve, runtime_of, user_job

ACK = cluster_key_stacks_on("ack")
STACK = ACK[0]
DATA = "bmcpfs-290w65p03ok64ya"
CHECKPOINTS = "bmcpfs-0a1b2c3d4e5f6g7h"
STORAGE = {
    "data": {"cpfs": {"fileSystem": DATA, "path": "/datasets"}},
    "checkpoints": {"cpfs": {"fileSystem": CHECKPOINTS}},
}


@pytest.fixture(scope="module")
def plan():
    return run_stack({"gpu-fabric:storage": STORAGE}, stack=STACK)


def test_the_cloud_layer_installs_the_csi_add_ons_only_with_cpfs(plan):
    wanted = set(catalog().ack.cpfs_csi.addons)
    addons = {a.inputs["name"] for a in plan.of_type("alicloud:cs/kubernetesAddon:KubernetesAddon")}
    assert wanted <= addons
    without = run_stack(stack=STACK)
    names = {
        a.inputs["name"] for a in without.of_type("alicloud:cs/kubernetesAddon:KubernetesAddon")
    }
    assert not wanted & names


def test_every_training_namespace_gets_a_claim_of_each_file_system():
    plan = run_stack(
        {
            "gpu-fabric:storage": STORAGE,
            "gpu-fabric:queues": {"teams": [{"namespace": "a"}, {"namespace": "b"}]},
        },
        stack=STACK,
    )
    wanted = {
        "training-data": (DATA, "/datasets", "ReadOnlyMany"),
        "training-checkpoints": (CHECKPOINTS, "/", "ReadWriteMany"),
    }
    pairs = bound_volumes(plan)
    assert len(pairs) == 4
    for claim, volume in pairs:
        handle, path, mode = wanted[claim["metadata"]["name"]]
        assert volume["spec"]["csi"] == {
            "driver": DRIVER,
            "volumeHandle": handle,
            "volumeAttributes": {"path": path},
        }
        assert claim["spec"]["accessModes"] == [mode]


def test_the_runtime_mounts_both(plan):
    runtime = runtime_of(plan)
    pod = resolve(runtime, user_job(runtime["metadata"]["name"]))[0]
    mounts = {m["mountPath"] for m in node_container(pod)["volumeMounts"]}
    assert {"/data", "/checkpoints"} <= mounts


def test_every_cluster_the_stacks_make_is_new_enough_for_the_driver():
    # ACK's Lingjun floor is above the driver's: no stack can ask for a cluster it refuses.
    ack = catalog().ack
    minor = [
        tuple(map(int, v.split("."))) for v in (ack.min_kubernetes, ack.cpfs_csi.min_kubernetes)
    ]
    assert minor[0] >= minor[1]


def test_one_file_system_for_both_volumes_is_refused():
    same = {"data": {"cpfs": {"fileSystem": DATA}}, "checkpoints": {"cpfs": {"fileSystem": DATA}}}
    assert_single_rule(
        {"gpu-fabric:storage": same},
        "gpu-fabric:storage.checkpoints.cpfs.fileSystem",
        DATA,
        "one volume of a CPFS for Lingjun file system per pod",
        STACK,
    )


@pytest.mark.parametrize(
    ("cpfs", "key", "says"),
    [
        ({"fileSystem": "cpfs-0123abcd"}, "gpu-fabric:storage.data.cpfs.fileSystem", "bmcpfs-"),
        (
            {"fileSystem": DATA, "path": "datasets"},
            "gpu-fabric:storage.data.cpfs.path",
            "absolute",
        ),
    ],
)
def test_a_file_system_the_driver_cannot_mount_is_refused(cpfs, key, says):
    assert_single_rule({"gpu-fabric:storage": {"data": {"cpfs": cpfs}}}, key, None, says, STACK)


def test_an_add_on_of_a_fixed_name_is_replaced_delete_first(plan):
    wanted = set(catalog().ack.cpfs_csi.addons)
    addons = plan.of_type("alicloud:cs/kubernetesAddon:KubernetesAddon")
    assert all(a.delete_before_replace for a in addons if a.inputs["name"] in wanted)
