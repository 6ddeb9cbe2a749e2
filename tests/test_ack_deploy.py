"""What `pulumi up` of ack-lingjun does between runs: the credential it keeps."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpu_fabric.catalog import catalog
from tests.conftest import fabric_plan, run_stack

STACK = "ack-lingjun"
PROVIDER = "pulumi:providers:kubernetes"


def _provider_inputs(plan) -> dict[str, dict]:
    return {p.urn: p.inputs for p in plan.of_type(PROVIDER)}


def test_two_runs_give_the_kubernetes_provider_the_same_kubeconfig():
    # A temporary credential is a new certificate per call (the mocks model it so): with one,
    # every preview showed a provider change and a destroy after 3 days failed.
    first = run_stack(stack=STACK, cached=False)
    second = run_stack(stack=STACK, cached=False)
    assert _provider_inputs(first) and _provider_inputs(first) == _provider_inputs(second)
    assert {r.urn: r.inputs for r in first.resources} == {r.urn: r.inputs for r in second.resources}
    kubeconfig = yaml.safe_load(next(iter(_provider_inputs(first).values()))["kubeconfig"])
    assert kubeconfig["users"][0]["user"]["client-certificate-data"]


def test_the_kubeconfigs_name_the_intranet_endpoint():
    """The provider's credential names the internet endpoint (it asks with PrivateIpAddress
    false); the API server is private and the fabric stack runs inside the VPC."""
    plan = run_stack(stack=STACK)
    (cluster,) = plan.of_type("alicloud:cs/managedKubernetes:ManagedKubernetes")
    for inputs in _provider_inputs(plan).values():
        kubeconfig = yaml.safe_load(inputs["kubeconfig"])
        assert [c["cluster"]["server"] for c in kubeconfig["clusters"]] == [
            "https://10.0.0.10:6443"
        ]
    assert yaml.safe_load(plan.outputs["kubeconfig"])["clusters"][0]["cluster"]["server"] == (
        "https://10.0.0.10:6443"
    )


def test_without_an_intranet_endpoint_the_credential_is_kept_as_it_came():
    from gpu_fabric.ack.cluster.component import _at_intranet_endpoint
    from gpu_fabric.ack.offline_mocks import mock_ack_kubeconfig

    kubeconfig = mock_ack_kubeconfig("c1")
    assert _at_intranet_endpoint(kubeconfig, []) == kubeconfig
    assert "https://47.92.0.10:6443" in kubeconfig


# --- the Lingjun pool must get nodes ----------------------------------------------------------

WAIT = "command:local:Command"


def lingjun_wait(plan):
    (wait,) = [r for r in plan.of_type(WAIT) if r.name.endswith("-lingjun-nodes-wait")]
    return wait


def test_the_fabric_stack_waits_for_the_lingjun_nodes_and_names_the_step():
    plan = run_stack(stack=STACK)
    wait = lingjun_wait(plan)
    assert wait.urn.startswith("urn:pulumi:ack-lingjun-fabric::")
    env = wait.inputs["environment"]
    assert env["COUNT"] == "2"  # the committed file's lingjun.nodeCount
    assert env["SELECTOR"] == "alibabacloud.com/lingjun-worker=true"
    assert env["GROUP_ID"] == "i120021051733814190732"
    assert env["POOL_ID"] == plan.outputs["lingjunNodePoolId"]
    assert env["CLUSTER_ID"] == plan.outputs["clusterId"]
    assert "environment" in wait.secret_inputs  # it carries the kubeconfig
    assert wait.inputs["triggers"] == [
        plan.outputs["clusterId"],
        env["POOL_ID"],
        2,
        # Again when the RDMA add-on changes (its version, its mode).
        f"ack-rdma-device-plugin {catalog().ack.rdma_device_plugin.version} non_host_network=False",
    ]


def test_the_wait_timeout_is_a_fabric_setting():
    assert lingjun_wait(run_stack(stack=STACK)).inputs["environment"]["TIMEOUT_SECONDS"] == "1800"
    plan = fabric_plan(STACK, {"gpu-fabric:nodeWaitTimeout": "1h"})
    assert lingjun_wait(plan).inputs["environment"]["TIMEOUT_SECONDS"] == "3600"


def test_in_one_stack_the_wait_follows_the_lingjun_pool(without_fabric_stacks):
    from tests.test_ack_stack import EXISTING_VPC

    existing = {**EXISTING_VPC, "deployPath": "a runner inside the VPC"}
    changes = {"gpu-fabric:layers": "all", "gpu-fabric:network": {"existing": existing}}
    plan = run_stack(changes, stack=STACK)
    (pool,) = [p for p in plan.of_type("alicloud:cs/nodePool:NodePool")
               if p.inputs.get("type") == "lingjun"]  # fmt: skip
    assert plan.depends_on(lingjun_wait(plan), pool)


def test_no_count_no_wait_and_a_warning():
    plan = run_stack({"gpu-fabric:lingjun.nodeCount": 0}, stack=STACK)
    assert not [r for r in plan.of_type(WAIT) if r.name.endswith("-lingjun-nodes-wait")]
    assert any("lingjun.nodeCount: 0" in w for w in plan.warnings)


def test_the_count_is_required_and_not_negative():
    from gpu_fabric.problems import MISSING
    from tests.conftest import DELETE, assert_single_rule

    assert_single_rule(
        {"gpu-fabric:lingjun.nodeCount": DELETE}, "gpu-fabric:lingjun.nodeCount", MISSING,
        "required", STACK,
    )  # fmt: skip
    for bad in (-1, 1001):
        assert_single_rule(
            {"gpu-fabric:lingjun.nodeCount": bad}, "gpu-fabric:lingjun.nodeCount", bad, "", STACK
        )


def run_wait(tmp_path, kubectl: str, timeout: int = 0):
    from gpu_fabric.ack.lingjun.wait import WAIT_SCRIPT
    from tests.wait_script import run_wait_script

    env = {
        "SELECTOR": "alibabacloud.com/lingjun-worker=true",
        "COUNT": "2",
        "TIMEOUT_SECONDS": str(timeout),
        "CLUSTER_ID": "c1",
        "POOL_ID": "c1:np1",
        "GROUP_ID": "ng-1",
    }
    return run_wait_script(tmp_path, WAIT_SCRIPT, kubectl, env)


NODES = 'if [ "$1 $2" = "get nodes" ]; then printf "node/a\\nnode/b\\n"; exit 0; fi'


def test_an_empty_pool_fails_naming_add_existing_node(tmp_path):
    result = run_wait(tmp_path, "exit 0")
    assert result.returncode == 1
    assert "0 of 2 registered" in result.stderr
    assert "Add Existing Node" in result.stderr and "ng-1" in result.stderr
    assert "pool np1 >" in result.stderr  # the pool's id as the console shows it


def test_an_api_error_is_named_not_taken_for_no_nodes(tmp_path):
    result = run_wait(tmp_path, 'echo "Unable to connect to the server" >&2; exit 1')
    assert result.returncode == 1
    assert "kubectl could not list the nodes: Unable to connect" in result.stderr


def test_an_api_error_after_ready_does_not_pass(tmp_path):
    # Listed and Ready, then the API fails when the nodes are read: not "nothing missing".
    kubectl = f'{NODES}\nif [ "$1" = get ]; then echo "error: forbidden" >&2; exit 1; fi'
    result = run_wait(tmp_path, kubectl)
    assert result.returncode == 1
    assert "not usable: a: unreadable: error: forbidden; b: unreadable" in result.stderr


def _lingjun(rdma: str = "1", gpus: str = "8", taints: list[str] | None = None) -> str:
    from tests.wait_script import fake_kubectl

    advertised = {"rdma/hca": rdma, "nvidia.com/gpu": gpus}
    return fake_kubectl(
        ["a", "b"],
        taints={"a": taints or [], "b": []},
        allocatable={"a": advertised, "b": {"rdma/hca": "1", "nvidia.com/gpu": "8"}},
    )


def test_ready_nodes_without_rdma_fail_naming_the_node_and_the_add_on(tmp_path):
    # Registered and Ready (`kubectl wait` passes), node a without rdma/hca, and the time is up.
    result = run_wait(tmp_path, _lingjun(rdma="0"))
    assert result.returncode == 1, result.stderr
    assert (
        "not usable: a: rdma/hca advertised: 0 of 1 (the ack-rdma-device-plugin add-on);"
        in result.stderr
    )
    assert " b:" not in result.stderr


def test_ready_nodes_without_their_gpus_fail(tmp_path):
    result = run_wait(tmp_path, _lingjun(gpus=""))
    assert result.returncode == 1, result.stderr
    assert "a: nvidia.com/gpu advertised: 0 of 8 (ACK's GPU device plugin);" in result.stderr


def test_a_node_with_another_taint_fails_and_the_lingjun_and_gpu_taints_pass(tmp_path):
    tainted = run_wait(tmp_path / "1", _lingjun(taints=["node.kubernetes.io/unschedulable"]))
    assert "a: taint node.kubernetes.io/unschedulable;" in tainted.stderr
    allowed = ["node-role.alibabacloud.com/lingjun", "nvidia.com/gpu"]
    assert run_wait(tmp_path / "2", _lingjun(taints=allowed), timeout=600).returncode == 0


def test_usable_nodes_pass(tmp_path):
    result = run_wait(tmp_path, _lingjun(), timeout=600)
    assert result.returncode == 0, result.stderr


HEALTHY = Path(__file__).parent / "fixtures" / "ack-lingjun-healthy.yaml"


def test_nodes_as_the_lingjun_guide_shows_them_pass(tmp_path):
    """`rdma/hca: 1k` (shared mode's 1000 IDs), verbatim: a quantity, not a number."""
    from tests.wait_script import recorded_kubectl

    result = run_wait(tmp_path, recorded_kubectl(HEALTHY), timeout=600)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("allocatable", "lack"),
    [
        ({"rdma/hca": None}, "rdma/hca advertised: 0 of 1"),
        ({"rdma/hca": "0"}, "rdma/hca advertised: 0 of 1"),
        ({"nvidia.com/gpu": "7"}, "nvidia.com/gpu advertised: 7 of 8"),
    ],
)
def test_a_recorded_node_that_lacks_a_device_fails_naming_it(tmp_path, allocatable, lack):
    from tests.wait_script import changed_copy, recorded_kubectl

    def break_first_node(cluster: dict) -> None:
        node = cluster["nodes"]["items"][0]
        for resource, value in allocatable.items():
            node["status"]["allocatable"].pop(resource)
            if value is not None:
                node["status"]["allocatable"][resource] = value

    broken = changed_copy(tmp_path, HEALTHY, break_first_node)
    result = run_wait(tmp_path, recorded_kubectl(broken))
    assert result.returncode == 1
    assert f"e01-cn-wulanchabu-c-0a1b2c: {lack}" in result.stderr
    assert "3d4e5f:" not in result.stderr


def test_the_wait_script_passes_shellcheck(tmp_path):
    from gpu_fabric.ack.lingjun.wait import WAIT_SCRIPT
    from tests.wait_script import shellcheck_problems

    assert shellcheck_problems(tmp_path, WAIT_SCRIPT) == ""
