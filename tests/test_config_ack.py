"""Every ack-lingjun validation rule, triggered: each names the key, the bad value and the fix."""

from __future__ import annotations

import pytest

from gpu_fabric.catalog import catalog
from gpu_fabric.problems import ConfigError
from tests.conftest import (
    assert_registers_nothing,
    assert_single_rule,
    only_problem,
    parse_stack,
)

STACK = "ack-lingjun"
EXISTING_VPC = {
    "vpcId": "vpc-0jlexisting",
    "vpcCidr": "10.0.0.0/16",
    "nodeVswitches": [{"id": "vsw-0jlnode", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.0.0/20"}],
    "podVswitches": [{"id": "vsw-0jlpod", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.64.0/18"}],
}
IPV6_NON_HOST = {
    "gpu-fabric:rdma.nonHostNetwork": True,
    "gpu-fabric:lingjun.computingNetwork": "ipv6",
}


def test_committed_stack_is_valid():
    cfg = parse_stack({}, stack=STACK)
    assert cfg.platform == STACK
    assert cfg.rdma_addon_version == "1.1.5"
    assert cfg.lingjun.computing_network.value == "ipv4"
    assert cfg.rdma.non_host_network is False


@pytest.mark.parametrize(
    "group_id",
    [
        "i120021051733814190732",  # eflo-controller / eflo.NodeGroupAttachment examples
        "ng-ec3c96ff0aa1",  # CS CreateClusterNodePool eflo_node_group.group_id example
        "120021051733814190732",  # digits only (UNVERIFIED)
    ],
)
def test_lingjun_group_ids_in_each_form_the_apis_write_are_accepted(group_id):
    cfg = parse_stack({"gpu-fabric:lingjun.groupId": group_id}, stack=STACK)
    assert cfg.lingjun.group_id == group_id


def test_the_catalogs_switch_key_is_a_boolean_of_its_recorded_schema_with_source_and_date():
    plugin = catalog().ack.rdma_device_plugin
    schema = plugin.config_schema
    assert schema.source and schema.recorded and schema.versions
    key = schema.keys[plugin.non_host_network_key]
    assert key.type == "boolean"
    assert not key.verified and "UNVERIFIED" in key.source  # until someone reads the live schema
    cfg = parse_stack(IPV6_NON_HOST, stack=STACK)
    assert cfg.non_host_network_key == plugin.non_host_network_key


def test_non_host_network_on_ipv6_with_a_new_enough_add_on_is_accepted():
    for version in ("1.1.0", "1.1.5"):
        cfg = parse_stack({**IPV6_NON_HOST, "gpu-fabric:rdma.addonVersion": version}, stack=STACK)
        assert cfg.rdma.non_host_network and cfg.rdma_addon_version == version


# (changes, key, value, what the message must say): one row per rule.
RULES = {
    "non-hostNetwork RDMA on an IPv4 computing network": (
        {"gpu-fabric:rdma.nonHostNetwork": True},
        "gpu-fabric:rdma.nonHostNetwork",
        True,
        "needs an IPv6 Lingjun computing network, and gpu-fabric:lingjun.computingNetwork is ipv4",
    ),
    "non-hostNetwork RDMA with an add-on below 1.1.0": (
        {**IPV6_NON_HOST, "gpu-fabric:rdma.addonVersion": "1.0.0"},
        "gpu-fabric:rdma.addonVersion",
        "1.0.0",
        "needs ack-rdma-device-plugin 1.1.0 or newer",
    ),
    "an add-on version that is not one": (
        {"gpu-fabric:rdma.addonVersion": "v1.1"},
        "gpu-fabric:rdma.addonVersion",
        "v1.1",
        "write MAJOR.MINOR.PATCH",
    ),
    "Kubernetes below 1.31": (
        {"gpu-fabric:ack.kubernetesVersion": "1.30.7-aliyun.1"},
        "gpu-fabric:ack.kubernetesVersion",
        "1.30.7-aliyun.1",
        "need ACK managed Pro 1.31 or newer; pick 1.31.x or newer",
    ),
    "a Kubernetes version in the wrong form": (
        {"gpu-fabric:ack.kubernetesVersion": "v1.33.3"},
        "gpu-fabric:ack.kubernetesVersion",
        "v1.33.3",
        "MAJOR.MINOR.PATCH-aliyun.N",
    ),
    "dual stack": (
        {"gpu-fabric:ack.ipStack": "dual"},
        "gpu-fabric:ack.ipStack",
        "dual",
        "support only IPv4 single-stack ACK clusters",
    ),
    "no pod vSwitch in the Lingjun zone": (
        {
            "gpu-fabric:network.existing.podVswitches": [
                {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-b", "cidr": "10.0.64.0/18"}
            ]
        },
        "gpu-fabric:network.existing.podVswitches",
        ["cn-wulanchabu-b"],
        "no pod vSwitch is in the Lingjun zone cn-wulanchabu-c",
    ),
    "no pod vSwitch at all": (
        {"gpu-fabric:network.existing.podVswitches": []},
        "gpu-fabric:network.existing.podVswitches",
        [],
        "needs at least one vSwitch",
    ),
    "a vSwitch zone of another region": (
        {
            "gpu-fabric:network.existing.nodeVswitches": [
                {"id": "vsw-0jltest", "zoneId": "cn-beijing-a", "cidr": "10.0.0.0/20"}
            ]
        },
        "gpu-fabric:network.existing.nodeVswitches[0].zoneId",
        "cn-beijing-a",
        "not a zone of cn-wulanchabu",
    ),
    "a region that is not one": (
        {"alicloud:region": "Wulanchabu"},
        "alicloud:region",
        "Wulanchabu",
        "not an Alibaba Cloud region id",
    ),
    "a vSwitch outside the VPC": (
        {
            "gpu-fabric:network.existing.nodeVswitches": [
                {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-c", "cidr": "10.1.0.0/20"}
            ]
        },
        "gpu-fabric:network.existing.nodeVswitches[0].cidr",
        "10.1.0.0/20",
        "is not inside the VPC 10.0.0.0/16",
    ),
    "overlapping vSwitches": (
        {
            "gpu-fabric:network.existing.podVswitches": [
                {"id": "vsw-0jltest", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.0.0/18"}
            ]
        },
        "gpu-fabric:network.existing.podVswitches[0].cidr",
        "10.0.0.0/18",
        "overlaps gpu-fabric:network.existing.nodeVswitches[0].cidr (10.0.0.0/20)",
    ),
    "service range inside the VPC": (
        {"gpu-fabric:ack.serviceCidr": "10.0.128.0/20"},
        "gpu-fabric:ack.serviceCidr",
        "10.0.128.0/20",
        "overlaps the VPC 10.0.0.0/16 (gpu-fabric:network.existing.vpcCidr)",
    ),
    "a VPC range that is not a CIDR": (
        {"gpu-fabric:network.existing.vpcCidr": "10.0.0.1/16"},
        "gpu-fabric:network.existing.vpcCidr",
        "10.0.0.1/16",
        "not a CIDR range",
    ),
    "a Lingjun cluster id of the wrong shape": (
        {"gpu-fabric:lingjun.clusterId": "c8d1f0e2a"},
        "gpu-fabric:lingjun.clusterId",
        "c8d1f0e2a",
        "not a Lingjun (eflo) id",
    ),
    "a Lingjun group id too short for any documented form": (
        {"gpu-fabric:lingjun.groupId": "ng-1234"},
        "gpu-fabric:lingjun.groupId",
        "ng-1234",
        "not a Lingjun (eflo) node group id",
    ),
    "a computing network that is neither": (
        {"gpu-fabric:lingjun.computingNetwork": "IPv6"},
        "gpu-fabric:lingjun.computingNetwork",
        "IPv6",
        "must be one of 'ipv4' or 'ipv6'",
    ),
    "ranges beside an existing VPC": (
        {"gpu-fabric:network": {"vpcCidr": "10.0.0.0/16", "existing": EXISTING_VPC}},
        "gpu-fabric:network.vpcCidr",
        "10.0.0.0/16",
        "unknown key; remove it or use one of: existing",
    ),
    "an existing vSwitch id of the wrong shape": (
        {
            "gpu-fabric:network": {
                "existing": {
                    **EXISTING_VPC,
                    "podVswitches": [{**EXISTING_VPC["podVswitches"][0], "id": "vpc-0jlpod"}],
                }
            }
        },
        "gpu-fabric:network.existing.podVswitches[0].id",
        "vpc-0jlpod",
        "not a vSwitch id",
    ),
    "the benchmark Job without an image": (
        {"gpu-fabric:benchmarkJob": True},
        "gpu-fabric:images.benchmark",
        None,
        "the benchmark Job needs an image",
    ),
    "a cluster name ACK would refuse": (
        {"gpu-fabric:ack.name": "ACK_Lingjun"},
        "gpu-fabric:ack.name",
        "ACK_Lingjun",
        "lowercase letters, digits and hyphens",
    ),
    "a Lingjun node group id of none of the documented forms": (
        {"gpu-fabric:lingjun.groupId": "group-1"},
        "gpu-fabric:lingjun.groupId",
        "group-1",
        "not a Lingjun (eflo) node group id",
    ),
    "a Lingjun node group id in capitals": (
        {"gpu-fabric:lingjun.groupId": "NG-EC3C96FF0AA1"},
        "gpu-fabric:lingjun.groupId",
        "NG-EC3C96FF0AA1",
        "`ng-` and lowercase letters or digits",
    ),
    "the Lingjun cluster's id as its node group id": (
        {"gpu-fabric:lingjun.groupId": "i118191731740041623425"},
        "gpu-fabric:lingjun.groupId",
        "i118191731740041623425",
        "is the Lingjun cluster's id (gpu-fabric:lingjun.clusterId), not one of its node groups",
    ),
    "a switch key the recorded add-on schema lacks": (
        {**IPV6_NON_HOST, "gpu-fabric:rdma.nonHostNetworkKey": "rdmaIpv6"},
        "gpu-fabric:rdma.nonHostNetworkKey",
        "rdmaIpv6",
        "is not a key of ack-rdma-device-plugin's config schema as recorded in the catalog",
    ),
    "a switch key that is not a boolean in the recorded schema": (
        {**IPV6_NON_HOST, "gpu-fabric:rdma.nonHostNetworkKey": "customResourceName"},
        "gpu-fabric:rdma.nonHostNetworkKey",
        "customResourceName",
        "is a string key, not a boolean, of ack-rdma-device-plugin's config schema",
    ),
    "a GKE key on an ACK stack": (
        {"gpu-fabric:gke": {"name": "x"}},
        "gpu-fabric:gke",
        None,
        "not for platform ack-lingjun: a key of gke-a3-high and gke-a4x",
    ),
    "an OKE key on an ACK stack": (
        {"gpu-fabric:oke": {"name": "x"}},
        "gpu-fabric:oke",
        None,
        "not for platform ack-lingjun: a key of oke-dranet",
    ),
    "gcp:project on an ACK stack": (
        {"gcp:project": "my-project"},
        "gcp:project",
        "my-project",
        "not for platform ack-lingjun",
    ),
    "oci:region on an ACK stack": (
        {"oci:region": "us-ashburn-1"},
        "oci:region",
        "us-ashburn-1",
        "not for platform ack-lingjun: a key of oke-dranet",
    ),
    "a typo in an ACK key": (
        {"gpu-fabric:ack.serviceCidir": "192.168.0.0/16"},
        "gpu-fabric:ack.serviceCidir",
        "192.168.0.0/16",
        "did you mean 'serviceCidr'?",
    ),
}


@pytest.mark.parametrize("rule", list(RULES))
def test_single_rule(rule):
    assert_single_rule(*RULES[rule], stack=STACK)


@pytest.mark.parametrize("rule", list(RULES))
def test_bad_config_registers_nothing(rule):
    assert_registers_nothing(RULES[rule][0], STACK)


def test_error_text_names_key_value_and_fix():
    with pytest.raises(ConfigError) as err:
        parse_stack({"gpu-fabric:rdma.nonHostNetwork": True}, stack=STACK)
    text = str(err.value)
    assert "stack 'ack-lingjun': 1 configuration problem(s)" in text
    assert "gpu-fabric:rdma.nonHostNetwork: true: RDMA for non-hostNetwork pods" in text
    assert "set computingNetwork: ipv6" in text


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"gpu-fabric:lingjun": {"clusterId": "i1234567"}}, "gpu-fabric:lingjun"),
        ({"alicloud:region": "cn-wulanchabu"}, "alicloud:region"),
    ],
)
def test_ack_keys_on_an_oke_stack_name_their_platform(changes, key):
    problem = only_problem(changes, stack="oke-dranet")
    assert problem.key == key
    assert "not for platform oke-dranet: a key of ack-lingjun" in problem.message


def test_an_existing_vpc_is_accepted_and_its_vswitches_are_checked():
    cfg = parse_stack({"gpu-fabric:network": {"existing": EXISTING_VPC}}, stack=STACK)
    assert [v.id for v in cfg.pod_vswitches] == ["vsw-0jlpod"]
    problem = only_problem(
        {
            "gpu-fabric:network": {
                "existing": {
                    **EXISTING_VPC,
                    "podVswitches": [
                        {"id": "vsw-x1", "zoneId": "cn-wulanchabu-a", "cidr": "10.0.64.0/18"}
                    ],
                }
            }
        },
        stack=STACK,
    )
    assert problem.key == "gpu-fabric:network.existing.podVswitches"
