"""Where OKE's GPU instances come from (gpu_fabric/oke/nodes/): a compute capacity reservation,
named alike from a stack file and by a hosted `OkeCloud`."""

from __future__ import annotations

from tests.conftest import assert_single_rule, run_stack
from tests.hosted import hosted_reasons
from tests.stacks import cloud_stacks_on

OKE = cloud_stacks_on("oke")[0]
RESERVATION = "ocid1.capacityreservation.oc1.iad.aaaaaaaaexamplereservation"
INSTANCE = "oci:Core/instance:Instance"


def test_gpu_instances_launch_under_the_named_reservation_and_none_by_default():
    default = run_stack(stack=OKE).of_type(INSTANCE)
    assert default and all("capacityReservationId" not in i.inputs for i in default)
    reserved = run_stack({"gpu-fabric:gpuNodes.reservation": RESERVATION}, OKE).of_type(INSTANCE)
    assert {i.inputs["capacityReservationId"] for i in reserved} == {RESERVATION}


def test_a_reservation_that_is_no_capacity_reservation_ocid_is_refused_alike():
    image = "ocid1.image.oc1.iad.aaaaaaaaexampleimage"
    key = "gpu-fabric:gpuNodes.reservation"
    assert_single_rule({key: image}, key, image, "capacityreservation", OKE)
    reasons = hosted_reasons("OkeCloud", (("gpu_nodes", "capacity_reservation_id"), image))
    assert list(reasons) == ["gpuNodes.capacityReservationId"]
    assert "capacityreservation" in reasons["gpuNodes.capacityReservationId"]
