"""A stack's `fss` volumes as what each layer takes: the file systems to create (cloud layer) and
the PersistentVolume sources (fabric layer)."""

from __future__ import annotations

from functools import partial

import pulumi

from ...storage.args import TrainingVolume
from ...storage.config import StorageConfig, made_claim
from .args import OkeFileSystem
from .config import OkeTrainingVolume

DRIVER = "fss.csi.oraclecloud.com"
"""OKE's File Storage CSI driver."""


def volume_handle(file_system: pulumi.Input[str], ip: pulumi.Input[str], path: str):
    """The driver's id of an export: `<file system OCID>:<mount target IP>:<export path>` (OCI
    docs, "Provisioning PVCs on the File Storage Service", static provisioning)."""
    return pulumi.Output.concat(file_system, ":", ip, ":", path)


def export_path(name: str) -> str:
    """Where a created file system (`data`, `checkpoints`) is exported on its mount target."""
    return f"/{name}"


def created_file_systems(storage: StorageConfig[OkeTrainingVolume]) -> list[OkeFileSystem]:
    """The file systems the cloud layer creates."""
    return [
        {"name": use}
        for use, volume in storage.volumes()
        if volume.fss is not None and volume.fss.create
    ]


def training_volumes(
    storage: StorageConfig[OkeTrainingVolume], handles: pulumi.Input[dict[str, str]] | None
) -> list[TrainingVolume]:
    """The exports as volumes the fabric layer binds in every training namespace (`handles`:
    the cloud layer's `file_system_handles`, for the file systems it created)."""
    volumes: list[TrainingVolume] = []
    for use, volume in storage.volumes():
        fss = volume.fss
        if fss is None:
            continue
        if fss.create:
            handle = pulumi.Output.from_input(handles).apply(partial(_created_handle, use=use))
        else:
            assert fss.file_system and fss.mount_target_ip and fss.export_path  # its rule
            handle = volume_handle(fss.file_system, fss.mount_target_ip, fss.export_path)
        volumes.append(
            {
                "claim": made_claim(use),
                "read_only": use == "data",
                "driver": DRIVER,
                "volume_handle": handle,
            }
        )
    return volumes


def _created_handle(made: dict[str, str] | None, *, use: str) -> str:
    if not made or use not in made:
        raise ValueError(
            f"the cloud stack has made no file system for storage.{use}: run `pulumi up` on the "
            "cloud stack first (it creates the file system and exports its mount target)"
        )
    return made[use]
