"""What GKE's Filestore CSI driver asks of a volume."""

from __future__ import annotations

DRIVER = "filestore.csi.storage.gke.io"
"""GKE's Filestore CSI driver."""

REGIONAL_TIERS = ("REGIONAL", "ENTERPRISE")
"""Tiers whose instance is in a region; the others are in a zone (pulumi-gcp
`filestore.Instance.location`)."""

SHARES = {"data": "data", "checkpoints": "checkpoints"}
"""A created instance's share per use (letters, digits and underscores, a letter first, 16 at
most)."""


def volume_handle(location: str, instance: str, share: str) -> str:
    """The driver's id of a share (cluster-toolkit modules/file-system/gke-persistent-volume,
    filestore-pv.yaml.tftpl)."""
    return f"modeInstance/{location}/{instance}/{share}"
