"""A stack's `cpfs` volumes as what the fabric layer takes: the PersistentVolume sources."""

from __future__ import annotations

from ...storage.args import TrainingVolume
from ...storage.config import StorageConfig
from ...storage.volumes import training_volume
from .config import AckTrainingVolume

DRIVER = "bmcpfsplugin.csi.alibabacloud.com"
"""ACK's CPFS for Lingjun CSI driver (kubernetes-sigs/alibaba-cloud-csi-driver pkg/bmcpfs)."""


def uses_cpfs(storage: StorageConfig[AckTrainingVolume]) -> bool:
    """Whether a volume is CPFS for Lingjun (the cluster then needs its CSI add-ons)."""
    return any(volume.cpfs is not None for _, volume in storage.volumes())


def training_volumes(storage: StorageConfig[AckTrainingVolume]) -> list[TrainingVolume]:
    """The file systems as volumes the fabric layer binds in every training namespace: the
    static volume the docs give, the file system's id as its handle and the directory as its
    `path` attribute."""
    return [
        training_volume(use, DRIVER, volume.cpfs.file_system, attributes={"path": volume.cpfs.path})
        for use, volume in storage.volumes()
        if volume.cpfs is not None
    ]
