"""GKE's training volumes (`gpu-fabric:storage`): a claim of yours, a Cloud Storage bucket
(`buckets/`) or a Managed Lustre instance (`lustre/`), and what each layer takes of them."""

from __future__ import annotations

from typing import ClassVar

import pulumi
from pydantic import Field

from ..storage.args import TrainingVolume
from ..storage.config import StorageConfig, TrainingVolumeConfig, Use
from ..storage.volumes import made_by_cloud, training_volume
from .buckets.config import GcsVolumeConfig
from .buckets.fuse import DRIVER as FUSE_DRIVER
from .buckets.fuse import (
    FUSE_POD_ANNOTATIONS,
    HOST_NETWORK_ATTRIBUTE,
    MOUNT_OPTIONS,
    VOLUME_ATTRIBUTES,
)
from .filestore.args import GkeFilestoreInstance
from .filestore.config import FilestoreVolumeConfig
from .filestore.driver import DRIVER as FILESTORE_DRIVER
from .filestore.driver import REGIONAL_TIERS, SHARES
from .filestore.driver import volume_handle as filestore_handle
from .lustre.args import GkeLustreInstance
from .lustre.config import LustreVolumeConfig
from .lustre.driver import DRIVER as LUSTRE_DRIVER
from .lustre.driver import FILESYSTEMS
from .lustre.driver import volume_handle as lustre_handle


class GkeTrainingVolume(TrainingVolumeConfig):
    """A training volume on GKE: a claim of yours, a Cloud Storage bucket or Managed Lustre."""

    KINDS: ClassVar[tuple[str, ...]] = ("claim", "gcs", "lustre", "filestore")

    gcs: GcsVolumeConfig | None = Field(
        None,
        description="A Cloud Storage bucket (existing or created), mounted through GKE's Cloud "
        "Storage FUSE CSI driver, which the stack turns on in the cluster.",
    )
    lustre: LustreVolumeConfig | None = Field(
        None,
        description="A Managed Lustre instance (existing or created), mounted through GKE's "
        "Managed Lustre CSI driver, which the stack turns on in the cluster.",
    )

    filestore: FilestoreVolumeConfig | None = Field(
        None,
        description="A Filestore instance (existing or created), mounted through GKE's "
        "Filestore CSI driver, which the stack turns on in the cluster.",
    )

    def pod_annotations(self) -> dict[str, str]:
        return dict(FUSE_POD_ANNOTATIONS) if self.gcs is not None else {}


GkeStorageConfig = StorageConfig[GkeTrainingVolume]
"""The training volumes on GKE."""


def created_instance_id(cluster: str, use: Use) -> str:
    """The id of the instance the stack creates for a volume."""
    return f"{cluster}-{use}"


def lustre_instances(
    storage: StorageConfig[GkeTrainingVolume], cluster: str, zone: str
) -> list[GkeLustreInstance]:
    """The Managed Lustre instances the cloud layer creates (in the GPU nodes' `zone`)."""
    return [
        {
            "instance_id": created_instance_id(cluster, use),
            "zone": zone,
            "filesystem": FILESYSTEMS[use],
            "capacity_gib": volume.lustre.create.capacity_gib,
            "throughput_per_tib": volume.lustre.create.throughput_per_tib,
        }
        for use, volume in storage.volumes()
        if volume.lustre is not None and volume.lustre.create is not None
    ]


def filestore_instances(
    storage: StorageConfig[GkeTrainingVolume], cluster: str, zone: str, region: str
) -> list[GkeFilestoreInstance]:
    """The Filestore instances the cloud layer creates (a zonal tier's in the GPU nodes' `zone`,
    a regional tier's in the `region`)."""
    return [
        {
            "name": created_instance_id(cluster, use),
            "location": region if volume.filestore.create.tier in REGIONAL_TIERS else zone,
            "tier": volume.filestore.create.tier,
            "share": SHARES[use],
            "capacity_gb": volume.filestore.create.capacity_gb,
        }
        for use, volume in storage.volumes()
        if volume.filestore is not None and volume.filestore.create is not None
    ]


def uses_filestore(storage: StorageConfig[GkeTrainingVolume]) -> bool:
    """Whether a volume is Filestore (the cluster then needs its CSI driver)."""
    return any(volume.filestore is not None for _, volume in storage.volumes())


def uses_lustre(storage: StorageConfig[GkeTrainingVolume]) -> bool:
    """Whether a volume is Managed Lustre (the cluster then needs its CSI driver)."""
    return any(volume.lustre is not None for _, volume in storage.volumes())


def training_volumes(
    storage: StorageConfig[GkeTrainingVolume],
    project: str,
    cluster: str,
    places: tuple[str, str],
    file_server_ips: pulumi.Input[dict[str, str]] | None,
    host_network: bool,
) -> list[TrainingVolume]:
    """The volumes the fabric layer binds in every training namespace (`places`: the GPU nodes'
    zone and the region; `file_server_ips`: the cloud layer's, for the instances it created;
    `host_network`: the runtime's pods are on it)."""
    zone, region = places
    volumes: list[TrainingVolume] = []
    for use, volume in storage.volumes():
        gcs, lustre, filestore = volume.gcs, volume.lustre, volume.filestore
        if gcs is not None:
            attributes = {**VOLUME_ATTRIBUTES, **(HOST_NETWORK_ATTRIBUTE if host_network else {})}
            volumes.append(
                training_volume(
                    use,
                    FUSE_DRIVER,
                    gcs.bucket,
                    mount_options=gcs.mount_options or MOUNT_OPTIONS[use],
                    attributes=attributes,
                )
            )
        elif lustre is not None:
            if lustre.create is not None:
                instance, where, filesystem = (
                    created_instance_id(cluster, use),
                    zone,
                    FILESYSTEMS[use],
                )
                ip = made_by_cloud(file_server_ips, instance)
            else:
                assert lustre.instance and lustre.zone and lustre.ip and lustre.filesystem
                instance, where, filesystem = lustre.instance, lustre.zone, lustre.filesystem
                ip = pulumi.Output.from_input(lustre.ip)
            handle = lustre_handle(project, where, instance)
            served: dict[str, pulumi.Input[str]] = {"ip": ip, "filesystem": filesystem}
            volumes.append(training_volume(use, LUSTRE_DRIVER, handle, attributes=served))
        elif filestore is not None:
            if filestore.create is not None:
                instance, share = created_instance_id(cluster, use), SHARES[use]
                where = region if filestore.create.tier in REGIONAL_TIERS else zone
                ip = made_by_cloud(file_server_ips, instance)
            else:
                assert filestore.instance and filestore.location and filestore.ip
                assert filestore.share  # its rule
                instance, where, share = filestore.instance, filestore.location, filestore.share
                ip = pulumi.Output.from_input(filestore.ip)
            handle = filestore_handle(where, instance, share)
            shared: dict[str, pulumi.Input[str]] = {"ip": ip, "volume": share}
            volumes.append(training_volume(use, FILESTORE_DRIVER, handle, attributes=shared))
    return volumes
