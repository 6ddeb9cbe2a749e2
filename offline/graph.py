"""The dependency graph of a stack as a picture: `python -m offline.graph STACK` (`make graph`).

Writes under build/plan/:
- <stack>.mmd: a Mermaid flowchart (GitHub renders it), components as nested boxes;
- <stack>.dot, and <stack>.svg when Graphviz's `dot` is on PATH (`apt-get install graphviz`).

An arrow `A --> B` means B waits for A. Only what Pulumi waits for is drawn: dependencies, property
dependencies and the provider, with a dependency on a component standing for one on each resource
inside it (Plan.depends_on). Arrows implied by a longer path are left out so the picture stays
readable; `waits_for` keeps all of them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from components.problems import ConfigError
from offline.engine import Plan, Registration, run
from offline.plan import OUT_DIR, stack_arguments


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


@dataclass(frozen=True)
class _Syntax:
    """How one picture language writes a resource, a component box and an arrow."""

    header: list[str]
    footer: list[str]
    label: str  # format with name, type
    node: str  # format with id, label
    group_open: list[str]  # format with id, label
    group_close: str
    arrow: str  # format with source, target


MERMAID = _Syntax(
    header=[
        "%% gpu-fabric stack {stack}: offline plan, `make graph`. A --> B: B waits for A.",
        "flowchart LR",
    ],
    footer=[],
    label="{name}<br/><small>{type}</small>",
    node='{id}["{label}"]',
    group_open=['subgraph {id}["{label}"]'],
    group_close="end",
    arrow="{source} --> {target}",
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
    node='{id} [label="{label}"];',
    group_open=["subgraph cluster_{id} {{", '  label="{label}"; style="rounded,dashed";'],
    group_close="}}",
    arrow="{source} -> {target};",
)


def render(plan: Plan, syntax: _Syntax) -> str:
    """The plan's resources (components as nested boxes) and its reduced waits, in `syntax`."""
    ids = {r.urn: f"n{i}" for i, r in enumerate(sorted(plan.resources, key=lambda r: r.urn))}
    children: dict[str, list[Registration]] = {}
    for resource in plan.resources:
        children.setdefault(resource.parent, []).append(resource)
    lines = [line.format(stack=plan.stack) for line in syntax.header]

    def box(resource: Registration, depth: int) -> None:
        pad = "  " * depth
        label = syntax.label.format(name=resource.name, type=_short_type(resource.type))
        if resource.custom:
            lines.append(pad + syntax.node.format(id=ids[resource.urn], label=label))
            return
        lines.extend(pad + g.format(id=ids[resource.urn], label=label) for g in syntax.group_open)
        for child in sorted(children.get(resource.urn, []), key=lambda r: r.urn):
            box(child, depth + 1)
        lines.append(pad + syntax.group_close.format())

    known = {r.urn for r in plan.resources}
    for root in sorted((r for r in plan.resources if r.parent not in known), key=lambda r: r.urn):
        box(root, 1)
    for urn, deps in sorted(reduced(waits_for(plan)).items()):
        lines += ["  " + syntax.arrow.format(source=ids[d], target=ids[urn]) for d in sorted(deps)]
    return "\n".join(lines + syntax.footer) + "\n"


def mermaid(plan: Plan) -> str:
    return render(plan, MERMAID)


def dot(plan: Plan) -> str:
    return render(plan, DOT)


def write(plan: Plan, out_dir: Path = OUT_DIR) -> list[Path]:
    """Write the Mermaid and DOT files, and the SVG when Graphviz is installed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    mmd, dot_file = out_dir / f"{plan.stack}.mmd", out_dir / f"{plan.stack}.dot"
    mmd.write_text(mermaid(plan))
    dot_file.write_text(dot(plan))
    written = [mmd, dot_file]
    if shutil.which("dot"):
        svg = out_dir / f"{plan.stack}.svg"
        subprocess.run(["dot", "-Tsvg", str(dot_file), "-o", str(svg)], check=True)
        written.append(svg)
    return written


def main(argv: list[str] | None = None) -> int:
    args = stack_arguments(__doc__.splitlines()[0], argv)
    try:
        plan = run(args.stack)
    except (ConfigError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    written = write(plan, args.out)
    print("Wrote " + ", ".join(str(p) for p in written))
    if not shutil.which("dot"):
        print(
            "note: no SVG: Graphviz's `dot` is not on PATH (Debian/Ubuntu: apt-get install "
            "graphviz). The .mmd file renders on GitHub; the .dot file renders anywhere."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
