"""GKE's `gcs` training volumes (gpu_fabric/gke/buckets/): Cloud Storage buckets, created or
existing, granted to the training namespaces only, mounted through the Cloud Storage FUSE CSI
driver the stack turns on, by every runtime."""

from __future__ import annotations

import pytest

from gpu_fabric.gke.buckets.fuse import (
    DRIVER,
    FUSE_POD_ANNOTATIONS,
    HOST_NETWORK_ATTRIBUTE,
    HOST_NETWORK_MIN_GKE,
    MOUNT_OPTIONS,
    VOLUME_ATTRIBUTES,
)
from gpu_fabric.gke.offline_mocks import MOCK_PROJECT_NUMBER
from tests.conftest import DELETE, assert_single_rule, parse_stack, run_stack, stack_values
from tests.stacks import cluster_key_stacks_on, stack_of_machine
from tests.test_storage import bound_volumes
from tests.test_workloads_runtime import node_container, resolve, runtime_of, user_job

GKE = cluster_key_stacks_on("gke")
STACK = GKE[0]
BUCKETS = {
    "data": {"gcs": {"bucket": "acme-imagenet"}},
    "checkpoints": {"gcs": {"bucket": "acme-llama-checkpoints", "create": True}},
}
TEAMS = {"teams": [{"namespace": "team-a"}, {"namespace": "team-b"}]}


def plan_with(storage=BUCKETS, stack=STACK, **changes):
    return run_stack({"gpu-fabric:storage": storage, **changes}, stack=stack)


def of_type(plan, type_):
    return plan.of_type(type_)


@pytest.fixture(scope="module")
def plan():
    return plan_with()


def test_a_created_bucket_is_regional_hierarchical_private_and_protected(plan):
    (bucket,) = of_type(plan, "gcp:storage/bucket:Bucket")
    region = stack_values(STACK)["gpu-fabric:region"]
    assert bucket.inputs["name"] == "acme-llama-checkpoints"
    assert bucket.inputs["location"] == region.upper()
    assert bucket.inputs["hierarchicalNamespace"] == {"enabled": True}
    assert bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.inputs["publicAccessPrevention"] == "enforced"
    assert bucket.inputs["forceDestroy"] is False
    assert bucket.protect is True


def test_each_training_namespace_may_read_the_data_and_write_the_checkpoints_only():
    plan = plan_with(**{"gpu-fabric:queues": TEAMS})
    grants = {
        (g.inputs["bucket"], g.inputs["role"], g.inputs["member"])
        for g in of_type(plan, "gcp:storage/bucketIAMMember:BucketIAMMember")
    }
    project = stack_values(STACK)["gcp:project"]
    pool = f"{project}.svc.id.goog"

    def principal(namespace):
        return (
            f"principalSet://iam.googleapis.com/projects/{MOCK_PROJECT_NUMBER}/locations/global/"
            f"workloadIdentityPools/{pool}/namespace/{namespace}"
        )

    assert grants == {
        (bucket, role, principal(ns))
        for ns in ("team-a", "team-b")
        for bucket, role in (
            ("acme-imagenet", "roles/storage.objectViewer"),
            ("acme-llama-checkpoints", "roles/storage.objectUser"),
        )
    }


def test_the_grants_wait_for_the_cluster_whose_pool_they_name(plan):
    (cluster,) = [c for c in of_type(plan, "gcp:container/cluster:Cluster")]
    for grant in of_type(plan, "gcp:storage/bucketIAMMember:BucketIAMMember"):
        assert cluster.urn in grant.dependencies


def test_the_cluster_gets_the_fuse_driver_only_with_a_bucket(plan):
    (cluster,) = of_type(plan, "gcp:container/cluster:Cluster")
    assert cluster.inputs["addonsConfig"] == {"gcsFuseCsiDriverConfig": {"enabled": True}}
    (without,) = of_type(run_stack(stack=STACK), "gcp:container/cluster:Cluster")
    assert "addonsConfig" not in without.inputs
    claims = {"data": {"claim": "mine"}}
    (with_claims,) = of_type(plan_with(claims), "gcp:container/cluster:Cluster")
    assert "addonsConfig" not in with_claims.inputs


def test_every_training_namespace_gets_a_bound_claim_of_each_bucket():
    plan = plan_with(**{"gpu-fabric:queues": TEAMS})
    pairs = bound_volumes(plan)
    assert len(pairs) == 4
    for claim, volume in pairs:
        use = claim["metadata"]["name"].removeprefix("training-")
        assert volume["spec"]["csi"] == {
            "driver": DRIVER,
            "volumeHandle": BUCKETS[use]["gcs"]["bucket"],
            "volumeAttributes": attributes_on(STACK),
        }
        assert volume["spec"]["mountOptions"] == MOUNT_OPTIONS[use]
        mode = "ReadOnlyMany" if use == "data" else "ReadWriteMany"
        assert claim["spec"]["accessModes"] == [mode]


def host_network(stack: str) -> bool:
    from gpu_fabric.gke.fabrics.by_name import fabric_of

    cfg = parse_stack({}, stack)
    return "host_network_reason" in fabric_of(cfg.machine).runtime_security


