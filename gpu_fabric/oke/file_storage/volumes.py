"""What OKE's File Storage CSI driver asks of a volume."""

from __future__ import annotations

import pulumi

DRIVER = "fss.csi.oraclecloud.com"
"""OKE's File Storage CSI driver."""


def volume_handle(file_system: pulumi.Input[str], ip: pulumi.Input[str], path: str):
    """The driver's id of an export: `<file system OCID>:<mount target IP>:<export path>` (OCI
    docs, "Provisioning PVCs on the File Storage Service", static provisioning)."""
    return pulumi.Output.concat(file_system, ":", ip, ":", path)


def export_path(name: str) -> str:
    """Where a created file system (`data`, `checkpoints`) is exported on its mount target."""
    return f"/{name}"
