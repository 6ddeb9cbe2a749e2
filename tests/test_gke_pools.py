"""Several GPU node pools per cluster (`gpuPools`): URNs, sharing, and every rule failing."""

from __future__ import annotations

import copy

import pytest

from gpu_fabric.gke.from_stack import cloud_args
from gpu_fabric.gke.pool.args import GkeGpuPool
from gpu_fabric.gke.pool.config import pool_options
from tests.conftest import (
    DELETE,
    assert_single_rule,
    parse_stack,
    problems,
    run_stack,
    stack_values,
)
from tests.test_urns import state_urns

NODE_POOL = "gcp:container/nodePool:NodePool"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"


def pool_of(stack: str) -> dict:
    return copy.deepcopy(stack_values(stack)["gpu-fabric:gpuPool"])


def pools(stack: str, *changes: dict) -> dict:
    """`gpuPools` made of the stack's own pool, once per change applied to it."""
    return {
        "gpu-fabric:gpuPool": DELETE,
        "gpu-fabric:gpuPools": [{**pool_of(stack), **change} for change in changes],
    }


def gpu_pools(plan) -> dict[str, dict]:
    return {
        p.inputs["name"]: p.inputs for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"
    }


@pytest.mark.parametrize("stack", ["a3-prod", "a4x-prod"])
def test_moving_gpu_pool_into_the_list_keeps_every_urn(stack):
    after = state_urns(run_stack(pools(stack, {}), stack=stack), stack)
    assert after == state_urns(run_stack(stack=stack), stack)  # the committed stack's URNs


def test_two_a3_pools_share_the_vpcs_and_may_sit_in_two_zones():
    plan = run_stack(
        {
            **pools(
                "a3-prod",
                {},
                {"name": "a3-highgpu-b", "zone": "us-central1-a", "nodeCount": 4},
            ),
            "gpu-fabric:smokeTest": True,
        }
    )
    by_name = gpu_pools(plan)
    assert sorted(by_name) == ["a3-highgpu", "a3-highgpu-b"]
    first, second = by_name["a3-highgpu"], by_name["a3-highgpu-b"]
    assert (first["nodeLocations"], second["nodeLocations"]) == (
        ["us-central1-c"],
        ["us-central1-a"],
    )
    assert second["nodeCount"] == 4
    assert (
        first["networkConfig"]["additionalNodeNetworkConfigs"]
        == second["networkConfig"]["additionalNodeNetworkConfigs"]
    )
    assert sorted(p.inputs["name"] for p in plan.of_type(POLICY)) == [
        "a3-prod-a3-highgpu-b-compact",
        "a3-prod-a3-highgpu-compact",
    ]
    assert len(plan.of_type("gcp:compute/network:Network")) == 5  # 4 GPU VPCs + primary, once
    pod = plan.of_type("kubernetes:core/v1:Pod")[0]
    waits = {u.split("::")[-1] for u in pod.dependencies}
    assert {"a3-prod-a3-highgpu", "a3-prod-a3-highgpu-b"} <= waits


def test_two_a4x_pools_each_with_its_reservation():
    plan = run_stack(
        {
            **pools(
                "a4x-prod",
                {"nodeCount": 8},
                {"name": "a4x-block-2", "nodeCount": 8, "reservation": {"name": "a4x-block-2"}},
            ),
        },
        stack="a4x-prod",
    )
    by_name = gpu_pools(plan)
    assert by_name["a4x-block-2"]["nodeConfig"]["reservationAffinity"]["values"] == ["a4x-block-2"]
    assert by_name["a4x-highgpu"]["nodeConfig"]["reservationAffinity"]["values"] == [
        "a4x-reservation"
    ]
    assert len(plan.of_type(POLICY)) == 2  # one 1x72 workload policy per pool


# --- rules ---------------------------------------------------------------------------------------


def test_duplicate_pool_names_are_refused():
    assert_single_rule(
        pools("a3-prod", {}, {"zone": "us-central1-a"}),
        "gpu-fabric:gpuPools[1].name",
        "a3-highgpu",
        "another pool has this name",
        "a3-prod",
    )


