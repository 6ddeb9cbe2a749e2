"""A kubectl that answers the node waits' reads from a recorded cluster (a fixture's `nodes`,
`resourceslices` and `pods` lists, as the API server returns them), so a wait script is run
against what a platform's guide shows a node reports, verbatim.

It answers only the reads the waits make (gpu_fabric/node_wait.py): `get nodes -l SELECTOR -o
name`, `get node NAME -o jsonpath=...`, `get resourceslices --field-selector ... -o
jsonpath=...`, `get pods -n NS -l SELECTOR --field-selector ... -o name` and `wait
--for=condition=Ready node -l SELECTOR`, with kubectl's JSONPath templates (`{.a.b\\.c}`,
`{range ...}...{end}`, `{"\\n"}`; a missing key prints nothing, as `kubectl get -o jsonpath`
allows missing keys) and equality or set-based label selectors
(k8s.io/client-go/util/jsonpath, k8s.io/apimachinery/pkg/labels). Run as
`python fake_kubectl.py FIXTURE kubectl-args...`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import yaml


def _field_path(expression: str) -> list[str]:
    """`.items[*].spec.taints[*].key` as steps; `\\.` is a dot inside a key."""
    steps = []
    for part in re.split(r"(?<!\\)\.", expression.lstrip(".")):
        part = part.replace("\\.", ".")
        while part.endswith("[*]"):
            steps.append(part[: -len("[*]")])
            steps.append("[*]")
            part = ""
        if part:
            steps.append(part)
    return [s for s in steps if s]


def _values(data: Any, steps: list[str]) -> list[Any]:
    found = [data]
    for step in steps:
        if step == "[*]":
            found = [item for value in found if isinstance(value, list) for item in value]
        else:
            found = [v[step] for v in found if isinstance(v, dict) and step in v]
    return found


def _printed(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return str(value)
    return str(value)


def render(template: str, data: Any) -> str:
    """kubectl's JSONPath template over `data`."""
    tokens = re.findall(r"\{((?:[^{}\\]|\\.)*)\}|([^{}]+)", template)
    out, _ = _render(tokens, 0, data)
    return out


def _render(tokens: list, start: int, data: Any) -> tuple[str, int]:
    out, i = "", start
    while i < len(tokens):
        inner, text = tokens[i]
        i += 1
        if text:
            out += text
        elif inner == "end":
            return out, i
        elif inner.startswith("range "):
            items = _values(data, _field_path(inner[len("range ") :]))
            body_end = i
            for item in items:
                body, body_end = _render(tokens, i, item)
                out += body
            if not items:
                _, body_end = _render(tokens, i, None)
            i = body_end
        elif inner.startswith('"'):
            out += inner[1:-1].encode().decode("unicode_escape")
        else:
            out += " ".join(_printed(v) for v in _values(data, _field_path(inner)))
    return out, i


def matches_labels(labels: dict[str, str], selector: str) -> bool:
    for requirement in re.findall(r"[^,()]+\([^)]*\)|[^,]+", selector):
        requirement = requirement.strip()
        if m := re.fullmatch(r"(\S+)\s+in\s+\(([^)]*)\)", requirement):
            if labels.get(m[1]) not in [v.strip() for v in m[2].split(",")]:
                return False
        elif "!=" in requirement:
            key, value = requirement.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in requirement:
            key, value = requirement.split("=", 1)
            if labels.get(key) != value:
                return False
        elif requirement not in labels:
            return False
    return True


def matches_fields(obj: dict, selector: str) -> bool:
    for requirement in selector.split(","):
        path, value = requirement.split("=", 1)
        if [str(v) for v in _values(obj, _field_path(path))] != [value]:
            return False
    return True


def _ready(node: dict) -> bool:
    conditions = node.get("status", {}).get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def _option(args: list[str], name: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None


def answer(cluster: dict, args: list[str]) -> tuple[str, int]:
    """What kubectl prints for `args`, and its exit code."""
    kinds = {"nodes": "nodes", "node": "nodes", "resourceslices": "resourceslices", "pods": "pods"}
    if args[0] == "wait":
        nodes = cluster.get("nodes", {}).get("items", [])
        selected = [
            n
            for n in nodes
            if matches_labels(n["metadata"].get("labels", {}), _option(args, "-l") or "")
        ]
        unready = [n["metadata"]["name"] for n in selected if not _ready(n)]
        if unready:
            return f"error: timed out waiting for the condition on nodes/{unready[0]}\n", 1
        return "".join(f"node/{n['metadata']['name']} condition met\n" for n in selected), 0
    if args[0] != "get" or args[1] not in kinds:
        return f"fake kubectl: not a read the waits make: {args}\n", 1
    items = cluster.get(kinds[args[1]], {}).get("items", [])
    if args[1] == "node":
        items = [n for n in items if n["metadata"]["name"] == args[2]]
        if not items:
            return f'Error from server (NotFound): nodes "{args[2]}" not found\n', 1
    if (labels := _option(args, "-l")) is not None:
        items = [o for o in items if matches_labels(o["metadata"].get("labels", {}), labels)]
    if (namespace := _option(args, "-n")) is not None:
        items = [o for o in items if o["metadata"].get("namespace") == namespace]
    if (fields := _option(args, "--field-selector")) is not None:
        items = [o for o in items if matches_fields(o, fields)]
    output = _option(args, "-o") or ""
    singular = {"nodes": "node", "pods": "pod", "resourceslices": "resourceslice"}[kinds[args[1]]]
    if output == "name":
        return "".join(f"{singular}/{o['metadata']['name']}\n" for o in items), 0
    if output.startswith("jsonpath="):
        data = items[0] if args[1] == "node" else {"items": items}
        return render(output[len("jsonpath=") :], data), 0
    return f"fake kubectl: unsupported output {output!r}\n", 1


def main() -> int:
    cluster = yaml.safe_load(Path(sys.argv[1]).read_text())
    text, code = answer(cluster, sys.argv[2:])
    (sys.stdout if code == 0 else sys.stderr).write(text)
    return code


if __name__ == "__main__":
    sys.exit(main())
