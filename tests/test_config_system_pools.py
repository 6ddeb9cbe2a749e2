"""System pools (GPU families refused, at least one node, a warning
below two) and DRANET's chart and image as a known pair. Each rule is triggered on both sides of
its limit, and its problem names the key, the value and the fix."""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import catalog
from tests.conftest import assert_single_rule, parse_stack

OKE, ACK, GKE = "oke-dranet", "ack-lingjun", "a3-prod"


# --- System pools: GPU machine families, by prefix, from the catalog ------------------------


def test_every_gpu_type_the_catalog_builds_is_in_its_clouds_gpu_families():
    families = catalog().gpu_families
    assert set(families) == {"gke", "oke", "ack"}
    assert all(families["gke"].family_of(m) for m in catalog().machines)
    assert all(families["oke"].family_of(s) for s in catalog().oci_shapes)
    assert all(f.source and f.prefixes for f in families.values())


@pytest.mark.parametrize(
    "machine_type",
    [
        "g2-standard-4",  # not in the catalog: refused by family
        "a2-highgpu-1g",
        "a2-ultragpu-8g",
        "a3-edgegpu-8g",
        "a3-highgpu-8g",  # in the catalog
        "a4-highgpu-8g",
        "a4x-highgpu-4g",
        "g4-standard-48",
    ],
)
def test_gke_system_pool_refuses_gpu_families(machine_type):
    assert_single_rule(
        {"gpu-fabric:gke.systemPool.machineType": machine_type},
        "gpu-fabric:gke.systemPool.machineType",
        machine_type,
        "use a CPU type such as e2-standard-4",
        GKE,
    )


@pytest.mark.parametrize(
    "machine_type", ["e2-standard-4", "n2-standard-8", "n1-standard-4", "c3-standard-4"]
)
def test_gke_system_pool_takes_cpu_types(machine_type):
    cfg = parse_stack({"gpu-fabric:gke.systemPool.machineType": machine_type}, GKE)
    assert cfg.gke.system_pool.machine_type == machine_type


def test_gke_gpu_family_problem_names_the_family_and_its_source():
    assert_single_rule(
        {"gpu-fabric:gke.systemPool.machineType": "g2-standard-4"},
        "gpu-fabric:gke.systemPool.machineType",
        "g2-standard-4",
        "(the g2-* family; Compute Engine docs",
        GKE,
    )


@pytest.mark.parametrize(
    "shape", ["BM.GPU.B4.8", "BM.GPU.H100.8", "BM.GPU4.8", "VM.GPU.A10.1", "VM.GPU3.1"]
)
def test_oke_system_pool_refuses_gpu_shapes(shape):
    assert_single_rule(
        {"gpu-fabric:oke.systemPool.shape": shape},
        "gpu-fabric:oke.systemPool.shape",
        shape,
        "use a flexible CPU shape such as VM.Standard.E5.Flex",
        OKE,
    )


@pytest.mark.parametrize(
    "shape", ["VM.Standard.E5.Flex", "VM.Standard.E4.Flex", "BM.Standard.E5.192"]
)
def test_oke_system_pool_takes_cpu_shapes(shape):
    assert (
        parse_stack({"gpu-fabric:oke.systemPool.shape": shape}, OKE).oke.system_pool.shape == shape
    )


@pytest.mark.parametrize(
    "instance_type",
    [
        "ecs.gn7i-c8g1.2xlarge",
        "ecs.gn8is.4xlarge",
        "ecs.ebmgn7e.32xlarge",
        "ecs.sgn7i-vws-m2.xlarge",
        "ecs.vgn6i-m4.xlarge",
    ],
)
def test_ack_system_pool_refuses_gpu_families(instance_type):
    assert_single_rule(
        {"gpu-fabric:ack.systemPool.instanceTypes": ["ecs.g7.xlarge", instance_type]},
        "gpu-fabric:ack.systemPool.instanceTypes[1]",
        instance_type,
        "use a CPU type such as ecs.g7.xlarge",
        ACK,
    )


@pytest.mark.parametrize("instance_type", ["ecs.g7.xlarge", "ecs.c7.2xlarge", "ecs.g8i.xlarge"])
def test_ack_system_pool_takes_cpu_types(instance_type):
    changes = {"gpu-fabric:ack.systemPool.instanceTypes": [instance_type]}
    assert parse_stack(changes, ACK).ack.system_pool.instance_types == [instance_type]


# --- System pools: at least one node, a warning below two -----------------------------------


