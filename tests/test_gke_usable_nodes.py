"""GKE's usable-nodes wait (gpu_fabric/gke/usable_nodes.py): `pulumi up` ends green only once
every GPU node advertises its GPUs and runs the fabric's installer pods."""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.usable_nodes import FAILURE, needs_of
from gpu_fabric.node_wait import usable_lines, wait_script
from tests.conftest import assert_single_rule, run_stack
from tests.wait_script import fake_kubectl, run_wait_script, shellcheck_problems

COMMAND = "command:local:Command"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
GKE_STACKS = ["a3-prod", "a3-mega-prod", "a3-ultra-prod", "a4-prod", "a4x-prod"]


def usable_wait(plan):
    (wait,) = [r for r in plan.of_type(COMMAND) if r.name.endswith("-gpu-nodes-usable-wait")]
    return wait


@pytest.mark.parametrize("stack", GKE_STACKS)
def test_the_wait_counts_every_gpu_node_after_the_installers_and_the_pools(stack):
    plan = run_stack(stack=stack)
    wait = usable_wait(plan)
    pools = [
        r for r in plan.of_type("gcp:container/nodePool:NodePool") if r.name != f"{stack}-system"
    ]
    env = wait.inputs["environment"]
    assert env["COUNT"] == str(sum(p.inputs["nodeCount"] for p in pools))
    names = ",".join(p.inputs["name"] for p in pools)
    assert env["SELECTOR"] == f"cloud.google.com/gke-nodepool in ({names})"
    assert env["TIMEOUT_SECONDS"] == str(30 * 60)
    # Started once the pools exist and every DaemonSet it waits for is applied.
    for resource in [*pools, *plan.of_type(DAEMON_SET)]:
        if "installer" in resource.name or "nri-device-injector" in resource.name:
            assert resource.urn in wait.dependencies, resource.name
    assert all(p.urn in wait.dependencies for p in pools)


def test_the_nvlink_driver_starts_on_usable_nodes():
    """Its kubelet plugin needs the GPU driver: Helm's wait then sees its pods on every node."""
    plan = run_stack(stack="a4x-prod")
    (release,) = [r for r in plan.of_type("kubernetes:helm.sh/v3:Release") if "nvlink" in r.name]
    assert usable_wait(plan).urn in release.dependencies


@pytest.mark.parametrize("stack", GKE_STACKS)
def test_the_wait_checks_the_gpus_and_the_pods_of_the_fabric_installer(stack):
    plan = run_stack(stack=stack)
    script = usable_wait(plan).inputs["create"]
    machine = catalog().machines[plan_machine(plan)]
    assert "{.status.allocatable.nvidia\\.com/gpu}" in script
    assert f'[ "$have" -ge {machine.accelerator.count} ]' in script
    installers = [r for r in plan.of_type(DAEMON_SET) if r.name.endswith(("-installer", "-a4x"))]
    for installer in installers:
        labels = installer.inputs["spec"]["selector"]["matchLabels"]
        selector = ",".join(f"{k}={v}" for k, v in labels.items())
        assert f"-n kube-system -l {selector} " in script


def plan_machine(plan) -> str:
    (pool,) = [r for r in plan.of_type("gcp:container/nodePool:NodePool") if "system" not in r.name]
    return pool.inputs["nodeConfig"]["machineType"]


def test_a3_mega_waits_for_the_nri_device_injector_too():
    script = usable_wait(run_stack(stack="a3-mega-prod")).inputs["create"]
    assert "no Running NRI device injector pod" in script
    assert "no Running NRI device injector pod" not in usable_wait(run_stack()).inputs["create"]


def test_arm_nodes_may_keep_their_arch_taint():
    assert (
        "allowed=' nvidia.com/gpu kubernetes.io/arch '"
        in usable_wait(run_stack(stack="a4x-prod")).inputs["create"]
    )
    assert "allowed=' nvidia.com/gpu '" in usable_wait(run_stack()).inputs["create"]


def test_an_externally_owned_installer_is_still_awaited_on_every_node():
    """The external owner's bundle applies the same DaemonSets: their pods must still run."""
    plan = run_stack({"gpu-fabric:installer.owner": "external"})
    assert not [r for r in plan.of_type(DAEMON_SET) if r.name.endswith("-installer")]
    assert (
        "no Running NCCL installer pod (kube-system, k8s-app=nccl-tcpx-installer)"
        in usable_wait(plan).inputs["create"]
    )


