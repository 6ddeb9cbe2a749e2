"""A stack file copied from another one that kept its names or exclusive resources is refused: it
would take over, or collide with, the other stack's cloud resources."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..problems import NAMESPACE, ConfigError, Problem
from ..problems import key as stack_key
from ..registry import spec_of
from ..stack_file import file_config_and_secrets
from .references import referenced_stack

PLATFORM_KEY = f"{NAMESPACE}:platform"


def copied_stack_problems(
    stack: str, cfg, stacks_dir: Path, project: str, parse: Callable[..., Any]
) -> list[Problem]:
    """Names this stack shares with another stack file in the same scope, and cloud resources
    that only one owner may hold (`exclusive_resources`): a copied stack file that kept the
    other's would take over (or collide with) its resources. A cloud stack and its fabric stack
    (`_same_deployment`) share them by design. `parse`: how the other stack files are read
    (`loading.parse_pulumi_config`, which runs this check)."""
    mine = {scoped: key for key, scoped in cfg.owned_names.items()}
    my_exclusive = {
        (scope, what): (key, why) for key, (scope, what, why) in exclusive_resources(cfg).items()
    }
    same_cloud = frozenset(spec_of(cfg.platform).platforms)
    problems = []
    for path in sorted(stacks_dir.glob("Pulumi.*.yaml")):
        other = path.name[len("Pulumi.") : -len(".yaml")]
        if other == stack:
            continue
        theirs = _other_stack(path, path.stat().st_mtime_ns, project, same_cloud, parse)
        if theirs is None:
            continue  # a broken stack file is that stack's problem, reported when it runs
        if _same_deployment(cfg, stack, theirs, other):
            continue  # a cloud stack and its fabric stack share the cluster by design
        for scoped in set(mine) & set(theirs.owned_names.values()):
            scope, name = scoped
            key = mine[scoped]
            problems.append(
                Problem(
                    stack_key(key),
                    name.rsplit(" ", 1)[-1],
                    f"stack {other} ({path.name}) already uses {name} in {scope}; is this a copy "
                    "of its stack file? Give this stack names of its own",
                )
            )
        their_exclusive = {(s, w) for s, w, _ in exclusive_resources(theirs).values()}
        for scoped in sorted(set(my_exclusive) & their_exclusive):
            scope, what = scoped
            key, why = my_exclusive[scoped]
            problems.append(
                Problem(
                    stack_key(key),
                    what.rsplit(" ", 1)[-1],
                    f"stack {other} ({path.name}) already uses {what} in {scope}, and {why}; is "
                    f"this a copy of its stack file? Give stack {stack} its own (or make it "
                    f"{other}'s fabric stack, gpu-fabric:cloudStack: {other})",
                )
            )
    return problems


def exclusive_resources(cfg) -> dict[str, tuple[str, str, str]]:
    """Existing cloud resources a stack names (not derives from its own names) that the cloud lets
    only one owner hold: stack key -> (scope, resource, why only one), from the platform model's
    `exclusive_resources` (GKE: reservations; ACK: the Lingjun node group).

    OKE has none: the compute cluster and the GPU nodes are created by the stack (named after
    `oke.name`, checked by `owned_names`), and an existing VCN and its subnets may hold several
    OKE clusters (OKE docs, "Network Resource Configuration for Cluster Creation and
    Deployment": clusters can share a VCN and subnets).
    """
    return dict(getattr(cfg, "exclusive_resources", {}))


@functools.lru_cache(maxsize=64)
def _other_stack(
    path: Path, mtime_ns: int, project: str, same_cloud: frozenset[str], parse: Callable[..., Any]
):
    """Another stack file of a platform on the same cloud (`same_cloud`: its platforms), parsed;
    None if it does not parse or is on another cloud, whose names and resources live in another
    cloud's scopes. Kept while the file is unchanged: every plan compares itself with every
    other stack file. Read as the planned stack is read (`stack_file.file_config_and_secrets`)."""
    other = path.name[len("Pulumi.") : -len(".yaml")]
    try:
        values, secret_keys = file_config_and_secrets(path)
        if values.get(PLATFORM_KEY) not in same_cloud:
            return None
        return parse(values, other, project, None, secret_keys)
    except (ConfigError, ValueError, OSError):
        return None


def _same_deployment(cfg, stack: str, theirs, other: str) -> bool:
    return any(
        fabric.cloud_stack is not None and referenced_stack(fabric.cloud_stack) == cloud
        for fabric, cloud in ((cfg, other), (theirs, stack))
    )
