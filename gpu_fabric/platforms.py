"""Build a stack: the platform's `GpuCluster` with the layers the stack runs, and its outputs."""

from __future__ import annotations

import pulumi

from .config_base import Layers
from .registry import spec_of
from .stack_config.split import cloud_config_of


def build(cfg) -> dict[str, pulumi.Input]:
    """Register the stack's resources; returns the stack outputs (the layers' declared outputs,
    and a cloud stack's cloud keys for its fabric stack)."""
    cloud_config = cloud_config_of(cfg) if cfg.layers == Layers.CLOUD else None
    cluster = spec_of(cfg.platform).stack_module().GpuCluster
    return cluster(cfg.cluster_name, cfg, cloud_config=cloud_config).outputs()
