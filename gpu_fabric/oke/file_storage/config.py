"""OKE's kind of training volume, `fss`: an OCI File Storage export mounted through OKE's FSS CSI
driver (OCI docs, "Provisioning PVCs on the File Storage Service")."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, model_validator
from pydantic.alias_generators import to_camel

from ...config_model import ConfigModel
from ...storage.config import server_address
from ..ids import FileSystemId


def _export_path(value: str) -> str:
    if not value.startswith("/") or value.endswith("/") and value != "/" or "//" in value:
        raise ValueError("an export path is absolute, e.g. /training-data")
    return value


EXISTING = ("file_system", "mount_target_ip", "export_path")
MOUNT_TARGET_IP = server_address(
    "give the mount target's private IP (console: the mount target's details; `oci fs "
    "mount-target get`, then its private IP)"
)


class FssVolumeConfig(ConfigModel):
    """An OCI File Storage file system: created with its mount target and export, or existing."""

    create: bool = Field(
        False,
        description="Create the file system (protected against deletion), a mount target in the "
        "workers' subnet whose network security group admits NFS from the workers only, and an "
        "export to the workers' range. False: an existing export (the three keys below).",
    )
    file_system: FileSystemId | None = Field(
        None, description="An existing file system's OCID (with create: false)."
    )
    mount_target_ip: Annotated[str, MOUNT_TARGET_IP] | None = Field(
        None, description="The private IP of a mount target that exports it (with create: false)."
    )
    export_path: Annotated[str, AfterValidator(_export_path)] | None = Field(
        None, description="The export's path on that mount target (with create: false)."
    )

    @model_validator(mode="after")
    def _created_or_existing(self) -> FssVolumeConfig:
        given = [name for name in EXISTING if getattr(self, name) is not None]
        keys = ", ".join(to_camel(n) for n in EXISTING)
        if self.create and given:
            raise ValueError(
                f"create: true makes the file system; leave out {', '.join(map(to_camel, given))}"
            )
        if not self.create and len(given) != len(EXISTING):
            missing = ", ".join(to_camel(n) for n in EXISTING if n not in given)
            raise ValueError(
                f"an existing export needs {keys} (missing: {missing}); or set create: true"
            )
        return self