def test_the_timeout_is_a_setting():
    wait = usable_wait(run_stack({"gpu-fabric:nodeWaitTimeout": "45m"}))
    assert wait.inputs["environment"]["TIMEOUT_SECONDS"] == str(45 * 60)


def test_a_timeout_that_is_not_a_duration_is_refused():
    assert_single_rule(
        {"gpu-fabric:nodeWaitTimeout": "forever"},
        "gpu-fabric:nodeWaitTimeout",
        "forever",
        "a duration",
        "a3-prod",
    )


def test_pools_at_zero_nodes_have_no_wait():
    """The documented exception: nothing to wait for (a pool scaled up later is not awaited)."""
    plan = run_stack({"gpu-fabric:gpuPool.nodeCount": 0})
    assert not [r for r in plan.of_type(COMMAND) if r.name.endswith("-gpu-nodes-usable-wait")]


def test_a_changed_node_count_runs_the_wait_again():
    before = usable_wait(run_stack()).inputs["triggers"]
    after = usable_wait(run_stack({"gpu-fabric:gpuPool.nodeCount": 3})).inputs["triggers"]
    assert before != after and after[-1] == 3


# --- the script, run against a fake kubectl ---------------------------------------------------


def a3_high_script() -> str:
    return wait_script(FAILURE, usable_lines(needs_of(catalog().machines["a3-highgpu-8g"])))


def run_usable(tmp_path, kubectl: str, timeout: int = 0):
    env = {"SELECTOR": "cloud.google.com/gke-nodepool in (a3-highgpu)", "COUNT": "2"}
    return run_wait_script(
        tmp_path, a3_high_script(), kubectl, {**env, "TIMEOUT_SECONDS": str(timeout)}
    )


GPUS = {"a": {"nvidia.com/gpu": "8"}, "b": {"nvidia.com/gpu": "8"}}


def test_usable_nodes_end_the_wait(tmp_path):
    kubectl = fake_kubectl(
        ["a", "b"],
        taints={"a": ["nvidia.com/gpu"]},
        allocatable=GPUS,
        running_pods={"a": 1, "b": 1},
    )
    result = run_usable(tmp_path, kubectl)
    assert result.returncode == 0, result.stderr


def test_a_node_without_its_gpus_fails_naming_it(tmp_path):
    kubectl = fake_kubectl(["a", "b"], allocatable={"b": GPUS["b"]}, running_pods={"a": 1, "b": 1})
    result = run_usable(tmp_path, kubectl)
    assert result.returncode == 1
    assert (
        "Ready, but not usable: a: nvidia.com/gpu advertised: 0 of 8 (GKE's NVIDIA device plugin);"
    ) in result.stderr
    assert " b:" not in result.stderr


def test_a_node_without_a_running_installer_pod_fails_naming_it(tmp_path):
    kubectl = fake_kubectl(["a", "b"], allocatable=GPUS, running_pods={"a": 1})
    result = run_usable(tmp_path, kubectl)
    assert result.returncode == 1
    assert "b: no Running NCCL installer pod (kube-system, k8s-app=nccl-tcpx-installer);" in (
        result.stderr
    )


def test_a_node_with_another_taint_fails_naming_the_taint(tmp_path):
    kubectl = fake_kubectl(
        ["a", "b"],
        taints={"b": ["nvidia.com/gpu", "node.kubernetes.io/unschedulable"]},
        allocatable=GPUS,
        running_pods={"a": 1, "b": 1},
    )
    result = run_usable(tmp_path, kubectl)
    assert "b: taint node.kubernetes.io/unschedulable;" in result.stderr
    assert "kubectl describe node NODE" in result.stderr


def test_the_gke_usable_script_passes_shellcheck(tmp_path):
    assert shellcheck_problems(tmp_path, a3_high_script()) == ""


def test_a_pool_replaced_under_its_name_runs_the_wait_again():
    """A pool keeps its name when it is replaced (a forced field) and gets new managed instance
    groups (a cloud layer output): the wait triggers on them, so it checks the new nodes."""
    plan = run_stack()
    (group,) = plan.outputs["gpuNodePoolInstanceGroups"]
    assert "/instanceGroupManagers/gke-a3-highgpu-" in group
    assert usable_wait(plan).inputs["triggers"][2] == [group]
