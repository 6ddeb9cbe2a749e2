"""A stack's `gcs` volumes as what each layer takes: the buckets and grants (cloud layer) and the
PersistentVolume sources (fabric layer)."""

from __future__ import annotations

from ...storage.config import Use
from .args import GkeTrainingBucket
from .config import GcsVolumeConfig
from .fuse import ROLES


def training_buckets(
    buckets: list[tuple[Use, GcsVolumeConfig]], namespaces: list[str]
) -> list[GkeTrainingBucket]:
    """The buckets the cloud layer makes or grants access to."""
    return [
        {"bucket": gcs.bucket, "create": gcs.create, "role": ROLES[use], "namespaces": namespaces}
        for use, gcs in buckets
    ]
