"""Compare offline plans: what a change does to each stack, as a Markdown report (`make diff`).

    python -m offline.diff OLD.json NEW.json      two plan files (build/plan/<stack>.json)
    python -m offline.diff --base REV             every stack, planned at REV and in this tree

The report lists the resources added, removed, replaced and updated in place, with each changed
input's value before and after; resources with identical input changes (one MTU change on every GPU
VPC) share one table headed with all their names. The stack outputs that change follow, an output
of a stack that is new (or gone) reading "new" (or "removed"). A resource whose URN changed but
that carries an alias to its old URN (a move under a new parent) is the same resource, as it is to
`pulumi up`: it is compared with its old self and reported as moved, not removed and added.
Components (`custom: false`) own nothing in a cloud or cluster, so the counts of resources to add
and remove leave them out and the report names them on a line of their own. Secret inputs never
show a value: the plan files mask them and carry a fingerprint, so a change shows as "changed
(secret)". A change to an input that forces a replacement (offline/replacements.yaml) is flagged
loudly with what the replacement costs, and so is every resource replaced because something it
needs is replaced. A removed resource that had `retainOnDelete` is not deleted: Pulumi forgets it
and leaves it where it is (Pulumi docs, resource option `retainOnDelete`), so the header counts it
apart ("N to forget") and the report says it is kept in the cluster (or cloud), no longer managed.

This is the offline plan compared with the offline plan, not `pulumi preview`: it knows nothing of
the deployed state, so drift and provider-side defaults do not show.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_fabric import yaml_files
from offline.engine import ROOT, STACKS_DIR

REPLACEMENTS_FILE = Path(__file__).with_name("replacements.yaml")
DIFF_DIR = ROOT / "build" / "diff"

ABSENT = object()
"""An input that one side of the diff does not set."""

_MAX_VALUE = 120


@dataclass(frozen=True)
class ReplaceRules:
    """offline/replacements.yaml: the replace-forcing inputs of each resource type."""

    types: dict[str, dict[str, Any]]
    prefixes: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, path: Path = REPLACEMENTS_FILE) -> ReplaceRules:
        data = yaml_files.read(path)
        return cls(types=data["types"], prefixes=data["prefixes"])

    def covers(self, type_: str) -> bool:
        return type_ in self.types or any(type_.startswith(p) for p in self.prefixes)

    def fields(self, type_: str) -> list[str]:
        return self.types.get(type_, {}).get("replace", [])

    def rank(self, type_: str) -> int:
        """Where the type stands in replacements.yaml (the order the report lists them in)."""
        order = list(self.types)
        return order.index(type_) if type_ in order else len(order)

    def cost(self, type_: str) -> str:
        return " ".join(self.types.get(type_, {}).get("cost", "").split())

    def forcing_field(self, type_: str, path: str, before: Any, after: Any) -> str | None:
        """The listed input that makes this change a replacement, or None."""
        bare = re.sub(r"\[\d+\]", "", path)
        for rule in self.fields(type_):
            if bare == rule or bare.startswith(rule + ".") or rule.startswith(bare + "."):
                exception = self.types[type_].get("unless", {}).get(rule)
                if exception == "widens" and _widens(before, after):
                    continue
                return rule
        return None


def _widens(before: Any, after: Any) -> bool:
    """True if the CIDR `after` contains `before` (a subnet range that only grows)."""
    try:
        old, new = ipaddress.ip_network(before), ipaddress.ip_network(after)
    except (TypeError, ValueError):
        return False
    if isinstance(old, ipaddress.IPv4Network) and isinstance(new, ipaddress.IPv4Network):
        return new.supernet_of(old)
    if isinstance(old, ipaddress.IPv6Network) and isinstance(new, ipaddress.IPv6Network):
        return new.supernet_of(old)
    return False  # one IPv4, the other IPv6


@dataclass
class FieldChange:
    path: str
    before: Any
    after: Any
    secret: bool = False
    forces: str | None = None
    """The replace-forcing rule this change matched, if any."""


@dataclass
class ResourceChange:
    urn: str
    type: str
    name: str
    action: str
    """create, delete, update, replace, or move (a new URN via an alias, nothing else changed)."""
    fields: list[FieldChange] = field(default_factory=list)
    reason: str = ""
    """Why a replacement happens (the forcing input, or the replaced resource it follows)."""
    nodes: int | None = None
    """How many nodes a node pool has (what its replacement drains), if it says."""
    custom: bool = True
    """False for a component: a grouping that owns nothing in a cloud or cluster."""
    moved_from: str = ""
    """The old URN, if the resource has a new one and an alias to the old (any action)."""
    parent: str = ""
    """The parent's URN (of a moved resource: the parent it moved under)."""
    delete_first: bool = False
    """The resource has `deleteBeforeReplace` (a fixed cloud name): a replacement deletes it
    before creating it again, so it is gone meanwhile (a node pool's nodes are drained)."""
    retained: bool = False
    """The resource had `retainOnDelete`: removed from the program, it is forgotten, not deleted."""


