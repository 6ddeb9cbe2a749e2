"""What one GKE GPU fabric does, asked through its spec instead of by comparing fabric names.

Each fabric's module (`tcpx.py`, `tcpxo.py`, `gib.py`) ends with its `FABRIC`, a `GkeFabricSpec`:
which installer image a stack runs, what else its fabric layer puts in the cluster, the checks of
its image overrides and its pod wiring. Its facts (the installer per node architecture, the key of
its pinned images, the NRI device injector) are its entry in the catalog's `fabrics:`. The specs
are looked up by `fabrics.fabric_of`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...catalog import Fabric, FabricFacts, catalog
from ...problems import Problem

if TYPE_CHECKING:
    # The layer's args, which import the Kubernetes SDK: not needed to run the rules.
    from ..fabric_args import GkeFabricArgs


@dataclass(frozen=True)
class GkeFabricSpec:
    """One GKE GPU fabric. Every function takes the stack config of a platform on this fabric
    (the machine type decides the fabric, and only that platform's model builds the machine)."""

    fabric: Fabric
    installer_image: Callable[[Any], str]
    """The NCCL installer image of the stack: its override, or the catalog's pin."""
    add_fabric_args: Callable[[Any, GkeFabricArgs], None]
    """Adds what else the fabric puts in the cluster to the fabric layer's args: the NRI device
    injector (TCPXO), the smoke test (TCPX), the training runtime (gIB on A4X). A pre-wired
    training runtime of another fabric goes here too, beside its pod wiring."""
    image_problems: Callable[[Any], list[Problem]]
    """What is wrong with the stack's overrides of this fabric's images."""
    pod_security: tuple[str, str]
    """The Pod Security level the training namespace enforces for this fabric's pods, and why
    (Kubernetes docs, "Pod Security Standards": Baseline forbids host paths, host networking,
    privileged containers and capabilities beyond its default set)."""
    wire_pod: Callable[[dict, Any], dict]
    """A copy of a pod template (`{metadata, spec}`) wired for this fabric on the stack's GPU
    nodes (`with_tcpx`, `with_tcpxo`, `with_gib`), to run on all GPUs of a node: the pod of the
    fabric's training runtime."""
    runtime_security: dict[str, str] = field(default_factory=dict)
    """Why the wired pods need the host network or a privileged container, where they do
    (`TrainingRuntimeSettings`' `host_network_reason`, `privileged_reason`)."""

    @property
    def facts(self) -> FabricFacts:
        """Its entry in the catalog's `fabrics:`."""
        return catalog().fabrics[self.fabric]
