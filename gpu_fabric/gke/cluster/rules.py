"""The rules of the cluster's own args (`GkeCloudArgs`: who reaches the control plane, the system
pool's machine type), which a hosted `GkeCloud` and a stack file run alike (cloud_rules.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...catalog import catalog
from ...config_base import WIDEST_PUBLIC_SOURCE, public_addresses
from ...layer_inputs import ArgsProblem

NO_GKE_DRIVER = "INSTALLATION_DISABLED"
"""A pool's `gpu_driver_version` when GKE installs no driver (a bundle does)."""

LOCKED_OUT = (
    "an empty list locks every client out of the control plane, this stack's own Kubernetes "
    "provider included; remove the key or list the ranges that deploy"
)
"""Why the control plane's authorized networks may not be an empty list."""


def system_pool_refusal(machine_type: str) -> str | None:
    """Why the CPU system pool cannot take `machine_type` (a GPU family's; catalog
    `gpu_families.gke`), or None."""
    families = catalog().gpu_families["gke"]
    return families.system_pool_refusal(
        machine_type, "machine type", "CPU type such as e2-standard-4"
    )


def cluster_problems(args: Mapping[str, Any]) -> list[ArgsProblem]:
    """A control plane some client reaches and not the whole internet, and a CPU system pool."""
    problems = []
    networks = args.get("master_authorized_networks")
    if networks == []:
        problems.append(ArgsProblem(("master_authorized_networks",), [], LOCKED_OUT))
    cidrs = [n["cidr_block"] for n in networks or []]
    public = public_addresses(cidrs)
    if public > WIDEST_PUBLIC_SOURCE:
        problems.append(
            ArgsProblem(
                ("master_authorized_networks",),
                cidrs,
                f"together these ranges admit {public:,} public addresses, more than a /8: the "
                "control plane would be open to the internet in all but name; list only the "
                "ranges that deploy and operate the cluster",
            )
        )
    problems += _monitoring_problems(args)
    system = args["system_machine_type"]
    if refusal := system_pool_refusal(system):
        problems.append(ArgsProblem(("system_machine_type",), system, refusal))
    return problems


def _monitoring_problems(args: Mapping[str, Any]) -> list[ArgsProblem]:
    """Managed DCGM metrics where GKE may install its drivers, through managed Prometheus (GKE
    docs, "Collect and view DCGM metrics": enabling them makes GKE install Google-managed
    drivers and send the metrics to Managed Service for Prometheus)."""
    monitoring = args.get("monitoring")
    if not monitoring or not monitoring["dcgm"]:
        return []
    problems = []
    bundled = [p["name"] for p in args["gpu_pools"] if p["gpu_driver_version"] == NO_GKE_DRIVER]
    if bundled:
        problems.append(
            ArgsProblem(
                ("monitoring", "dcgm"),
                True,
                f"GKE's managed DCGM installs Google's GPU drivers, and pool(s) "
                f"{', '.join(bundled)} take theirs from a bundle (GKE's install disabled); turn "
                "dcgm off (run the bundle's own exporter), or let GKE install the driver",
            )
        )
    if not monitoring["managed_prometheus"]:
        problems.append(
            ArgsProblem(
                ("monitoring", "dcgm"),
                True,
                "GKE sends the DCGM metrics through managed Prometheus, which is off; turn "
                "managedPrometheus on, or dcgm off",
            )
        )
    return problems
