"""The rules of GKE's `lustre` volumes that read other keys."""

from __future__ import annotations

from collections.abc import Sequence

from ...problems import Problem
from ...problems import key as _key
from ...versions import GKE_VERSION, below, gke_version_or_minor
from .config import LustreVolumeConfig
from .driver import MIN_GKE


def lustre_problems(
    volumes: Sequence[tuple[str, LustreVolumeConfig]], version: str, arch: str, own_network: bool
) -> list[Problem]:
    """Managed Lustre on the cluster's GKE (`version`) and nodes' architecture (`arch`); an
    instance the stack creates is reached through Private Service Access on a VPC the stack
    creates (`own_network`): a VPC has one such peering, which may already serve others."""
    problems = []
    floor = MIN_GKE["arm64" if arch == "arm64" else "amd64"]
    for use, lustre in volumes:
        if below(gke_version_or_minor(version), GKE_VERSION.parse(floor)):
            problems.append(
                Problem(
                    _key(f"storage.{use}.lustre"),
                    None,
                    f"Managed Lustre mounts on GKE {floor} or later on {arch} nodes (GKE docs, "
                    f'"About Managed Lustre on GKE"), and gpu-fabric:gke.version is {version}: '
                    "pick a later version",
                )
            )
        if lustre.create is not None and not own_network:
            problems.append(
                Problem(
                    _key(f"storage.{use}.lustre.create"),
                    None,
                    "the stack creates an instance with Private Service Access on the VPC it "
                    "creates, and this stack uses an existing one (network.primary.existing), "
                    "whose one Private Service Access peering may already serve other services: "
                    "create the instance in that VPC yourself and name it (instance, zone, ip, "
                    "filesystem)",
                )
            )
    return problems
