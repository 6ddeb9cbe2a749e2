"""OKE's `lustre` training volumes (gpu_fabric/oke/lustre/): File Storage with Lustre file systems
the cloud layer creates in the workers' subnet (their own network security group, Lustre's port
open to and from the workers' group only, from Lustre's source ports, the service's policy in
the compartment) or existing ones, bound in every training namespace by the fabric layer."""

from __future__ import annotations

import pytest

from gpu_fabric.oke.lustre.driver import DRIVER, LUSTRE_PORT, LUSTRE_SOURCE_PORTS
from gpu_fabric.oke.offline_mocks import CloudMocks
from tests.conftest import assert_single_rule, run_stack, stack_values
from tests.stacks import cluster_key_stacks_on
from tests.test_storage import bound_volumes
from tests.test_storage_fss import mock_id

STACK = cluster_key_stacks_on("oke")[0]
CREATED = {"create": {"capacityGb": 31200, "throughputPerTb": 125}}
EXISTING = {"ip": "10.140.64.99", "filesystem": "lfs"}
STORAGE = {"data": {"lustre": EXISTING}, "checkpoints": {"lustre": CREATED}}
RULE = "oci:Core/networkSecurityGroupSecurityRule:NetworkSecurityGroupSecurityRule"


@pytest.fixture(scope="module")
def plan():
    return run_stack({"gpu-fabric:storage": STORAGE}, stack=STACK)


def test_a_created_file_system_is_protected_in_the_workers_subnet(plan):
    (made,) = plan.of_type("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem")
    (subnet,) = [s for s in plan.of_type("oci:Core/subnet:Subnet") if s.name.endswith("workers")]
    (policy,) = [
        p for p in plan.of_type("oci:Identity/policy:Policy") if p.name.endswith("lustre-policy")
    ]
    domain = stack_values(STACK)["gpu-fabric:gpuNodes"]["availabilityDomain"]
    assert made.protect is True
    assert made.inputs["subnetId"] == mock_id(subnet)
    assert made.inputs["availabilityDomain"] == domain
    assert made.inputs["performanceTier"] == "MBPS_PER_TB_125"
    assert made.inputs["capacityInGbs"] == 31200
    assert made.inputs["rootSquashConfiguration"] == {"identitySquash": "NONE"}
    assert policy.urn in made.dependencies
    compartment = stack_values(STACK)["gpu-fabric:compartmentId"]
    assert policy.inputs["statements"] == [
        f"Allow service lustrefs to use virtual-network-family in compartment id {compartment}"
    ]


def test_lustre_flows_between_the_file_systems_and_the_workers_only(plan):
    groups = plan.of_type("oci:Core/networkSecurityGroup:NetworkSecurityGroup")
    (own,) = [g for g in groups if g.inputs["displayName"].endswith("-lustre")]
    (workers,) = [g for g in groups if g.inputs["displayName"].endswith("-workers")]
    (made,) = plan.of_type("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem")
    assert made.inputs["nsgIds"] == [mock_id(own)]
    rules = [r for r in plan.of_type(RULE) if "lustre" in r.name]
    found = set()
    for rule in rules:
        inputs = rule.inputs
        peer = inputs.get("source") or inputs["destination"]
        ports = inputs["tcpOptions"]
        assert ports["destinationPortRange"] == {"min": LUSTRE_PORT, "max": LUSTRE_PORT}
        low, high = LUSTRE_SOURCE_PORTS
        assert ports["sourcePortRange"] == {"min": low, "max": high}
        found.add((inputs["networkSecurityGroupId"], inputs["direction"], peer))
    assert found == {
        (mock_id(own), "INGRESS", mock_id(workers)),
        (mock_id(own), "EGRESS", mock_id(workers)),
        (mock_id(workers), "INGRESS", mock_id(own)),
    }


def test_every_training_namespace_gets_a_lustre_claim_of_each_file_system(plan):
    handles = {
        "training-data": "10.140.64.99@tcp:/lfs",
        "training-checkpoints": f"{CloudMocks.LUSTRE_MGS_ADDRESS}@tcp:/ckpt",
    }
    for claim, volume in bound_volumes(plan):
        assert volume["spec"]["csi"] == {
            "driver": DRIVER,
            "volumeHandle": handles[claim["metadata"]["name"]],
            "fsType": "lustre",
            "volumeAttributes": {"setupLnet": "true"},
        }


def test_existing_file_systems_create_nothing_in_oci():
    plan = run_stack({"gpu-fabric:storage": {"data": {"lustre": EXISTING}}}, stack=STACK)
    assert plan.of_type("oci:Lustre/fileStorageLustreFileSystem:FileStorageLustreFileSystem") == []
    assert [r for r in plan.of_type(RULE) if "lustre" in r.name] == []


@pytest.mark.parametrize(
    ("lustre", "key", "says"),
    [
        ({**CREATED, "ip": "10.0.0.1"}, "gpu-fabric:storage.data.lustre", "leave out ip"),
        ({"ip": "10.0.0.1"}, "gpu-fabric:storage.data.lustre", "needs ip and filesystem"),
        (
            {**EXISTING, "filesystem": "lustrefs01"},
            "gpu-fabric:storage.data.lustre.filesystem",
            "1-8",
        ),
        (
            {"create": {"capacityGb": 31200, "throughputPerTb": 100}},
            "gpu-fabric:storage.data.lustre.create.throughputPerTb",
            "125",
        ),
    ],
)
def test_a_file_system_that_cannot_be_made_or_mounted_is_refused(lustre, key, says):
    assert_single_rule({"gpu-fabric:storage": {"data": {"lustre": lustre}}}, key, None, says, STACK)


def test_every_oke_cluster_the_stacks_make_is_new_enough_for_the_driver():
    from gpu_fabric.catalog import catalog

    # OKE's Lustre CSI driver needs OKE 1.29 or later; the stacks' floor is the catalog's.
    floor = catalog().oke.min_kubernetes.removeprefix("v").split(".")
    assert (int(floor[0]), int(floor[1])) >= (1, 29)


def test_the_policy_of_a_fixed_name_is_replaced_delete_first(plan):
    (policy,) = [
        p for p in plan.of_type("oci:Identity/policy:Policy") if p.name.endswith("lustre-policy")
    ]
    assert policy.delete_before_replace
