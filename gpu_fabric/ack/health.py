"""ACK's node health settings: the checks run the host's nvidia-smi (Lingjun nodes have the driver
in their OS image), and the metrics come from the stack's Prometheus by default, its DCGM exporter
tolerating the Lingjun taint (Alibaba's own GPU exporter does not, its Prometheus FAQ)."""

from __future__ import annotations

from ..catalog import catalog
from ..health.args import HealthSettings
from ..health.config import PrometheusOwner
from ..health.from_stack import health_settings
from .config import AckLingjunConfig
from .training_queue import queue_pools


def health_of(cfg: AckLingjunConfig) -> HealthSettings | None:
    """The fabric layer's `health` arg (None: `health.enabled: false`)."""
    return health_settings(
        cfg.health,
        PrometheusOwner.STACK,
        gpus_per_node=catalog().ack.lingjun_nodes.gpus,
        rdma=True,
        gpu_nodes=[p["node_labels"] for p in queue_pools(0)],
    )
