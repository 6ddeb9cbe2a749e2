"""What GKE's Managed Lustre CSI driver asks of a cluster and of a volume."""

from __future__ import annotations

DRIVER = "lustre.csi.storage.gke.io"
"""GKE's Managed Lustre CSI driver."""

MIN_GKE = {"amd64": "1.33.2-gke.1111000", "arm64": "1.34.1-gke.2541000"}
"""The oldest GKE a node mounts Managed Lustre on, by its architecture (GKE docs, "About Managed
Lustre on GKE", requirements; COS nodes only, which every gpu-fabric GPU pool is)."""

LUSTRE_PORT = 988
"""The port the instance's servers and the nodes' Lustre clients speak on (LNet over TCP)."""

PSA_PREFIX_LENGTH = 22
"""The Private Service Access range's size (cluster-toolkit's examples/gke-managed-lustre.yaml)."""

FILESYSTEMS = {"data": "data", "checkpoints": "ckpt"}
"""A created instance's file system name per use (1-8 letters and digits)."""


def volume_handle(project: str, zone: str, instance: str) -> str:
    """The driver's id of an instance (cluster-toolkit modules/file-system/gke-persistent-volume,
    managed-lustre-pv.yaml.tftpl)."""
    return f"{project}/{zone}/{instance}/default-pool/default-container"


def ip_of(mount_point: str) -> str:
    """The IP of an instance's mount point (`IP@tcp:/FILESYSTEM`, pulumi-gcp
    `lustre.Instance.mount_point`)."""
    return mount_point.split("@", 1)[0]