@dataclass
class StackDiff:
    stack: str
    changes: list[ResourceChange]
    outputs: list[FieldChange]
    error: str = ""
    moved_to: dict[str, list[str]] = field(default_factory=dict)
    """Resources this stack's old plan held that another stack now holds: stack -> names."""
    carried_from: dict[str, list[str]] = field(default_factory=dict)
    """The other side of `moved_to`: resources this stack took from another: stack -> names."""

    def of_action(self, action: str) -> list[ResourceChange]:
        return [c for c in self.changes if c.action == action]

    def counted(self, action: str) -> list[ResourceChange]:
        """What the header counts: a component added or removed creates or deletes nothing, and a
        retained resource removed is forgotten, not deleted (counted by `forgotten`)."""
        return [
            c
            for c in self.of_action(action)
            if (c.custom or action not in ("create", "delete")) and not c.retained
        ]

    def forgotten(self) -> list[ResourceChange]:
        """Removed resources with `retainOnDelete`: Pulumi forgets them and deletes nothing."""
        return [c for c in self.of_action("delete") if c.custom and c.retained]

    def moved(self) -> list[ResourceChange]:
        """Every resource matched to its old URN through an alias, whatever else changed."""
        return [c for c in self.changes if c.moved_from]


def leaves(value: Any, path: str = "") -> dict[str, Any]:
    """Every leaf value by its input path (`a.b[0].c`); a list of plain values is one leaf."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(leaves(item, f"{path}.{key}" if path else key))
        return out
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        out = {}
        for i, item in enumerate(value):
            out.update(leaves(item, f"{path}[{i}]"))
        return out
    return {path: value}


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")


def field_changes(
    old: dict[str, Any], new: dict[str, Any], rules: ReplaceRules
) -> list[FieldChange]:
    """The input changes of one resource (plan-file form: secrets masked, with digests).

    Inputs under the new resource's `ignoreChanges` are left out: Pulumi keeps the old value
    there, so a change to them neither updates nor replaces anything.
    """
    ignored = [re.sub(r"\[\d+\]", "", p) for p in new.get("ignoreChanges", [])]
    secret_paths = sorted(set(old.get("secretInputs", [])) | set(new.get("secretInputs", [])))
    # Plan files written before secrets had fingerprints can only say which inputs are secret.
    comparable = "secretDigests" in old and "secretDigests" in new
    changes = []
    for path in secret_paths:
        if any(_under(re.sub(r"\[\d+\]", "", path), i) for i in ignored):
            continue
        was = path in old.get("secretInputs", [])
        now = path in new.get("secretInputs", [])
        digest_before = old.get("secretDigests", {}).get(path)
        digest_after = new.get("secretDigests", {}).get(path)
        if was != now or (comparable and digest_before != digest_after):
            forces = rules.forcing_field(new["type"], path, None, None) or _replaces_on(new, path)
            changes.append(FieldChange(path, None, None, secret=True, forces=forces))
    before, after = leaves(old["inputs"]), leaves(new["inputs"])
    for path in sorted(set(before) | set(after)):
        if any(_under(path, s) for s in secret_paths):
            continue
        if any(_under(re.sub(r"\[\d+\]", "", path), i) for i in ignored):
            continue
        value_before, value_after = before.get(path, ABSENT), after.get(path, ABSENT)
        if value_before != value_after:
            forces = rules.forcing_field(new["type"], path, value_before, value_after)
            forces = forces or _replaces_on(new, path)
            changes.append(FieldChange(path, value_before, value_after, forces=forces))
    return sorted(changes, key=lambda c: c.path)


def _replaces_on(resource: dict[str, Any], path: str) -> str | None:
    """The resource's own `replaceOnChanges` path this change is at or under, or None."""
    bare = re.sub(r"\[\d+\]", "", path)
    return next((p for p in resource.get("replaceOnChanges", []) if _under(bare, p)), None)


