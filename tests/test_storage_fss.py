"""OKE's `fss` training volumes (gpu_fabric/oke/file_storage/): OCI File Storage file systems the
cloud layer creates (a mount target in the workers' subnet whose group admits NFS from the
workers only, an export to the workers' range) or existing exports, bound in every training
namespace by the fabric layer, mounted by the runtime."""

from __future__ import annotations

import pytest

from gpu_fabric.oke.file_storage.component import NFS_PORTS
from gpu_fabric.oke.file_storage.volumes import DRIVER
from gpu_fabric.oke.offline_mocks import CloudMocks
from offline import engine
from tests.conftest import assert_single_rule, run_stack, stack_values
from tests.stacks import cluster_key_stacks_on
from tests.test_storage import bound_volumes
from tests.test_workloads_runtime import node_container, resolve, runtime_of, user_job

OKE = cluster_key_stacks_on("oke")
STACK = OKE[0]
EXISTING = {
    "fileSystem": "ocid1.filesystem.oc1.iad.aaaaaaaexample",
    "mountTargetIp": "10.140.64.7",
    "exportPath": "/datasets",
}
STORAGE = {"data": {"fss": EXISTING}, "checkpoints": {"fss": {"create": True}}}


def plan_with(storage=STORAGE, **changes):
    return run_stack({"gpu-fabric:storage": storage, **changes}, stack=STACK)


@pytest.fixture(scope="module")
def plan():
    return plan_with()


def test_a_created_file_system_is_protected_and_in_the_gpu_nodes_domain(plan):
    (made,) = plan.of_type("oci:FileStorage/fileSystem:FileSystem")
    (target,) = plan.of_type("oci:FileStorage/mountTarget:MountTarget")
    domain = stack_values(STACK)["gpu-fabric:gpuNodes"]["availabilityDomain"]
    assert made.protect is True
    assert made.inputs["availabilityDomain"] == target.inputs["availabilityDomain"] == domain


def mock_id(resource) -> str:
    """The OCID the mocks' OCI gives a resource (gpu_fabric/oke/offline_mocks.py)."""
    kind = resource.type.rsplit(":", 1)[-1].lower()
    return f"ocid1.{kind}.oc1.us-ashburn-1.mock{resource.name.replace('-', '')}"


def test_the_mount_target_admits_nfs_from_the_workers_only(plan):
    groups = plan.of_type("oci:Core/networkSecurityGroup:NetworkSecurityGroup")
    (own,) = [g for g in groups if g.inputs["displayName"].endswith("-file-storage")]
    (workers,) = [g for g in groups if g.inputs["displayName"].endswith("-workers")]
    (target,) = plan.of_type("oci:FileStorage/mountTarget:MountTarget")
    assert target.inputs["nsgIds"] == [mock_id(own)]
    rules = [
        r
        for r in plan.of_type(
            "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"
        )
        if r.inputs["networkSecurityGroupId"] == mock_id(own)
    ]
    admitted = set()
    for rule in rules:
        assert rule.inputs["direction"] == "INGRESS"
        assert rule.inputs["sourceType"] == "NETWORK_SECURITY_GROUP"
        assert rule.inputs["source"] == mock_id(workers)
        assert rule.inputs["stateless"] is False
        options = rule.inputs.get("tcpOptions") or rule.inputs["udpOptions"]
        ports = options["destinationPortRange"]
        admitted.add((rule.inputs["protocol"], ports["min"], ports["max"]))
        # NFS clients from reserved ports only (the exports require them too).
        assert options["sourcePortRange"] == {"min": 1, "max": 1023}
    assert admitted == set(NFS_PORTS)
    (subnet,) = [s for s in plan.of_type("oci:Core/subnet:Subnet") if s.name.endswith("workers")]
    assert target.inputs["subnetId"] == mock_id(subnet)


def test_the_export_admits_the_workers_range_as_root_from_privileged_ports(plan):
    (export,) = plan.of_type("oci:FileStorage/export:Export")
    workers = stack_values(STACK)["gpu-fabric:network"]["workersSubnetCidr"]
    assert export.inputs["path"] == "/checkpoints"
    assert export.inputs["exportOptions"] == [
        {
            "source": workers,
            "access": "READ_WRITE",
            "identitySquash": "NONE",
            "requirePrivilegedSourcePort": True,
        }
    ]


