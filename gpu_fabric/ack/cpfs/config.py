"""ACK's kind of training volume, `cpfs`: an existing CPFS for Lingjun file system mounted through
ACK's CPFS for Lingjun CSI driver (Alibaba Cloud docs, "Use CPFS for Lingjun statically
provisioned volumes"). No Pulumi resource creates one (pulumi-alicloud's `nas.FileSystem` has no
CPFS for Lingjun type), so it is an input."""

from __future__ import annotations

import re
from typing import Annotated, ClassVar

from pydantic import AfterValidator, Field

from ...config_model import ConfigModel
from ...storage.config import StorageConfig, TrainingVolumeConfig

# CPFS for Lingjun file system ids: `bmcpfs-` and lower-case letters and digits (the CSI driver's
# volume handle, kubernetes-sigs/alibaba-cloud-csi-driver pkg/bmcpfs and its PV example
# `bmcpfs-xxxxxx`). No length is published: any is accepted.
_FILE_SYSTEM_ID = re.compile(r"^bmcpfs-[0-9a-z]+$")


def _file_system_id(value: str) -> str:
    if not _FILE_SYSTEM_ID.match(value):
        raise ValueError(
            "not a CPFS for Lingjun file system id (bmcpfs- and lower-case letters and digits); "
            "copy it from the console's file system list, e.g. bmcpfs-290w65p03ok64ya"
        )
    return value


def _path(value: str) -> str:
    if not value.startswith("/") or "//" in value:
        raise ValueError("a directory of the file system, absolute, e.g. / or /datasets")
    return value


class CpfsVolumeConfig(ConfigModel):
    """An existing CPFS for Lingjun file system (or a directory of it)."""

    file_system: Annotated[str, AfterValidator(_file_system_id)] = Field(
        description="The file system's id (bmcpfs-...). It must be in the Lingjun nodes' "
        "hpn-zone and associated with them when they are initialised (docs/storage.md)."
    )
    path: Annotated[str, AfterValidator(_path)] = Field(
        "/", description="The directory of the file system the volume is (default its root)."
    )


class AckTrainingVolume(TrainingVolumeConfig):
    """A training volume on ACK: a claim of yours, or CPFS for Lingjun."""

    KINDS: ClassVar[tuple[str, ...]] = ("claim", "cpfs")

    cpfs: CpfsVolumeConfig | None = Field(
        None,
        description="An existing CPFS for Lingjun file system, mounted through ACK's CPFS for "
        "Lingjun CSI driver, whose add-ons the stack installs.",
    )


AckStorageConfig = StorageConfig[AckTrainingVolume]
"""The training volumes on ACK."""
