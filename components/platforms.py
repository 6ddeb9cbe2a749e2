"""Build a stack: the platform's `GpuCluster` with the layers the stack runs, and its outputs."""

from __future__ import annotations

import pulumi

from .registry import spec_of


def build(cfg) -> dict[str, pulumi.Input]:
    """Register the stack's resources; returns the stack outputs (the layers' declared outputs)."""
    stack = spec_of(cfg.platform).stack_module().GpuCluster(_cluster_name(cfg), cfg)
    return stack.outputs()


def _cluster_name(cfg) -> str:
    """The name every resource of the stack derives from: the cluster's."""
    for section in ("gke", "oke", "ack"):
        if hasattr(cfg, section):
            return getattr(cfg, section).name
    raise AssertionError(f"{cfg.platform}: no cluster section")