def test_every_training_namespace_gets_a_claim_of_each_export():
    plan = plan_with(**{"gpu-fabric:queues": {"teams": [{"namespace": "a"}, {"namespace": "b"}]}})
    handles = {
        "training-data": "ocid1.filesystem.oc1.iad.aaaaaaaexample:10.140.64.7:/datasets",
        "training-checkpoints": "ocid1.filesystem.oc1.us-ashburn-1.mock"
        f"{STACK.replace('-', '')}filestoragecheckpoints:{CloudMocks.MOUNT_TARGET_IP}:/checkpoints",
    }
    pairs = bound_volumes(plan)
    assert len(pairs) == 4
    for claim, volume in pairs:
        assert volume["spec"]["csi"] == {
            "driver": DRIVER,
            "volumeHandle": handles[claim["metadata"]["name"]],
        }


def test_the_runtime_mounts_both():
    runtime = runtime_of(plan_with())
    pod = resolve(runtime, user_job(runtime["metadata"]["name"]))[0]
    mounts = {m["mountPath"]: m["name"] for m in node_container(pod)["volumeMounts"]}
    claims = {
        v["name"]: v["persistentVolumeClaim"]["claimName"]
        for v in pod["spec"]["volumes"]
        if "persistentVolumeClaim" in v
    }
    assert claims[mounts["/data"]] == "training-data"
    assert claims[mounts["/checkpoints"]] == "training-checkpoints"


def test_existing_exports_create_nothing_in_oci():
    plan = plan_with({"data": {"fss": EXISTING}})
    assert plan.of_type("oci:FileStorage/fileSystem:FileSystem") == []
    assert plan.of_type("oci:FileStorage/mountTarget:MountTarget") == []
    assert "fileSystemHandles" not in plan.outputs


def test_without_storage_the_stacks_export_no_file_systems():
    plan = run_stack(stack=STACK)
    assert "fileSystemHandles" not in plan.outputs
    assert plan.of_type("oci:FileStorage/mountTarget:MountTarget") == []


def test_a_preview_plans_the_claims_with_the_mount_target_unknown():
    from tests.conftest import encode, pair_values, split_values, with_changes

    values = with_changes(pair_values(STACK), {"gpu-fabric:storage": STORAGE})
    cloud_values, _ = split_values(STACK, values)
    preview = engine.run(STACK, encode(cloud_values), preview=True)
    (export,) = preview.of_type("oci:FileStorage/export:Export")
    assert export.inputs["path"] == "/checkpoints"


@pytest.mark.parametrize(
    ("fss", "key", "says"),
    [
        (
            {"create": True, "exportPath": "/x"},
            "gpu-fabric:storage.data.fss",
            "leave out exportPath",
        ),
        (
            {"fileSystem": EXISTING["fileSystem"]},
            "gpu-fabric:storage.data.fss",
            "missing: mountTargetIp, exportPath",
        ),
        (
            {**EXISTING, "mountTargetIp": "10.0.0"},
            "gpu-fabric:storage.data.fss.mountTargetIp",
            "not an IPv4 address",
        ),
        (
            {**EXISTING, "exportPath": "datasets"},
            "gpu-fabric:storage.data.fss.exportPath",
            "absolute",
        ),
        (
            {**EXISTING, "fileSystem": "ocid1.subnet.oc1.iad.aaaa"},
            "gpu-fabric:storage.data.fss.fileSystem",
            "an OCID of a subnet",
        ),
    ],
)
def test_a_file_system_that_cannot_be_mounted_is_refused(fss, key, says):
    assert_single_rule({"gpu-fabric:storage": {"data": {"fss": fss}}}, key, None, says, STACK)


def test_a_fabric_stack_whose_cloud_stack_made_no_file_system_yet_fails_naming_the_fix():
    from tests.conftest import encode, fabric_stack_of, pair_values, split_values, with_changes

    values = with_changes(pair_values(STACK), {"gpu-fabric:storage": STORAGE})
    cloud_values, fabric_values = split_values(STACK, values)
    cloud = engine.run(STACK, encode(cloud_values))
    older = {k: v for k, v in cloud.outputs.items() if k != "fileSystemHandles"}
    with pytest.raises(Exception, match="run `pulumi up` on the cloud stack first"):
        engine.run(fabric_stack_of(STACK), encode(fabric_values), None, older)
