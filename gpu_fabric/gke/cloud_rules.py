"""Every rule of GKE's cloud layer over its args (`GkeCloudArgs`): the cluster's, the networks'
and each pool's (their concern folders' rules.py). A hosted `GkeCloud` runs them on the args it is
given (inputs.py), a stack file on the args its config makes (checks.py); `name` writes a path in
the caller's words (a property path, or the stack key that wrote it: `from_stack.stack_key_of`),
for a message that names another path."""

from __future__ import annotations

from collections.abc import Callable

from ..catalog import catalog
from ..layer_inputs import ArgsPath, ArgsProblem
from ..versions import gke_version_or_minor
from .cloud_args import GkeCloudArgs
from .cluster.rules import cluster_problems
from .network.rules import (
    capacity_problems,
    firewall_problems,
    gpu_network_problems,
    overlap_problems,
    pod_range_problems,
    services_range_problems,
)
from .pool.rules import (
    PoolProblem,
    pool_problems,
    pool_set_problems,
    version_problems,
    zone_problem,
)


def _at(index: int, problem: PoolProblem) -> ArgsProblem:
    """A pool's problem at its path (`gpu_pools[i].field`, or the cluster's `version`)."""
    path: ArgsPath = ("version",) if problem.field is None else ("gpu_pools", index, problem.field)
    return ArgsProblem(path, problem.value, problem.message)


def cloud_problems(args: GkeCloudArgs, name: Callable[[ArgsPath], str]) -> list[ArgsProblem]:
    """Every problem of the args, on fields each valid on its own (and machine types of the
    catalog): the pools as a set first (one machine type, unique names; the rest waits for
    those), then the networks the machine's NICs take, the ranges, and each pool."""
    problems = cluster_problems(args)
    pools = args["gpu_pools"]
    if not pools:
        return [*problems, ArgsProblem(("gpu_pools",), [], "give at least one GPU node pool")]
    pool_set = [_at(i, p) for i, p in pool_set_problems(pools)]
    if pool_set:
        return problems + pool_set
    machine_type = pools[0]["machine_type"]
    machine = catalog().machines[machine_type]
    layout = gpu_network_problems(machine, machine_type, args["gpu_networks"])
    problems += layout
    if not layout:
        problems += firewall_problems(machine, args["gpu_networks"])
    problems += overlap_problems(args, name)
    problems += capacity_problems(args)
    problems += pod_range_problems(args, name)
    problems += services_range_problems(args)
    version = gke_version_or_minor(args["version"])
    for i, pool in enumerate(pools):
        wrong_zone = zone_problem(pool["zone"], args["region"], name(("region",)))
        if wrong_zone:
            problems.append(ArgsProblem(("gpu_pools", i, "zone"), pool["zone"], wrong_zone))
        for p in [*version_problems(version, pool, machine), *pool_problems(pool, machine)]:
            problem = _at(i, p)
            if problem not in problems:  # one version problem, however many pools share it
                problems.append(problem)
    return problems
