"""OKE's node health settings: the checks run the host's nvidia-smi (the GPU images carry the
driver), the metrics come from the stack's Prometheus by default, and DCGM's exporter attributes
GPUs to pods through the DRA API (the GPUs are DRA claims here)."""

from __future__ import annotations

from ..catalog import catalog
from ..health.args import HealthSettings
from ..health.config import PrometheusOwner
from ..health.from_stack import health_settings
from .config import OkeDranetConfig
from .training_queue import queue_pools


def health_of(cfg: OkeDranetConfig) -> HealthSettings | None:
    """The fabric layer's `health` arg (None: `health.enabled: false`)."""
    shape = catalog().oci_shapes[cfg.gpu_nodes.shape]
    return health_settings(
        cfg.health,
        PrometheusOwner.STACK,
        gpus_per_node=shape.gpu_count,
        rdma=True,
        gpu_nodes=[p["node_labels"] for p in queue_pools(cfg.gpu_nodes.shape, 0)],
        dcgm_for_dra=True,
    )
