"""The OKE and ACK presets (gpu_fabric/presets/oke.py, gpu_fabric/presets/ack.py): a private-
endpoint cluster's two layers from a few values, checked as a split deployment's two stacks are
together, and each layer planned on its own as the caller would run it."""

from __future__ import annotations

import pytest

import gpu_fabric.ack
import gpu_fabric.oke
from gpu_fabric.ack.cloud import AckCloud
from gpu_fabric.ack.fabric import AckFabric
from gpu_fabric.oke.cloud import OkeCloud
from gpu_fabric.oke.fabric import OkeFabric
from gpu_fabric.problems import ConfigError
from offline import engine

OKE = {
    "tenancy_ocid": "ocid1.tenancy.oc1..aaaaaaaaexampletenancy",
    "compartment_id": "ocid1.compartment.oc1..aaaaaaaaexamplecompartment",
    "region": "us-ashburn-1",
    "availability_domain": "Uocm:US-ASHBURN-AD-1",
    "kubernetes_version": "v1.36.1",
    "gpu_image_id": "ocid1.image.oc1.iad.aaaaaaaaexamplegpuimage",
    "system_image_id": "ocid1.image.oc1.iad.aaaaaaaaexampleokenodeimage",
    "claims": [{"name": "aligned-8gpu-16rails", "gpus": 8, "rails": 16}],
}


def _ack(**changes):
    vswitch = gpu_fabric.ack.ExistingVswitch
    values = {
        "region": "cn-wulanchabu",
        "kubernetes_version": "1.33.3-aliyun.1",
        "vpc_id": "vpc-0jlexample0lingjun",
        "vpc_cidr": "10.0.0.0/16",
        "node_vswitches": [vswitch("vsw-0jlexample0nodes", "cn-wulanchabu-c", "10.0.0.0/20")],
        "pod_vswitches": [vswitch("vsw-0jlexample0pods", "cn-wulanchabu-c", "10.0.64.0/18")],
        "key_name": "admin",
        "lingjun_cluster_id": "i118191731740041623425",
        "lingjun_group_id": "i120021051733814190732",
        "zone_id": "cn-wulanchabu-c",
        "node_count": 2,
    }
    return gpu_fabric.ack.ack_lingjun("train", **(values | changes))


def _plan_both(made, cloud_layer, fabric_layer) -> engine.Plan:
    def program():
        cloud = cloud_layer("train", made.cloud_args)
        fabric_layer("train", made.fabric_args(cloud))

    return engine.run("preset", {}, program=program)


def test_the_oke_preset_plans_its_gpu_nodes_claims_and_drivers():
    made = gpu_fabric.oke.oke_dranet("train", **OKE, node_count=3)
    plan = _plan_both(made, OkeCloud, OkeFabric)
    instances = plan.of_type("oci:Core/instance:Instance")
    assert len(instances) == 3 and {i.inputs["shape"] for i in instances} == {"BM.GPU.B4.8"}
    templates = plan.of_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert "aligned-8gpu-16rails" in [t.inputs["metadata"]["name"] for t in templates]
    releases = {r.inputs["name"] for r in plan.of_type("kubernetes:helm.sh/v3:Release")}
    assert {"dranet", "dra-driver-nvidia-gpu"} <= releases, releases


def test_the_ack_preset_plans_its_lingjun_pool_and_node_wait():
    plan = _plan_both(_ack(), AckCloud, AckFabric)
    (pool,) = [
        r for r in plan.of_type("alicloud:cs/nodePool:NodePool") if r.inputs.get("efloNodeGroup")
    ]
    assert pool.inputs["efloNodeGroup"]["groupId"] == "i120021051733814190732"


def test_a_claim_the_shape_cannot_hold_is_refused_by_the_oke_preset():
    too_big = {**OKE, "claims": [{"name": "too-big", "gpus": 9, "rails": 1}]}
    with pytest.raises(ConfigError) as err:
        gpu_fabric.oke.oke_dranet("train", **too_big)
    assert any(p.key.startswith("gpu-fabric:claims") for p in err.value.problems)


def test_a_bad_value_is_refused_by_the_ack_preset_naming_its_key():
    with pytest.raises(ConfigError) as err:
        _ack(vpc_cidr="10.0.0.0")
    assert [p.key for p in err.value.problems] == ["gpu-fabric:network.existing.vpcCidr"]


def test_the_presets_are_exported_lazily_by_their_platform_packages():
    assert callable(gpu_fabric.oke.oke_dranet) and callable(gpu_fabric.ack.ack_lingjun)
    with pytest.raises(AttributeError):
        gpu_fabric.oke.ack_lingjun  # noqa: B018 (the attribute lookup is the test)
