"""The upstream files vendored verbatim, and how a test proves they are: their git blob ids."""

from __future__ import annotations

import hashlib
from pathlib import Path

TESTS_UPSTREAM = Path(__file__).with_name("upstream")
"""What the tests compare with: the CRDs of GKE's networking and of the training queue, and NVIDIA
AICR's runtime, with their sources."""
AICR_RUNTIME = TESTS_UPSTREAM / "torch-distributed-rdma-cluster-training-runtime.yaml"
"""NVIDIA AICR's A4X runtime, a Helm template (not YAML until rendered)."""
CRD_FILES = sorted(p for p in TESTS_UPSTREAM.glob("*.yaml") if p != AICR_RUNTIME)
"""The vendored CRDs."""
VERIFY_UPSTREAM = Path(__file__).resolve().parent.parent / "verify" / "upstream"
"""Upstream's NCCL test pods that `make verify` runs."""
GKE_CRDS = ("networking.gke.io_networks.yaml", "networking.gke.io_gkenetworkparamsets.yaml")
"""GKE's networking CRDs (GKE serves them; no catalog version to tie them to)."""


def git_blob_id(data: bytes) -> str:
    """What `git hash-object` prints for a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def blobs(directory: Path) -> dict[Path, str]:
    """A vendored directory's files -> their upstream blob ids (its `BLOBS`)."""
    lines = (directory / "BLOBS").read_text().splitlines()
    return {directory / path: blob for blob, path in (line.split() for line in lines if line)}