@pytest.mark.parametrize(
    "stack, key, says",
    [
        (GKE, "gpu-fabric:gke.systemPool.nodeCount", "at least 1 node per zone"),
        (OKE, "gpu-fabric:oke.systemPool.nodeCount", "set 2 (the default)"),
        (ACK, "gpu-fabric:ack.systemPool.nodeCount", "set 3 (the default"),
    ],
)
@pytest.mark.parametrize("count", [0, -1])
def test_an_empty_system_pool_is_refused(stack, key, says, count):
    assert_single_rule({key: count}, key, count, says, stack)
    assert_single_rule({key: count}, key, count, "CoreDNS", stack)


@pytest.mark.parametrize(
    "stack, path",
    [(OKE, "oke.systemPool.nodeCount"), (ACK, "ack.systemPool.nodeCount")],
)
def test_one_system_node_is_accepted_with_a_warning_and_two_without(stack, path):
    key = f"gpu-fabric:{path}"
    one = parse_stack({key: 1}, stack)
    (warning,) = [w for w in one.warnings if key in w]
    assert warning.startswith(f"{key}: 1 system node is a single point of failure")
    assert "set 2 or more" in warning and "(warning, not fatal)" in warning
    assert [w for w in parse_stack({key: 2}, stack).warnings if key in w] == []


def test_gke_system_pool_of_one_node_per_zone_is_accepted_without_warning():
    # nodeCount is per zone of a regional cluster: 1 is a node in every zone, not one node.
    key = "gpu-fabric:gke.systemPool.nodeCount"
    cfg = parse_stack({key: 1}, GKE)
    assert cfg.gke.system_pool.node_count == 1
    assert [w for w in cfg.warnings if "systemPool" in w] == []


# --- DRANET: chart version and image tag as a known pair -------------------------------------


def test_the_pinned_dranet_pair_is_known():
    pinned = catalog().oke.dranet
    assert pinned.known_pairs[pinned.version] == pinned.image_tag


def test_a_v1_4_image_under_the_1_5_chart_is_refused():
    assert_single_rule(
        {"gpu-fabric:charts": {"dranet": {"imageTag": "v1.4.0"}}},
        "gpu-fabric:charts.dranet.imageTag",
        "v1.4.0",
        "DRANET chart 1.5.0 pairs with image v1.5.0, not v1.4.0 (known pairs: chart 1.5.0 <-> "
        "image v1.5.0); set charts.dranet.imageTag to v1.5.0",
        OKE,
    )


@pytest.mark.parametrize(
    "changes", [{"version": "1.4.0"}, {"version": "1.4.0", "imageTag": "v1.4.0"}]
)
def test_an_unknown_dranet_chart_is_refused_with_the_known_pairs(changes):
    assert_single_rule(
        {"gpu-fabric:charts": {"dranet": changes}},
        "gpu-fabric:charts.dranet.version",
        "1.4.0",
        "DRANET chart 1.4.0 is not a known chart and image pair (chart 1.5.0 <-> image v1.5.0); "
        "use one of them, or add the pair to the catalog's oke.dranet.known_pairs",
        OKE,
    )


@pytest.mark.parametrize(
    "changes",
    [{"version": "1.5.0"}, {"imageTag": "v1.5.0"}, {"version": "1.5.0", "imageTag": "v1.5.0"}],
)
def test_a_known_dranet_pair_is_accepted(changes):
    cfg = parse_stack({"gpu-fabric:charts": {"dranet": changes}}, OKE)
    assert (cfg.dranet_version, cfg.dranet_image_tag) == ("1.5.0", "v1.5.0")


def test_a_pair_added_to_the_catalog_is_accepted(monkeypatch):
    real = catalog()
    dranet = real.oke.dranet.model_copy(
        update={"known_pairs": {**real.oke.dranet.known_pairs, "1.6.0": "v1.6.0"}}
    )
    fake = real.model_copy(update={"oke": real.oke.model_copy(update={"dranet": dranet})})
    monkeypatch.setattr("gpu_fabric.oke.checks.catalog", lambda: fake)
    monkeypatch.setattr("gpu_fabric.oke.config.catalog", lambda: fake)
    both = {"gpu-fabric:charts": {"dranet": {"version": "1.6.0", "imageTag": "v1.6.0"}}}
    assert parse_stack(both, OKE).dranet_image_tag == "v1.6.0"
    wrong = {"gpu-fabric:charts": {"dranet": {"version": "1.6.0", "imageTag": "v1.5.0"}}}
    assert_single_rule(
        wrong, "gpu-fabric:charts.dranet.imageTag", "v1.5.0", "pairs with image v1.6.0", OKE
    )
