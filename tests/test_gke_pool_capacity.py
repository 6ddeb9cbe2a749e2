"""Where a GPU pool's nodes come from (`gpuPool.capacity`: reservation, on-demand, flex-start,
Spot) and its autoscaler (gpu_fabric/gke/pool/): what reaches the node pool, and each rule
refused alike from a stack file and by a hosted `GkeCloud`."""

from __future__ import annotations

import copy

import pytest

from offline.plan import pick
from tests.conftest import DELETE, assert_single_rule, run_stack
from tests.hosted import hosted_reasons
from tests.stacks import stack_with_default_capacity
from tests.test_layer_inputs import GOOD

NODE_POOL = "gcp:container/nodePool:NodePool"
A3_HIGH = stack_with_default_capacity("a3-highgpu-8g")  # flex-start, not compactly placed
A3_ULTRA = stack_with_default_capacity("a3-ultragpu-8g")  # a reservation; flex-start compact
A4X = stack_with_default_capacity("a4x-highgpu-4g")  # reservation-bound
FLEX = {
    "gpu-fabric:gpuPool.capacity": "flex-start",
    "gpu-fabric:gpuPool.nodeCount": 0,
    "gpu-fabric:gpuPool.autoscaling": {"maxNodes": 4},
    "gpu-fabric:gpuPool.compactPlacement": DELETE,
    "gpu-fabric:gpuPool.reservation": DELETE,
}


def gpu_pool(plan) -> dict:
    (pool,) = [r for r in plan.of_type(NODE_POOL) if "guestAccelerators" in str(r.inputs)]
    return pool.inputs


def hosted(**pool: object) -> dict[str, str]:
    """The reasons a hosted GkeCloud (A3 High) gives for its first pool with `pool`."""
    pools = copy.deepcopy(GOOD["GkeCloud"]["gpu_pools"])
    pools[0].update(pool)
    return hosted_reasons("GkeCloud", (("gpu_pools",), pools))


# --- what reaches the node pool -------------------------------------------------------------------


def test_a_flex_start_pool_autoscales_from_zero_without_a_reservation_or_auto_repair():
    plan = run_stack(FLEX, A3_HIGH)
    inputs = gpu_pool(plan)
    assert pick(inputs, "nodeConfig.flexStart") is True
    assert pick(inputs, "nodeConfig.reservationAffinity") == {
        "consumeReservationType": "NO_RESERVATION"
    }
    assert inputs["autoscaling"] == {
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 4,
        "locationPolicy": "ANY",
    }
    assert "nodeCount" not in inputs  # pulumi-gcp: not alongside autoscaling
    assert inputs["management"]["autoRepair"] is False
    assert "placementPolicy" not in inputs  # A3 High: no compact placement with flex-start
    assert plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy") == []


def test_a_flex_start_pool_keeps_compact_placement_where_the_machine_allows_it():
    inputs = gpu_pool(run_stack(FLEX, A3_ULTRA))
    assert inputs["placementPolicy"]["type"] == "COMPACT"


