"""The runtime's pre-job GPU check: an init container that runs the GpuCount and GpuEcc checks
(`checks/`) on the node before the training container starts, as cluster-toolkit's A3 Ultra and
A4 NCCL JobSets do with their `gpu-healthcheck` init container.

Unlike cluster-toolkit's (privileged, the host's driver directory mounted), it asks for the node
container's own devices (its `resources`: the GPUs, or the DRA claims that hold them), so the
device plugin or the DRA driver gives it the GPUs and `nvidia-smi` as it gives the training
container, and it runs unprivileged in the runtime's own image. A confirmed problem (exit 1)
fails the pod before NCCL starts, and the node's taint (`taint_controller.py`) keeps the retry
elsewhere; a check that cannot run (exit 2: no `nvidia-smi` in view) lets the job start, said in
the pod's log, so an image without the tool is not locked out.
"""

from __future__ import annotations

import copy

from ..workloads.settings import NODE
from .node_checks import CHECKS, script_text

NAME = "gpu-check"
PRE_JOB_CONDITIONS = ("GpuCount", "GpuEcc")
_RUN = (
    'for check in "$CHECK_GPU_COUNT" "$CHECK_GPU_ECC"; do\n'
    '  message=$(bash -c "$check"); code=$?\n'
    '  echo "$message"\n'
    "  if [ $code -eq 1 ]; then exit 1; fi\n"
    '  if [ $code -ne 0 ]; then echo "could not check; starting anyway"; fi\n'
    "done\n"
)


def with_gpu_check(pod: dict, gpus: int, nvidia_smi: str) -> dict:
    """A copy of the runtime's pod template with the check as its first init container (before
    a fabric's sidecars, so a bad node fails before they start)."""
    out = copy.deepcopy(pod)
    spec = out["spec"]
    (node,) = [c for c in spec["containers"] if c["name"] == NODE]
    spec["initContainers"] = [
        gpu_check_container(node, gpus, nvidia_smi),
        *spec.get("initContainers", []),
    ]
    return out


def gpu_check_container(node: dict, gpus: int, nvidia_smi: str) -> dict:
    """The init container for a pod whose training container is `node` (its image and
    devices)."""
    scripts = {c.condition: script_text(c) for c in CHECKS if c.condition in PRE_JOB_CONDITIONS}
    return {
        "name": NAME,
        "image": node["image"],
        "command": ["bash", "-c", _RUN],
        "env": [
            {"name": "NVIDIA_SMI", "value": nvidia_smi},
            {"name": "EXPECTED_GPUS", "value": str(gpus)},
            {"name": "CHECK_GPU_COUNT", "value": scripts["GpuCount"]},
            {"name": "CHECK_GPU_ECC", "value": scripts["GpuEcc"]},
        ],
        "resources": copy.deepcopy(node.get("resources", {})),
    }
