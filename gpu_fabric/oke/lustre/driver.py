"""What OKE's Lustre CSI driver asks of a volume and of the network."""

from __future__ import annotations

DRIVER = "lustre.csi.oraclecloud.com"
"""OKE's File Storage with Lustre CSI driver (OKE 1.29 or later)."""

LUSTRE_PORT = 988
LUSTRE_SOURCE_PORTS = (512, 1023)
"""Lustre's clients and servers speak from these ports to 988, both ways (OCI docs, "Security
rules" for File Storage with Lustre; oci-hpc-oke terraform/lustre.tf)."""

FILESYSTEMS = {"data": "data", "checkpoints": "ckpt"}
"""A created file system's Lustre name per use."""

ATTRIBUTES = {"setupLnet": "true"}
"""The driver configures the node's LNet before it mounts (oci-hpc-oke
terraform/files/lustre/lustre-pv.yaml.tpl)."""


def volume_handle(address: str, filesystem: str) -> str:
    """The driver's id of a file system: `<management service address>@tcp:/<name>`."""
    return f"{address}@tcp:/{filesystem}"
