"""`make verify`'s check of the training volumes (`gpu-fabric:storage`): each claim the runtimes
mount is in every training namespace, Bound, and mountable by every node of a job at once.

A claim that is missing or Pending leaves every runtime pod Pending (the scheduler waits for its
volumes); one whose access modes are ReadWriteOnce mounts on one node only, so a job of two nodes
never starts (Kubernetes docs, "Persistent Volumes", access modes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.storage.config import StorageConfig
from gpu_fabric.storage.mounts import PATHS

SHARED_MODES = {"ReadWriteMany", "ReadOnlyMany"}
"""Access modes every node of a job can mount at once; /checkpoints needs ReadWriteMany."""


@dataclass
class StorageSnapshot:
    claims: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    """`namespace/name` -> the PersistentVolumeClaim (None: missing)."""


def wanted_claims(storage: StorageConfig, namespaces: list[str]) -> list[tuple[str, str, bool]]:
    """(namespace/name, mount path, written to) of every claim the runtimes mount."""
    volumes = [
        (volume.claim_name(use), PATHS[use], use == "checkpoints")
        for use, volume in storage.volumes()
    ]
    return [(f"{ns}/{claim}", path, writes) for ns in namespaces for claim, path, writes in volumes]


def storage_problems(
    storage: StorageConfig, namespaces: list[str], snapshot: StorageSnapshot
) -> list[str]:
    problems = []
    for name, path, writes in wanted_claims(storage, namespaces):
        claim = snapshot.claims.get(name)
        if claim is None:
            problems.append(
                f"PersistentVolumeClaim {name}: missing (the runtime mounts it at {path}; its "
                "pods stay Pending until it exists)"
            )
            continue
        phase = (claim.get("status") or {}).get("phase")
        if phase != "Bound":
            problems.append(f"PersistentVolumeClaim {name}: {phase or 'no phase'}, not Bound")
        modes = set((claim.get("spec") or {}).get("accessModes") or [])
        needed = {"ReadWriteMany"} if writes else SHARED_MODES
        if not modes & needed:
            problems.append(
                f"PersistentVolumeClaim {name}: access modes {sorted(modes)}; a job's nodes "
                f"mount {path} at once, which needs {' or '.join(sorted(needed))}"
            )
    return problems


def read_storage_snapshot(
    storage: StorageConfig, namespaces: list[str], api_client: Any
) -> StorageSnapshot:
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException

    core = client.CoreV1Api(api_client)
    claims: dict[str, dict[str, Any] | None] = {}
    for name, _, _ in wanted_claims(storage, namespaces):
        namespace, claim = name.split("/")
        try:
            found = core.read_namespaced_persistent_volume_claim(claim, namespace)
            claims[name] = api_client.sanitize_for_serialization(found)
        except ApiException as err:
            if err.status != 404:
                raise
            claims[name] = None
    return StorageSnapshot(claims)
