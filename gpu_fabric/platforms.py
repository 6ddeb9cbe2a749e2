"""Build a stack: the platform's `GpuCluster` with the layers the stack runs, and its outputs."""

from __future__ import annotations

import pulumi

from .registry import spec_of


def build(cfg) -> dict[str, pulumi.Input]:
    """Register the stack's resources; returns the stack outputs (the layers' declared outputs)."""
    stack = spec_of(cfg.platform).stack_module().GpuCluster(cfg.cluster_name, cfg)
    return stack.outputs()
