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
    # Cache every object's metadata for the mount's life, and no absent entry: a job reads its
    # data set and writes new files; it does not rely on seeing another writer's changes.
    "implicit-dirs",
    "metadata-cache:negative-ttl-secs:0",
    "metadata-cache:ttl-secs:-1",
    "metadata-cache:stat-cache-max-size-mb:-1",
]
MOUNT_OPTIONS: dict[Use, list[str]] = {
    "data": METADATA_CACHE,
    "checkpoints": [
        *METADATA_CACHE,
        # The file cache on the sidecar's ephemeral volume (its limit is off, above): a restart
        # reads the checkpoint it just wrote.
        "file-cache:max-size-mb:-1",
        "file-cache:cache-file-for-range-read:true",
        "file-cache:enable-parallel-downloads:true",
        "read_ahead_kb=1024",
        # Upload while writing, not on close: a checkpoint is in the bucket when the write ends.
        "write:enable-streaming-writes:true",
    ],
}
"""Default mount options per use (`gcs.mountOptions` replaces them): Google's GPU samples for
GKE, GoogleCloudPlatform/gcsfuse `samples/gke-csi-yaml/gpu/training-pv.yaml` and
`checkpointing-pv.yaml` (the Cloud Storage FUSE performance guide's; GKE 1.32.2-gke.1297001 or
later, which every gpu-fabric GPU machine's floor is above)."""

VOLUME_ATTRIBUTES = {
    # The grants are the stack's own: no access check at mount, and the bucket's metadata read
    # once at mount, not on a job's first reads (the same samples).
    "skipCSIBucketAccessCheck": "true",
    "gcsfuseMetadataPrefetchOnMount": "true",
}
"""The driver's volume attributes of every bucket."""

HOST_NETWORK_ATTRIBUTE = {"hostNetworkPodKSA": "true"}
"""What a volume mounted by host-network pods (GPUDirect-TCPX/TCPXO runtimes) carries: the
driver then authenticates as the pod's Kubernetes service account from the host network
(GoogleCloudPlatform/gcs-fuse-csi-driver docs/authentication.md, pkg/csi_driver/utils.go)."""

HOST_NETWORK_MIN_GKE = "1.33.3-gke.1226000"
"""The oldest GKE whose driver serves host-network pods, on Standard clusters (gcs-fuse-csi-driver
docs/releases.md, "Host networking support")."""

ROLES: dict[Use, str] = {
    "data": "roles/storage.objectViewer",
    "checkpoints": "roles/storage.objectUser",
}
"""What the training namespaces may do in a bucket: read the data set, read and write
checkpoints (Cloud Storage docs, "IAM roles for Cloud Storage"); neither may change the bucket."""
