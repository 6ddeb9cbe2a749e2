"""The rules of OKE's cloud layer args (gpu_fabric/oke/cloud_rules.py), each refused alike from a
stack file (at its stack key) and by a hosted `OkeCloud` (at its property path, in one
InputPropertiesError)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule
from tests.hosted import hosted_reasons
from tests.stacks import cloud_stacks_on

OKE = cloud_stacks_on("oke")[0]


@pytest.mark.parametrize(
    "stack_changes, stack_key, hosted_change, path, says",
    [
        (
            {"gpu-fabric:oke.kubernetesVersion": "v1.33.1"},
            "gpu-fabric:oke.kubernetesVersion",
            (("kubernetes_version",), "v1.33.1"),
            "kubernetesVersion",
            "pick v1.34.x or newer",
        ),
        (
            {"gpu-fabric:oke.systemPool.shape": "VM.GPU.A10.1"},
            "gpu-fabric:oke.systemPool.shape",
            (("system_pool", "shape"), "VM.GPU.A10.1"),
            "systemPool.shape",
            "is a GPU shape",
        ),
        (
            {"gpu-fabric:compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy"},
            "gpu-fabric:gpuNodes.joinTag",
            (("compartment_id",), "ocid1.tenancy.oc1..aaaaaaaaexampletenancy"),
            "gpuNodes.joinTagKey",
            "every instance of the root compartment may join",
        ),
        (
            {"gpu-fabric:network.loadBalancerSubnetCidr": "10.140.0.0/24"},
            "gpu-fabric:network.loadBalancerSubnetCidr",
            (("vcn", "load_balancer_subnet_cidr"), "10.140.0.0/24"),
            "vcn.loadBalancerSubnetCidr",
            "piSubnetCidr (10.140.0.0/28); pick another range",
        ),
        (
            {"gpu-fabric:network.workersSubnetCidr": "10.141.0.0/19"},
            "gpu-fabric:network.workersSubnetCidr",
            (("vcn", "workers_subnet_cidr"), "10.141.0.0/19"),
            "vcn.workersSubnetCidr",
            "is not inside the VCN 10.140.0.0/16",
        ),
        (
            {"gpu-fabric:network.workersSubnetCidr": "10.140.64.0/30"},
            "gpu-fabric:network.workersSubnetCidr",
            (("vcn", "workers_subnet_cidr"), "10.140.64.0/30"),
            "vcn.workersSubnetCidr",
            "holds 1 addresses, and the stack needs 4 nodes",
        ),
        (
            {"gpu-fabric:oke.servicesCidr": "10.140.2.0/24"},
            "gpu-fabric:oke.servicesCidr",
            (("services_cidr",), "10.140.2.0/24"),
            "servicesCidr",
            "overlaps the VCN 10.140.0.0/16",
        ),
    ],
)
def test_a_rule_of_the_cloud_args_is_refused_alike(
    stack_changes, stack_key, hosted_change, path, says
):
    assert_single_rule(stack_changes, stack_key, None, says, OKE)
    reasons = hosted_reasons("OkeCloud", hosted_change)
    assert list(reasons) == [path]
    assert says in reasons[path]
