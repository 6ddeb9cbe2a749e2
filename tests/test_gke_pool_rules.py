"""A GPU pool's own rules (gpu_fabric/gke/pool/rules.py), each refused alike from a stack file (at
its stack key) and by a hosted `GkeCloud` (at its property path, in one InputPropertiesError)."""

from __future__ import annotations

import copy

import pytest
from pydantic.alias_generators import to_camel

from gpu_fabric.catalog import catalog
from tests.conftest import DELETE, assert_single_rule, parse_stack, stack_values
from tests.hosted import hosted_reasons
from tests.stacks import stacks_on
from tests.test_layer_inputs import GOOD, _build, _refused

GKE = stacks_on("gke")[0]


def hosted_refusal(changes: dict) -> dict[str, str]:
    """The property paths and reasons a hosted GkeCloud gives for its first pool with `changes`."""
    args = copy.deepcopy(GOOD["GkeCloud"])
    args["gpu_pools"][0].update(changes)
    _, reasons = _refused(lambda: _build("GkeCloud", (("gpu_pools",), args["gpu_pools"])))
    return reasons


def test_an_upgrade_with_no_room_is_refused():
    says = "maxSurge and maxUnavailable are both 0"
    assert_single_rule(
        {"gpu-fabric:gpuPool.upgrade": {"maxSurge": 0, "maxUnavailable": 0}},
        "gpu-fabric:gpuPool.upgrade.maxUnavailable",
        0,
        says,
        GKE,
    )
    reasons = hosted_refusal({"max_surge": 0, "max_unavailable": 0})
    assert list(reasons) == ["gpuPools[0].maxUnavailable"]
    assert says in reasons["gpuPools[0].maxUnavailable"]


@pytest.mark.parametrize("surge, unavailable", [(0, 1), (1, 0)])
def test_an_upgrade_with_one_node_of_room_is_accepted(surge, unavailable):
    changes = {"gpu-fabric:gpuPool.upgrade": {"maxSurge": surge, "maxUnavailable": unavailable}}
    assert parse_stack(changes, GKE).pool.upgrade.max_surge == surge


@pytest.mark.parametrize("field", ["maxSurge", "maxUnavailable"])
def test_an_upgrade_past_the_pools_size_is_refused_and_the_size_itself_accepted(field):
    nodes = stack_values(GKE)["gpu-fabric:gpuPool"]["nodeCount"]
    other = "maxUnavailable" if field == "maxSurge" else "maxSurge"
    at_size = {"gpu-fabric:gpuPool.upgrade": {field: nodes, other: 0}}
    assert parse_stack(at_size, GKE).pool.upgrade is not None
    past = {"gpu-fabric:gpuPool.upgrade": {field: nodes + 1, other: 0}}
    says = f"acts as {nodes}; write {nodes} or fewer"
    assert_single_rule(past, f"gpu-fabric:gpuPool.upgrade.{field}", nodes + 1, says, GKE)


@pytest.mark.parametrize("field", ["max_surge", "max_unavailable"])
def test_a_hosted_pool_refuses_an_upgrade_past_its_size_by_property_path(field):
    nodes = GOOD["GkeCloud"]["gpu_pools"][0]["node_count"]
    other = "max_unavailable" if field == "max_surge" else "max_surge"
    reasons = hosted_refusal({field: nodes + 1, other: 0})
    path = f"gpuPools[0].{'maxSurge' if field == 'max_surge' else 'maxUnavailable'}"
    assert list(reasons) == [path]
    assert f"acts as {nodes}; write {nodes} or fewer" in reasons[path]
    accepted = copy.deepcopy(GOOD["GkeCloud"]["gpu_pools"])
    accepted[0].update({field: nodes, other: 0})
    assert _build("GkeCloud", (("gpu_pools",), accepted)).of_type("gcp:container/nodePool:NodePool")


def test_a_boot_disk_the_machine_cannot_boot_from_is_refused_alike():
    machine = stack_values(GKE)["gpu-fabric:gpuPool"]["machineType"]
    assert_single_rule(
        {"gpu-fabric:gpuPool.bootDisk.type": "hyperdisk-ml"},
        "gpu-fabric:gpuPool.bootDisk.type",
        "hyperdisk-ml",
        f"{machine} boots from",
        GKE,
    )
    reasons = hosted_refusal({"boot_disk_type": "hyperdisk-ml"})
    assert list(reasons) == ["gpuPools[0].bootDiskType"]
    assert "a3-highgpu-8g boots from" in reasons["gpuPools[0].bootDiskType"]


