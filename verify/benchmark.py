"""What a bandwidth benchmark is: the objects it creates in phases, the runs whose logs are
judged, and where (`bandwidth.py` runs one; each platform's module and `trainjob_bandwidth.py`
build them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .nccl_judge import Hardware

NAMESPACE = "gpu-fabric-bandwidth"
RUN_LABEL = "gpu-fabric/bandwidth"
"""Label on every pod and Service created here (value: the stack)."""


class CouldNotRun(Exception):
    """The benchmark could not be run: says why and what to do (exit 2)."""


# --- what runs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One test whose result is the log of one container."""

    name: str
    namespace: str
    pods: str
    """Label selector of all its pods (progress lines)."""
    launcher: str
    """Label selector of the pod whose `container` prints the result."""
    container: str
    collective: str | None
    """The nccl-tests collective; None: the output is not nccl-tests (not judged)."""
    nodes: int
    gpus_per_node: int


@dataclass
class Phase:
    """Objects created together and the runs they hold; deleted when the phase ends."""

    objects: list[dict]
    runs: list[Run]
    wait_running: str | None = None
    """Label selector of pods that must be Running before `launch` is called."""
    launch: Callable[[list[str]], list[dict]] | None = None
    """The objects created then, given the nodes of the `wait_running` pods (sorted by pod)."""


@dataclass
class Benchmark:
    stack: str
    hardware: Hardware
    what: str
    """One line: what runs and where it comes from."""
    namespace: str
    setup: list[dict]
    """Created first and deleted last (the namespace)."""
    phases: list[Phase]
    placement_levels: list[str] | None = None
    """Topology levels to report the pods' placement on (None: not a queued job, no report)."""

    def manifests(self) -> list[dict]:
        """Every object, with each `launch` given placeholder node names."""
        out = list(self.setup)
        for phase in self.phases:
            out += phase.objects
            if phase.launch:
                out += phase.launch([f"node-{i}" for i in range(1, phase.runs[0].nodes)])
        return out


def namespace_manifest(name: str, stack: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {RUN_LABEL: stack}},
    }
