"""A fabric stack's `gpu-fabric:cloudStack`, checked against the stack file it names.

Where the named stack has a file beside this one, it must be the cloud layer of this stack's
platform: a reference to this stack itself, to a fabric stack, to a stack that runs both layers
(both would own the same in-cluster objects: the second `pulumi up` fails with AlreadyExists) or
to another platform's stack is a problem that says what the named stack is. A stack of another
organization or project has no file here; the program's StackReference reads it.
"""

from __future__ import annotations

from pathlib import Path

from ..config_base import Layers
from ..problems import NAMESPACE, ConfigError, Problem
from ..problems import key as stack_key
from ..registry import spec_of
from ..stack_file import file_config_and_secrets

KEY = stack_key("cloudStack")


def referenced_stack(reference: str) -> str:
    """The stack name of a `gpu-fabric:cloudStack` reference (`org/project/stack` or `stack`)."""
    return reference.rsplit("/", 1)[-1]


def cloud_stack_problems(stack: str, cfg, stacks_dir: Path, project: str) -> list[Problem]:
    """What is wrong with the stack `cfg.cloud_stack` names, as far as its file here tells."""
    reference = cfg.cloud_stack
    if reference is None or cfg.layers is not Layers.FABRIC:
        return []
    named = referenced_stack(reference)
    parts = reference.split("/")
    if named == stack and (len(parts) == 1 or parts[1] == project):
        return [
            Problem(
                KEY,
                reference,
                "names this stack itself; name the stack that runs this cluster's cloud layer "
                "(gpu-fabric:layers: cloud)",
            )
        ]
    path = stacks_dir / f"Pulumi.{named}.yaml"
    if "/" in reference or not path.is_file():
        return []
    try:
        values, _ = file_config_and_secrets(path)
    except (ConfigError, ValueError, OSError):
        return []  # a broken stack file is that stack's problem, reported when it runs
    theirs = values.get(f"{NAMESPACE}:platform")
    layers = values.get(f"{NAMESPACE}:layers", Layers.ALL.value)
    mine = getattr(cfg.platform, "value", cfg.platform)
    if theirs != mine:
        other_cloud = theirs not in spec_of(mine).platforms
        what = "a platform of another cloud" if other_cloud else "another platform"
        return [
            Problem(
                KEY,
                reference,
                f"names stack {named}, which runs {theirs} ({what}) and this stack {mine}; name "
                f"the cloud stack of this stack's {mine} cluster",
            )
        ]
    if layers == Layers.FABRIC.value:
        theirs_reads = values.get(f"{NAMESPACE}:cloudStack")
        fix = (
            f"name the cloud stack it reads too ({theirs_reads})"
            if isinstance(theirs_reads, str) and _is_cloud_stack(stacks_dir, theirs_reads)
            else "name the stack whose file sets gpu-fabric:layers: cloud (the one that runs "
            "this cluster's network, cluster and GPU nodes)"
        )
        return [
            Problem(
                KEY,
                reference,
                f"names stack {named}, a fabric stack itself (gpu-fabric:layers: fabric); {fix}",
            )
        ]
    if layers != Layers.CLOUD.value:
        return [
            Problem(
                KEY,
                reference,
                f"names stack {named}, which runs both layers (gpu-fabric:layers: {layers}): both "
                "stacks would own the same in-cluster objects, and the second `pulumi up` fails "
                f"with AlreadyExists; set gpu-fabric:layers: cloud in {path.name} first (its "
                "`pulumi up` deletes the in-cluster objects, which this stack then creates), or "
                "remove this stack",
            )
        ]
    return []


def _is_cloud_stack(stacks_dir: Path, reference: str) -> bool:
    """Whether the stack file `reference` names beside this one runs the cloud layer alone."""
    if "/" in reference:
        return True  # another project's stack: its file is not here to read
    path = stacks_dir / f"Pulumi.{referenced_stack(reference)}.yaml"
    try:
        values, _ = file_config_and_secrets(path)
    except (ConfigError, ValueError, OSError):
        return False
    return values.get(f"{NAMESPACE}:layers") == Layers.CLOUD.value


def fabric_stacks_reading(stack: str, stacks_dir: Path, project: str) -> list[str]:
    """The fabric stacks beside this one whose `gpu-fabric:cloudStack` names this stack."""
    readers = []
    for path in sorted(stacks_dir.glob("Pulumi.*.yaml")):
        try:
            values, _ = file_config_and_secrets(path)
        except (ConfigError, ValueError, OSError):
            continue  # a broken stack file is that stack's problem, reported when it runs
        reference = values.get(f"{NAMESPACE}:cloudStack")
        if values.get(f"{NAMESPACE}:layers") != Layers.FABRIC.value:
            continue
        if not isinstance(reference, str) or referenced_stack(reference) != stack:
            continue
        parts = reference.split("/")
        if len(parts) == 1 or parts[-2] == project:
            readers.append(path.name[len("Pulumi.") : -len(".yaml")])
    return readers


def fabric_stack_reading(stack: str, stacks_dir: Path, project: str) -> str | None:
    """The stack file beside this one whose `gpu-fabric:cloudStack` names this stack (its fabric
    stack), if any: a fabric key written here is refused naming it."""
    return next(iter(fabric_stacks_reading(stack, stacks_dir, project)), None)


def reader_problems(stack: str, cfg, stacks_dir: Path, project: str) -> list[Problem]:
    """Problems of the fabric stacks that read this stack: two of them (each would own the same
    in-cluster objects), or one under a stack that runs both layers itself."""
    readers = [r for r in fabric_stacks_reading(stack, stacks_dir, project) if r != stack]
    if cfg.layers is Layers.ALL and readers:
        return [
            Problem(
                stack_key("layers"),
                cfg.layers.value,
                f"fabric stack {readers[0]} reads this stack's cloud layer and owns the cluster's "
                "in-cluster objects: running both layers here would create them a second time "
                "(AlreadyExists); set gpu-fabric:layers: cloud, or destroy that stack first "
                f"(pulumi destroy -s {readers[0]}) and remove its file",
            )
        ]
    if cfg.layers is Layers.FABRIC and cfg.cloud_stack:
        named = referenced_stack(cfg.cloud_stack)
        others = [r for r in fabric_stacks_reading(named, stacks_dir, project) if r != stack]
        if others:
            return [
                Problem(
                    KEY,
                    cfg.cloud_stack,
                    f"fabric stack {others[0]} reads cloud stack {named} too: two fabric stacks "
                    "on one cluster would each create the same in-cluster objects (the second "
                    "`pulumi up` fails with AlreadyExists); keep one fabric stack per cloud stack",
                )
            ]
    return []
