"""The dependency graph of a stack as a picture: `python -m offline.graph STACK` (`make graph`).

Two levels (`--level`):
- components (the default): one box per component, its resources collapsed into counts ("45 NSG
  rules"), inside frames for the stack's component (GpuCluster) and its layers (GkeCloud,
  GkeFabric, ...). A box waits for another if any resource inside it waits for any resource inside
  the other;
- resources: every resource, components as nested frames (`make graph LEVEL=resources`).

Writes under build/plan/ (the resource level as <stack>.resources.*):
- <stack>.mmd: a Mermaid flowchart (GitHub renders it);
- <stack>.dot, and <stack>.svg and <stack>.png when Graphviz's `dot` is on PATH (`apt-get install
  graphviz`).

An arrow `A --> B` means B waits for A. Only what Pulumi waits for is drawn: dependencies, property
dependencies and the provider, with a dependency on a component standing for one on each resource
inside it (Plan.depends_on). Arrows implied by a longer path are left out so the picture stays
readable; `waits_for` keeps all of them.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pulumi import RunError

from gpu_fabric.layers import TOKEN_MODULE
from gpu_fabric.problems import ConfigError
from gpu_fabric.registry import SPECS
from offline.engine import Plan, Registration, run
from offline.plan import OUT_DIR

LEVELS = ("components", "resources")


def waits_for(plan: Plan) -> dict[str, set[str]]:
    """For each custom resource (and provider), the custom resources it waits for directly."""
    children: dict[str, list[Registration]] = {}
    for resource in plan.resources:
        children.setdefault(resource.parent, []).append(resource)
    by_urn = {r.urn: r for r in plan.resources}

    def custom_under(urn: str) -> set[str]:
        resource = by_urn.get(urn)
        if resource is None:
            return set()
        if resource.custom:
            return {urn}
        return {u for child in children.get(urn, []) for u in custom_under(child.urn)}

    edges = {}
    for resource in plan.resources:
        if not resource.custom:
            continue
        direct = {*resource.dependencies, *sum(resource.property_dependencies.values(), [])}
        if resource.provider_urn:
            direct.add(resource.provider_urn)
        edges[resource.urn] = {u for d in direct for u in custom_under(d)} - {resource.urn}
    return edges


def reduced(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """`edges` without the waits a longer path already implies (a transitive reduction)."""
    ancestors: dict[str, set[str]] = {}

    def above(urn: str) -> set[str]:
        if urn not in ancestors:
            ancestors[urn] = set()
            ancestors[urn] = {a for d in edges.get(urn, ()) for a in {d, *above(d)}}
        return ancestors[urn]

    return {
        urn: {d for d in deps if not any(d in above(other) for other in deps - {d})}
        for urn, deps in edges.items()
    }


def _short_type(type_: str) -> str:
    """`gcp:container/nodePool:NodePool` -> `gcp:NodePool`."""
    parts = type_.split(":")
    return f"{parts[0]}:{parts[-1]}" if len(parts) > 2 else type_


def _children(plan: Plan) -> dict[str, list[Registration]]:
    children: dict[str, list[Registration]] = {}
    for resource in plan.resources:
        children.setdefault(resource.parent, []).append(resource)
    return children


# --- The component level ---


def frames(plan: Plan) -> set[str]:
    """The components drawn as frames around boxes at component level: the stack's own components
    (GpuCluster, with no parent) and the layers (`gpu-fabric:index:*`), if they hold anything."""
    known = {r.urn for r in plan.resources}
    parents = {r.parent for r in plan.resources}
    return {
        r.urn
        for r in plan.resources
        if not r.custom
        and r.urn in parents
        and (r.parent not in known or r.type.startswith(TOKEN_MODULE + ":"))
    }


def box_of(plan: Plan) -> dict[str, str]:
    """At component level, the box each resource is drawn in (by URN): the component just inside a
    frame that holds it, or the resource itself if it sits in a frame directly. Frames have none."""
    by_urn = {r.urn: r for r in plan.resources}
    framed = frames(plan)
    return {r.urn: _outermost(r, by_urn, framed) for r in plan.resources if r.urn not in framed}


def _outermost(resource: Registration, by_urn: dict[str, Registration], framed: set[str]) -> str:
    while resource.parent in by_urn and resource.parent not in framed:
        resource = by_urn[resource.parent]
    return resource.urn


def component_waits(plan: Plan) -> dict[str, set[str]]:
    """For each box of the component level, the boxes it waits for directly: those holding a
    resource that a resource inside it waits for."""
    box = box_of(plan)
    edges: dict[str, set[str]] = {b: set() for b in box.values()}
    for urn, deps in waits_for(plan).items():
        edges[box[urn]] |= {box[d] for d in deps if d in box} - {box[urn]}
    return edges


_ACRONYMS = {
    "cidr", "dns", "gpu", "iam", "ip", "lb", "nat", "rdma", "ssl", "tls", "vm", "vpc",
    *(word for spec in SPECS for word in spec.plan_view_module().ACRONYMS),
}  # fmt: skip

_PROPER = {"kubernetes": "Kubernetes", "helm": "Helm"}

_NOUNS = {
    "kubernetes:helm.sh/v3:Release": "Helm release",
    "command:local:Command": "local command",
    **{type_: noun for spec in SPECS for type_, noun in spec.plan_view_module().NOUNS.items()},
}
"""Resource types whose readable name is not their class name in words (each cloud's are its
platform spec's, `PlatformSpec.plan_view`)."""


def noun(type_: str) -> str:
    """A resource type in words: `gcp:container/nodePool:NodePool` -> `node pool`, a Kubernetes
    kind as it is (`DaemonSet`), `pulumi:providers:kubernetes` -> `Kubernetes provider`."""
    if type_ in _NOUNS:
        return _NOUNS[type_]
    if type_.startswith("pulumi:providers:"):
        package = type_.rsplit(":", 1)[-1]
        return f"{_PROPER.get(package, package)} provider"
    kind = type_.rsplit(":", 1)[-1]
    if type_.startswith("kubernetes:"):
        return kind
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+", kind) or [kind]
    return " ".join(
        w.upper() if w.lower() in _ACRONYMS else _PROPER.get(w.lower(), w.lower()) for w in words
    )


def plural(noun_: str) -> str:
    """`node pool` -> `node pools`, `resource policy` -> `resource policies`, `NSG` -> `NSGs`."""
    if re.search(r"[^aeiouAEIOU]y$", noun_):
        return noun_[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", noun_):
        return noun_ + "es"
    return noun_ + "s"


def counted(count: int, type_: str) -> str:
    """`45 NSG rules`, `1 VCN`."""
    return f"{count} {noun(type_) if count == 1 else plural(noun(type_))}"


def contents(plan: Plan, urn: str) -> list[str]:
    """What a component holds, most numerous first: `45 NSG rules`, `4 NSGs`, `1 VCN`, ..."""
    children = _children(plan)
    counts: Counter[str] = Counter()
    todo = [urn]
    while todo:
        for child in children.get(todo.pop(), []):
            if child.custom:
                counts[child.type] += 1
            todo.append(child.urn)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], noun(item[0]).lower()))
    return [counted(n, type_) for type_, n in ordered]


