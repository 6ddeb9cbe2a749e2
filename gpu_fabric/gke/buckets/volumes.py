"""A stack's `gcs` volumes as what each layer takes: the buckets and grants (cloud layer) and the
PersistentVolume sources (fabric layer)."""

from __future__ import annotations

from ...storage.args import TrainingVolume
from ...storage.config import StorageConfig, Use, made_claim
from .args import GkeTrainingBucket
from .config import GkeTrainingVolume
from .fuse import DRIVER, MOUNT_OPTIONS, ROLES


def _buckets(storage: StorageConfig[GkeTrainingVolume]) -> list[tuple[Use, GkeTrainingVolume]]:
    return [(use, volume) for use, volume in storage.volumes() if volume.gcs is not None]


def training_buckets(
    storage: StorageConfig[GkeTrainingVolume], namespaces: list[str]
) -> list[GkeTrainingBucket]:
    """The buckets the cloud layer makes or grants access to."""
    return [
        {
            "bucket": volume.gcs.bucket,
            "create": volume.gcs.create,
            "role": ROLES[use],
            "namespaces": namespaces,
        }
        for use, volume in _buckets(storage)
        if volume.gcs is not None
    ]


def training_volumes(storage: StorageConfig[GkeTrainingVolume]) -> list[TrainingVolume]:
    """The buckets as volumes the fabric layer binds in every training namespace."""
    return [
        {
            "claim": made_claim(use),
            "read_only": use == "data",
            "driver": DRIVER,
            "volume_handle": volume.gcs.bucket,
            "mount_options": volume.gcs.mount_options or MOUNT_OPTIONS[use],
        }
        for use, volume in _buckets(storage)
        if volume.gcs is not None
    ]
