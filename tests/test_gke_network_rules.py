"""The networks' rules (gpu_fabric/gke/network/rules.py): the GPU networks a machine's NICs take,
their MTUs and firewall sources, and the ranges; each refused alike from a stack file (at its
stack key: `network.nics.<group>.subnets[i]`) and by a hosted `GkeCloud` (at its property path:
`gpuNetworks[n].subnets[k].cidr`)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule, parse_stack, stack_values
from tests.hosted import hosted_reasons
from tests.stacks import stacks_on
from tests.test_layer_inputs import GOOD, _build

GKE = stacks_on("gke")[0]
FIRST_GPU_SUBNET = GOOD["GkeCloud"]["gpu_networks"][0]["subnets"][0]["cidr"]


def _first_gpu_range(stack: str) -> tuple[str, str]:
    """The stack key and range of the stack's first GPU subnet."""
    plan = parse_stack({}, stack).nic_groups[0]
    return f"gpu-fabric:network.nics.{plan.group.name}.subnets[0]", plan.subnets[0]


def test_ranges_that_overlap_are_refused_alike_naming_the_other_in_each_ones_words():
    key, cidr = _first_gpu_range(GKE)
    assert_single_rule(
        {"gpu-fabric:network.primary.subnetCidr": cidr},
        "gpu-fabric:network.primary.subnetCidr",
        cidr,
        f"overlaps {key} ({cidr})",
        GKE,
    )
    reasons = hosted_reasons("GkeCloud", (("primary_network", "subnet_cidr"), FIRST_GPU_SUBNET))
    assert list(reasons) == ["primaryNetwork.subnetCidr"]
    assert (
        f"overlaps gpuNetworks[0].subnets[0].cidr ({FIRST_GPU_SUBNET})"
        in (reasons["primaryNetwork.subnetCidr"])
    )


def test_a_primary_subnet_too_small_for_the_nodes_is_refused_alike():
    """A /29 holds 4 nodes (Compute Engine keeps 4 of its 8 addresses); each system node counts
    once per zone of the region (4)."""
    key = "gpu-fabric:network.primary.subnetCidr"
    assert_single_rule({key: "10.0.0.0/29"}, key, "10.0.0.0/29", "holds 4 nodes", GKE)
    reasons = hosted_reasons("GkeCloud", (("primary_network", "subnet_cidr"), "10.0.0.0/29"))
    assert list(reasons) == ["primaryNetwork.subnetCidr"]
    assert "holds 4 nodes, and the stack can create 6" in reasons["primaryNetwork.subnetCidr"]


def test_a_gpu_subnet_smaller_than_compute_engine_takes_is_refused_by_a_hosted_cluster():
    networks = [dict(n) for n in GOOD["GkeCloud"]["gpu_networks"]]
    networks[0] = {**networks[0], "subnets": [{"name": "a3-gpu-1", "cidr": "10.1.0.0/30"}]}
    reasons = hosted_reasons("GkeCloud", (("gpu_networks",), networks))
    assert list(reasons) == ["gpuNetworks[0].subnets[0].cidr"]
    assert "Compute Engine subnets are /29 or larger" in reasons["gpuNetworks[0].subnets[0].cidr"]


def test_a_pod_range_too_small_for_the_nodes_is_refused_alike():
    key = "gpu-fabric:network.primary.podsCidr"
    says = "at 110 pods per node (a /24 each)"
    assert_single_rule({key: "10.64.0.0/24"}, key, "10.64.0.0/24", says, GKE)
    reasons = hosted_reasons("GkeCloud", (("primary_network", "pods_cidr"), "10.64.0.0/24"))
    assert list(reasons) == ["primaryNetwork.podsCidr"]
    assert "holds 1 nodes at 110 pods per node" in reasons["primaryNetwork.podsCidr"]
    assert "or lower maxPodsPerNode" in reasons["primaryNetwork.podsCidr"]


def test_a_services_range_gke_does_not_take_is_refused_alike():
    key, says = "gpu-fabric:network.primary.servicesCidr", "holds 16 Service addresses"
    assert_single_rule({key: "10.65.0.0/28"}, key, "10.65.0.0/28", says, GKE)
    reasons = hosted_reasons("GkeCloud", (("primary_network", "services_cidr"), "10.65.0.0/28"))
    assert list(reasons) == ["primaryNetwork.servicesCidr"]
    assert says in reasons["primaryNetwork.servicesCidr"]


