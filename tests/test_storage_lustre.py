"""GKE's `lustre` training volumes (gpu_fabric/gke/lustre/): Managed Lustre instances the cloud
layer creates (with the VPC's Private Service Access and the Lustre port open from its range to
the nodes' service account only) or existing ones, bound in every training namespace through the
Managed Lustre CSI driver the stack turns on."""

from __future__ import annotations

import pytest

from gpu_fabric.gke.lustre.driver import DRIVER, LUSTRE_PORT, MIN_GKE, PSA_PREFIX_LENGTH
from gpu_fabric.gke.offline_mocks import MOCK_LUSTRE_IP, MOCK_PSA_ADDRESS
from tests.conftest import assert_single_rule, run_stack, stack_values
from tests.stacks import cluster_key_stacks_on, stack_of_machine
from tests.test_storage import bound_volumes
from tests.test_workloads_runtime import node_container, resolve, runtime_of, user_job

DEFAULT_CONTAINER = "default-pool/default-container"
GKE = cluster_key_stacks_on("gke")
STACK = GKE[0]
EXISTING = {
    "instance": "shared-lustre",
    "zone": "us-central1-b",
    "ip": "10.90.4.2",
    "filesystem": "lfs",
}
CREATED = {"create": {"capacityGib": 18000, "throughputPerTib": 500}}
STORAGE = {"data": {"lustre": EXISTING}, "checkpoints": {"lustre": CREATED}}


def plan_with(storage=STORAGE, stack=STACK, **changes):
    return run_stack({"gpu-fabric:storage": storage, **changes}, stack=stack)


@pytest.fixture(scope="module")
def plan():
    return plan_with()


def test_a_created_instance_is_protected_in_the_gpu_zone_on_the_clusters_vpc(plan):
    (instance,) = plan.of_type("gcp:lustre/instance:Instance")
    values = stack_values(STACK)
    pool = values.get("gpu-fabric:gpuPool") or values["gpu-fabric:gpuPools"][0]
    assert instance.protect is True
    assert instance.inputs["location"] == pool["zone"]
    assert instance.inputs["capacityGib"] == "18000"
    assert instance.inputs["perUnitStorageThroughput"] == "500"
    (peering,) = plan.of_type("gcp:servicenetworking/connection:Connection")
    assert instance.inputs["network"] == peering.inputs["network"]
    assert peering.urn in instance.dependencies


def test_the_lustre_port_opens_from_the_service_range_to_the_nodes_only(plan):
    (rule,) = [
        f
        for f in plan.of_type("gcp:compute/firewall:Firewall")
        if f.inputs["name"].endswith("-lustre")
    ]
    (account,) = [
        a for a in plan.of_type("gcp:serviceaccount/account:Account") if a.name.endswith("-nodes")
    ]
    assert rule.inputs["direction"] == "INGRESS"
    assert rule.inputs["sourceRanges"] == [f"{MOCK_PSA_ADDRESS}/{PSA_PREFIX_LENGTH}"]
    assert rule.inputs["allows"] == [{"protocol": "tcp", "ports": [str(LUSTRE_PORT)]}]
    project = stack_values(STACK)["gcp:project"]
    email = f"{account.inputs['accountId']}@{project}.iam.gserviceaccount.com"
    assert rule.inputs["targetServiceAccounts"] == [email]


def test_the_cluster_gets_the_lustre_driver_only_with_lustre(plan):
    (cluster,) = plan.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["addonsConfig"] == {"lustreCsiDriverConfig": {"enabled": True}}
    (existing_only,) = plan_with({"data": {"lustre": EXISTING}}).of_type(
        "gcp:container/cluster:Cluster"
    )
    assert existing_only.inputs["addonsConfig"] == {"lustreCsiDriverConfig": {"enabled": True}}
    assert plan_with({"data": {"lustre": EXISTING}}).of_type("gcp:lustre/instance:Instance") == []


def test_every_training_namespace_gets_a_claim_of_each_instance():
    plan = plan_with(**{"gpu-fabric:queues": {"teams": [{"namespace": "a"}, {"namespace": "b"}]}})
    project = stack_values(STACK)["gcp:project"]
    values = stack_values(STACK)
    zone = (values.get("gpu-fabric:gpuPool") or values["gpu-fabric:gpuPools"][0])["zone"]
    cluster = values["gpu-fabric:gke"]["name"]
    wanted = {
        "training-data": {
            "driver": DRIVER,
            "volumeHandle": f"{project}/us-central1-b/shared-lustre/{DEFAULT_CONTAINER}",
            "volumeAttributes": {"ip": "10.90.4.2", "filesystem": "lfs"},
        },
        "training-checkpoints": {
            "driver": DRIVER,
            "volumeHandle": f"{project}/{zone}/{cluster}-checkpoints/{DEFAULT_CONTAINER}",
            "volumeAttributes": {"ip": MOCK_LUSTRE_IP, "filesystem": "ckpt"},
        },
    }
    pairs = bound_volumes(plan)
    assert len(pairs) == 4
    for claim, volume in pairs:
        assert volume["spec"]["csi"] == wanted[claim["metadata"]["name"]]


