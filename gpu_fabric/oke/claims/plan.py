"""Whether a node can hold a claim shape: the plan of GPUs and rails over PCIe roots (the
DRANET-on-OKE write-up).

Pure data, shared by the config checks (a shape no node can hold is refused at plan time) and the
claim builder (`claims.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from ...catalog import OciShape

RUNTIME_CLAIM = "gpu-fabric-node"
"""The training runtime's claim template, made in the training namespace: all of a node's GPUs
and rails, each GPU pair with its PCIe root's rails."""


class ClaimRequest(Protocol):
    """A claim shape as asked for: the stack's `claims` entry, or the fabric layer's."""

    @property
    def name(self) -> str: ...
    @property
    def gpus(self) -> int: ...
    @property
    def rails(self) -> int: ...
    @property
    def aligned(self) -> bool: ...
    @property
    def roots(self) -> int | None: ...


@dataclass(frozen=True)
class Claim:
    """A claim shape as the fabric layer takes it."""

    name: str
    gpus: int
    rails: int
    aligned: bool = True
    roots: int | None = None


@dataclass(frozen=True)
class ClaimPlan:
    """A feasible claim shape: `roots` pairs of GPUs and rails, or (roots 0) no alignment."""

    name: str
    gpus: int
    rails: int
    roots: int

    @property
    def aligned(self) -> bool:
        return self.roots > 0


def plan_claim(claim: ClaimRequest, shape: OciShape, shape_name: str) -> ClaimPlan:
    """Check a claim shape against the node topology; ValueError says why a node cannot hold it."""
    gpus, rails = claim.gpus, claim.rails
    if gpus == 0 and rails == 0:
        raise ValueError("claims no device; give gpus and/or rails")
    if gpus > shape.gpu_count or rails > shape.rail_count:
        raise ValueError(
            f"asks for {gpus} GPUs and {rails} rails, but a {shape_name} node has "
            f"{shape.gpu_count} GPUs and {shape.rail_count} rails; ask for at most that"
        )
    if not claim.aligned:
        if claim.roots is not None:
            raise ValueError("roots has no effect with aligned: false; remove it")
        return ClaimPlan(claim.name, gpus, rails, roots=0)
    if gpus == 0 or rails == 0:
        raise ValueError(
            "an aligned claim pairs GPUs with rails on one PCIe root, so it needs both; "
            "set gpus and rails, or aligned: false"
        )
    per_root = (
        f"each {shape_name} root has {shape.gpus_per_root} GPUs and {shape.rails_per_root} rails"
    )
    roots = claim.roots or _fewest_roots(gpus, rails, shape)
    if roots is None or gpus % roots or rails % roots:
        raise ValueError(
            f"{gpus} GPUs and {rails} rails cannot be split evenly over "
            f"{roots or 'any number of'} PCIe roots ({per_root}); make both multiples of the "
            "roots they spread over"
        )
    if roots > len(shape.pcie_roots):
        raise ValueError(
            f"spreads over {roots} PCIe roots, but a {shape_name} node has "
            f"{len(shape.pcie_roots)}; use fewer roots"
        )
    if gpus // roots > shape.gpus_per_root or rails // roots > shape.rails_per_root:
        raise ValueError(
            f"no PCIe root has {gpus // roots} GPUs and {rails // roots} rails ({per_root}), so "
            "the scheduler would leave the pod Pending; spread the claim over more roots"
        )
    return ClaimPlan(claim.name, gpus, rails, roots)


def _fewest_roots(gpus: int, rails: int, shape: OciShape) -> int | None:
    least = max(math.ceil(gpus / shape.gpus_per_root), math.ceil(rails / shape.rails_per_root))
    return next(
        (k for k in range(least, len(shape.pcie_roots) + 1) if gpus % k == 0 and rails % k == 0),
        None,
    )
