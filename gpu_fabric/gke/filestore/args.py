"""What GKE's cloud layer takes for the Filestore instances it creates: a typed dict, so every
Pulumi language can pass it to a hosted `GkeCloud`."""

from typing import TypedDict


class GkeFilestoreInstance(TypedDict):
    """A Filestore instance the stack creates on the cluster's VPC."""

    name: str
    """Its name."""
    location: str
    """Its zone (the GPU nodes') or, for a regional tier, the region."""
    tier: str
    """Its service tier (`ZONAL`, `REGIONAL`, `BASIC_SSD`, ...)."""
    share: str
    """Its file share's name."""
    capacity_gb: int
    """The share's capacity."""