def diff_plans(old: dict[str, Any], new: dict[str, Any], rules: ReplaceRules) -> StackDiff:
    """What turning plan `old` into plan `new` does, resource by resource."""
    before = {r["urn"]: r for r in old.get("resources", [])}
    after = {r["urn"]: r for r in new.get("resources", [])}
    pairs = _pairs(before, after)
    changes: dict[str, ResourceChange] = {}
    for urn in sorted(set(before) - set(pairs.values())):
        changes[urn] = _change(before[urn], "delete")
    for urn in sorted(set(after) - set(pairs)):
        changes[urn] = _change(after[urn], "create")
    for urn, old_urn in sorted(pairs.items()):
        resource = after[urn]
        fields = field_changes(before[old_urn], resource, rules)
        forced = sorted({f.forces for f in fields if f.forces})
        moved_from = old_urn if old_urn != urn else ""
        if fields:
            action = "replace" if forced else "update"
        elif moved_from:
            action = "move"
        else:
            continue
        change = _change(resource, action, fields, moved_from)
        if forced:
            change.reason = f"forced by {', '.join(f'`{f}`' for f in forced)}"
        changes[urn] = change
    _follow_replacements(changes, before, after, pairs, rules)
    return StackDiff(
        stack=new.get("stack") or old.get("stack", "?"),
        changes=sorted(changes.values(), key=lambda c: c.urn),
        outputs=_output_changes(old.get("outputs", {}), new.get("outputs", {})),
    )


