"""The rules of GKE's `gcs` volumes that read other keys."""

from __future__ import annotations

from collections.abc import Sequence

from ...config_base import Layers
from ...problems import Problem
from ...problems import key as _key
from ...versions import GKE_VERSION, below, gke_version_or_minor
from .config import GcsVolumeConfig
from .fuse import HOST_NETWORK_MIN_GKE


def bucket_problems(
    buckets: Sequence[tuple[str, GcsVolumeConfig]], layers: Layers, version: str, host_network: bool
) -> list[Problem]:
    """A bucket is created once; its grants name the training namespaces, which a split
    deployment's cloud stack does not know (they are its fabric stack's `queues`); the driver
    serves the runtime's host-network pods (`host_network`) from a GKE version on."""
    problems = []
    floor = GKE_VERSION.parse(HOST_NETWORK_MIN_GKE)
    if buckets and host_network and below(gke_version_or_minor(version), floor):
        use, gcs = buckets[0]
        problems.append(
            Problem(
                _key(f"storage.{use}.gcs"),
                {"bucket": gcs.bucket},
                "the fabric's runtime pods are on the host network, which GKE's Cloud Storage "
                f"FUSE driver serves from GKE {HOST_NETWORK_MIN_GKE} on, and gpu-fabric:"
                f"gke.version is {version}: pick a later version",
            )
        )
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
