"""The rules of the GPU node pools, over their layer args (`GkeGpuPool`): each pool's (upgrade
room, boot disk, where its nodes come from, its machine on the GKE version) and the set's (names,
one machine type, one zone on a RoCE fabric, one placement policy each). The stack config runs them
on the pools it makes and a hosted `GkeCloud` on the pools it is given (both through
cloud_rules.py), so both refuse the same pools with the same words.

Only the rules of keys a hosted layer does not take (Fast Socket, the accelerator network profile,
the install path, `compactPlacement: false`) read the stack config (checks.py)."""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...catalog import Machine, catalog
from ...problems import MISSING
from ...versions import GKE_VERSION, Version, below, is_minor
from ..cluster.config import SYSTEM_POOL_NAME
from .args import GkeGpuPool, capacity_of, most_nodes
from .version_rules import (
    default_driver_problem,
    min_minor_problem,
    patch_floor_problem,
    unsupported_minor_problem,
)

GKE_MAX_UNAVAILABLE = 1
"""GKE's `maxUnavailable` where a pool sets none (surge upgrades: 0 surge, 1 unavailable)."""


@dataclass(frozen=True)
class PoolProblem:
    field: str | None
    """The `GkeGpuPool` field it is about; None: the cluster's GKE version."""
    value: Any
    message: str
    """What is wrong and the fix."""


