"""The rules of GKE's `gcs` volumes that read other keys."""

from __future__ import annotations

from ...config_base import Layers
from ...problems import Problem
from ...problems import key as _key
from ...storage.config import StorageConfig
from .config import GkeTrainingVolume


def bucket_problems(storage: StorageConfig[GkeTrainingVolume], layers: Layers) -> list[Problem]:
    """A bucket is created once; its grants name the training namespaces, which a split
    deployment's cloud stack does not know (they are its fabric stack's `queues`)."""
    problems = []
    buckets = [(use, volume.gcs) for use, volume in storage.volumes() if volume.gcs is not None]
    if buckets and layers is not Layers.ALL:
        use, gcs = buckets[0]
        problems.append(
            Problem(
                _key(f"storage.{use}.gcs"),
                {"bucket": gcs.bucket},
                "a bucket's grants name the training namespaces, which a split deployment's "
                "fabric stack holds (gpu-fabric:queues): run both layers in one stack "
                "(gpu-fabric:layers: all), or grant the namespaces access yourself and name "
                "a claim of theirs (`claim`)",
            )
        )
    created = [(use, gcs) for use, gcs in buckets if gcs.create]
    if len(created) == 2 and created[0][1].bucket == created[1][1].bucket:
        problems.append(
            Problem(
                _key("storage.checkpoints.gcs.create"),
                True,
                f"storage.data creates bucket {created[0][1].bucket} already: a bucket is "
                "created once; set create: false here (both volumes then mount it)",
            )
        )
    return problems
