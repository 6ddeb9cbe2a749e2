"""The rules of ACK's `cpfs` volumes that read other keys."""

from __future__ import annotations

from ...problems import Problem
from ...problems import key as _key
from ...storage.config import StorageConfig
from .config import AckTrainingVolume


def cpfs_problems(storage: StorageConfig[AckTrainingVolume]) -> list[Problem]:
    """A pod mounts one volume of a CPFS for Lingjun file system (Alibaba Cloud docs, "Use CPFS
    for Lingjun statically provisioned volumes", limits: use `subPath` for more directories), and
    the runtime's pods mount both training volumes."""
    data, checkpoints = storage.data, storage.checkpoints
    if (
        data is not None
        and checkpoints is not None
        and data.cpfs is not None
        and checkpoints.cpfs is not None
        and data.cpfs.file_system == checkpoints.cpfs.file_system
    ):
        return [
            Problem(
                _key("storage.checkpoints.cpfs.fileSystem"),
                checkpoints.cpfs.file_system,
                "is storage.data's file system too, and ACK mounts one volume of a CPFS for "
                "Lingjun file system per pod: give the checkpoints another file system, or leave "
                "one of the two volumes out",
            )
        ]
    return []
