"""A machine's GKE version rules, one message each (catalog `machines.<type>.gke`): the stack
config and a hosted `GkeCloud` check them on the version they name (rules.py), and the preview
checks the patch rules again on the patch GKE resolves a minor to (engine_versions.py)."""

from __future__ import annotations

from ...catalog import Machine, minor_tuple
from ...versions import GKE_VERSION, Version


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


def min_minor_problem(machine: Machine, machine_type: str, version: Version) -> str | None:
    """A minor older than the machine's fabric supports (catalog `gke.min_minor`)."""
    if minor_tuple(version.minor) < minor_tuple(machine.gke.min_minor):
        return (
            f"GKE {version.minor} is not supported by {machine.fabric} on {machine_type} (needs "
            f"{machine.gke.min_minor} or newer); pick a newer version"
        )
    return None


def unsupported_minor_problem(machine: Machine, machine_type: str, version: Version) -> str | None:
    """A minor the machine no longer runs on (catalog `gke.unsupported_from_minor`, with why)."""
    rules = machine.gke
    if rules.unsupported_from_minor and minor_tuple(version.minor) >= minor_tuple(
        rules.unsupported_from_minor
    ):
        return (
            f"{machine_type} is not supported on GKE {rules.unsupported_from_minor} or newer: "
            f"{rules.unsupported_reason}. Pick an older minor, or set the pool's "
            "allowUnsupportedGkeVersion: true to accept the risk"
        )
    return None