def test_pools_of_two_machine_types_are_refused():
    assert_single_rule(
        pools("a3-ultra-prod", {}, {"name": "b200", "machineType": "a4-highgpu-8g"}),
        "gpu-fabric:gpuPools[1].machineType",
        "a4-highgpu-8g",
        "gIB cannot share a cluster with TCPX/TCPXO",
        "a3-ultra-prod",
    )


def test_rdma_pools_in_two_zones_are_refused():
    assert_single_rule(
        pools("a4x-prod", {"nodeCount": 4}, {"name": "b", "nodeCount": 4, "zone": "us-central1-b"}),
        "gpu-fabric:gpuPools[1].zone",
        "us-central1-b",
        "RoCE network profile is zonal (us-central1-a",
        "a4x-prod",
    )


def test_both_gpu_pool_and_gpu_pools_are_refused():
    changes = pools("a3-prod", {})
    changes.pop("gpu-fabric:gpuPool")
    assert_single_rule(changes, "gpu-fabric:gpuPools", ["a3-highgpu"], "not both", "a3-prod")


@pytest.mark.parametrize(
    "changes",
    [{"gpu-fabric:gpuPool": DELETE}, {"gpu-fabric:gpuPool": DELETE, "gpu-fabric:gpuPools": []}],
)
def test_no_pool_at_all_is_refused(changes):
    (problem,) = problems(changes)
    assert problem.key == "gpu-fabric:gpuPool" and "required" in problem.message


def test_single_pool_rules_apply_to_each_pool_under_its_own_key():
    assert_single_rule(
        pools("a4x-prod", {"nodeCount": 4}, {"name": "b", "nodeCount": 19}),
        "gpu-fabric:gpuPools[1].nodeCount",
        19,
        "holds at most 18 nodes",
        "a4x-prod",
    )


def test_pod_capacity_counts_every_pool_once():
    # /19: 32 nodes at 110 pods; 18 + 18 GPU nodes + up to 4 system nodes need 40.
    assert_single_rule(
        pools("a4x-prod", {}, {"name": "b", "reservation": {"name": "r2"}}),
        "gpu-fabric:network.primary.podsCidr",
        "10.64.0.0/19",
        "the stack can create 40 (36 GPU",
        "a4x-prod",
    )


def test_a_typo_inside_a_pool_names_its_index():
    changes = pools("a3-prod", {"nodeCont": 2})
    assert_single_rule(
        changes, "gpu-fabric:gpuPools[0].nodeCont", 2, "did you mean 'nodeCount'", "a3-prod"
    )


def test_a_pool_setting_reaches_the_node_pool_args_under_its_own_name():
    """`GpuPoolConfig` fields that `GkeGpuPool` has too are copied as the stack gives them, with
    no line per option in between; only the derived ones (driver, reservation) are written out."""
    cfg = parse_stack({"gpu-fabric:gpuPool.nodeCount": 3, "gpu-fabric:gpuPool.name": "pool-b"})
    (pool,) = cloud_args(cfg)["gpu_pools"]
    given = cfg.pool.model_dump(mode="json")
    shared = (GkeGpuPool.__required_keys__ | GkeGpuPool.__optional_keys__) & set(given)
    copied = shared - {"gpu_driver_version", "reservation"}
    # allowUnsupportedGkeVersion: read by the pool's version rule, which a hosted layer runs too.
    assert copied == {
        "name",
        "zone",
        "machine_type",
        "node_count",
        "allow_unsupported_gke_version",
        "capacity",  # unset: the args leave it out too (the pool's reservation decides)
        *pool_options(),
    }
    written = {key for key in copied if given[key] is not None}
    assert {key: pool[key] for key in written} == {key: given[key] for key in written}
    assert "capacity" not in pool
    assert (pool["name"], pool["node_count"]) == ("pool-b", 3)
