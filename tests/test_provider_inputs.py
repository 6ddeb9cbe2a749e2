"""Every input that reached the engine is a property the provider's own SDK types know.

Mocks accept any key, so a misspelled or misplaced input (`gpu_driver_instalation_config`, a
field one level too high) would pass every other test and fail only in `pulumi up`. This walks the
recorded inputs against the typed Args classes of pulumi-gcp, pulumi-oci, pulumi-alicloud and
pulumi-command.
"""

from __future__ import annotations

import collections.abc
import importlib
import typing

import pytest
from pulumi import _types

from offline.engine import Plan
from tests.conftest import OKE_EXISTING_VCN, SSH_PUBLIC_KEY, run_stack

SDKS = {
    "gcp": "pulumi_gcp",
    "oci": "pulumi_oci",
    "alicloud": "pulumi_alicloud",
    "command": "pulumi_command",
}

# Stacks that between them turn every optional input on.
VARIANTS = {
    "a3-prod": {},
    "a3-prod options": {
        "gpu-fabric:gke.masterAuthorizedNetworks": [{"cidrBlock": "203.0.113.0/24"}],
        "gpu-fabric:gpuPool.reservation": {"name": "h100", "project": "shared"},
        "gpu-fabric:smokeTest": True,
    },
    "a4x-prod": {},
    "a4x-prod options": {
        "gpu-fabric:gpuPool.driverInstall": "bundle",
        "gpu-fabric:queues": {"topologyRequired": True, "trainer": "external"},
        "gpu-fabric:storageClass": {"name": "hd", "isDefault": True},
    },
    "oke-dranet": {},
    "oke-dranet options": {
        "gpu-fabric:dranet": {"childCidr": "10.192.0.0/12"},
        "gpu-fabric:ncclTests": ["aligned-8gpu-16rails"],
        "gpu-fabric:network.apiAllowedCidrs": ["192.0.2.0/24"],
        "gpu-fabric:network.sshAllowedCidrs": ["192.0.2.0/24"],
        "gpu-fabric:gpuNodes.sshPublicKey": f"{SSH_PUBLIC_KEY} example",
        "gpu-fabric:gpuNodes.joinTag": {"namespace": "gpu-fabric", "key": "cluster"},
        "gpu-fabric:compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
    },
    "oke-dranet flannel on an existing VCN": {
        "gpu-fabric:oke.cni": "FLANNEL_OVERLAY",
        "gpu-fabric:oke.publicEndpoint": True,
        "gpu-fabric:network": {
            "existing": {k: v for k, v in OKE_EXISTING_VCN.items() if "pods" not in k},
            "apiAllowedCidrs": ["198.51.100.0/24"],
        },
    },
    "ack-lingjun": {},
    "ack-lingjun options": {
        "gpu-fabric:rdma": {"nonHostNetwork": True, "addonVersion": "1.1.0"},
        "gpu-fabric:lingjun.computingNetwork": "ipv6",
        "gpu-fabric:benchmarkJob": True,
        "gpu-fabric:images": {"benchmark": "example.com/hps:1"},
    },
    "ack-lingjun on an existing VPC": {
        "gpu-fabric:network": {
            "existing": {
                "vpcId": "vpc-0jlexisting",
                "vpcCidr": "10.0.0.0/16",
                "nodeVswitches": [
                    {"id": "vsw-0jlnode", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.0.0/20"}
                ],
                "podVswitches": [
                    {"id": "vsw-0jlpod", "zoneId": "cn-wulanchabu-c", "cidr": "10.0.64.0/18"}
                ],
            }
        },
    },
}


def args_class(resource_type: str) -> type:
    """`gcp:container/nodePool:NodePool` -> `pulumi_gcp.container.NodePoolArgs`."""
    package, module, name = resource_type.split(":")
    sdk = importlib.import_module(f"{SDKS[package]}.{module.split('/')[0].lower()}")
    # Where a nested input type already has the name `<Name>Args` (pulumi-alicloud's cs module:
    # `KubernetesAddonArgs` is a cluster's addon), the resource's args are `<Name>InitArgs`.
    return getattr(sdk, f"{name}InitArgs", None) or getattr(sdk, f"{name}Args")


def unknown_inputs(cls: type, inputs: dict, path: str = "") -> list[str]:
    types = _types.input_type_types(cls)
    unknown = []
    for key, value in inputs.items():
        if key not in types:
            unknown.append(f"{path}{key}")
            continue
        unknown += _unknown_in_value(types[key], value, f"{path}{key}")
    return unknown


def _unknown_in_value(typ: typing.Any, value: typing.Any, path: str) -> list[str]:
    typ = _types.unwrap_type(typ)
    origin = typing.get_origin(typ)
    if origin in (list, collections.abc.Sequence) and isinstance(value, list):
        (item,) = typing.get_args(typ)
        return [u for i, v in enumerate(value) for u in _unknown_in_value(item, v, f"{path}[{i}]")]
    if isinstance(typ, type) and _types.is_input_type(typ) and isinstance(value, dict):
        return unknown_inputs(typ, value, f"{path}.")
    return []


@pytest.fixture(scope="module", params=list(VARIANTS))
def plan(request) -> Plan:
    stack = request.param.split()[0]
    return run_stack(VARIANTS[request.param], stack=stack)


def test_every_cloud_and_command_input_is_known_to_the_sdk(plan):
    checked = 0
    for resource in plan.resources:
        if resource.type.split(":")[0] not in SDKS:
            continue
        assert unknown_inputs(args_class(resource.type), resource.inputs) == [], resource.name
        checked += 1
    # The cluster, its pools, networks, IAM, NAT, policy, gates; ACK creates its NAT and security
    # group itself, so an ack-lingjun stack on an existing VPC has just the cluster, two pools and
    # the add-on.
    assert checked >= (4 if plan.stack == "ack-lingjun" else 15)


@pytest.mark.parametrize(
    "resource_type, args",
    [
        ("gcp:container/nodePool:NodePool", "pulumi_gcp.container:NodePoolArgs"),
        ("oci:ContainerEngine/cluster:Cluster", "pulumi_oci.containerengine:ClusterArgs"),
        ("alicloud:cs/nodePool:NodePool", "pulumi_alicloud.cs:NodePoolArgs"),
        (
            "alicloud:cs/kubernetesAddon:KubernetesAddon",
            "pulumi_alicloud.cs:KubernetesAddonInitArgs",
        ),
        ("alicloud:vpc/switch:Switch", "pulumi_alicloud.vpc:SwitchArgs"),
    ],
)
def test_type_tokens_map_to_the_resources_own_args(resource_type, args):
    module, name = args.split(":")
    assert args_class(resource_type) is getattr(importlib.import_module(module), name)


def test_the_walk_finds_a_misspelled_nested_input():
    from pulumi_gcp.container import NodePoolArgs

    inputs = {
        "cluster": "c",
        "nodeConfig": {
            "machineType": "a3-highgpu-8g",
            "guestAccelerators": [{"type": "t", "count": 8, "gpuDriverInstalationConfig": {}}],
        },
        "networkConfig": {"additionalNodeNetworkConfigs": [{"network": "n", "subnet": "s"}]},
        "gvnic": {"enabled": True},
    }
    assert unknown_inputs(NodePoolArgs, inputs) == [
        "nodeConfig.guestAccelerators[0].gpuDriverInstalationConfig",
        "networkConfig.additionalNodeNetworkConfigs[0].subnet",
        "gvnic",
    ]
