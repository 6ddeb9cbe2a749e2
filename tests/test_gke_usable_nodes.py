"""GKE's usable-nodes wait (gpu_fabric/gke/usable_nodes.py): `pulumi up` ends green only once
every GPU node advertises its GPUs and runs the fabric's installer pods."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.gke.usable_nodes import FAILURE, needs_of
from gpu_fabric.node_wait import usable_lines, wait_script
from offline.plan import pick
from tests.conftest import assert_single_rule, parse_stack, run_stack
from tests.stacks import stacks_on
from tests.wait_script import (
    changed_copy,
    recorded_kubectl,
    run_wait_script,
    shellcheck_problems,
)

COMMAND = "command:local:Command"
DAEMON_SET = "kubernetes:apps/v1:DaemonSet"
NETWORK = "kubernetes:networking.gke.io/v1:Network"
GKE_STACKS = [
    stack
    for stack in stacks_on("gke")
    if sum(pool.node_count for pool in parse_stack({}, stack).pools)
]
"""The GKE stacks with nodes to wait for (a pool that starts at zero has none:
tests/test_gke_pool_capacity.py)."""


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
    # A fixed pool's nodes, an autoscaled one's minimum.
    awaited = [
        p.inputs.get("nodeCount", pick(p.inputs, "autoscaling.totalMinNodeCount")) for p in pools
    ]
    assert env["COUNT"] == str(sum(awaited))
    names = ",".join(p.inputs["name"] for p in pools)
    assert env["SELECTOR"] == f"cloud.google.com/gke-nodepool in ({names})"
    assert env["TIMEOUT_SECONDS"] == str(30 * 60)
    # Started once the pools exist and every DaemonSet it waits for is applied.
    for resource in [*pools, *plan.of_type(DAEMON_SET)]:
        if "installer" in resource.name or "nri-device-injector" in resource.name:
            assert resource.urn in wait.dependencies, resource.name
    assert all(p.urn in wait.dependencies for p in pools)


def test_the_nvlink_driver_goes_in_beside_the_nodes_and_the_wait_after_it():
    """Not on `pulumi up`'s critical path after the nodes: the wait checks its devices."""
    plan = run_stack(stack="a4x-prod")
    (release,) = [r for r in plan.of_type("kubernetes:helm.sh/v3:Release") if "nvlink" in r.name]
    pools = [r.urn for r in plan.of_type("gcp:container/nodePool:NodePool")]
    assert not plan.depends_on(release, usable_wait(plan))
    assert not set(pools) & set(release.dependencies)
    assert release.urn in usable_wait(plan).dependencies


@pytest.mark.parametrize("stack", GKE_STACKS)
def test_the_wait_checks_the_gpus_and_the_pods_of_the_fabric_installer(stack):
    plan = run_stack(stack=stack)
    script = usable_wait(plan).inputs["create"]
    machine = catalog().machines[plan_machine(plan)]
    assert "{.status.allocatable.nvidia\\.com/gpu}" in script
    assert f'at_least "$have" {machine.accelerator.count} ||' in script
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


HEALTHY = Path(__file__).with_name("fixtures") / "a3-prod-gpu-nodes-healthy.yaml"
NETWORKS = ["vpc1", "vpc2", "vpc3", "vpc4"]
NODE_A, NODE_B = "gke-a3-prod-a3-highgpu-3f1c9e0a-7q2x", "gke-a3-prod-a3-highgpu-3f1c9e0a-k9fz"


def a3_high_script() -> str:
    machine = catalog().machines["a3-highgpu-8g"]
    needs = needs_of(machine, NETWORKS, topology_levels=machine.topology_levels)
    return wait_script(FAILURE, usable_lines(needs))


def run_usable(tmp_path, change=None, timeout: int = 0):
    """The A3 High wait against the healthy recording, changed by `change` when given."""
    cluster = changed_copy(tmp_path, HEALTHY, change) if change else HEALTHY
    env = {"SELECTOR": "cloud.google.com/gke-nodepool in (a3-highgpu)", "COUNT": "2"}
    return run_wait_script(
        tmp_path,
        a3_high_script(),
        recorded_kubectl(cluster),
        {**env, "TIMEOUT_SECONDS": str(timeout)},
    )


def _node(cluster: dict, name: str) -> dict:
    (node,) = [n for n in cluster["nodes"]["items"] if n["metadata"]["name"] == name]
    return node


