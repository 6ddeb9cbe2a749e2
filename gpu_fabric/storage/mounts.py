"""The runtime's training volumes: fixed paths, so a job's script says `/data` and `/checkpoints`
on every platform and every stack."""

from __future__ import annotations

import copy

from ..workloads.settings import NODE
from .config import StorageConfig, Use

PATHS: dict[Use, str] = {"data": "/data", "checkpoints": "/checkpoints"}
DATA_PATH, CHECKPOINTS_PATH = PATHS["data"], PATHS["checkpoints"]


def volume_name(use: Use) -> str:
    """The pod's volume of a use (`training-data`)."""
    return f"training-{use}"


def with_training_volumes(pod: dict, storage: StorageConfig) -> dict:
    """A copy of the runtime's pod template with the stack's volumes mounted in its training
    container: data read-only (a job reads its data set; one that writes there by mistake fails
    instead of changing it for every job), checkpoints read-write; and the annotations a volume's
    kind needs on the pod (GKE's Cloud Storage FUSE sidecar)."""
    volumes = storage.volumes()
    if not volumes:
        return pod
    out = copy.deepcopy(pod)
    spec = out["spec"]
    (node,) = [c for c in spec["containers"] if c["name"] == NODE]
    for use, volume in volumes:
        read_only = use == "data"
        claim = {"claimName": volume.claim_name(use), "readOnly": read_only}
        spec.setdefault("volumes", []).append(
            {"name": volume_name(use), "persistentVolumeClaim": claim}
        )
        node.setdefault("volumeMounts", []).append(
            {"name": volume_name(use), "mountPath": PATHS[use], "readOnly": read_only}
        )
        annotations = volume.pod_annotations()
        if annotations:
            out.setdefault("metadata", {}).setdefault("annotations", {}).update(annotations)
    return out
