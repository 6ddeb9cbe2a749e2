"""The rules of ACK's cloud layer args (gpu_fabric/ack/cloud_rules.py), each refused alike from a
stack file (at its stack key) and by a hosted `AckCloud` (at its property path, in one
InputPropertiesError)."""

from __future__ import annotations

import pytest

from tests.conftest import assert_single_rule
from tests.hosted import hosted_reasons
from tests.stacks import cloud_stacks_on

ACK = cloud_stacks_on("ack")[0]
IPV6_NON_HOST = {
    "gpu-fabric:rdma.nonHostNetwork": True,
    "gpu-fabric:lingjun.computingNetwork": "ipv6",
}


@pytest.mark.parametrize(
    "stack_changes, stack_key, hosted_change, path, says",
    [
        (
            {"gpu-fabric:ack.kubernetesVersion": "1.30.7-aliyun.1"},
            "gpu-fabric:ack.kubernetesVersion",
            (("kubernetes_version",), "1.30.7-aliyun.1"),
            "kubernetesVersion",
            "Lingjun node pools need ACK managed Pro",
        ),
        (
            {"gpu-fabric:ack.systemPool.instanceTypes": ["ecs.gn7i-c8g1.2xlarge"]},
            "gpu-fabric:ack.systemPool.instanceTypes[0]",
            (("system_pool", "instance_types"), ["ecs.gn7i-c8g1.2xlarge"]),
            "systemPool.instanceTypes[0]",
            "is a GPU instance type",
        ),
        (
            {"gpu-fabric:lingjun.groupId": "i118191731740041623425"},
            "gpu-fabric:lingjun.groupId",
            (("lingjun", "group_id"), "i118191731740041623425"),
            "lingjun.groupId",
            "is the Lingjun cluster's id",
        ),
        (
            {"gpu-fabric:network.existing.nodeVswitches": []},
            "gpu-fabric:network.existing.nodeVswitches",
            (("existing_vpc", "node_vswitch_ids"), []),
            "existingVpc.nodeVswitchIds",
            "needs at least one vSwitch",
        ),
    ],
)
def test_a_rule_of_the_cloud_args_is_refused_alike(
    stack_changes, stack_key, hosted_change, path, says
):
    assert_single_rule(stack_changes, stack_key, None, says, ACK)
    reasons = hosted_reasons("AckCloud", hosted_change)
    assert list(reasons) == [path]
    assert says in reasons[path]


def test_the_non_host_network_switch_is_checked_alike():
    assert_single_rule(
        {**IPV6_NON_HOST, "gpu-fabric:rdma.addonVersion": "1.0.0"},
        "gpu-fabric:rdma.addonVersion",
        "1.0.0",
        "RDMA for non-hostNetwork pods needs",
        ACK,
    )
    reasons = hosted_reasons(
        "AckCloud",
        (("non_host_network",), True),
        (("rdma_addon_version",), "1.0.0"),
        (("non_host_network_key",), "rdmaIpv6"),
    )
    assert sorted(reasons) == ["nonHostNetworkKey", "rdmaAddonVersion"]
    assert "is not a key of ack-rdma-device-plugin's config schema" in reasons["nonHostNetworkKey"]
