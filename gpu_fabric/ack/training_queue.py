"""ACK's training queue: one ResourceFlavor for the Lingjun nodes, by the label and taint ACK puts
on them (catalog `ack.lingjun_nodes`)."""

from __future__ import annotations

from ..catalog import catalog
from ..nvidia import GPU_RESOURCE
from ..workloads.queues import QueuePool, TrainingQueueSettings, training_queue
from .config import AckLingjunConfig

FLAVOR = "lingjun"
POD_SECURITY = (
    "privileged",
    "the RDMA pods run on the host network (unless the IPv6 pod network is on) and add IPC_LOCK "
    "and SYS_RESOURCE (Alibaba's Lingjun RDMA guide); Baseline forbids both",
)


def queue_pools(node_count: int) -> list[QueuePool]:
    """The Lingjun nodes as one flavor, tolerating ACK's Lingjun taint, with their GPUs as quota."""
    nodes = catalog().ack.lingjun_nodes
    return [
        {
            "name": FLAVOR,
            "node_labels": dict(nodes.worker_label),
            "tolerations": [{"key": nodes.taint["key"], "effect": nodes.taint["effect"]}],
            "quota": {GPU_RESOURCE: node_count * nodes.gpus},
        }
    ]


def training_queue_of(cfg: AckLingjunConfig) -> TrainingQueueSettings | None:
    """The stack's training queue (None: `queues.enabled: false`)."""
    return training_queue(
        cfg.queues, catalog().ack.topology_levels, queue_pools(cfg.lingjun.node_count), POD_SECURITY
    )
