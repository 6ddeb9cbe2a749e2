"""GKE's `filestore` training volumes (gpu_fabric/gke/filestore/): Filestore instances the cloud
layer creates on the cluster's VPC (deletion protection, `protect`) or existing ones, bound in
every training namespace through the Filestore CSI driver the stack turns on."""

from __future__ import annotations

import pytest

from gpu_fabric.gke.filestore.driver import DRIVER
from gpu_fabric.gke.offline_mocks import MOCK_FILESTORE_IP
from tests.conftest import assert_single_rule, run_stack, stack_values
from tests.stacks import cluster_key_stacks_on
from tests.test_storage import bound_volumes

STACK = cluster_key_stacks_on("gke")[0]
EXISTING = {
    "instance": "shared",
    "location": "us-central1-b",
    "ip": "10.91.0.9",
    "share": "datasets",
}
STORAGE = {
    "data": {"filestore": EXISTING},
    "checkpoints": {"filestore": {"create": {"tier": "ZONAL", "capacityGb": 10240}}},
}


@pytest.fixture(scope="module")
def plan():
    return run_stack({"gpu-fabric:storage": STORAGE}, stack=STACK)


def values():
    stack = stack_values(STACK)
    pool = stack.get("gpu-fabric:gpuPool") or stack["gpu-fabric:gpuPools"][0]
    return stack, pool


def test_a_created_instance_is_protected_on_the_clusters_vpc_in_the_gpu_zone(plan):
    (instance,) = plan.of_type("gcp:filestore/instance:Instance")
    stack, pool = values()
    assert instance.protect is True
    assert instance.inputs["deletionProtectionEnabled"] is True
    assert instance.inputs["location"] == pool["zone"]
    assert instance.inputs["networks"] == [
        {
            "network": f"{stack['gpu-fabric:gke']['name']}-primary",
            "modes": ["MODE_IPV4"],
            "connectMode": "DIRECT_PEERING",
        }
    ]
    assert instance.inputs["fileShares"] == {"name": "checkpoints", "capacityGb": 10240}


def test_a_regional_tier_is_in_the_region():
    storage = {"checkpoints": {"filestore": {"create": {"tier": "REGIONAL", "capacityGb": 1024}}}}
    (instance,) = run_stack({"gpu-fabric:storage": storage}, stack=STACK).of_type(
        "gcp:filestore/instance:Instance"
    )
    assert instance.inputs["location"] == stack_values(STACK)["gpu-fabric:region"]


def test_the_cluster_gets_the_filestore_driver(plan):
    (cluster,) = plan.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["addonsConfig"] == {"gcpFilestoreCsiDriverConfig": {"enabled": True}}


def test_every_training_namespace_gets_a_claim_of_each_share(plan):
    stack, pool = values()
    cluster = stack["gpu-fabric:gke"]["name"]
    wanted = {
        "training-data": {
            "driver": DRIVER,
            "volumeHandle": "modeInstance/us-central1-b/shared/datasets",
            "volumeAttributes": {"ip": "10.91.0.9", "volume": "datasets"},
        },
        "training-checkpoints": {
            "driver": DRIVER,
            "volumeHandle": f"modeInstance/{pool['zone']}/{cluster}-checkpoints/checkpoints",
            "volumeAttributes": {"ip": MOCK_FILESTORE_IP, "volume": "checkpoints"},
        },
    }
    for claim, volume in bound_volumes(plan):
        assert volume["spec"]["csi"] == wanted[claim["metadata"]["name"]]


@pytest.mark.parametrize(
    ("filestore", "key", "says"),
    [
        (
            {"create": {"tier": "ZONAL", "capacityGb": 10240}, "ip": "10.0.0.1"},
            "gpu-fabric:storage.data.filestore",
            "leave out ip",
        ),
        ({"instance": "x"}, "gpu-fabric:storage.data.filestore", "missing: location, ip, share"),
        (
            {**EXISTING, "share": "my-data"},
            "gpu-fabric:storage.data.filestore.share",
            "underscores",
        ),
        (
            {"create": {"tier": "ZONAL", "capacityGb": 100}},
            "gpu-fabric:storage.data.filestore.create.capacityGb",
            "1024",
        ),
        (
            {"create": {"tier": "PREMIUM", "capacityGb": 2048}},
            "gpu-fabric:storage.data.filestore.create.tier",
            "'ZONAL'",
        ),
    ],
)
def test_an_instance_that_cannot_be_made_or_mounted_is_refused(filestore, key, says):
    changes = {"gpu-fabric:storage": {"data": {"filestore": filestore}}}
    assert_single_rule(changes, key, None, says, STACK)
