"""GKE's GPU fabrics, by `Fabric`: the one place that lists their modules."""

from __future__ import annotations

from ...catalog import Fabric, Machine, catalog
from . import gib, tcpx, tcpxo
from .spec import GkeFabricSpec

FABRICS: dict[Fabric, GkeFabricSpec] = {
    spec.fabric: spec for spec in (tcpx.FABRIC, tcpxo.FABRIC, gib.FABRIC)
}


def fabric_of(machine: Machine) -> GkeFabricSpec:
    """The spec of a GKE machine type's fabric."""
    return FABRICS[machine.fabric]


def platform_fabric(platform: str) -> GkeFabricSpec:
    """The spec of a GKE platform's fabric: its machine types' (the catalog gives them one)."""
    (fabric,) = {m.fabric for m in catalog().machines_of(platform).values()}
    return FABRICS[fabric]
