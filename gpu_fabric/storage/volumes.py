"""A volume of a platform's kind as Kubernetes objects: a statically provisioned PersistentVolume
per training namespace, pre-bound to the claim the runtime mounts there (Kubernetes docs,
"Persistent Volumes", "Reserving a PersistentVolume": the volume's `claimRef` and the claim's
`volumeName` name each other, so no other claim takes it and no StorageClass provisions one)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pulumi

from .args import TrainingVolume
from .config import Use, made_claim

DEFAULT_CAPACITY = "1Ti"
"""What a claim asks for where the storage sets no size: Kubernetes requires one, and a bucket or
a shared file system does not enforce it."""


def training_volume(
    use: Use, driver: str, handle: pulumi.Input[str], **extra: Any
) -> TrainingVolume:
    """A platform's volume of `use`: the claim the stack makes, read-only for the data set."""
    volume: TrainingVolume = {
        "claim": made_claim(use),
        "read_only": use == "data",
        "driver": driver,
        "volume_handle": handle,
    }
    return volume | extra  # type: ignore[return-value]


def made_by_cloud(outputs: pulumi.Input[dict[str, str]] | None, key: str) -> pulumi.Output[str]:
    """`key` of a cloud layer's output of what it created (a handle, an address): a fabric
    stack whose cloud stack has not made it yet fails naming the fix."""
    return pulumi.Output.from_input(outputs).apply(partial(_made, key=key))


def _made(outputs: dict[str, str] | None, *, key: str) -> str:
    if not outputs or key not in outputs:
        raise ValueError(
            f"the cloud stack has made no {key} yet: run `pulumi up` on the cloud stack first (it "
            "creates it and exports what the volume needs)"
        )
    return outputs[key]


def access_mode(volume: TrainingVolume) -> str:
    """Every node of a job mounts it at once: read-only for the data set, read-write for
    checkpoints."""
    return "ReadOnlyMany" if volume["read_only"] else "ReadWriteMany"


def volume_name(volume: TrainingVolume, namespace: str) -> str:
    """The PersistentVolume's name: a volume is cluster-wide and binds one claim, so there is one
    per training namespace."""
    return f"{namespace}-{volume['claim']}"


def persistent_volume(volume: TrainingVolume, namespace: str, handle: Any) -> dict[str, Any]:
    """The volume of `namespace`'s claim (`handle`: the driver's id of the storage, resolved)."""
    csi: dict[str, Any] = {"driver": volume["driver"], "volumeHandle": handle}
    if volume.get("fs_type"):
        csi["fsType"] = volume["fs_type"]
    if volume.get("attributes"):
        csi["volumeAttributes"] = dict(volume["attributes"])
    spec: dict[str, Any] = {
        "accessModes": [access_mode(volume)],
        "capacity": {"storage": volume.get("capacity", DEFAULT_CAPACITY)},
        # The storage outlives the volume object: deleting it never deletes data.
        "persistentVolumeReclaimPolicy": "Retain",
        "storageClassName": "",
        "claimRef": {"namespace": namespace, "name": volume["claim"]},
        "csi": csi,
    }
    if volume.get("mount_options"):
        spec["mountOptions"] = list(volume["mount_options"])
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": volume_name(volume, namespace), "labels": LABELS},
        "spec": spec,
    }


def claim(volume: TrainingVolume, namespace: str) -> dict[str, Any]:
    """The claim the runtime's pods mount in `namespace`, bound to its own volume."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": volume["claim"], "namespace": namespace, "labels": LABELS},
        "spec": {
            "accessModes": [access_mode(volume)],
            "resources": {"requests": {"storage": volume.get("capacity", DEFAULT_CAPACITY)}},
            "storageClassName": "",
            "volumeName": volume_name(volume, namespace),
        },
    }


LABELS = {"app.kubernetes.io/managed-by": "gpu-fabric", "app.kubernetes.io/component": "storage"}
