"""GKE's training queue: a ResourceFlavor per GPU node pool, on the machine's Topology levels
(catalog `topology_levels`), in a namespace at the fabric's Pod Security level."""

from __future__ import annotations

from ..nvidia import GPU_RESOURCE
from ..workloads.queues import QueuePool, TrainingQueueSettings, training_queue
from .config import GkeStackConfig
from .fabrics import fabric_of
from .nodes import NODE_POOL_LABEL


def queue_pools(cfg: GkeStackConfig) -> list[QueuePool]:
    """A ResourceFlavor per GPU pool: its nodes by GKE's node pool label, tolerating the GPU taint
    GKE puts on GPU nodes, with the pool's GPUs as its quota."""
    gpus = cfg.machine.accelerator.count
    return [
        {
            "name": pool.name,
            "node_labels": {NODE_POOL_LABEL: pool.name},
            "tolerations": [{"key": GPU_RESOURCE, "effect": "NoSchedule"}],
            "quota": {GPU_RESOURCE: pool.node_count * gpus},
        }
        for pool in cfg.pools
    ]


def training_queue_of(cfg: GkeStackConfig) -> TrainingQueueSettings | None:
    """The stack's training queue (None: `queues.enabled: false`)."""
    return training_queue(
        cfg.queues,
        cfg.machine.topology_levels,
        queue_pools(cfg),
        fabric_of(cfg.machine).pod_security,
    )
