"""A GKE minor (`gke.version: "1.33"`) resolved to the patch GKE offers now, at preview.

An exact patch stops being offered some months after its release, and a new cluster or pool at it
then fails; a minor always resolves to one that is offered. It is read as cluster-toolkit's
gke-cluster reads `version_prefix` (modules/scheduler/gke-cluster/main.tf,
`google_container_engine_versions`): the newest patch of the release channel, or without one the
newest master version. The machine's patch floors are checked on that patch, before anything
uses it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_gcp as gcp

from ..catalog import catalog
from ..layers import result_field
from ..versions import GKE_VERSION, gke_version_or_minor, is_minor
from .cluster.component import in_a_channel
from .pool.version_rules import default_driver_problem, patch_floor_problem


class ResolvedVersionTooOld(pulumi.RunError):
    """GKE's newest patch of the minor is below a machine's floor (printed without a stack)."""


def floor_problems(version: str, pools: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a resolved `version` lacks for the pools' machines: the fabric's patch floor of its
    minor, and the default GPU driver's floor where a pool takes GKE's default driver."""
    resolved = GKE_VERSION.parse(version)
    problems = []
    for pool in pools:
        machine = catalog().machines[pool["machine_type"]]
        found = [patch_floor_problem(machine, resolved)]
        if pool.get("gpu_driver_version") == "DEFAULT":
            found.append(default_driver_problem(machine, pool["machine_type"], resolved))
        problems += [f"{pool['name']}: {problem}" for problem in found if problem]
    return problems


def resolved_version(
    version: str,
    location: str,
    release_channel: str,
    pools: Sequence[Mapping[str, Any]],
    parent: pulumi.Resource,
) -> pulumi.Input[str]:
    """`version` as the cluster takes it: a full version as written, a minor as GKE's newest
    patch of it now (in `release_channel`, if any), once it meets every pool's floors."""
    if not is_minor(gke_version_or_minor(version)):
        return version
    offered = gcp.container.get_engine_versions_output(
        location=location,
        # A trailing dot, so that 1.3 cannot match 1.30 (cluster-toolkit's advice).
        version_prefix=f"{version}.",
        opts=pulumi.InvokeOutputOptions(parent=parent),
    )

    def newest(result: Any) -> str:
        latest = result_field(result, "latest_master_version")
        if in_a_channel(release_channel):
            by_channel = result_field(result, "release_channel_latest_version") or {}
            latest = by_channel.get(release_channel) or latest
        if not latest:
            # The version is a creation floor (the cluster ignores it once made), so a running
            # cluster whose minor GKE stopped offering is fine: the preview warns and goes on.
            # GKE takes the minor itself as a version alias ("1.X": GKE API, Cluster
            # `initialClusterVersion`), so a new cluster fails only at GKE, naming the version.
            channel = f"in the {release_channel} channel " if in_a_channel(release_channel) else ""
            pulumi.log.warn(
                f"gke.version {version}: GKE offers no {version} version in {location} {channel}"
                "any more: a running cluster keeps what it runs, but a new cluster or pool at it "
                "fails; move gke.version to a minor `gcloud container get-server-config` lists",
                parent,
            )
            return version
        problems = floor_problems(latest, pools)
        if problems:
            raise ResolvedVersionTooOld(
                f"gke.version {version} resolves to {latest} in {location}, and "
                + "; ".join(problems)
                + ": pin a full version at or above the floor, or pick a newer minor"
            )
        return latest

    return offered.apply(newest)