def _component_type(type_: str) -> str:
    """`gpu-fabric:oke:RdmaNodes` -> `oke:RdmaNodes`; a layer `gpu-fabric:index:GkeCloud` ->
    `GkeCloud layer`."""
    if type_.startswith(TOKEN_MODULE + ":"):
        return f"{type_.rsplit(':', 1)[-1]} layer"
    parts = type_.split(":")
    return ":".join(parts[1:]) if len(parts) > 2 else type_


# --- Pictures ---


@dataclass(frozen=True)
class _Syntax:
    """How one picture language writes a resource, a component box, a frame and an arrow."""

    header: list[str]
    footer: list[str]
    label: str  # format with name, type
    newline: str
    node: str  # format with id, label
    component: str  # format with id, label: a component's collapsed box
    group_open: list[str]  # format with id, label
    group_close: str
    arrow: str  # format with source, target
    escape: Callable[[str], str]


MERMAID = _Syntax(
    header=[
        "%% gpu-fabric stack {stack}: offline plan, `make graph`. A --> B: B waits for A.",
        "flowchart LR",
    ],
    footer=[],
    label="{name}<br/><small>{type}</small>",
    newline="<br/>",
    node='{id}["{label}"]',
    component='{id}["{label}"]',
    group_open=['subgraph {id}["{label}"]'],
    group_close="end",
    arrow="{source} --> {target}",
    escape=lambda text: text.replace('"', "#quot;"),
)