def test_usable_nodes_end_the_wait(tmp_path):
    result = run_usable(tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr


def test_a_node_without_its_gpus_fails_naming_it(tmp_path):
    def no_gpus(cluster: dict) -> None:
        del _node(cluster, NODE_A)["status"]["allocatable"]["nvidia.com/gpu"]

    result = run_usable(tmp_path, no_gpus)
    assert result.returncode == 1
    assert (
        f"Ready, but not usable: {NODE_A}: nvidia.com/gpu advertised: 0 of 8 (GKE's NVIDIA "
        "device plugin);"
    ) in result.stderr
    assert f" {NODE_B}:" not in result.stderr


def test_a_node_whose_gpu_nic_is_down_fails_naming_its_network(tmp_path):
    """GKE's controller advertises no `.IP` for a Network whose interface is not up there."""

    def nic_down(cluster: dict) -> None:
        del _node(cluster, NODE_B)["status"]["allocatable"]["networking.gke.io.networks/vpc3.IP"]

    result = run_usable(tmp_path, nic_down)
    assert result.returncode == 1
    assert (
        f"{NODE_B}: networking.gke.io.networks/vpc3.IP advertised: 0 of 1 (GKE multi-networking: "
        "the NIC's interface up on the node);"
    ) in result.stderr
    assert f" {NODE_A}:" not in result.stderr


def test_a_node_without_a_running_installer_pod_fails_naming_it(tmp_path):
    def pending(cluster: dict) -> None:
        cluster["pods"]["items"][1]["status"]["phase"] = "Pending"

    result = run_usable(tmp_path, pending)
    assert result.returncode == 1
    assert (
        f"{NODE_B}: no Running NCCL installer pod (kube-system, k8s-app=nccl-tcpx-installer);"
        in (result.stderr)
    )


def test_a_node_with_another_taint_fails_naming_the_taint(tmp_path):
    def cordoned(cluster: dict) -> None:
        _node(cluster, NODE_B)["spec"]["taints"].append(
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
        )

    result = run_usable(tmp_path, cordoned)
    assert f"{NODE_B}: taint node.kubernetes.io/unschedulable;" in result.stderr
    assert "kubectl describe node NODE" in result.stderr


def test_a_node_without_a_topology_levels_label_fails_naming_it_and_the_fix(tmp_path):
    """Kueue counts no node that lacks a level's label: the queue would admit nothing there."""

    def unlabelled(cluster: dict) -> None:
        del _node(cluster, NODE_A)["metadata"]["labels"]["cloud.google.com/gce-topology-subblock"]

    result = run_usable(tmp_path, unlabelled)
    assert result.returncode == 1
    assert (
        f"{NODE_A}: no label cloud.google.com/gce-topology-subblock (a level of the training "
        "queue's Topology: Kueue places no job on a node without it; GKE sets its "
        "cloud.google.com/gce-topology-* labels on reservation-bound or compactly placed nodes"
    ) in result.stderr


def test_the_wait_checks_the_queues_topology_labels():
    script = usable_wait(run_stack()).inputs["create"]
    for level in catalog().machines["a3-highgpu-8g"].topology_levels:
        assert f"no label {level} " in script
    sparse = usable_wait(run_stack({"gpu-fabric:gpuPool.compactPlacement": False}))
    assert "no label" not in sparse.inputs["create"]


def test_a4x_nodes_need_the_compute_domain_plugins_devices():
    plan = run_stack(stack="a4x-prod")
    script = usable_wait(plan).inputs["create"]
    assert 'spec.driver=compute-domain.nvidia.com" ' in script
    assert "compute-domain.nvidia.com devices published: $have of 2" in script
    assert "compute-domain.nvidia.com" not in usable_wait(run_stack()).inputs["create"]


def test_every_gpu_nic_network_is_awaited():
    for stack in GKE_STACKS:
        plan = run_stack(stack=stack)
        script = usable_wait(plan).inputs["create"]
        networks = [r.inputs["metadata"]["name"] for r in plan.of_type(NETWORK)]
        assert networks
        for network in networks:
            assert f"networking.gke.io.networks/{network}.IP advertised" in script, (stack, network)


def test_a_new_installer_image_or_driver_version_runs_the_wait_again():
    triggers = usable_wait(run_stack()).inputs["triggers"]
    assert catalog().images.tcpx.installer in triggers
    a4x = usable_wait(run_stack(stack="a4x-prod")).inputs["triggers"]
    assert catalog().nvidia_dra_driver.compute_domains_version in a4x


def test_the_gke_usable_script_passes_shellcheck(tmp_path):
    assert shellcheck_problems(tmp_path, a3_high_script()) == ""


def test_a_pool_replaced_under_its_name_runs_the_wait_again():
    """A pool keeps its name when it is replaced (a forced field) and gets new managed instance
    groups (a cloud layer output): the wait triggers on them, so it checks the new nodes."""
    plan = run_stack()
    (group,) = plan.outputs["gpuNodePoolInstanceGroups"]
    assert "/instanceGroupManagers/gke-a3-highgpu-" in group
    assert usable_wait(plan).inputs["triggers"][2] == [group]
