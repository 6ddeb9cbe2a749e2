"""What a hosted `GkeCloud` takes of its cluster beside the scalars of `GkeCloudArgs`."""

from typing import NotRequired, TypedDict


class GkeAuthorizedNetwork(TypedDict):
    """A range that may reach the control plane."""

    cidr_block: str
    """The range."""
    display_name: NotRequired[str]
    """What it is."""