DOT = _Syntax(
    header=[
        'digraph "{stack}" {{',
        "  rankdir=LR;",
        '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=10];',
        '  graph [fontname="Helvetica", fontsize=11];',
    ],
    footer=["}"],
    label="{name}\\n{type}",
    newline="\\n",
    node='{id} [label="{label}"];',
    component='{id} [label="{label}", style="rounded,filled", fillcolor="#eef3fb"];',
    group_open=["subgraph cluster_{id} {{", '  label="{label}"; style="rounded,dashed";'],
    group_close="}}",
    arrow="{source} -> {target};",
    escape=lambda text: text.replace("\\", "\\\\").replace('"', '\\"'),
)


def _ids(plan: Plan) -> dict[str, str]:
    return {r.urn: f"n{i}" for i, r in enumerate(sorted(plan.resources, key=lambda r: r.urn))}


def _roots(plan: Plan) -> list[Registration]:
    known = {r.urn for r in plan.resources}
    return sorted((r for r in plan.resources if r.parent not in known), key=lambda r: r.urn)


def render(plan: Plan, syntax: _Syntax, level: str = "components") -> str:
    """The plan's boxes and their reduced waits in `syntax`, at `level` (components or
    resources)."""
    if level not in LEVELS:
        raise ValueError(f"level {level!r}: one of {', '.join(LEVELS)}")
    ids = _ids(plan)
    children = _children(plan)
    framed = frames(plan) if level == "components" else set()
    lines = [line.format(stack=plan.stack) for line in syntax.header]

    def label(resource: Registration, type_: str, *more: str) -> str:
        text = syntax.label.format(name=syntax.escape(resource.name), type=syntax.escape(type_))
        return syntax.newline.join([text, *(syntax.escape(m) for m in more)])

    def box(resource: Registration, depth: int) -> None:
        pad = "  " * depth
        urn = resource.urn
        if resource.custom:
            text = label(resource, _short_type(resource.type))
            lines.append(pad + syntax.node.format(id=ids[urn], label=text))
            return
        if level == "components" and urn not in framed:
            text = label(resource, _component_type(resource.type), *contents(plan, urn))
            lines.append(pad + syntax.component.format(id=ids[urn], label=text))
            return
        kind = _component_type(resource.type) if framed else _short_type(resource.type)
        stack = urn.split("::", 1)[0].removeprefix("urn:pulumi:")  # a fabric stack's, beside it
        text = label(resource, kind + (f", stack {stack}" if stack != plan.stack else ""))
        lines.extend(pad + g.format(id=ids[urn], label=text) for g in syntax.group_open)
        for child in sorted(children.get(urn, []), key=lambda r: r.urn):
            box(child, depth + 1)
        lines.append(pad + syntax.group_close.format())

    for root in _roots(plan):
        box(root, 1)
    edges = component_waits(plan) if level == "components" else waits_for(plan)
    for urn, deps in sorted(reduced(edges).items()):
        lines += ["  " + syntax.arrow.format(source=ids[d], target=ids[urn]) for d in sorted(deps)]
    return "\n".join(lines + syntax.footer) + "\n"


def mermaid(plan: Plan, level: str = "components") -> str:
    return render(plan, MERMAID, level)


def dot(plan: Plan, level: str = "components") -> str:
    return render(plan, DOT, level)


def write(plan: Plan, out_dir: Path = OUT_DIR, level: str = "components") -> list[Path]:
    """Write the Mermaid and DOT files, and the SVG and PNG when Graphviz is installed. The
    component level is <stack>.*, the resource level <stack>.resources.*."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = plan.stack if level == "components" else f"{plan.stack}.resources"
    mmd, dot_file = out_dir / f"{stem}.mmd", out_dir / f"{stem}.dot"
    mmd.write_text(mermaid(plan, level))
    dot_file.write_text(dot(plan, level))
    written = [mmd, dot_file]
    if shutil.which("dot"):
        for fmt in ("svg", "png"):
            picture = out_dir / f"{stem}.{fmt}"
            subprocess.run(["dot", f"-T{fmt}", str(dot_file), "-o", str(picture)], check=True)
            written.append(picture)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stack", help="stack name, e.g. a3-prod (stacks/Pulumi.<stack>.yaml)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output folder (build/plan)")
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default="components",
        help="one box per component (default), or every resource",
    )
    args = parser.parse_args(argv)
    try:
        plan = run(args.stack)
    except (ConfigError, RunError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    written = write(plan, args.out, args.level)
    print("Wrote " + ", ".join(str(p) for p in written))
    if not shutil.which("dot"):
        print(
            "note: no SVG or PNG: Graphviz's `dot` is not on PATH (Debian/Ubuntu: apt-get install "
            "graphviz). The .mmd file renders on GitHub; the .dot file renders anywhere."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