def unknown_machine_type(machine_type: str) -> str:
    """What to do about a GPU machine type the catalog does not have."""
    known = sorted(catalog().machines)
    close = difflib.get_close_matches(machine_type, known, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown machine type; {hint}use one of the catalog's: {', '.join(known)}"


def boot_disk_type_problem(machine: Machine, machine_type: str, disk_type: str) -> str | None:
    """What to do about a boot disk type the machine cannot boot from (None: it can)."""
    if disk_type in machine.boot_disk_types:
        return None
    return f"{machine_type} boots from {', '.join(machine.boot_disk_types)} only; use one of them"


def pool_problems(pool: GkeGpuPool, machine: Machine) -> list[PoolProblem]:
    """Every problem of the pool on its own; `machine`: its machine type's catalog entry."""
    problems = []
    disk = pool["boot_disk_type"]
    wrong_disk = boot_disk_type_problem(machine, pool["machine_type"], disk)
    if wrong_disk is not None:
        problems.append(PoolProblem("boot_disk_type", disk, wrong_disk))
    surge = pool.get("max_surge", 0)
    unavailable = pool.get("max_unavailable", GKE_MAX_UNAVAILABLE)
    if surge == unavailable == 0:
        # GKE (and cluster-toolkit gke-node-pool's precondition): "At least one of
        # max_unavailable or max_surge must greater than 0".
        problems.append(
            PoolProblem(
                "max_unavailable",
                0,
                "maxSurge and maxUnavailable are both 0, so an upgrade could never replace a "
                "node; set maxUnavailable: 1 (or maxSurge: 1 where capacity allows)",
            )
        )
    problems += _placement_problems(pool, machine)
    problems += _capacity_problems(pool, machine)
    nodes = most_nodes(pool)
    for field, value in (("max_surge", surge), ("max_unavailable", unavailable)):
        # A surge upgrade works through the pool's nodes, at most all of them at once (GKE,
        # "Node pool upgrade strategies", https://cloud.google.com/kubernetes-engine/docs/
        # concepts/node-pool-upgrade-strategies): a larger number cannot act beyond them.
        if value > max(nodes, 1):
            problems.append(
                PoolProblem(
                    field,
                    value,
                    f"more than the pool's {nodes} node(s): an upgrade takes at most all of them "
                    f"at once, so it acts as {nodes}; write {max(nodes, 1)} or fewer (each "
                    "surge node is one more GPU VM of quota or reservation)",
                )
            )
    return problems


def _placement_problems(pool: GkeGpuPool, machine: Machine) -> list[PoolProblem]:
    """The pool's name beside the system pool's, and where its nodes come from: reserved capacity
    for a reservation-bound machine (A4X: Compute Engine docs, "About instances that use the
    reservation-bound model"), at most one NVLink domain under a bounded compact placement (A4X
    `1x72`: 18 nodes)."""
    problems = []
    machine_type = pool["machine_type"]
    if pool["name"] == SYSTEM_POOL_NAME:
        problems.append(
            PoolProblem(
                "name",
                pool["name"],
                "the stack's CPU system pool is called 'system'; give the GPU pool another name",
            )
        )
    # (A capacity other than on-demand is the capacity rules' to refuse: one problem per fix.)
    if machine.reservation_bound and capacity_of(pool) == "on-demand":
        problems.append(
            PoolProblem(
                "reservation",
                MISSING,
                f"{machine_type} capacity is reservation-bound: a pool without a reservation "
                "cannot be provisioned; name the reservation (or NAME/reservationBlocks/BLOCK)",
            )
        )
    limit, nodes = machine.max_nodes_per_placement, most_nodes(pool)
    if pool.get("compact_placement_name") and limit is not None and nodes > limit:
        topology = machine.placement.get("workload_policy", {}).get("accelerator_topology", "")
        problems.append(
            PoolProblem(
                "max_node_count" if "max_node_count" in pool else "node_count",
                nodes,
                f"a {machine_type} pool under its {topology} workload policy holds at most "
                f"{limit} nodes (one NVLink domain); use {limit} or fewer, and another pool (and "
                "reservation) for more",
            )
        )
    return problems


def _queued_problems(pool: GkeGpuPool, capacity: str) -> list[PoolProblem]:
    """Queued provisioning: flex-start nodes from zero, not compactly placed (GKE docs, "About
    GPU obtainability with flex-start": `--flex-start --enable-queued-provisioning`;
    cluster-toolkit's gke-node-pool preconditions: min 0 nodes, no COMPACT placement)."""
    problems = []
    if capacity != "flex-start":
        problems.append(
            PoolProblem(
                "queued_provisioning",
                True,
                f"queued provisioning takes flex-start nodes, and the pool's capacity is "
                f"{capacity}; set capacity: flex-start, or remove it",
            )
        )
    if pool["node_count"] != 0:
        problems.append(
            PoolProblem(
                "node_count",
                pool["node_count"],
                "a queued pool keeps no node between jobs (its nodes come with a job's "
                "ProvisioningRequest); set 0",
            )
        )
    if pool.get("compact_placement_name"):
        problems.append(
            PoolProblem(
                "queued_provisioning",
                True,
                "a queued pool is not compactly placed (cluster-toolkit's gke-node-pool); turn "
                "compact placement off",
            )
        )
    return problems


FLEX_START_MIN_GKE = "1.32.2-gke.1652000"
"""GKE's first version with flex-start GPU node pools (GKE docs, "About GPU obtainability with
flex-start", Requirements: https://cloud.google.com/kubernetes-engine/docs/concepts/dws)."""


def _capacity_problems(pool: GkeGpuPool, machine: Machine) -> list[PoolProblem]:
    """Where the nodes come from, as cluster-toolkit's gke-node-pool preconditions allow
    (main.tf): a reservation only with `capacity: reservation`; flex-start with the autoscaler,
    on a machine Compute Engine offers as flex-start VMs, compactly placed only where allowed;
    a reservation-bound machine from its reservation only."""
    capacity = capacity_of(pool)
    machine_type = pool["machine_type"]
    problems = []
    if pool.get("reservation") and capacity != "reservation":
        problems.append(
            PoolProblem(
                "reservation",
                pool["reservation"],
                f"a {capacity} pool consumes no reservation (cluster-toolkit's gke-node-pool: "
                "flex-start and Spot take NO_RESERVATION); remove it, or set capacity: "
                "reservation",
            )
        )
    if capacity == "reservation" and not pool.get("reservation"):
        problems.append(
            PoolProblem(
                "reservation",
                MISSING,
                "capacity: reservation needs the reservation to consume; name it (or "
                "NAME/reservationBlocks/BLOCK), or pick another capacity",
            )
        )
    if machine.reservation_bound and capacity not in ("reservation", "on-demand"):
        problems.append(
            PoolProblem(
                "capacity",
                capacity,
                f'{machine_type} capacity is reservation-bound (Compute Engine docs, "About '
                'instances that use the reservation-bound model"); use capacity: reservation',
            )
        )
    elif capacity == "flex-start" and not machine.flex_start:
        problems.append(
            PoolProblem(
                "capacity",
                capacity,
                f'Compute Engine offers no flex-start VMs of {machine_type} ("About flex-start '
                'VMs": every accelerator-optimized type but A4X and G4); use reservation',
            )
        )
    if capacity == "flex-start":
        if "max_node_count" not in pool:
            problems.append(
                PoolProblem(
                    "max_node_count",
                    MISSING,
                    "flex-start nodes come as the autoscaler asks for them (no fixed node "
                    "count: cluster-toolkit, XPK `--enable-autoscaling`); set "
                    "autoscaling.maxNodes, and nodeCount to the nodes to keep (0 is usual)",
                )
            )
        if pool.get("compact_placement_name") and not machine.flex_start_compact_placement:
            problems.append(
                PoolProblem(
                    "capacity",
                    capacity,
                    f"a flex-start pool of {machine_type} cannot be compactly placed "
                    "(cluster-toolkit's gke-node-pool allows it on a3-ultragpu and a4 only); "
                    "turn compact placement off, or pick another capacity",
                )
            )
    if pool.get("queued_provisioning"):
        problems += _queued_problems(pool, capacity)
    most = pool.get("max_node_count")
    if most is not None and most < pool["node_count"]:
        problems.append(
            PoolProblem(
                "max_node_count",
                most,
                f"below the pool's nodeCount ({pool['node_count']}), the fewest the autoscaler "
                "keeps; raise it or lower nodeCount",
            )
        )
    return problems


def version_problems(version: Version, pool: GkeGpuPool, machine: Machine) -> list[PoolProblem]:
    """The pool's machine on the cluster's GKE `version`: its minor (the first problem only: one
    fix), and where the version is a full one, its patch floor and GKE's default driver (a
    minor's patch is checked once GKE resolves it, at preview: engine_versions.py)."""
    machine_type = pool["machine_type"]
    found = [
        min_minor_problem(machine, machine_type, version),
        None if is_minor(version) else patch_floor_problem(machine, version),
        None
        if pool.get("allow_unsupported_gke_version")
        else unsupported_minor_problem(machine, machine_type, version),
    ]
    problems = [PoolProblem(None, version.text, p) for p in found if p][:1]
    if capacity_of(pool) == "flex-start" and below(version, GKE_VERSION.parse(FLEX_START_MIN_GKE)):
        problems.append(
            PoolProblem(
                None,
                version.text,
                f'flex-start GPU pools need GKE {FLEX_START_MIN_GKE} or later (GKE docs, "About '
                'GPU obtainability with flex-start"); pick that version or a later minor',
            )
        )
    if pool["gpu_driver_version"] == "DEFAULT" and not is_minor(version):
        old_driver = default_driver_problem(machine, machine_type, version)
        if old_driver:
            problems.append(PoolProblem("gpu_driver_version", "DEFAULT", old_driver))
    return problems


def zone_problem(zone: str, region: str, region_key: str) -> str | None:
    """A pool's zone that is not one of the cluster's region (a region's zones are its name, a
    hyphen and a letter: us-central1-a); a near miss (us-central1a, US-CENTRAL1-A) gets the zone
    it was probably meant to be. `region_key`: where the caller's user writes the region."""
    if zone.startswith(f"{region}-") and re.fullmatch(r"[a-z]+-[a-z]+\d+-[a-z]", zone):
        return None
    zones = [f"{region}-{letter}" for letter in string.ascii_lowercase]
    close = difflib.get_close_matches(zone.lower(), zones, n=1, cutoff=0.8)
    hint = f"did you mean {close[0]}? " if close else f"use e.g. {region}-a, "
    return f"not a zone of region {region}; {hint}or change {region_key}"


def pool_set_problems(pools: Sequence[Mapping[str, Any]]) -> list[tuple[int, PoolProblem]]:
    """The pools of one cluster (each with its `name`, `machine_type` and `zone`), as (index,
    problem): unique names; one machine type; one zone where the fabric's VPCs are zonal (a RoCE
    network profile)."""
    problems: list[tuple[int, PoolProblem]] = []
    first, seen = pools[0], set()
    for i, pool in enumerate(pools):
        if pool["name"] in seen:
            problems.append(
                (
                    i,
                    PoolProblem(
                        "name",
                        pool["name"],
                        "another pool has this name; node pool names are unique in a cluster, "
                        "give each pool its own",
                    ),
                )
            )
        seen.add(pool["name"])
        if pool["machine_type"] != first["machine_type"]:
            problems.append(
                (
                    i,
                    PoolProblem(
                        "machine_type",
                        pool["machine_type"],
                        f"the pools of a cluster share one fabric's VPCs, Network objects and "
                        f"installer, built for {first['machine_type']} (gpuPools[0]); gIB cannot "
                        "share a cluster with TCPX/TCPXO. Use a separate stack for this machine "
                        "type",
                    ),
                )
            )
    owner: dict[str, int] = {}
    for i, pool in enumerate(pools):
        policy = pool.get("compact_placement_name")
        if not policy:
            continue
        if policy in owner and pool["name"] not in [p["name"] for p in pools[:i]]:
            problems.append(
                (
                    i,
                    PoolProblem(
                        "compact_placement_name",
                        policy,
                        f"gpuPools[{owner[policy]}] has this compact placement policy, and two "
                        "pools cannot own one; give the pools names that differ (a pool's policy "
                        "is named after the cluster and the pool)",
                    ),
                )
            )
        owner.setdefault(policy, i)
    machine = catalog().machines.get(first["machine_type"])
    if machine and any(g.network_profile for g in machine.nic_groups):
        problems += [
            (
                i,
                PoolProblem(
                    "zone",
                    pool["zone"],
                    f"the RDMA VPC's RoCE network profile is zonal ({first['zone']}, from "
                    "gpuPools[0]) and the pools share it and its fixed Network objects; put "
                    f"every pool in {first['zone']}, or use a separate stack for another zone",
                ),
            )
            for i, pool in enumerate(pools)
            if pool["zone"] != first["zone"]
        ]
    return problems
