"""What GKE's cloud layer takes for the Managed Lustre instances it creates: a typed dict, so every
Pulumi language can pass it to a hosted `GkeCloud`."""

from typing import TypedDict


class GkeLustreInstance(TypedDict):
    """A Managed Lustre instance the stack creates in the cluster's VPC."""

    instance_id: str
    """Its id."""
    zone: str
    """Its zone: the GPU nodes'."""
    filesystem: str
    """Its file system name (1-8 letters and digits)."""
    capacity_gib: int
    """Its capacity."""
    throughput_per_tib: int
    """MB/s per TiB (125, 250, 500 or 1000)."""
