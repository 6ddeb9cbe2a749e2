"""OKE's training volumes (`gpu-fabric:storage`): a claim of yours, an OCI File Storage export
(`file_storage/`) or a File Storage with Lustre file system (`lustre/`), and what each layer
takes of them."""

from __future__ import annotations

from typing import ClassVar

import pulumi
from pydantic import Field

from ..storage.args import TrainingVolume
from ..storage.config import StorageConfig, TrainingVolumeConfig
from ..storage.volumes import made_by_cloud, training_volume
from .file_storage.args import OkeFileSystem
from .file_storage.config import FssVolumeConfig
from .file_storage.volumes import DRIVER as FSS_DRIVER
from .file_storage.volumes import volume_handle as export_handle
from .lustre.args import OkeLustreFileSystem
from .lustre.config import OciLustreVolumeConfig
from .lustre.driver import ATTRIBUTES as LUSTRE_ATTRIBUTES
from .lustre.driver import DRIVER as LUSTRE_DRIVER
from .lustre.driver import FILESYSTEMS
from .lustre.driver import volume_handle as lustre_handle


class OkeTrainingVolume(TrainingVolumeConfig):
    """A training volume on OKE: a claim of yours, OCI File Storage or File Storage with Lustre."""

    KINDS: ClassVar[tuple[str, ...]] = ("claim", "fss", "lustre")

    fss: FssVolumeConfig | None = Field(
        None,
        description="An OCI File Storage file system (created or existing), mounted through "
        "OKE's FSS CSI driver.",
    )
    lustre: OciLustreVolumeConfig | None = Field(
        None,
        description="A File Storage with Lustre file system (created or existing), mounted "
        "through OKE's Lustre CSI driver; the GPU nodes' image must have the Lustre client.",
    )


OkeStorageConfig = StorageConfig[OkeTrainingVolume]
"""The training volumes on OKE."""


def created_file_systems(storage: StorageConfig[OkeTrainingVolume]) -> list[OkeFileSystem]:
    """The File Storage file systems the cloud layer creates."""
    return [
        {"name": use}
        for use, volume in storage.volumes()
        if volume.fss is not None and volume.fss.create
    ]


def lustre_file_systems(storage: StorageConfig[OkeTrainingVolume]) -> list[OkeLustreFileSystem]:
    """The File Storage with Lustre file systems the cloud layer creates."""
    return [
        {
            "name": use,
            "file_system_name": FILESYSTEMS[use],
            "capacity_gb": volume.lustre.create.capacity_gb,
            "throughput_per_tb": volume.lustre.create.throughput_per_tb,
        }
        for use, volume in storage.volumes()
        if volume.lustre is not None and volume.lustre.create is not None
    ]


def training_volumes(
    storage: StorageConfig[OkeTrainingVolume], handles: pulumi.Input[dict[str, str]] | None
) -> list[TrainingVolume]:
    """The volumes the fabric layer binds in every training namespace (`handles`: the cloud
    layer's `file_system_handles`, for the file systems it created, by use)."""
    volumes: list[TrainingVolume] = []
    for use, volume in storage.volumes():
        fss, lustre = volume.fss, volume.lustre
        if fss is not None:
            if fss.create:
                handle = made_by_cloud(handles, use)
            else:
                assert fss.file_system and fss.mount_target_ip and fss.export_path  # its rule
                handle = export_handle(fss.file_system, fss.mount_target_ip, fss.export_path)
            volumes.append(training_volume(use, FSS_DRIVER, handle))
        elif lustre is not None:
            if lustre.create is not None:
                handle = made_by_cloud(handles, use)
            else:
                assert lustre.ip and lustre.filesystem  # its rule
                handle = pulumi.Output.from_input(lustre_handle(lustre.ip, lustre.filesystem))
            extra = {"fs_type": "lustre", "attributes": {**LUSTRE_ATTRIBUTES}}
            volumes.append(training_volume(use, LUSTRE_DRIVER, handle, **extra))
    return volumes
