"""Plan your own Pulumi program offline, as this repository plans its stacks: in-process, under
Pulumi mocks that answer as each cloud would (no CLI, no plugins, no cloud), every registration
recorded with the inputs that reached the engine.

    from gpu_fabric import GkeCloud, GkeFabric
    from gpu_fabric.gke import a3_high
    from gpu_fabric.testing import plan

    def program():
        a3 = a3_high("train", ...)
        cloud = GkeCloud("train", a3.cloud_args)
        GkeFabric("train", a3.fabric_args(cloud))

    result = plan(program)
    pools = result.of_type("gcp:container/nodePool:NodePool")

`preview=True` plans as `pulumi preview` runs: every output a provider computes unknown. A
program that reads another stack gets `stack_outputs` (by stack reference). A program that raises
raises here (a layer's refused args, a preview check); the next plan starts clean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .engine import Plan, Registration, run_program

__all__ = ["Plan", "Registration", "plan"]


def plan(
    program: Callable[[], Any],
    *,
    stack: str = "test",
    project: str = "test",
    config: Mapping[str, str] | None = None,
    secret_keys: list[str] | None = None,
    stack_outputs: Mapping[str, Mapping[str, Any]] | None = None,
    preview: bool = False,
) -> Plan:
    """Run `program` as stack `stack` of `project` under the mocks; returns what it registered
    (`Plan`: its resources, in order, and its stack outputs). `config` is the stack's config as
    Pulumi hands it to a program (`ns:key` -> text, objects as JSON text)."""
    return run_program(
        program,
        Plan(stack=stack),
        project=project,
        config=dict(config or {}),
        secret_keys=secret_keys,
        stack_outputs={k: dict(v) for k, v in (stack_outputs or {}).items()},
        preview=preview,
    )