def test_a_pool_of_zero_nodes_is_not_waited_for_and_the_queue_admits_up_to_its_maximum():
    plan = run_stack(FLEX, A3_HIGH)
    waits = [r for r in plan.of_type("command:local:Command") if "usable" in r.name]
    assert waits == []  # no node to wait for until a job asks the autoscaler for some
    (queue,) = plan.of_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    quota = queue.inputs["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    assert {"name": "nvidia.com/gpu", "nominalQuota": 4 * 8} in quota


def test_a_spot_pool_takes_spot_vms_and_no_reservation():
    changes = {**FLEX, "gpu-fabric:gpuPool.capacity": "spot", "gpu-fabric:gpuPool.nodeCount": 2}
    inputs = gpu_pool(run_stack(changes, A3_HIGH))
    assert pick(inputs, "nodeConfig.spot") is True
    assert "flexStart" not in inputs["nodeConfig"]
    assert inputs["management"]["autoRepair"] is True
    assert inputs["autoscaling"]["totalMinNodeCount"] == 2


def test_an_unset_capacity_leaves_the_node_pool_as_it_was():
    """Existing stacks keep their node pools: no flex-start, Spot or autoscaler input."""
    inputs = gpu_pool(run_stack({}, A3_ULTRA))
    assert pick(inputs, "nodeConfig.reservationAffinity.consumeReservationType") == (
        "SPECIFIC_RESERVATION"
    )
    assert "autoscaling" not in inputs and "spot" not in inputs["nodeConfig"]
    assert inputs["management"]["autoRepair"] is True


# --- the rules, alike from a stack file and a hosted GkeCloud ----------------------------------


@pytest.mark.parametrize(
    "stack, changes, key, pool, path, says",
    [
        (
            A3_HIGH,
            {**FLEX, "gpu-fabric:gpuPool.autoscaling": DELETE},
            "gpu-fabric:gpuPool.autoscaling.maxNodes",
            {"capacity": "flex-start"},
            "gpuPools[0].maxNodeCount",
            "flex-start nodes come as the autoscaler asks for them",
        ),
        (
            A3_ULTRA,
            {"gpu-fabric:gpuPool.capacity": "spot"},
            "gpu-fabric:gpuPool.reservation",
            {"capacity": "spot", "reservation": "r"},
            "gpuPools[0].reservation",
            "a spot pool consumes no reservation",
        ),
        (
            A3_HIGH,
            {"gpu-fabric:gpuPool.capacity": "reservation"},
            "gpu-fabric:gpuPool.reservation",
            {"capacity": "reservation"},
            "gpuPools[0].reservation",
            "capacity: reservation needs the reservation to consume",
        ),
        (
            A3_HIGH,
            {**FLEX, "gpu-fabric:gpuPool.compactPlacement": True},
            "gpu-fabric:gpuPool.capacity",
            {"capacity": "flex-start", "max_node_count": 4, "compact_placement_name": "p"},
            "gpuPools[0].capacity",
            "cannot be compactly placed",
        ),
        (
            A3_HIGH,
            {"gpu-fabric:gpuPool.autoscaling": {"maxNodes": 1}},
            "gpu-fabric:gpuPool.autoscaling.maxNodes",
            {"max_node_count": 1},
            "gpuPools[0].maxNodeCount",
            "below the pool's nodeCount (2)",
        ),
    ],
    ids=[
        "flex-without-autoscaler",
        "spot-with-reservation",
        "reservation-without-one",
        "flex-compact-on-a3-high",
        "max-below-min",
    ],
)
def test_a_capacity_rule_is_refused_alike(stack, changes, key, pool, path, says):
    assert_single_rule(changes, key, None, says, stack)
    reasons = hosted(**pool)
    assert list(reasons) == [path] and says in reasons[path]


def test_flex_start_is_refused_on_a_reservation_bound_machine():
    changes = {**FLEX, "gpu-fabric:gpuPool.nodeCount": 0}
    assert_single_rule(
        changes, "gpu-fabric:gpuPool.capacity", "flex-start", "is reservation-bound", A4X
    )


def test_flex_start_needs_a_gke_version_that_has_it():
    changes = {**FLEX, "gpu-fabric:gke.version": "1.32.1-gke.1000000"}
    assert_single_rule(changes, "gpu-fabric:gke.version", None, "1.32.2-gke.1652000", A3_ULTRA)
    reasons = hosted_reasons(
        "GkeCloud",
        (("version",), "1.31"),
        (("gpu_pools", 0, "capacity"), "flex-start"),
        (("gpu_pools", 0, "max_node_count"), 4),
    )
    assert "flex-start GPU pools need GKE 1.32.2-gke.1652000" in reasons["version"]


# --- queued provisioning ----------------------------------------------------------------------

QUEUED = {**FLEX, "gpu-fabric:gpuPool.queuedProvisioning": True}


def test_a_queued_pool_gets_its_nodes_through_kueues_provisioning_request_check():
    from tests.test_workloads_queues import kueue_objects

    plan = run_stack(QUEUED, A3_ULTRA)
    assert gpu_pool(plan)["queuedProvisioning"] == {"enabled": True}
    assert "placementPolicy" not in gpu_pool(plan)  # not compactly placed, even on A3 Ultra
    objects = kueue_objects(plan)
    (flavor,) = objects["ResourceFlavor"]
    assert flavor["spec"]["nodeLabels"]["cloud.google.com/gke-flex-start"] == "true"
    assert {"key": "cloud.google.com/gke-queued", "operator": "Exists", "effect": "NoSchedule"} in (
        flavor["spec"]["tolerations"]
    )
    (config,) = objects["ProvisioningRequestConfig"]
    assert config["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
    (check,) = objects["AdmissionCheck"]
    assert check["spec"]["parameters"]["name"] == config["metadata"]["name"]
    (queue,) = objects["ClusterQueue"]
    assert queue["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [
            {"name": check["metadata"]["name"], "onFlavors": [flavor["metadata"]["name"]]}
        ]
    }


def test_a_spot_flavor_selects_spot_nodes():
    from tests.test_workloads_queues import kueue_objects

    changes = {**FLEX, "gpu-fabric:gpuPool.capacity": "spot", "gpu-fabric:gpuPool.nodeCount": 2}
    (flavor,) = kueue_objects(run_stack(changes, A3_HIGH))["ResourceFlavor"]
    assert flavor["spec"]["nodeLabels"]["cloud.google.com/gke-spot"] == "true"


@pytest.mark.parametrize(
    "changes, key, pool, path, says",
    [
        (
            {**QUEUED, "gpu-fabric:gpuPool.capacity": "spot"},
            "gpu-fabric:gpuPool.queuedProvisioning",
            {"queued_provisioning": True, "capacity": "spot", "max_node_count": 4, "node_count": 0},
            "gpuPools[0].queuedProvisioning",
            "queued provisioning takes flex-start nodes",
        ),
        (
            {**QUEUED, "gpu-fabric:gpuPool.nodeCount": 1},
            "gpu-fabric:gpuPool.nodeCount",
            {
                "queued_provisioning": True,
                "capacity": "flex-start",
                "max_node_count": 4,
                "node_count": 1,
            },
            "gpuPools[0].nodeCount",
            "a queued pool keeps no node between jobs",
        ),
        (
            {**QUEUED, "gpu-fabric:gpuPool.compactPlacement": True},
            "gpu-fabric:gpuPool.queuedProvisioning",
            {
                "queued_provisioning": True,
                "capacity": "flex-start",
                "max_node_count": 4,
                "node_count": 0,
                "compact_placement_name": "p",
            },
            "gpuPools[0].queuedProvisioning",
            "a queued pool is not compactly placed",
        ),
    ],
    ids=["queued-spot", "queued-keeps-nodes", "queued-compact"],
)
def test_a_queued_pool_rule_is_refused_alike(changes, key, pool, path, says):
    assert_single_rule(changes, key, None, says, A3_ULTRA)
    reasons = hosted(**pool)
    assert path in reasons and says in reasons[path]


def test_flex_start_is_refused_on_a_machine_compute_engine_offers_no_flex_start_vms_of():
    """The catalog's `flex_start: false` on a machine that is not reservation-bound (none is today:
    A4X, which has no flex-start VMs, is reservation-bound and refused as such above)."""
    from gpu_fabric.catalog import catalog
    from gpu_fabric.gke.pool.rules import pool_problems

    a3 = catalog().machines["a3-highgpu-8g"].model_copy(update={"flex_start": False})
    pool = {**GOOD["GkeCloud"]["gpu_pools"][0], "capacity": "flex-start", "max_node_count": 4}
    (problem,) = pool_problems(pool, a3)
    assert (problem.field, problem.value) == ("capacity", "flex-start")
    assert "offers no flex-start VMs of a3-highgpu-8g" in problem.message


@pytest.mark.parametrize(
    "changes, key, says",
    [
        (
            {"gpu-fabric:gpuPool.capacity": "preemptible"},
            "gpu-fabric:gpuPool.capacity",
            "must be one of 'reservation', 'on-demand', 'flex-start' or 'spot'",
        ),
        (
            {"gpu-fabric:gpuPool.autoscaling": {"maxNodes": 4, "locationPolicy": "NEAREST"}},
            "gpu-fabric:gpuPool.autoscaling.locationPolicy",
            "must be 'ANY' or 'BALANCED'",
        ),
        (
            {"gpu-fabric:gpuPool.autoscaling": {"maxNodes": 0}},
            "gpu-fabric:gpuPool.autoscaling.maxNodes",
            "greater than or equal to 1",
        ),
    ],
    ids=["unknown-capacity", "unknown-location-policy", "no-nodes-at-most"],
)
def test_a_capacity_or_autoscaler_value_gke_has_not_is_refused(changes, key, says):
    assert_single_rule(changes, key, None, says, A3_HIGH)
