"""GKE's node health settings: the checks run the node's driver where GKE installs it (the one
GKE's device plugin mounts into GPU containers; cluster-toolkit's gpu-healthcheck mounts it too),
the rules go to managed Prometheus, and the DCGM alerts are written where managed DCGM sends
metrics."""

from __future__ import annotations

from ..catalog import DeviceMode
from ..health.args import HealthSettings
from ..health.config import PrometheusOwner
from ..health.from_stack import health_settings
from ..nvidia import HOST_DRIVER_DIR
from .config import GkeStackConfig
from .from_stack import monitoring_of
from .node_labels import NODE_POOL_LABEL


def health_of(cfg: GkeStackConfig) -> HealthSettings | None:
    """The fabric layer's `health` arg (None: `health.enabled: false`)."""
    machine = cfg.machine
    monitoring = monitoring_of(cfg)
    return health_settings(
        cfg.health,
        PrometheusOwner.MANAGED,
        gpus_per_node=machine.accelerator.count,
        rdma=any(g.device_mode is DeviceMode.RDMA for g in machine.nic_groups),
        gpu_nodes=[{NODE_POOL_LABEL: pool.name} for pool in cfg.pools],
        nvidia_driver_path=HOST_DRIVER_DIR,
        managed_rules=monitoring["managed_prometheus"],
        dcgm_metrics=monitoring["dcgm"],
        # Managed DCGM does not run where a pool's driver is a bundle's (`gke.monitoring`):
        # the self-managed exporter under managed collection instead (GMP's DCGM exporter guide).
        dcgm_exporter=not monitoring["dcgm"],
    )