def _pairs(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The old URN of every resource in `after` that existed in `before`, by its new URN.

    A resource keeps its URN, or has a new one and an alias to an old URN that nothing in `after`
    has any longer: `pulumi up` moves that state to it. Plan files written before aliases were
    recorded have no "aliases".
    """
    pairs = {urn: urn for urn in after if urn in before}
    claimed = set(pairs)
    for urn in sorted(set(after) - set(before)):
        for alias in after[urn].get("aliases", []):
            if alias in before and alias not in after and alias not in claimed:
                pairs[urn] = alias
                claimed.add(alias)
                break
    return pairs


def _change(
    resource: dict[str, Any],
    action: str,
    fields: list[FieldChange] | None = None,
    moved_from: str = "",
) -> ResourceChange:
    return ResourceChange(
        resource["urn"],
        resource["type"],
        resource["name"],
        action,
        fields or [],
        nodes=_nodes(resource),
        custom=resource.get("custom", True),
        moved_from=moved_from,
        parent=resource.get("parent", ""),
        delete_first=bool(resource.get("deleteBeforeReplace", False)),
        # What the old state recorded decides a deletion (plan files before it: not retained).
        retained=action == "delete" and bool(resource.get("retainOnDelete", False)),
    )


def _follow_replacements(
    changes: dict[str, ResourceChange],
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    pairs: dict[str, str],
    rules: ReplaceRules,
) -> None:
    """Replace what must follow a replaced resource.

    A replaced resource's outputs are unknown until it exists again, so a resource whose
    replace-forcing input comes from it is replaced as well; so is every resource managed by a
    replaced provider, or by another provider than before. Everything here is by new URN: a
    resource's provider and dependencies in `after` are new URNs, its provider in `before` an old
    one, which `pairs` maps to its new URN (a moved provider is the same provider).
    """
    names = {urn: r["name"] for urn, r in after.items()}
    new_urn = {old_urn: urn for urn, old_urn in pairs.items()}
    settled = False
    while not settled:
        settled = True
        replaced = {urn for urn, c in changes.items() if c.action == "replace"}
        for urn, old_urn in sorted(pairs.items()):
            if urn in replaced:
                continue
            resource = after[urn]
            provider = resource.get("provider", "")
            old_provider = before[old_urn].get("provider", "")
            reason = ""
            if provider in replaced:
                reason = f"its provider {names[provider]} is replaced"
            elif new_urn.get(old_provider, old_provider) != provider:
                was, now = _provider_name(old_provider, before), _provider_name(provider, after)
                if was == now:  # two providers of one name: tell them apart by URN
                    was, now = f"`{old_provider}`", f"`{provider}`"
                reason = f"its provider changes from {was} to {now}"
            roots = {re.split(r"[.\[]", f)[0] for f in rules.fields(resource["type"])}
            for prop, urns in sorted(resource.get("propertyDependencies", {}).items()):
                hit = sorted(names[u] for u in urns if u in replaced)
                if prop in roots and hit and not reason:
                    reason = f"`{prop}` comes from {', '.join(hit)} (replaced)"
            if reason:
                moved_from = old_urn if old_urn != urn else ""
                change = changes.get(urn) or _change(resource, "update", moved_from=moved_from)
                change.action, change.reason = "replace", reason
                changes[urn] = change
                settled = False


def _provider_name(urn: str, resources: dict[str, dict[str, Any]]) -> str:
    if not urn:
        return "the default provider"
    return resources[urn]["name"] if urn in resources else urn.rsplit("::", 1)[-1]


def _nodes(resource: dict[str, Any]) -> int | None:
    """A node pool's node count: GKE `nodeCount`, OKE `nodeConfigDetails.size`."""
    inputs = resource.get("inputs", {})
    count = inputs.get("nodeCount", (inputs.get("nodeConfigDetails") or {}).get("size"))
    return count if isinstance(count, int) else None


def _why(change: ResourceChange) -> str:
    """Why a resource is replaced, and, with `deleteBeforeReplace`, that it is deleted first."""
    if not change.delete_first:
        return change.reason
    if change.nodes is not None:
        return f"{change.reason}; deleted first: drains {change.nodes} nodes"
    return f"{change.reason}; deleted first"


def _output_changes(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    changes = []
    for name in sorted(set(old) | set(new)):
        value_before, value_after = old.get(name, ABSENT), new.get(name, ABSENT)
        if value_before != value_after:
            secret = "[secret]" in (value_before, value_after)
            changes.append(FieldChange(name, value_before, value_after, secret=secret))
    return changes


# --- Markdown ---


def _value(value: Any) -> str:
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value)
    if len(text) > _MAX_VALUE:
        text = text[: _MAX_VALUE - 3] + "..."
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _field_table(fields: list[FieldChange]) -> list[str]:
    lines = ["| input | before | after | |", "| --- | --- | --- | --- |"]
    for f in fields:
        note = f"**forces replacement** (`{f.forces}`)" if f.forces else ""
        if f.secret:
            lines.append(f"| `{f.path}` | changed (secret) | | {note} |")
        else:
            lines.append(f"| `{f.path}` | {_value(f.before)} | {_value(f.after)} | {note} |")
    return lines


def _output_table(outputs: list[FieldChange]) -> list[str]:
    """The stack outputs that change: an output only one side has reads "new" or "removed"."""
    lines = ["| output | before | after |", "| --- | --- | --- |"]
    for f in outputs:
        if f.secret and ABSENT not in (f.before, f.after):
            before, after = "changed (secret)", ""
        else:
            before = "new" if f.before is ABSENT else "(secret)" if f.secret else _value(f.before)
            after = "removed" if f.after is ABSENT else "(secret)" if f.secret else _value(f.after)
        lines.append(f"| `{f.path}` | {before} | {after} |")
    return lines


def _signature(fields: list[FieldChange]) -> tuple[tuple[str, str, str, bool, str], ...]:
    """What a field table shows: two resources with one signature have the same table."""

    def shown(value: Any) -> str:
        return "(absent)" if value is ABSENT else json.dumps(value, sort_keys=True, default=repr)

    return tuple(
        (f.path, shown(f.before), shown(f.after), f.secret, f.forces or "") for f in fields
    )


def _grouped(changes: list[ResourceChange], by_reason: bool = False) -> list[list[ResourceChange]]:
    """`changes` (in order) in groups of identical field changes, each where its first one stood.

    Changes without field changes are grouped by type and reason if `by_reason`, else left alone.
    """
    groups: dict[Any, list[ResourceChange]] = {}
    for i, change in enumerate(changes):
        if change.fields:
            key: Any = ("fields", _signature(change.fields))
        else:
            key = ("reason", change.type, _why(change)) if by_reason else ("one", i)
        groups.setdefault(key, []).append(change)
    return list(groups.values())


def _names(changes: list[ResourceChange]) -> str:
    """`a`, `b` (`type`); `c` (`other type`): names by type, types in order of appearance."""
    by_type: dict[str, list[str]] = {}
    for change in changes:
        by_type.setdefault(change.type, []).append(f"`{change.name}`")
    return "; ".join(f"{', '.join(names)} (`{type_}`)" for type_, names in by_type.items())


def _urn_parts(urn: str) -> tuple[str, str]:
    """A URN's type (without its parents' types) and name."""
    _stack, _project, qualified, *name = urn.split("::")
    return qualified.rsplit("$", 1)[-1], "::".join(name)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _moved_lines(diff: StackDiff) -> list[str]:
    """One line for every resource matched to its old URN through an alias."""
    moved = diff.moved()
    if not moved:
        return []
    under: dict[str, list[str]] = {}
    renamed = []
    for change in moved:
        also = f" (also {change.action}d)" if change.action != "move" else ""
        if _urn_parts(change.moved_from) == (change.type, change.name):
            under.setdefault(change.parent, []).append(f"`{change.name}`{also}")
        else:
            old_type, old_name = _urn_parts(change.moved_from)
            renamed.append(
                f"`{old_name}` (`{old_type}`) as `{change.name}` (`{change.type}`){also}"
            )
    groups = []
    for parent, names in sorted(under.items()):
        parent_type, parent_name = _urn_parts(parent) if parent else ("the stack", "")
        where = f"`{parent_name}` (`{parent_type}`)" if parent else "the stack"
        groups.append(f"under {where}: {', '.join(names)}")
    if renamed:
        groups.append(f"renamed or retyped: {', '.join(renamed)}")
    what = "moved under a new parent" if not renamed else "moved or renamed"
    cost = (
        "nothing is replaced"
        if all(c.action == "move" for c in moved)
        else "the move itself replaces nothing; what else changes is listed below"
    )
    return [
        f"{_plural(len(moved), 'resource')} {what} (aliases carry their state; {cost}): "
        f"{'; '.join(groups)}.",
        "",
    ]


def _component_lines(diff: StackDiff) -> list[str]:
    lines = []
    for action, verb, effect in (
        ("create", "added", "created"),
        ("delete", "removed", "deleted"),
    ):
        components = [c for c in diff.of_action(action) if not c.custom]
        if components:
            names = ", ".join(f"`{c.name}` (`{c.type}`)" for c in components)
            lines += [
                f"{_plural(len(components), 'component')} {verb} (groupings only: nothing is "
                f"{effect} in a cloud or cluster): {names}.",
                "",
            ]
    return lines


def _moved_to_lines(diff: StackDiff) -> list[str]:
    lines = []
    for stack, names in sorted(diff.carried_from.items()):
        lines += [
            f"{len(names)} resource(s) carried from stack `{stack}`, on this stack's own "
            "Kubernetes provider (the same cluster, read through the StackReference). Where they "
            f"never existed (a one-stack `{stack}` with a private endpoint could not apply them), "
            "the "
            "first `pulumi up` creates them; where their state was moved with `pulumi state "
            "move`, run `pulumi preview` first: the provider change may replace them once. "
            + ", ".join(f"`{n}`" for n in names),
            "",
        ]
    for stack, names in sorted(diff.moved_to.items()):
        lines += [
            f"{len(names)} resource(s) moved to stack `{stack}` (the split deployment's fabric "
            f"stack; not deleted: where they exist, `pulumi state move --source {diff.stack} "
            f"--dest {stack} <urns>` carries their state before the first `pulumi up` of "
            f"either): {', '.join(f'`{n}`' for n in names)}",
            "",
        ]
    return lines


HELM_RELEASE = "kubernetes:helm.sh/v3:Release"


def _version_key(text: Any) -> tuple[int, ...] | None:
    numbers = str(text).lstrip("v").split("-")[0].split(".")
    return tuple(int(n) for n in numbers) if all(n.isdigit() for n in numbers) else None


def _chart_downgrade_lines(diff: StackDiff) -> list[str]:
    """A Helm release moved to an older chart: Helm deletes every object the older chart does
    not render, CRDs the newer one templated among them (and with a CRD, every object of its
    kind), and installs an older chart's `crds/` only on a first install (Helm docs, "Custom
    Resource Definitions": CRDs in `crds/` are never upgraded or deleted)."""
    lines = []
    for change in diff.of_action("update"):
        if change.type != HELM_RELEASE:
            continue
        for f in change.fields:
            before, after = _version_key(f.before), _version_key(f.after)
            if f.path == "version" and before and after and after < before:
                lines += [
                    "> [!WARNING]",
                    f"> Helm release `{change.name}` goes back from chart {f.before} to "
                    f"{f.after}: Helm deletes what the older chart does not render, CRDs the "
                    "newer one templated among them (with every object of their kinds), and "
                    "does not install the older chart's `crds/` on an upgrade. Read both "
                    "charts' changelogs before this runs on a cluster with jobs.",
                    "",
                ]
    return lines


def render_stack(diff: StackDiff, rules: ReplaceRules) -> str:
    if diff.error:
        return f"## Stack `{diff.stack}`: no diff\n\n{diff.error}\n"
    if not diff.changes and not diff.outputs and not diff.moved_to and not diff.carried_from:
        return f"## Stack `{diff.stack}`: no changes\n"
    counts = {a: len(diff.counted(a)) for a in ("replace", "update", "create", "delete")}
    forgotten = diff.forgotten()
    lines = [
        f"## Stack `{diff.stack}`: {counts['replace']} to replace, {counts['update']} to update, "
        f"{counts['create']} to add, {counts['delete']} to remove"
        + (f", {len(forgotten)} to forget (kept, no longer managed)" if forgotten else ""),
        "",
    ]
    replaced = diff.of_action("replace")
    if replaced:
        lines += [
            "> [!CAUTION]",
            f"> **{len(replaced)} resource(s) will be REPLACED** (deleted and created again):",
        ]
        by_type: dict[str, list[str]] = {}
        for change in replaced:
            nodes = f" ({change.nodes} nodes)" if change.nodes is not None else ""
            by_type.setdefault(change.type, []).append(f"`{change.name}`{nodes}")
        for type_ in sorted(by_type, key=rules.rank):
            lines.append(
                f"> - **REPLACE** {len(by_type[type_])} x `{type_}` ({', '.join(by_type[type_])})."
                f" **Cost:** {rules.cost(type_) or 'not recorded'}"
            )
        lines.append("")
    lines += _chart_downgrade_lines(diff)
    lines += _moved_lines(diff)
    lines += _moved_to_lines(diff)
    lines += _component_lines(diff)
    if replaced:
        lines += ["### Replace", ""]
        in_order = sorted(replaced, key=lambda c: (rules.rank(c.type), c.name))
        for group in _grouped(in_order, by_reason=True):
            reasons: dict[str, list[ResourceChange]] = {}
            for change in group:
                reasons.setdefault(_why(change), []).append(change)
            if len(reasons) == 1:
                lines.append(f"- {_names(group)}: {_why(group[0])}")
            else:  # one table of the same input changes, replaced for different reasons
                lines.append(f"- {len(group)} resources with the same input changes:")
                lines += [f"  - {_names(c)}: {reason}" for reason, c in reasons.items()]
            if group[0].fields:
                lines += ["", *_field_table(group[0].fields), ""]
        lines.append("")
    for group in _grouped(diff.of_action("update")):
        lines += [f"### Update in place: {_names(group)}", ""]
        lines += [*_field_table(group[0].fields), ""]
    for action, title in (("create", "Add"), ("delete", "Remove")):
        custom = [c for c in diff.of_action(action) if c.custom and not c.retained]
        if custom:
            lines += [f"### {title}", ""]
            lines += [f"- `{c.name}` (`{c.type}`)" for c in custom]
            lines.append("")
    if forgotten:
        lines += ["### Forget (`retainOnDelete`: nothing is deleted)", ""]
        lines += [f"- `{c.name}` (`{c.type}`): {_kept(c)}" for c in forgotten]
        lines.append("")
    if diff.outputs:
        lines += ["### Stack outputs", "", *_output_table(diff.outputs), ""]
    return "\n".join(lines)


def _kept(change: ResourceChange) -> str:
    """What becomes of a removed resource with `retainOnDelete`."""
    where = "the cluster" if change.type.startswith("kubernetes:") else "the cloud"
    return f"kept in {where}, no longer managed"


def render(diffs: list[StackDiff], rules: ReplaceRules, title: str) -> str:
    header = [
        f"# {title}",
        "",
        "Offline plans under Pulumi mocks (`make diff`), not `pulumi preview`: no cloud state was "
        "read.",
        "",
    ]
    return "\n".join(header + [render_stack(d, rules) for d in diffs]).rstrip("\n") + "\n"


# --- Planning a git revision ---


def plan_tree(tree: Path, out_dir: Path, label: str = "this tree") -> dict[str, str]:
    """Plan every stack file of the checkout `tree` into `out_dir`; returns errors by stack.
    Says on stderr which stack it plans (a minute or more for every stack of two trees: a log
    that is not a terminal would otherwise show nothing until the report)."""
    errors = {}
    stack_files = sorted((tree / STACKS_DIR.relative_to(ROOT)).glob("Pulumi.*.yaml"))
    for number, stack_file in enumerate(stack_files, 1):
        stack = stack_file.name[len("Pulumi.") : -len(".yaml")]
        print(f"==> planning {stack} ({label}, {number}/{len(stack_files)})", file=sys.stderr)
        result = subprocess.run(
            [sys.executable, "-m", "offline.plan", stack, "--out", str(out_dir)],
            cwd=tree,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            errors[stack] = (result.stderr or result.stdout).strip()
    return errors


def plan_revision(rev: str, out_dir: Path) -> dict[str, str]:
    """Plan every stack of git revision `rev` (in a temporary worktree) into `out_dir`."""
    with tempfile.TemporaryDirectory(prefix="gpu-fabric-diff-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--quiet", "--detach", str(tree), rev],
            cwd=ROOT,
            check=True,
        )
        try:
            return plan_tree(tree, out_dir, f"at {rev}")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT)


