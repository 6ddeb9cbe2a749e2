"""`make verify`'s check of the training volumes (verify/storage.py), against PersistentVolumeClaims
in the shape the API server returns them (the Kubernetes docs' "Persistent Volumes" claim, with
the status a bound claim has) and broken copies of them."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest

from gpu_fabric.storage.config import StorageConfig
from tests.conftest import assert_reports
from tests.recorded_cluster import client_for_routes
from verify.storage import StorageSnapshot, read_storage_snapshot, storage_problems

STORAGE = StorageConfig.model_validate(
    {"data": {"claim": "training-data"}, "checkpoints": {"claim": "llama-checkpoints"}}
)
NAMESPACES = ["training", "team-b"]


def claim(namespace: str, name: str, modes: list[str]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "accessModes": modes,
            "resources": {"requests": {"storage": "10Ti"}},
            "storageClassName": "",
            "volumeName": f"{namespace}-{name}",
        },
        "status": {"phase": "Bound", "accessModes": modes, "capacity": {"storage": "10Ti"}},
    }


def healthy() -> dict[str, dict | None]:
    return {
        f"{ns}/{name}": claim(ns, name, modes)
        for ns in NAMESPACES
        for name, modes in (
            ("training-data", ["ReadOnlyMany"]),
            ("llama-checkpoints", ["ReadWriteMany"]),
        )
    }


def test_the_recorded_claims_are_valid_kubernetes_objects():
    for obj in healthy().values():
        kubernetes_validate.validate(obj, "1.34", strict=True)


def test_bound_shared_claims_in_every_namespace_are_no_problem():
    assert storage_problems(STORAGE, NAMESPACES, StorageSnapshot(healthy())) == []


BROKEN = {
    "missing": (
        lambda c: c.update({"team-b/training-data": None}),
        ["PersistentVolumeClaim team-b/training-data: missing (the runtime mounts it at /data;"],
    ),
    "pending": (
        lambda c: c["training/llama-checkpoints"]["status"].update(phase="Pending"),
        ["PersistentVolumeClaim training/llama-checkpoints: Pending, not Bound"],
    ),
    "one node only": (
        lambda c: c["training/llama-checkpoints"]["spec"].update(accessModes=["ReadWriteOnce"]),
        [
            "PersistentVolumeClaim training/llama-checkpoints: access modes ['ReadWriteOnce']; "
            "a job's nodes mount /checkpoints at once, which needs ReadWriteMany"
        ],
    ),
    "checkpoints read-only": (
        lambda c: c["team-b/llama-checkpoints"]["spec"].update(accessModes=["ReadOnlyMany"]),
        ["PersistentVolumeClaim team-b/llama-checkpoints: access modes ['ReadOnlyMany']"],
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_broken_claim_is_reported(case):
    change, wanted = BROKEN[case]
    claims = copy.deepcopy(healthy())
    change(claims)
    assert_reports(storage_problems(STORAGE, NAMESPACES, StorageSnapshot(claims)), wanted)


def test_the_claims_are_read_from_the_api():
    claims = healthy()
    routes = {
        f"/api/v1/namespaces/{ns}/persistentvolumeclaims/{name}": obj
        for key, obj in claims.items()
        for ns, name in [key.split("/")]
    }
    del routes["/api/v1/namespaces/team-b/persistentvolumeclaims/training-data"]
    api_client, _ = client_for_routes(routes)
    snapshot = read_storage_snapshot(STORAGE, NAMESPACES, api_client)
    assert snapshot.claims["team-b/training-data"] is None
    assert snapshot.claims["training/training-data"]["status"]["phase"] == "Bound"


def test_no_storage_reads_nothing():
    api_client, cluster = client_for_routes({})
    assert read_storage_snapshot(StorageConfig(), NAMESPACES, api_client).claims == {}
    assert cluster.requests == []
