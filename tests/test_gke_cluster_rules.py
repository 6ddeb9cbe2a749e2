"""The cluster's own rules (gpu_fabric/gke/cluster/rules.py), each refused alike from a stack file
(at its stack key) and by a hosted `GkeCloud` (at its property path)."""

from __future__ import annotations

from tests.conftest import assert_single_rule
from tests.hosted import hosted_reasons
from tests.stacks import stacks_on

GKE = stacks_on("gke")[0]


def test_a_control_plane_no_client_reaches_is_refused_alike():
    key, says = "gpu-fabric:gke.masterAuthorizedNetworks", "locks every client out"
    assert_single_rule({key: []}, key, [], says, GKE)
    reasons = hosted_reasons("GkeCloud", (("master_authorized_networks",), []))
    assert list(reasons) == ["masterAuthorizedNetworks"]
    assert says in reasons["masterAuthorizedNetworks"]


def test_a_control_plane_open_to_more_than_a_slash_8_of_the_internet_is_refused_alike():
    """Two public /8s: each passes the field's own rule, together they are twice the limit."""
    cidrs = ["1.0.0.0/8", "2.0.0.0/8"]
    key, says = "gpu-fabric:gke.masterAuthorizedNetworks", "more than a /8"
    assert_single_rule({key: [{"cidrBlock": c} for c in cidrs]}, key, cidrs, says, GKE)
    networks = [{"cidr_block": c} for c in cidrs]
    reasons = hosted_reasons("GkeCloud", (("master_authorized_networks",), networks))
    assert list(reasons) == ["masterAuthorizedNetworks"]
    assert says in reasons["masterAuthorizedNetworks"]


def test_a_gpu_machine_type_for_the_system_pool_is_refused_alike():
    says = "is a GPU machine type"
    key = "gpu-fabric:gke.systemPool.machineType"
    assert_single_rule({key: "a2-highgpu-1g"}, key, "a2-highgpu-1g", says, GKE)
    reasons = hosted_reasons("GkeCloud", (("system_machine_type",), "a2-highgpu-1g"))
    assert list(reasons) == ["systemMachineType"]
    assert says in reasons["systemMachineType"]
