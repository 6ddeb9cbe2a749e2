"""GKE's training queue: a ResourceFlavor per GPU node pool, on the machine's Topology levels
(catalog `topology_levels`), in a namespace at the fabric's Pod Security level."""

from __future__ import annotations

from ..nvidia import GPU_RESOURCE
from ..workloads.queues import QueuePool, QueueToleration, TrainingQueueSettings, training_queue
from .config import GkeStackConfig
from .fabrics import fabric_of
from .gib import ARM64_TOLERATION
from .nodes import NODE_POOL_LABEL


def queue_pools(cfg: GkeStackConfig) -> list[QueuePool]:
    """A ResourceFlavor per GPU pool: its nodes by GKE's node pool label, tolerating the GPU taint
    GKE puts on GPU nodes (and the arm64 one), with the pool's GPUs as its quota."""
    gpus = cfg.machine.accelerator.count
    tolerations: list[QueueToleration] = [{"key": GPU_RESOURCE, "effect": "NoSchedule"}]
    if cfg.machine.arch == "arm64":
        # GKE taints arm64 nodes (A4X) as the gIB wiring tolerates (`gib.ARM64_TOLERATION`);
        # cluster-toolkit's examples/gke-a4x flavor tolerates it too.
        arm64 = ARM64_TOLERATION
        tolerations.append(
            {"key": arm64["key"], "value": arm64["value"], "effect": arm64["effect"]}
        )
    return [
        {
            "name": pool.name,
            "node_labels": {NODE_POOL_LABEL: pool.name},
            "tolerations": tolerations,
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
