"""What OKE's cloud layer takes for the training file systems: a typed dict, so every Pulumi
language can pass it to a hosted `OkeCloud`."""

from typing import TypedDict


class OkeFileSystem(TypedDict):
    """An OCI File Storage file system the stack creates, exported to the workers."""

    name: str
    """What it holds (`data`, `checkpoints`): its display name's end and its export path
    (`/<name>`)."""
