"""What a hosted `GkeCloud` takes of its cluster beside the scalars of `GkeCloudArgs`."""

from typing import NotRequired, TypedDict


class GkeMonitoring(TypedDict):
    """What GKE sends to Cloud Monitoring."""

    dcgm: bool
    """GKE's managed DCGM metrics of the GPUs (GKE installs its own drivers for them)."""
    managed_prometheus: bool
    """Managed Service for Prometheus (managed collection)."""


class GkeAuthorizedNetwork(TypedDict):
    """A range that may reach the control plane."""

    cidr_block: str
    """The range."""
    display_name: NotRequired[str]
    """What it is."""
