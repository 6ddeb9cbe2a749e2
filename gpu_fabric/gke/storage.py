"""A4X's Hyperdisk Balanced StorageClass: a4x nodes cannot attach Persistent Disk (NVIDIA AICR's
A4X networking guide)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
# GKE Standard's default StorageClass (pd-balanced), which a4x nodes cannot attach.
GKE_DEFAULT_STORAGE_CLASS = "standard-rwo"


def hyperdisk_storage_class(name: str, is_default: bool) -> dict:
    """A StorageClass that a4x nodes can use: Hyperdisk Balanced through the PD CSI driver."""
    metadata: dict = {"name": name}
    if is_default:
        metadata["annotations"] = {DEFAULT_CLASS_ANNOTATION: "true"}
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": metadata,
        "provisioner": "pd.csi.storage.gke.io",
        "parameters": {"type": "hyperdisk-balanced"},
        # Zonal disks: bind where the pod lands, not where the claim happens to be made.
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
        "reclaimPolicy": "Delete",
    }


@dataclass(frozen=True)
class HyperdiskStorageArgs:
    name: str
    """StorageClass name."""
    is_default: bool = False
    """Make it the cluster's default StorageClass (and `standard-rwo` not)."""


class HyperdiskStorage(pulumi.ComponentResource):
    """The Hyperdisk Balanced StorageClass; made the cluster default only when asked.

    When it is the default, `standard-rwo` is patched to stop being one, so that exactly one
    StorageClass is the default.
    """

    def __init__(
        self, name: str, args: HyperdiskStorageArgs, opts: pulumi.ResourceOptions | None = None
    ):
        super().__init__("gpu-fabric:gke:HyperdiskStorage", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        manifest = hyperdisk_storage_class(args.name, args.is_default)
        k8s.storage.v1.StorageClass(
            name,
            metadata=manifest["metadata"],
            provisioner=manifest["provisioner"],
            parameters=manifest["parameters"],
            volume_binding_mode=manifest["volumeBindingMode"],
            allow_volume_expansion=manifest["allowVolumeExpansion"],
            reclaim_policy=manifest["reclaimPolicy"],
            opts=child,
        )
        if args.is_default:
            k8s.storage.v1.StorageClassPatch(
                f"{name}-not-default-{GKE_DEFAULT_STORAGE_CLASS}",
                metadata={
                    "name": GKE_DEFAULT_STORAGE_CLASS,
                    "annotations": {
                        DEFAULT_CLASS_ANNOTATION: "false",
                        # GKE's addon manager owns this field; take it over explicitly.
                        "pulumi.com/patchForce": "true",
                    },
                },
                opts=child,
            )
        self.register_outputs({})
