"""Merging wiring into a user's pod spec without overwriting what it already says.

Every `with_*` function (`with_tcpx`, `with_gib`, `with_dra_claim`) adds its fields through these:
a field the spec already has with the same value is left alone, one it has with another value is a
ValueError that names it. So a function can run twice on a spec, and never silently changes one.
"""

from __future__ import annotations

import copy


def add_named(items: list[dict], wanted: list[dict], where: str) -> None:
    """Add each item of `wanted` to `items` (volumes, mounts, env vars, claims) by `name`."""
    for item in wanted:
        existing = next((i for i in items if i["name"] == item["name"]), None)
        if existing is not None and existing != item:
            raise ValueError(f"{where} already has a different {item['name']!r}")
        if existing is None:
            items.append(copy.deepcopy(item))


def set_fields(target: dict, wanted: dict, what: str) -> None:
    """Set each key of `wanted` in `target`, a mapping of `what` (annotation, node selector)."""
    for key, value in wanted.items():
        if target.get(key, value) != value:
            raise ValueError(f"the template already sets {what} {key} differently")
        target[key] = value


def add_items(items: list, wanted: list) -> None:
    """Append each of `wanted` (tolerations, capabilities) that `items` does not hold yet."""
    items.extend(copy.deepcopy(item) for item in wanted if item not in items)


def container_named(spec: dict, name: str | None) -> dict:
    """The container called `name`, or the first one."""
    containers = spec.get("containers", [])
    if not containers:
        raise ValueError("the pod template has no containers")
    if name is None:
        return containers[0]
    found = next((c for c in containers if c["name"] == name), None)
    if found is None:
        raise ValueError(f"no container named {name!r}")
    return found


def add_claim(spec: dict, container: dict, claim: str, template: str) -> None:
    """A pod claim from the ResourceClaimTemplate `template`, given to `container` (Kubernetes
    DRA: `spec.resourceClaims` names the template, the container's `resources.claims` the claim)."""
    add_named(
        spec.setdefault("resourceClaims", []),
        [{"name": claim, "resourceClaimTemplateName": template}],
        "the pod's resourceClaims",
    )
    add_named(
        container.setdefault("resources", {}).setdefault("claims", []),
        [{"name": claim}],
        f"container {container['name']}'s claims",
    )


SHELLS = {"/bin/bash": "source", "bash": "source", "/bin/sh": ".", "sh": "."}
"""Shells a container may run its script with, and how each sources a file."""


BASH_ENV = "BASH_ENV"
"""The file bash sources before it runs a script (GNU Bash manual, "Bash Startup Files":
"When bash is started non-interactively, to run a shell script ... it expands BASH_ENV and uses
the value as the name of a file to read and execute")."""


def source_first(container: dict, script: str) -> None:
    """A container that runs a shell script (`command: [bash, -c]`, one script in `args`) sources
    `script` first (a fabric's NCCL settings, as upstream's test pods do). A container with no
    command yet (a training runtime's: each job gives its own) gets `BASH_ENV=script`, so a job
    whose command is a bash script sources it; another container runs as it is (its own entry
    point must source it)."""
    command, args = container.get("command"), container.get("args")
    if command is None and args is None:
        add_named(
            container.setdefault("env", []),
            [{"name": BASH_ENV, "value": script}],
            f"container {container['name']}'s env",
        )
        return
    if not (
        isinstance(command, list)
        and len(command) == 2
        and command[0] in SHELLS
        and command[1] == "-c"
        and isinstance(args, list)
        and len(args) == 1
    ):
        return
    line = f"{SHELLS[command[0]]} {script}"
    if line not in args[0].splitlines():
        container["args"] = [f"{line}\n{args[0]}"]
