"""GKE config: the Services range, link-local space, and machine type, zone and region spelling
as Compute Engine spells them. Each rule is triggered on both sides of its limit."""

from __future__ import annotations

import pytest

from gpu_fabric.problems import ConfigError
from tests.conftest import (
    assert_single_rule,
    parse_stack,
)

GKE = "a3-prod"


# The GKE Services range


@pytest.mark.parametrize("cidr", ["10.65.0.0/28", "10.65.0.0/30", "10.65.0.0/32"])
def test_a_services_range_smaller_than_a_27_is_refused(cidr):
    assert_single_rule(
        {"gpu-fabric:network.primary.servicesCidr": cidr},
        "gpu-fabric:network.primary.servicesCidr",
        cidr,
        "GKE's Services range is a /27 (32 Services) or wider",
        GKE,
    )


@pytest.mark.parametrize("cidr", ["10.65.0.0/27", "10.65.0.0/20", "10.65.0.0/16"])
def test_a_services_range_of_a_27_or_wider_is_accepted(cidr):
    cfg = parse_stack({"gpu-fabric:network.primary.servicesCidr": cidr}, GKE)
    assert cfg.network.primary.services_cidr == cidr


@pytest.mark.parametrize(
    "key",
    [
        "network.primary.subnetCidr",
        "network.primary.podsCidr",
        "network.primary.servicesCidr",
    ],
)
def test_every_primary_range_refuses_link_local_space(key):
    assert_single_rule(
        {f"gpu-fabric:{key}": "169.254.0.0/20"},
        f"gpu-fabric:{key}",
        "169.254.0.0/20",
        "link-local",
        GKE,
    )


def test_every_nic_range_refuses_link_local_space():
    subnets = [f"192.168.{n}.0/24" for n in range(1, 4)] + ["169.254.4.0/24"]
    assert_single_rule(
        {"gpu-fabric:network.nics": {"gpu": {"subnets": subnets}}},
        "gpu-fabric:network.nics.gpu.subnets[3]",
        "169.254.4.0/24",
        "link-local",
        GKE,
    )


# Machine types, zones


@pytest.mark.parametrize(
    "given, meant",
    [
        ("E2-standard-4", "e2-standard-4"),
        ("e2_standard_4", "e2-standard-4"),
        ("e2 standard 4", "e2-standard-4"),
        ("e2standard4", None),
    ],
)
def test_a_system_pool_machine_type_is_spelled_as_compute_engine_spells_it(given, meant):
    key = "gpu-fabric:gke.systemPool.machineType"
    hint = f"did you mean {meant}?" if meant else "not a Compute Engine machine type"
    assert_single_rule({key: given}, key, given, hint, GKE)


@pytest.mark.parametrize(
    "machine_type", ["e2-standard-4", "c3-standard-4-lssd", "n2-custom-4-16384", "e2-micro"]
)
def test_well_formed_machine_types_pass_the_grammar(machine_type):
    key = "gpu-fabric:gke.systemPool.machineType"
    assert parse_stack({key: machine_type}, GKE).gke.system_pool.machine_type == machine_type


@pytest.mark.parametrize(
    "given, meant",
    [("a3-highgpu-8", "a3-highgpu-8g"), ("a3-highgpu-4g", "a3-highgpu-8g")],
)
def test_an_unknown_gpu_machine_type_gets_a_did_you_mean(given, meant):
    assert_single_rule(
        {"gpu-fabric:gpuPool.machineType": given},
        "gpu-fabric:gpuPool.machineType",
        given,
        f"unknown machine type; did you mean {meant}?",
        GKE,
    )


def test_a_gpu_machine_type_with_a_capital_is_refused_by_the_grammar():
    assert_single_rule(
        {"gpu-fabric:gpuPool.machineType": "A3-highgpu-8g"},
        "gpu-fabric:gpuPool.machineType",
        "A3-highgpu-8g",
        "did you mean a3-highgpu-8g?",
        GKE,
    )


@pytest.mark.parametrize(
    "given, meant", [("us-central1c", "us-central1-c"), ("US-CENTRAL1-C", "us-central1-c")]
)
def test_a_misspelt_zone_gets_a_did_you_mean(given, meant):
    assert_single_rule(
        {"gpu-fabric:gpuPool.zone": given},
        "gpu-fabric:gpuPool.zone",
        given,
        f"not a zone of region us-central1; did you mean {meant}?",
        GKE,
    )


def test_a_zone_of_another_region_gets_no_guess():
    assert_single_rule(
        {"gpu-fabric:gpuPool.zone": "europe-west4-b"},
        "gpu-fabric:gpuPool.zone",
        "europe-west4-b",
        "use e.g. us-central1-a, or change gpu-fabric:region",
        GKE,
    )


@pytest.mark.parametrize("region, says", [("us-central1-a", "is a zone"), ("uscentral1", "not a")])
def test_a_region_is_spelled_as_compute_engine_spells_it(region, says):
    problems = pytest.raises(ConfigError, parse_stack, {"gpu-fabric:region": region}, GKE)
    assert any(
        p.key == "gpu-fabric:region" and p.value == region and says in p.message
        for p in problems.value.problems
    )
