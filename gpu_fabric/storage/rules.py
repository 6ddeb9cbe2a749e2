"""The rules of `gpu-fabric:storage` that read other keys."""

from __future__ import annotations

from ..problems import Problem
from ..problems import key as _key
from ..workloads.config import QueuesConfig
from .config import StorageConfig


def storage_problems(storage: StorageConfig, queues: QueuesConfig) -> list[Problem]:
    """The runtime mounts the volumes: with no runtime, a volume would be mounted nowhere."""
    if queues.enabled and queues.runtime:
        return []
    off = "queues.enabled" if not queues.enabled else "queues.runtime"
    return [
        Problem(
            _key(f"storage.{name}"),
            {"claim": volume.claim},
            f"only the fabric's training runtime mounts it, and gpu-fabric:{off} is false; "
            "remove it, or turn the runtime on",
        )
        for name, volume in (("data", storage.data), ("checkpoints", storage.checkpoints))
        if volume is not None
    ]