# --- the pool's machine on the cluster's GKE version (pool/version_rules.py) ---------------------


def hosted_version_refusal(version: str, **pool: object) -> dict[str, str]:
    """What a hosted GkeCloud of A3 High (GOOD's pool) says of `version` with `pool` changes."""
    args = copy.deepcopy(GOOD["GkeCloud"])
    args["gpu_pools"][0].update(pool)
    _, reasons = _refused(
        lambda: _build("GkeCloud", (("version",), version), (("gpu_pools",), args["gpu_pools"]))
    )
    return reasons


def test_a_hosted_cluster_below_the_fabrics_patch_floor_is_refused_at_its_version():
    floor = "1.28.8-gke.1095000"  # A3 High's TCPX floor of 1.28 (catalog)
    reasons = hosted_version_refusal("1.28.8-gke.1094999")
    assert list(reasons) == ["version"]
    assert f"below the gpudirect-tcpx floor {floor}" in reasons["version"]


def test_a_hosted_a3_high_on_an_unsupported_minor_is_refused_unless_the_pool_allows_it():
    reasons = hosted_version_refusal("1.35.0-gke.1000000")
    assert list(reasons) == ["version"]
    assert "COS 125" in reasons["version"]
    assert "allowUnsupportedGkeVersion: true" in reasons["version"]
    pools = copy.deepcopy(GOOD["GkeCloud"]["gpu_pools"])
    pools[0]["allow_unsupported_gke_version"] = True
    plan = _build("GkeCloud", (("version",), "1.35.0-gke.1000000"), (("gpu_pools",), pools))
    assert plan.of_type("gcp:container/cluster:Cluster")


def test_a_hosted_pool_on_gkes_default_driver_too_old_for_its_machine_is_refused():
    args = copy.deepcopy(GOOD["GkeCloud"])
    pool = args["gpu_pools"][0]
    pool.update(machine_type="a3-ultragpu-8g", gpu_driver_version="DEFAULT")
    pool.update(boot_disk_type="hyperdisk-balanced", local_ssd_count=32)
    _, reasons = _refused(
        lambda: _build(
            "GkeCloud", (("version",), "1.31.4-gke.1183000"), (("gpu_pools",), args["gpu_pools"])
        )
    )
    path = "gpuPools[0].gpuDriverVersion"
    assert path in reasons
    assert "default GPU driver is too old for a3-ultragpu-8g" in reasons[path]


# --- the pools of one cluster, their zones, the control plane -----------------------------------


def _another_machine(machine_type: str) -> str:
    return next(m for m in catalog().machines if m != machine_type)


@pytest.mark.parametrize(
    "field, says",
    [
        ("name", "another pool has this name"),
        ("machine_type", "the pools of a cluster share one fabric's VPCs"),
    ],
)
def test_the_pools_of_one_cluster_are_refused_alike(field, says):
    """A second pool with the first's name, or another machine type."""
    first = stack_values(GKE)["gpu-fabric:gpuPool"]
    clash = {"name": first["name"], "machine_type": _another_machine(first["machineType"])}
    key = to_camel(field)
    # Another node count: a pool identical to the first is refused as any repeated item is.
    second = {**first, "name": "second", "nodeCount": first["nodeCount"] + 1, key: clash[field]}
    assert_single_rule(
        {"gpu-fabric:gpuPool": DELETE, "gpu-fabric:gpuPools": [first, second]},
        f"gpu-fabric:gpuPools[1].{key}",
        None,
        says,
        GKE,
    )
    hosted = GOOD["GkeCloud"]["gpu_pools"][0]
    clash = {"name": hosted["name"], "machine_type": _another_machine(hosted["machine_type"])}
    pools = [hosted, {**hosted, "name": "second", field: clash[field]}]
    reasons = hosted_reasons("GkeCloud", (("gpu_pools",), pools))
    assert f"gpuPools[1].{key}" in reasons
    assert says in reasons[f"gpuPools[1].{key}"]


