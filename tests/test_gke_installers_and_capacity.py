"""GKE installer ownership and rollout waiting, the 1x72 pool size, pod IP capacity,
and the A3 smoke test waiting for the plugin on its node. Each rule is shown failing."""

from __future__ import annotations

import pytest

from gpu_fabric.gke.fabrics import nccl_installer, tcpx
from gpu_fabric.workload_security import without_waivers
from offline.engine import manifest
from tests.conftest import assert_single_rule, parse_stack, planned, problems, run_stack
from tests.test_manifests import validate
from tests.test_urns import state_urns

DAEMON_SET = "kubernetes:apps/v1:DaemonSet"


def installer_daemon_sets(plan):
    return [manifest(r) for r in plan.of_type(DAEMON_SET)]


# --- who owns the installer, and whether `pulumi up` waits for it -------------------------------


def test_by_default_the_stack_owns_the_installer_and_does_not_wait_for_it():
    cfg = parse_stack({}, "a4x-prod")
    assert cfg.installer.owner.value == "stack" and cfg.installer.await_rollout is False
    (daemon_set,) = installer_daemon_sets(planned("a4x-prod"))
    assert without_waivers(daemon_set)["metadata"]["annotations"] == {
        nccl_installer.SKIP_AWAIT: "true"
    }


def test_await_rollout_drops_the_skip_await_annotation():
    plan = run_stack({"gpu-fabric:installer": {"awaitRollout": True}}, stack="a4x-prod")
    (daemon_set,) = installer_daemon_sets(plan)
    assert "annotations" not in without_waivers(daemon_set)["metadata"]


@pytest.mark.parametrize("stack", ["a4x-prod", "a3-prod"])
def test_an_external_owner_leaves_the_installer_out_and_nothing_else(stack):
    plan = run_stack({"gpu-fabric:installer": {"owner": "external"}}, stack=stack)
    assert installer_daemon_sets(plan) == []
    full = state_urns(run_stack(stack=stack), stack)  # the committed stack's URNs
    left = state_urns(plan, stack)
    assert left < full
    # On A4X the NVLink domains go too: an external owner (NVIDIA AICR's bundle) brings its own
    # NVIDIA DRA driver, so there is no ComputeDomain for the runtime to claim.
    gone = ("NcclInstaller", DAEMON_SET, "NvlinkDomains", "ComputeDomain", "runtime-crds")
    assert all(any(part in urn for part in gone) for urn in full - left)


def test_smoke_test_without_an_owned_installer_still_waits_for_pool_and_networks():
    plan = run_stack({"gpu-fabric:installer": {"owner": "external"}, "gpu-fabric:smokeTest": True})
    (pod, _) = [p for p in plan.of_type("kubernetes:core/v1:Pod")]
    waits = {u.split("::")[-1] for u in pod.dependencies}
    assert {"a3-prod-a3-highgpu", "a3-prod-networks-network-vpc1"} <= waits
    assert not any("installer" in w for w in waits)


def test_an_unknown_owner_is_refused():
    assert_single_rule(
        {"gpu-fabric:installer": {"owner": "aicr"}},
        "gpu-fabric:installer.owner",
        "aicr",
        "must be one of 'stack', 'handover' or 'external'",
        "a4x-prod",
    )


# --- A4X 1x72: at most 18 nodes per pool -------------------------------------------------------


def test_an_a4x_pool_over_18_nodes_under_1x72_is_refused():
    assert_single_rule(
        {"gpu-fabric:gpuPool.nodeCount": 19},
        "gpu-fabric:gpuPool.nodeCount",
        19,
        "holds at most 18 nodes (one NVLink domain); use 18 or fewer",
        "a4x-prod",
    )