def attributes_on(stack: str) -> dict[str, str]:
    return {**VOLUME_ATTRIBUTES, **(HOST_NETWORK_ATTRIBUTE if host_network(stack) else {})}


@pytest.mark.parametrize("stack", GKE)
def test_host_network_runtimes_mount_as_their_pods_service_account(stack):
    (volume, *_) = plan_with(stack=stack).of_type("kubernetes:core/v1:PersistentVolume")
    attributes = volume.inputs["spec"]["csi"]["volumeAttributes"]
    assert (attributes.get("hostNetworkPodKSA") == "true") == host_network(stack)


def test_a_bucket_for_host_network_pods_below_the_drivers_floor_is_refused():
    stack = stack_of_machine()["a3-highgpu-8g"]
    assert host_network(stack)
    assert_single_rule(
        {"gpu-fabric:storage": BUCKETS, "gpu-fabric:gke.version": "1.33.3-gke.1000000"},
        "gpu-fabric:storage.data.gcs",
        {"bucket": "acme-imagenet"},
        f"serves from GKE {HOST_NETWORK_MIN_GKE} on",
        stack,
    )


def test_mount_options_given_replace_the_defaults():
    storage = {"data": {"gcs": {"bucket": "acme-imagenet", "mountOptions": ["implicit-dirs"]}}}
    (volume,) = of_type(plan_with(storage), "kubernetes:core/v1:PersistentVolume")
    assert volume.inputs["spec"]["mountOptions"] == ["implicit-dirs"]


@pytest.mark.parametrize("stack", GKE)
def test_every_runtime_mounts_the_buckets_with_the_fuse_sidecar(stack):
    runtime = runtime_of(plan_with(stack=stack))
    for pod in resolve(runtime, user_job(runtime["metadata"]["name"])):
        annotations = pod["metadata"].get("annotations", {})
        assert FUSE_POD_ANNOTATIONS.items() <= annotations.items()
        claims = {
            v["persistentVolumeClaim"]["claimName"]
            for v in pod["spec"]["volumes"]
            if "persistentVolumeClaim" in v
        }
        assert {"training-data", "training-checkpoints"} <= claims
        mounts = {m["mountPath"] for m in node_container(pod)["volumeMounts"]}
        assert {"/data", "/checkpoints"} <= mounts


def test_a_pod_mounting_only_claims_gets_no_fuse_sidecar():
    runtime = runtime_of(plan_with({"data": {"claim": "mine"}}))
    assert "gke-gcsfuse/volumes" not in runtime["spec"]["template"]["spec"].get(
        "replicatedJobs", [{}]
    )[0].get("template", {}).get("metadata", {}).get("annotations", {})
    pod = resolve(runtime, user_job(runtime["metadata"]["name"]))[0]
    assert "gke-gcsfuse/volumes" not in pod["metadata"].get("annotations", {})


@pytest.mark.parametrize(
    ("bucket", "says"),
    [
        ("Acme_Data", "not a Cloud Storage bucket name"),
        ("ab", "not a Cloud Storage bucket name"),
        ("google-data", "contain 'google'"),
        ("goog-data", "start with 'goog'"),
    ],
)
def test_a_bucket_name_cloud_storage_refuses_is_refused(bucket, says):
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"gcs": {"bucket": bucket}}}},
        "gpu-fabric:storage.data.gcs.bucket",
        bucket,
        says,
        STACK,
    )


def test_a_volume_is_one_kind():
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"claim": "x", "gcs": {"bucket": "acme-data"}}}},
        "gpu-fabric:storage.data",
        None,
        "exactly one of claim, gcs, lustre, filestore; this one has claim and gcs",
        STACK,
    )


def test_another_platforms_kind_is_refused_naming_this_ones():
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"fss": {"create": True}}}},
        "gpu-fabric:storage.data.fss",
        None,
        "not for platform",
        STACK,
    )


def test_one_bucket_is_created_once():
    both = {"gcs": {"bucket": "acme-shared", "create": True}}
    assert_single_rule(
        {"gpu-fabric:storage": {"data": both, "checkpoints": both}},
        "gpu-fabric:storage.checkpoints.gcs.create",
        True,
        "a bucket is created once",
        STACK,
    )


def test_a_bucket_in_a_split_cloud_stack_is_refused(without_fabric_stacks):
    from gpu_fabric.registry import Platform
    from gpu_fabric.stack_config import MODELS
    from gpu_fabric.stack_config.split import fabric_keys

    values = stack_values(STACK)
    model = MODELS[Platform(values["gpu-fabric:platform"])]
    # The stack file as a cloud stack's: its fabric layer's keys are its fabric stack's.
    fabric = {
        f"gpu-fabric:{key}": DELETE for key in fabric_keys(model) if f"gpu-fabric:{key}" in values
    }
    assert_single_rule(
        {"gpu-fabric:storage": BUCKETS, "gpu-fabric:layers": "cloud", **fabric},
        "gpu-fabric:storage.data.gcs",
        {"bucket": "acme-imagenet"},
        "run both layers in one stack",
        STACK,
    )
