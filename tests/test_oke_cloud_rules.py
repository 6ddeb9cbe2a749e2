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
    ],
)
def test_a_rule_of_the_cloud_args_is_refused_alike(
    stack_changes, stack_key, hosted_change, path, says
):
    assert_single_rule(stack_changes, stack_key, None, says, OKE)
    reasons = hosted_reasons("OkeCloud", hosted_change)
    assert list(reasons) == [path]
    assert says in reasons[path]
