"""`TrainingVolumes`: a platform's volumes (a bucket, a file system) as a claim in every training
namespace, each bound to a PersistentVolume of its own (`volumes.py`).

What waits for what: each claim and its volume wait for their training namespace only (they name
it by the output of the namespace the training queue creates); nothing waits for them but the
pods that mount them, which the scheduler holds until the claim is Bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from ..k8s_objects import kubernetes_object
from ..workloads.queues import TrainingQueue
from .args import TrainingVolume
from .volumes import claim, persistent_volume


@dataclass
class TrainingNamespace:
    name: str
    """The namespace's name."""
    created: pulumi.Input[str]
    """The same name, as an output of the namespace the training queue creates."""
    suffix: str
    """Its resources' name suffix ('' for the first namespace, a team's name)."""


@dataclass
class TrainingVolumesArgs:
    volumes: list[TrainingVolume]
    """The volumes of a platform's kind."""
    namespaces: list[TrainingNamespace]
    """The training namespaces, each of which gets a claim of every volume."""

    @staticmethod
    def of(volumes: list[TrainingVolume], queue: TrainingQueue) -> TrainingVolumesArgs:
        """The volumes in every namespace of the training queue."""
        return TrainingVolumesArgs(
            volumes,
            [
                TrainingNamespace(name, made.metadata.name, suffix)
                for suffix, (name, made) in queue.created_namespaces.items()
            ],
        )


class TrainingVolumes(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: TrainingVolumesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpu-fabric:storage:TrainingVolumes", name, None, opts)
        for volume in args.volumes:
            for ns in args.namespaces:
                tail = volume["claim"] + (f"-{ns.suffix}" if ns.suffix else "")
                pv = persistent_volume(volume, ns.name, volume["volume_handle"])
                pv["spec"]["claimRef"]["namespace"] = ns.created
                pvc = claim(volume, ns.name)
                pvc["metadata"]["namespace"] = ns.created
                # Fixed names and immutable sources: a change replaces them, which only
                # delete-then-create can do under one name.
                made = kubernetes_object(
                    f"{name}-{tail}-volume",
                    pv,
                    pulumi.ResourceOptions(parent=self, delete_before_replace=True),
                )
                kubernetes_object(
                    f"{name}-{tail}",
                    pvc,
                    pulumi.ResourceOptions(
                        parent=self, delete_before_replace=True, depends_on=[made]
                    ),
                )
        self.register_outputs({})
