"""A GPU pool's reservation is read at preview and must fit the pool (gpu_fabric/gke/
reservations.py), as cluster-toolkit's gke-node-pool precondition checks it."""

from __future__ import annotations

import pytest

from gpu_fabric.gke import offline_mocks
from gpu_fabric.gke.offline_mocks import reservation
from tests.conftest import run_stack

STACK = "a4x-prod"
NODE_POOL = "gcp:container/nodePool:NodePool"


def gpu_pool(plan):
    (pool,) = [p for p in plan.of_type(NODE_POOL) if p.inputs["name"] != "system"]
    return pool


def reserving(monkeypatch, **changes):
    """The mocks answer every reservation read with `reservation(name, zone, **changes)`, the
    zone one of `changes` may replace."""
    asked: list[dict] = []
    answer = offline_mocks.CloudMocks.call

    def call(self, token, args):
        if token == "gcp:compute/getReservation:getReservation":
            asked.append(dict(args))
            fields = {"zone": args["zone"], **changes}
            return reservation(args["name"], **fields)
        return answer(self, token, args)

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", call)
    return asked


def test_the_pool_reads_its_reservation_in_its_zone_and_consumes_it_by_name(monkeypatch):
    asked = reserving(monkeypatch, machineType="a4x-highgpu-4g", count=18)
    plan = run_stack(stack=STACK, cached=False)
    assert asked == [{"name": "a4x-reservation", "zone": "us-central1-a"}]
    affinity = gpu_pool(plan).inputs["nodeConfig"]["reservationAffinity"]
    assert affinity["values"] == ["a4x-reservation"]
    assert not [w for w in plan.warnings if "reservation" in w]


def test_a_shared_reservation_is_read_in_its_owner_project(monkeypatch):
    asked = reserving(monkeypatch)
    run_stack(
        {"gpu-fabric:gpuPool.reservation": {"name": "shared", "project": "owner-project"}},
        stack=STACK,
        cached=False,
    )
    assert asked == [{"name": "shared", "zone": "us-central1-a", "project": "owner-project"}]


@pytest.mark.parametrize(
    "changes, says",
    [
        ({"machineType": "a4-highgpu-8g"}, "it reserves a4-highgpu-8g and the pool is"),
        (
            {"guestAccelerators": [{"acceleratorType": "nvidia-gb200", "acceleratorCount": 8}]},
            "it reserves 8 GPUs per VM and a4x-highgpu-4g has 4",
        ),
        ({"count": 2}, "it holds 2 VMs and the pool asks for 18: lower gpuPool.nodeCount"),
    ],
)
def test_a_reservation_that_does_not_fit_fails_the_preview_with_the_fix(monkeypatch, changes, says):
    reserving(monkeypatch, **changes)
    with pytest.raises(Exception, match="GPU pool a4x-highgpu: reservation a4x-reservation") as err:
        run_stack(stack=STACK, cached=False)
    assert says in str(err.value)


def test_a_reservation_without_specific_consumption_is_refused(monkeypatch):
    answer = offline_mocks.CloudMocks.call

    def call(self, token, args):
        if token == "gcp:compute/getReservation:getReservation":
            return {**reservation(args["name"], args["zone"]), "specificReservationRequired": False}
        return answer(self, token, args)

    monkeypatch.setattr(offline_mocks.CloudMocks, "call", call)
    with pytest.raises(Exception, match="--require-specific-reservation"):
        run_stack(stack=STACK, cached=False)


def test_a_reservation_in_use_warns_instead_of_failing(monkeypatch):
    """Its own nodes use it on an update: only a count below the pool's can never fit."""
    reserving(monkeypatch, count=18, in_use=18)
    plan = run_stack(stack=STACK, cached=False)
    (warning,) = [w for w in plan.warnings if "reservation a4x-reservation" in w]
    assert "0 of its 18 VMs are free and the pool asks for 18" in warning