def diff_dirs(
    old_dir: Path, new_dir: Path, errors: dict[str, str], rules: ReplaceRules
) -> list[StackDiff]:
    stacks = sorted(
        {p.stem for p in [*old_dir.glob("*.json"), *new_dir.glob("*.json")]} | set(errors)
    )
    plans = {
        stack: [_read(d / f"{stack}.json", stack) for d in (old_dir, new_dir)]
        for stack in stacks
        if stack not in errors
    }
    moved = split_moves(plans)
    carried: dict[str, dict[str, list[str]]] = {}
    for cloud, fabrics in moved.items():
        for fabric, names in fabrics.items():
            carried.setdefault(fabric, {})[cloud] = names
    diffs = []
    for stack in stacks:
        if stack in errors:
            diffs.append(StackDiff(stack, [], [], error=f"```\n{errors[stack]}\n```"))
            continue
        old, new = plans[stack]
        diff = diff_plans(old, new, rules)
        diff.moved_to = moved.get(stack, {})
        diff.carried_from = carried.get(stack, {})
        diffs.append(diff)
    return diffs


def split_moves(plans: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, list[str]]]:
    """Resources a stack's split carries into its fabric stack (`cloudStack`), in place.

    A resource of the old cloud stack that the new fabric stack holds (by URN or alias, once the
    stack name is the fabric stack's) leaves the cloud stack's old plan and enters the fabric
    stack's, so neither side reports it removed or added: `pulumi state move` carries its state
    between the two stacks. It enters on the fabric stack's own Kubernetes provider (the report
    says what that means). Returns, per cloud stack, the names moved per fabric stack.
    """
    moved: dict[str, dict[str, list[str]]] = {}
    for fabric, (fabric_old, fabric_new) in plans.items():
        cloud = fabric_new.get("cloudStack")
        if not cloud or cloud not in plans:
            continue
        cloud_old = plans[cloud][0]
        now = {r["urn"]: r for r in fabric_new["resources"]}
        now |= {a: r for r in fabric_new["resources"] for a in r.get("aliases", [])}
        prefix, renamed = f"urn:pulumi:{cloud}::", f"urn:pulumi:{fabric}::"
        keep, carried = [], []
        for resource in cloud_old["resources"]:
            urn = resource["urn"].replace(prefix, renamed, 1)
            if urn in now and resource["custom"]:
                carried.append({**resource, "urn": urn, "provider": now[urn].get("provider", "")})
            else:
                keep.append(resource)
        if carried:
            cloud_old["resources"] = keep
            fabric_old["resources"] = fabric_old.get("resources", []) + carried
            moved.setdefault(cloud, {})[fabric] = sorted(r["name"] for r in carried)
    return moved