def test_18_nodes_are_fine_and_the_policy_cannot_be_dropped_to_get_more():
    assert parse_stack({}, "a4x-prod").gpu_pool.node_count == 18
    found = problems(
        {
            "gpu-fabric:gpuPool.nodeCount": 19,
            "gpu-fabric:gpuPool.compactPlacement": False,
            "gpu-fabric:network.primary.podsCidr": "10.64.0.0/18",
        },
        "a4x-prod",
    )
    assert [p.key for p in found] == ["gpu-fabric:gpuPool.compactPlacement"]


# --- pod IP capacity ---------------------------------------------------------------------------


def test_a_pod_range_too_small_for_the_nodes_is_refused():
    # A /22 holds 4 per-node /24s (110 pods); 2 GPU nodes + up to 4 system nodes need 6.
    assert_single_rule(
        {"gpu-fabric:network.primary.podsCidr": "10.64.0.0/22"},
        "gpu-fabric:network.primary.podsCidr",
        "10.64.0.0/22",
        "holds 4 nodes at 110 pods per node (a /24 each), but the stack can create 6 (2 GPU, up "
        "to 4 system in 4 zones); use a /21 or wider, or lower gpu-fabric:gke.maxPodsPerNode",
        "a3-prod",
    )


def test_the_a4x_pool_of_18_counts_against_the_pod_range():
    assert_single_rule(
        {"gpu-fabric:network.primary.podsCidr": "10.64.0.0/20"},
        "gpu-fabric:network.primary.podsCidr",
        "10.64.0.0/20",
        "holds 16 nodes at 110 pods per node",
        "a4x-prod",
    )


def test_fewer_max_pods_per_node_fit_more_nodes_and_reach_the_cluster():
    changes = {
        "gpu-fabric:network.primary.podsCidr": "10.64.0.0/22",
        "gpu-fabric:gke.maxPodsPerNode": 32,  # a /26 per node: 16 nodes in a /22
    }
    assert parse_stack(changes).max_pods_per_node == 32
    (cluster,) = run_stack(changes).of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["defaultMaxPodsPerNode"] == 32


def test_unset_max_pods_leaves_the_cluster_input_out(a3_plan):
    (cluster,) = a3_plan.of_type("gcp:container/cluster:Cluster")
    assert "defaultMaxPodsPerNode" not in cluster.inputs


@pytest.mark.parametrize("value", [7, 257])
def test_max_pods_per_node_outside_gke_limits_is_refused(value):
    assert_single_rule(
        {"gpu-fabric:gke.maxPodsPerNode": value},
        "gpu-fabric:gke.maxPodsPerNode",
        value,
        "Input should be",
        "a3-prod",
    )


def test_an_existing_network_is_not_checked_for_capacity():
    cfg = parse_stack(
        {
            "gpu-fabric:network.primary": {
                "existing": {
                    "network": "n",
                    "subnetwork": "s",
                    "podsRangeName": "p",
                    "servicesRangeName": "v",
                }
            },
            # More nodes than the default pod range holds (a /24 each), fewer than a NIC subnet.
            "gpu-fabric:gpuPool.nodeCount": 200,
        }
    )
    assert cfg.gpu_pool.node_count == 200


# --- the A3 smoke test waits for the plugin on its node ----------------------------------------


def test_smoke_test_pods_wait_for_the_plugin_on_their_node():
    plan = run_stack({"gpu-fabric:smokeTest": True})
    pods = [manifest(p) for p in plan.of_type("kubernetes:core/v1:Pod")]
    assert len(pods) == 2
    for pod in pods:
        (init,) = pod["spec"]["initContainers"]
        assert init["name"] == "wait-for-tcpx-plugin"
        assert f"until [ -e {tcpx.TCPX_PLUGIN_FILE} ]" in init["command"][2]
        assert init["volumeMounts"] == [
            {"name": "libraries", "mountPath": "/usr/local/nvidia/lib64", "readOnly": True}
        ]
        libraries = {v["name"]: v for v in pod["spec"]["volumes"]}["libraries"]
        assert libraries["hostPath"]["path"] == "/home/kubernetes/bin/nvidia/lib64"
        validate(pod)
