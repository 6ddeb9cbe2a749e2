"""What GKE's Cloud Storage FUSE CSI driver asks of a volume and of the pods that mount it."""

from __future__ import annotations

from ...storage.config import Use

DRIVER = "gcsfuse.csi.storage.gke.io"
"""GKE's Cloud Storage FUSE CSI driver."""

FUSE_POD_ANNOTATIONS = {
    # GKE injects its Cloud Storage FUSE sidecar into a pod with this annotation only.
    "gke-gcsfuse/volumes": "true",
    # "0": no limit on the sidecar on GKE Standard (GKE docs, "Configure resources for the
    # sidecar container"): its default limits throttle a GPU node's reads and writes.
    "gke-gcsfuse/cpu-limit": "0",
    "gke-gcsfuse/memory-limit": "0",
    "gke-gcsfuse/ephemeral-storage-limit": "0",
}
"""What a runtime pod that mounts a bucket carries."""

METADATA_CACHE = [
    # Cache every object's metadata for the mount's life: a job writes new files and reads what
    # it wrote, it does not rely on seeing another writer's changes (GKE docs, "Optimize Cloud
    # Storage FUSE CSI driver for GKE performance").
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
    "metadata-cache:type-cache-max-size-mb:-1",
]
MOUNT_OPTIONS: dict[Use, list[str]] = {
    "data": ["implicit-dirs", *METADATA_CACHE],
    "checkpoints": ["implicit-dirs", *METADATA_CACHE],
}
"""Default mount options per use (`gcs.mountOptions` replaces them)."""

ROLES: dict[Use, str] = {
    "data": "roles/storage.objectViewer",
    "checkpoints": "roles/storage.objectUser",
}
"""What the training namespaces may do in a bucket: read the data set, read and write
checkpoints (Cloud Storage docs, "IAM roles for Cloud Storage"); neither may change the bucket."""
