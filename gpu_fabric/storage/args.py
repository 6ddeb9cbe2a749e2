"""What a fabric layer's `training_volumes` arg gives: a PersistentVolume source per volume of a
platform's kind, which the layer binds to a claim of the same name in every training namespace.
Typed dicts, so every Pulumi language can pass them to a hosted fabric layer."""

from typing import NotRequired, TypedDict

import pulumi


class TrainingVolume(TypedDict):
    """A volume of a platform's kind (a bucket, a file system): one statically provisioned
    PersistentVolume per training namespace, bound to the claim the runtime mounts."""

    claim: str
    """The claim's name in every training namespace (`training-data`, `training-checkpoints`)."""
    read_only: bool
    """Mounted read-only (the data set) or read-write (checkpoints)."""
    driver: str
    """The CSI driver (`gcsfuse.csi.storage.gke.io`, `fss.csi.oraclecloud.com`, ...)."""
    volume_handle: pulumi.Input[str]
    """The driver's id of the storage (a bucket name, `<fs OCID>:<mount target IP>:<path>`)."""
    attributes: NotRequired[dict[str, pulumi.Input[str]]]
    """The driver's volume attributes (unset: none)."""
    mount_options: NotRequired[list[str]]
    """Mount options (unset: the driver's defaults)."""
    fs_type: NotRequired[str]
    """The file system type the driver mounts (`lustre`; unset: the driver's)."""
    capacity: NotRequired[str]
    """The size the claim asks for, which a shared file system does not enforce (unset: 1Ti)."""
