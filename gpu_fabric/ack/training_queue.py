"""ACK's training queue: one ResourceFlavor for the Lingjun nodes, by the label and taint ACK puts
on them (catalog `ack.lingjun_nodes`), and the RDMA runtime (its pod wired by `with_lingjun_rdma`,
as the Lingjun RDMA guide's Job)."""

from __future__ import annotations

from ..catalog import catalog
from ..health.from_stack import with_pre_job_check
from ..nvidia import GPU_RESOURCE
from ..storage.mounts import with_training_volumes
from ..workloads.queues import runtime_image, training_queue
from ..workloads.runtime import node_template
from ..workloads.settings import QueuePool, TrainingQueueSettings, TrainingRuntimeSettings
from .checks import POD_SECURITY
from .config import AckLingjunConfig
from .rdma.pods import LINGJUN_HOST_NETWORK, with_lingjun_rdma

FLAVOR = "lingjun"


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


def training_runtime(cfg: AckLingjunConfig) -> TrainingRuntimeSettings:
    """The RDMA runtime: the node's GPUs, `rdma/hca`, IPC_LOCK and SYS_RESOURCE, shared memory,
    and the host network
    unless the IPv6 pod network carries RDMA (`rdma.nonHostNetwork`)."""
    gpus = catalog().ack.lingjun_nodes.gpus
    pod = with_lingjun_rdma(
        node_template(runtime_image(cfg.queues), gpus), non_host_network=cfg.rdma.non_host_network
    )
    # NVIDIA's container runtime puts nvidia-smi in a GPU container (the images' utility
    # capability).
    pod = with_pre_job_check(pod, cfg.health, gpus, "nvidia-smi")
    pod = with_training_volumes(pod, cfg.storage)
    runtime: TrainingRuntimeSettings = {
        "name": catalog().workloads.rdma_runtime,
        "pod_template": pod,
    }
    if pod["spec"].get("hostNetwork"):
        runtime["host_network_reason"] = LINGJUN_HOST_NETWORK
    return runtime


def training_queue_of(cfg: AckLingjunConfig) -> TrainingQueueSettings | None:
    """The stack's training queue (None: `queues.enabled: false`)."""
    return training_queue(
        cfg.queues,
        catalog().ack.topology_levels,
        queue_pools(cfg.lingjun.node_count),
        POD_SECURITY,
        runtime=training_runtime(cfg),
    )
