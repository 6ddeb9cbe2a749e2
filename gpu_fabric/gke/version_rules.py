"""A machine's GKE patch rules, one message each: the stack config checks them on a version it
names in full (checks.py), and the preview on the patch GKE resolves a minor to
(engine_versions.py)."""

from __future__ import annotations

from ..catalog import Machine
from ..versions import GKE_VERSION, Version


def patch_floor_problem(machine: Machine, version: Version) -> str | None:
    """The fabric's patch floor of the version's minor (catalog `gke.floors`), if it is below."""
    floor = machine.gke.floor_for(version.minor)
    if floor and version < floor:
        return (
            f"below the {machine.fabric} floor {floor} for minor {version.minor}; pick {floor} or "
            "newer"
        )
    return None


def default_driver_problem(machine: Machine, machine_type: str, version: Version) -> str | None:
    """GKE's default GPU driver on `version`, if too old for the machine (catalog
    `gke.default_driver_from`; GKE's A4/A3 Ultra doc, "Requirements": R550 on A3 Ultra)."""
    driver_from = machine.gke.default_driver_from
    if driver_from is not None and version < GKE_VERSION.parse(driver_from):
        return (
            f"GKE {version.text}'s default GPU driver is too old for {machine_type} (it needs R550 "
            f"or newer, GKE's default only from {driver_from}); use gpuDriverVersion LATEST, or "
            f"GKE {driver_from} or newer"
        )
    return None
