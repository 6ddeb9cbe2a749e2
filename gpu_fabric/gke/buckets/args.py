"""What GKE's cloud layer takes for the training buckets: a typed dict, so every Pulumi language
can pass it to a hosted `GkeCloud`."""

from typing import TypedDict


class GkeTrainingBucket(TypedDict):
    """A Cloud Storage bucket the training namespaces mount."""

    bucket: str
    """The bucket's name."""
    create: bool
    """Create it (regional, hierarchical namespace, uniform access, public access prevented,
    protected); false: it exists."""
    role: str
    """What the training namespaces may do in it: `roles/storage.objectViewer` (read the data
    set) or `roles/storage.objectUser` (write checkpoints)."""
    namespaces: list[str]
    """The training namespaces, every Kubernetes service account of which is granted `role`
    through Workload Identity Federation for GKE."""
