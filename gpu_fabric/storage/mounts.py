"""The runtime's training volumes: fixed paths, so a job's script says `/data` and `/checkpoints`
on every platform and every stack."""

from __future__ import annotations

import copy

from ..workloads.settings import NODE
from .config import StorageConfig

DATA_PATH = "/data"
CHECKPOINTS_PATH = "/checkpoints"


def with_training_volumes(pod: dict, storage: StorageConfig) -> dict:
    """A copy of the runtime's pod template with the stack's volumes mounted in its training
    container: data read-only (a job reads its data set; one that writes there by mistake fails
    instead of changing it for every job), checkpoints read-write."""
    volumes = [
        (name, volume.claim, path, read_only)
        for name, volume, path, read_only in (
            ("training-data", storage.data, DATA_PATH, True),
            ("training-checkpoints", storage.checkpoints, CHECKPOINTS_PATH, False),
        )
        if volume is not None
    ]
    if not volumes:
        return pod
    out = copy.deepcopy(pod)
    spec = out["spec"]
    (node,) = [c for c in spec["containers"] if c["name"] == NODE]
    for name, claim, path, read_only in volumes:
        spec.setdefault("volumes", []).append(
            {"name": name, "persistentVolumeClaim": {"claimName": claim, "readOnly": read_only}}
        )
        node.setdefault("volumeMounts", []).append(
            {"name": name, "mountPath": path, "readOnly": read_only}
        )
    return out
