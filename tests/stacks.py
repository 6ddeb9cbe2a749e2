"""The repository's stack files, chosen by what they are (their platform, the layers they run),
never by name: a user adds stacks of their own, and the suite covers those too."""

from __future__ import annotations

import functools

from gpu_fabric.registry import spec_of
from offline import engine

STACKS = engine.stack_names()
"""Every stack file in stacks/."""


def platform_of(stack: str) -> str:
    """The stack's `gpu-fabric:platform` (a fabric stack's is its cloud stack's, written in it)."""
    return engine.stack_config(stack)["gpu-fabric:platform"]


def stacks_on(package: str) -> list[str]:
    """The stacks of one platform package (`gke`, `oke`, `ack`) that fill a cluster."""
    return [s for s in APPLYING_STACKS if spec_of(platform_of(s)).package == package]


def cloud_stacks_on(package: str) -> list[str]:
    """The stacks of one platform package that run its cloud layer (`layers: all` or `cloud`)."""
    return [
        s
        for s in STACKS
        if engine.stack_config(s).get("gpu-fabric:layers") != "fabric"
        and spec_of(platform_of(s)).package == package
    ]


APPLYING_STACKS = [s for s in STACKS if engine.stack_config(s).get("gpu-fabric:layers") != "cloud"]
"""Every stack file that fills a cluster (`layers: all` or `fabric`)."""


@functools.cache
def stack_of_machine() -> dict[str, str]:
    """A stack file of each machine type the stacks build (their `hardware(cfg)`: a GKE pool's
    machine type, an OKE shape, an ACK Lingjun type), the first in name order."""
    from tests.conftest import parse_stack

    found: dict[str, str] = {}
    for stack in sorted(STACKS):
        if engine.stack_config(stack).get("gpu-fabric:layers") == "fabric":
            continue  # its cloud stack builds the machines
        cfg = parse_stack({}, stack)
        machine = spec_of(cfg.platform).hardware(cfg).machine
        if machine is not None:
            found.setdefault(machine, stack)
    return found


def stack_with_default_capacity(machine: str) -> str:
    """A stack file of `machine` whose GPU pool sets no `capacity` (its reservation, if it names
    one, or on-demand VMs), the first in name order."""
    from tests.conftest import stack_values

    return next(
        stack
        for stack in sorted(STACKS)
        if (pool := stack_values(stack).get("gpu-fabric:gpuPool"))
        and pool.get("machineType") == machine
        and "capacity" not in pool
    )


def _fills_a_cluster_through_its_file(stack: str) -> bool:
    from tests.conftest import fabric_stack_of

    layers = engine.stack_config(stack).get("gpu-fabric:layers", "all")
    return layers == "all" or (layers == "cloud" and fabric_stack_of(stack) is not None)


CLUSTER_KEY_STACKS = [s for s in STACKS if _fills_a_cluster_through_its_file(s)]
"""Every stack file that holds the cluster's keys and fills a cluster: one running both layers,
or a cloud stack with its fabric stack beside it (`run_stack` plans the two as one). A key of the
cloud layer that the fabric layer reads too (`storage`) is tested on these."""


def cluster_key_stacks_on(package: str) -> list[str]:
    """`CLUSTER_KEY_STACKS` of one platform package (`gke`, `oke`, `ack`)."""
    return [s for s in CLUSTER_KEY_STACKS if spec_of(platform_of(s)).package == package]