@pytest.mark.parametrize("cidr", ["10.0.0.0/24", "10.64.0.0/19"])
def test_ranges_that_fit_are_accepted_by_a_hosted_cluster(cidr):
    """The good args with a range at the edge of each rule: a /24 primary subnet, a /19 pods."""
    field = "subnet_cidr" if cidr.endswith("/24") else "pods_cidr"
    plan = _build("GkeCloud", (("primary_network", field), cidr))
    assert plan.of_type("gcp:compute/subnetwork:Subnetwork")


def test_an_empty_firewall_source_list_is_refused_by_a_hosted_cluster():
    networks = [dict(n) for n in GOOD["GkeCloud"]["gpu_networks"]]
    networks[1] = {**networks[1], "firewall_source_ranges": []}
    reasons = hosted_reasons("GkeCloud", (("gpu_networks",), networks))
    assert list(reasons) == ["gpuNetworks[1].firewallSourceRanges"]


def test_the_stack_keys_of_a_gpu_networks_paths_follow_the_nic_layout():
    """A VPC per NIC (A3 High's gpu group) or one VPC of several subnets (a RoCE VPC)."""
    from gpu_fabric.gke.from_stack import stack_key_of

    by_machine = {stack_values(s)["gpu-fabric:gpuPool"]["machineType"]: s for s in stacks_on("gke")}
    a3 = parse_stack({}, by_machine["a3-highgpu-8g"])
    assert stack_key_of(a3, ("gpu_networks", 2, "subnets", 0, "cidr")) == (
        "network.nics.gpu.subnets[2]"
    )
    assert stack_key_of(a3, ("gpu_networks", 3, "mtu")) == "network.nics.gpu.mtu"
    roce = parse_stack({}, by_machine["a4-highgpu-8g"])
    assert stack_key_of(roce, ("gpu_networks", 1, "subnets", 5, "cidr")) == (
        "network.nics.rdma.subnets[5]"
    )
    assert stack_key_of(roce, ("gpu_networks", 0, "subnets", 0, "cidr")) == (
        "network.nics.gvnic.subnets[0]"
    )


# --- the GPU networks the machine's NICs take ----------------------------------------------------


def _a3_networks(count: int, mtu: int = 8244) -> list[dict]:
    return [
        {
            "network_name": f"a3-gpu-{n}",
            "subnets": [{"name": f"a3-gpu-{n}", "cidr": f"10.{n}.0.0/24"}],
            "mtu": mtu,
        }
        for n in range(1, count + 1)
    ]


def test_a_hosted_cluster_with_gpu_networks_its_nics_do_not_take_is_refused():
    """A3 High takes 4 GPU networks of one subnet each (a VPC per TCPX NIC)."""
    reasons = hosted_reasons("GkeCloud", (("gpu_networks",), _a3_networks(1)))
    assert list(reasons) == ["gpuNetworks"]
    assert "give 4 GPU networks with [1, 1, 1, 1] subnets, in NIC order" in reasons["gpuNetworks"]
    accepted = _build("GkeCloud", (("gpu_networks",), _a3_networks(4)))
    assert len(accepted.of_type("gcp:compute/network:Network")) >= 4


def test_an_mtu_the_fabric_does_not_take_is_refused_alike():
    stack = next(
        s
        for s in stacks_on("gke")
        if stack_values(s)["gpu-fabric:gpuPool"]["machineType"] == "a3-highgpu-8g"
    )
    assert_single_rule(
        {"gpu-fabric:network.nics.gpu.mtu": 1460},
        "gpu-fabric:network.nics.gpu.mtu",
        1460,
        "work with MTU 8244 only; use that",
        stack,
    )
    reasons = hosted_reasons("GkeCloud", (("gpu_networks",), _a3_networks(4, mtu=1460)))
    assert sorted(reasons) == [f"gpuNetworks[{i}].mtu" for i in range(4)]
    assert "work with MTU 8244 only; use that" in reasons["gpuNetworks[0].mtu"]
