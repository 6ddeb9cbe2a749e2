"""The repository's stack files, chosen by what they are (their platform, the layers they run),
never by name: a user adds stacks of their own, and the suite covers those too."""

from __future__ import annotations

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