def test_a_hosted_pool_in_another_regions_zone_is_refused():
    reasons = hosted_reasons("GkeCloud", (("gpu_pools", 0, "zone"), "europe-west4-b"))
    assert list(reasons) == ["gpuPools[0].zone"]
    assert (
        "not a zone of region us-central1; use e.g. us-central1-a, or change region"
        in (reasons["gpuPools[0].zone"])
    )


# --- where a pool's nodes come from -------------------------------------------------------------


def _a4x_cloud(**pool: object) -> tuple[tuple, object]:
    """A hosted A4X cluster's networks and one pool with `pool` (a gVNIC VPC, a RoCE VPC of four
    subnets): the changes for `hosted_reasons`."""
    a4x = {
        **GOOD["GkeCloud"]["gpu_pools"][0],
        "machine_type": "a4x-highgpu-4g",
        "boot_disk_type": "hyperdisk-balanced",
        "local_ssd_count": 0,
        **pool,
    }
    return (("gpu_pools",), [a4x])


A4X_NETWORKS = (
    ("gpu_networks",),
    [
        {"network_name": "a4x-gvnic", "subnets": [{"name": "g", "cidr": "192.168.0.0/24"}]},
        {
            "network_name": "a4x-rdma",
            "subnets": [{"name": f"r{n}", "cidr": f"192.168.{n}.0/24"} for n in range(1, 5)],
        },
    ],
)
for _network in A4X_NETWORKS[1]:
    _network["mtu"] = 8896
A4X_VERSION = (("version",), "1.34")  # A4X's minimum minor (catalog)


def _a4x_stack() -> str:
    return next(
        s
        for s in stacks_on("gke")
        if stack_values(s)["gpu-fabric:gpuPool"]["machineType"] == "a4x-highgpu-4g"
    )


def test_a_gpu_pool_named_as_the_system_pool_is_refused_alike():
    says = "the stack's CPU system pool is called 'system'"
    assert_single_rule(
        {"gpu-fabric:gpuPool.name": "system"}, "gpu-fabric:gpuPool.name", "system", says, GKE
    )
    reasons = hosted_refusal({"name": "system"})
    assert list(reasons) == ["gpuPools[0].name"] and says in reasons["gpuPools[0].name"]


def test_a_reservation_bound_pool_without_a_reservation_is_refused_alike():
    says = "capacity is reservation-bound"
    stack = _a4x_stack()
    assert_single_rule(
        {"gpu-fabric:gpuPool.reservation": DELETE},
        "gpu-fabric:gpuPool.reservation",
        None,
        says,
        stack,
    )
    reasons = hosted_reasons(
        "GkeCloud", ("version",) and (("version",), "1.34"), A4X_NETWORKS, _a4x_cloud()
    )
    assert (
        list(reasons) == ["gpuPools[0].reservation"] and says in reasons["gpuPools[0].reservation"]
    )


def test_a_pool_larger_than_its_nvlink_domain_is_refused_alike():
    says = "holds at most 18 nodes (one NVLink domain)"
    stack = _a4x_stack()
    assert_single_rule(
        {"gpu-fabric:gpuPool.nodeCount": 19}, "gpu-fabric:gpuPool.nodeCount", 19, says, stack
    )
    placed = _a4x_cloud(node_count=19, reservation="r", compact_placement_name="a4x-gpu-compact")
    reasons = hosted_reasons("GkeCloud", A4X_VERSION, A4X_NETWORKS, placed)
    assert list(reasons) == ["gpuPools[0].nodeCount"] and says in reasons["gpuPools[0].nodeCount"]
    within = _a4x_cloud(node_count=18, reservation="r", compact_placement_name="a4x-gpu-compact")
    plan = _build("GkeCloud", A4X_VERSION, A4X_NETWORKS, within)
    assert plan.of_type("gcp:container/nodePool:NodePool")


def test_two_pools_with_one_compact_placement_policy_are_refused_by_a_hosted_cluster():
    first = {**GOOD["GkeCloud"]["gpu_pools"][0], "compact_placement_name": "a3-compact"}
    pools = [first, {**first, "name": "second"}]
    reasons = hosted_reasons("GkeCloud", (("gpu_pools",), pools))
    assert list(reasons) == ["gpuPools[1].compactPlacementName"]
    assert (
        "gpuPools[0] has this compact placement policy"
        in reasons["gpuPools[1].compactPlacementName"]
    )
