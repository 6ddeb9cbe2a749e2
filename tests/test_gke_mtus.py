"""The MTUs of GKE's VPCs: the RoCE VPC at the profile's 8896 on every RDMA machine, and the
primary VPC at 8244 on A3 High and A3 Mega, as cluster-toolkit's blueprints set them."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule, run_stack

NETWORK = "gcp:compute/network:Network"


def primary_network(plan):
    (network,) = [n for n in plan.of_type(NETWORK) if n.name.endswith("-primary-net")]
    return network


def test_a4x_roce_vpc_takes_8896_only():
    key = "gpu-fabric:network.nics.rdma.mtu"
    says = "the rdma NICs of a4x-highgpu-4g work with MTU 8896 only"
    assert_single_rule({key: 8244}, key, 8244, says, "a4x-prod")


@pytest.mark.parametrize(
    "stack, mtu",
    [("a3-prod", 8244), ("a3-mega-prod", 8244), ("a3-ultra-prod", None), ("a4x-prod", None)],
)
def test_the_primary_vpc_takes_the_machines_mtu(stack, mtu):
    network = primary_network(run_stack(stack=stack))
    assert network.inputs.get("mtu") == mtu
    # GCP: never change a network's MTU while VMs run; a deployed VPC keeps its own.
    assert network.ignore_changes == ["mtu"]


def test_the_primary_mtu_is_a_setting_refused_with_an_existing_network():
    network = primary_network(run_stack({"gpu-fabric:network.primary.mtu": 1500}))
    assert network.inputs["mtu"] == 1500
    assert_single_rule(
        {"gpu-fabric:network.primary.mtu": 9000},
        "gpu-fabric:network.primary.mtu",
        9000,
        "within 1300..8896",
        "a3-prod",
    )
    existing = {
        "network": "shared-vpc",
        "subnetwork": "shared-sub",
        "podsRangeName": "pods",
        "servicesRangeName": "services",
    }
    assert_single_rule(
        {"gpu-fabric:network.primary": {"existing": existing, "mtu": 8244}},
        "gpu-fabric:network.primary.mtu",
        8244,
        "has no effect with primary.existing",
        "a3-prod",
    )


def test_a_deployed_primary_vpc_keeps_its_mtu_in_the_diff():
    from offline import diff
    from tests.test_diff import RULES, as_file

    before = as_file(run_stack({"gpu-fabric:network.primary.mtu": 1460}))
    after = as_file(run_stack())
    report = diff.render_stack(diff.diff_plans(before, after, RULES), RULES)
    assert "primary-net" not in report