def _read(path: Path, stack: str) -> dict[str, Any]:
    """A plan file; a stack that does not exist on one side is an empty plan there."""
    return json.loads(path.read_text()) if path.exists() else {"stack": stack, "resources": []}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", nargs="?", type=Path, help="plan file before the change")
    parser.add_argument("new", nargs="?", type=Path, help="plan file after the change")
    parser.add_argument("--base", help="git revision to compare this tree's plans with")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    rules = ReplaceRules.load()
    if args.base:
        if args.old or args.new:
            parser.error("give either OLD and NEW plan files or --base, not both")
        base_dir, head_dir = DIFF_DIR / "base", DIFF_DIR / "head"
        for folder in (base_dir, head_dir):
            shutil.rmtree(folder, ignore_errors=True)
        errors = {
            s: f"plan failed at {args.base}:\n{e}"
            for s, e in plan_revision(args.base, base_dir).items()
        }
        head_errors = plan_tree(ROOT, head_dir)
        errors.update({s: f"plan failed in this tree:\n{e}" for s, e in head_errors.items()})
        diffs = diff_dirs(base_dir, head_dir, errors, rules)
        title = f"gpu-fabric plan diff: `{args.base}` -> this tree"
        failed = bool(head_errors)
    elif args.old and args.new:
        missing = [p for p in (args.old, args.new) if not p.exists()]
        if missing:
            print(f"error: no plan file {missing[0]} (run `make plan STACK=...`)", file=sys.stderr)
            return 2
        old, new = json.loads(args.old.read_text()), json.loads(args.new.read_text())
        diffs = [diff_plans(old, new, rules)]
        title = f"gpu-fabric plan diff: `{args.old}` -> `{args.new}`"
        failed = False
    else:
        parser.error("give OLD and NEW plan files, or --base REV")
    report = render(diffs, rules, title)
    sys.stdout.write(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