@pytest.mark.parametrize("stack", GKE)
def test_every_runtime_mounts_the_instances(stack):
    runtime = runtime_of(plan_with(stack=stack))
    pod = resolve(runtime, user_job(runtime["metadata"]["name"]))[0]
    mounts = {m["mountPath"] for m in node_container(pod)["volumeMounts"]}
    assert {"/data", "/checkpoints"} <= mounts
    assert "gke-gcsfuse/volumes" not in pod["metadata"].get("annotations", {})


@pytest.mark.parametrize(
    ("machine", "arch", "version"),
    [
        ("a4x-highgpu-4g", "arm64", "1.34.1-gke.2000000"),
        ("a4-highgpu-8g", "amd64", "1.33.2-gke.1000000"),
    ],
)
def test_an_instance_on_a_gke_too_old_for_the_nodes_is_refused(machine, arch, version):
    assert_single_rule(
        {"gpu-fabric:storage": {"data": {"lustre": EXISTING}}, "gpu-fabric:gke.version": version},
        "gpu-fabric:storage.data.lustre",
        None,
        f"Managed Lustre mounts on GKE {MIN_GKE[arch]} or later on {arch} nodes",
        stack_of_machine()[machine],
    )


def test_creating_an_instance_on_an_existing_vpc_is_refused():
    existing = {
        "network": "shared-vpc",
        "subnetwork": "gpu-nodes",
        "podsRangeName": "pods",
        "servicesRangeName": "services",
    }
    assert_single_rule(
        {
            "gpu-fabric:storage": {"checkpoints": {"lustre": CREATED}},
            "gpu-fabric:network.primary": {"existing": existing},
        },
        "gpu-fabric:storage.checkpoints.lustre.create",
        None,
        "create the instance in that VPC yourself",
        STACK,
    )


@pytest.mark.parametrize(
    ("lustre", "key", "says"),
    [
        ({**CREATED, "instance": "x"}, "gpu-fabric:storage.data.lustre", "leave out instance"),
        (
            {"instance": "x", "zone": "us-central1-b"},
            "gpu-fabric:storage.data.lustre",
            "missing: ip, filesystem",
        ),
        (
            {**EXISTING, "filesystem": "lustrefs01"},
            "gpu-fabric:storage.data.lustre.filesystem",
            "1-8 letters",
        ),
        ({**EXISTING, "ip": "10.90.4"}, "gpu-fabric:storage.data.lustre.ip", "not an IPv4 address"),
        (
            {"create": {"capacityGib": 1000, "throughputPerTib": 500}},
            "gpu-fabric:storage.data.lustre.create.capacityGib",
            "9000",
        ),
        (
            {"create": {"capacityGib": 18000, "throughputPerTib": 600}},
            "gpu-fabric:storage.data.lustre.create.throughputPerTib",
            "125",
        ),
        (
            {"create": {"capacityGib": 18000}},
            "gpu-fabric:storage.data.lustre.create.throughputPerTib",
            "required",
        ),
    ],
)
def test_an_instance_that_cannot_be_made_or_mounted_is_refused(lustre, key, says):
    assert_single_rule({"gpu-fabric:storage": {"data": {"lustre": lustre}}}, key, None, says, STACK)


def test_a_preview_binds_the_claims_with_the_instances_address_unknown():
    import pulumi

    from offline import engine
    from tests.conftest import encode, pair_values, with_changes

    values = with_changes(pair_values(STACK), {"gpu-fabric:storage": STORAGE})
    preview = engine.run(STACK, encode(values), preview=True)
    volumes = {
        v.inputs["metadata"]["name"]: v.inputs["spec"]["csi"]
        for v in preview.of_type("kubernetes:core/v1:PersistentVolume")
    }
    created = volumes["training-training-checkpoints"]["volumeAttributes"]["ip"]
    assert isinstance(created, pulumi.output.Unknown)
    assert volumes["training-training-data"]["volumeAttributes"]["ip"] == EXISTING["ip"]


def test_the_fixed_name_network_parts_are_replaced_delete_first(plan):
    fixed = [
        *plan.of_type("gcp:compute/globalAddress:GlobalAddress"),
        *plan.of_type("gcp:servicenetworking/connection:Connection"),
        *[f for f in plan.of_type("gcp:compute/firewall:Firewall") if f.name.endswith("-lustre")],
    ]
    assert len(fixed) == 3
    assert all(r.delete_before_replace for r in fixed)
