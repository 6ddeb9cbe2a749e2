"""What OKE's cloud layer takes for the Lustre file systems it creates: a typed dict, so every
Pulumi language can pass it to a hosted `OkeCloud`."""

from typing import TypedDict


class OkeLustreFileSystem(TypedDict):
    """A File Storage with Lustre file system the stack creates in the workers' subnet."""

    name: str
    """What it holds (`data`, `checkpoints`): its display name's end and its handle's key."""
    file_system_name: str
    """Its Lustre name (1-8 letters and digits)."""
    capacity_gb: int
    """Its capacity."""
    throughput_per_tb: int
    """MB/s per TB (125, 250, 500 or 1000)."""
