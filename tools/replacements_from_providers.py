"""Derive the replace-forcing inputs of offline/replacements.yaml from the Terraform providers.

pulumi-gcp, pulumi-oci and pulumi-alicloud are bridged from Terraform providers: an input forces a
replacement when the Terraform schema marks it `ForceNew: true` (or a `CustomizeDiff` forces it
with `customdiff.ForceNewIf`/`ForceNewIfChange`). This script reads the Go schema definitions of
the resources the stacks create, from local checkouts of the provider sources named in
tools/replacements_sources.yaml, and writes offline/replacements.derived.yaml:

    .venv/bin/python tools/replacements_from_providers.py \\
        --source gcp=PATH/terraform-provider-google-beta --source oci=PATH/terraform-provider-oci \\
        --source alicloud=PATH/terraform-provider-alicloud [--update]

`--update` also rewrites the `replace:` list of each of those types in offline/replacements.yaml
(its `unless`, `cost` and `source` are kept as they are).

How a schema becomes paths (terraform-plugin-sdk v2 diff semantics, which the bridge follows):
- a ForceNew field is listed by its path (`node_config.machine_type` -> `nodeConfig.machineType`;
  list indexes are not part of a path, offline/diff.py strips them);
- a ForceNew primitive list, set or map forces on any element change: the field itself is listed;
- a ForceNew block (a list or set of nested fields) forces only when the block is added or removed
  (its count changes); a change inside it forces only through its own ForceNew fields. The block is
  listed whole when every input below it forces anyway, otherwise its ForceNew descendants are
  listed and the block goes to `blocks` (add/remove only) in the derived file;
- a set of blocks with a ForceNew descendant is listed whole: changing an element removes it and
  adds another, which changes the ForceNew descendant too;
- Computed-only fields are outputs, never listed.

Terraform names become Pulumi input names as the bridge makes them: snake_case to camelCase, and,
when the pinned Pulumi Python SDK is importable (the project's .venv), checked against its typed
Args, which also resolves the bridge's plural names of lists (`guest_accelerator` ->
`guestAccelerators`). A field the SDK does not have is reported as unresolved and left out.

Parsing needs the standard library and PyYAML; the SDK modules are the platform specs'
(`gpu_fabric.registry`, so run it with the project's .venv), and the SDK check imports them when
they are installed.
"""

from __future__ import annotations

import argparse
import collections.abc
import importlib
import re
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from tools/: the project's package beside it

from gpu_fabric import yaml_files  # noqa: E402
from gpu_fabric.pulumi_internals import sdk  # noqa: E402
from gpu_fabric.registry import SPECS  # noqa: E402

SOURCES_FILE = ROOT / "tools" / "replacements_sources.yaml"
REPLACEMENTS_FILE = ROOT / "offline" / "replacements.yaml"
DERIVED_FILE = ROOT / "offline" / "replacements.derived.yaml"

SDKS = {spec.cloud: spec.sdk for spec in SPECS}
"""Each bridged provider's Python SDK module, by its Pulumi package (`gcp`)."""

# --- a small Go tokenizer -------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<raw>`[^`]*`)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<rune>'(?:\\.|[^'\\\n])+')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9][0-9A-Za-z_.]*)
  | (?P<op>:=|\.\.\.|&&|\|\||==|!=|<=|>=|<-|[-+*/%&|^<>=!(){}\[\],;:.])
    """,
    re.VERBOSE | re.DOTALL,
)


def tokenize(text: str) -> list[str]:
    """Go source as tokens, without comments and whitespace (strings kept with their quotes)."""
    tokens, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            tokens.append(text[pos])
            pos += 1
            continue
        pos = m.end()
        if m.lastgroup not in ("ws", "comment"):
            tokens.append(m.group())
    return tokens


_OPEN = {"(": ")", "[": "]", "{": "}"}


def _close(tokens: list[str], i: int) -> int:
    """Index of the bracket closing the one at tokens[i]."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j] in _OPEN:
            depth += 1
        elif tokens[j] in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


def _split(tokens: list[str], sep: str = ",") -> list[list[str]]:
    """Split at `sep` outside brackets (a trailing separator makes no empty part)."""
    parts: list[list[str]] = [[]]
    depth = 0
    for t in tokens:
        if t in _OPEN:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        if t == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    return [p for p in parts if p]


_STATEMENT = {"func", "var", "const", "type", "import", "return", "if", "for", "switch", "defer"}


def _expr_end(tokens: list[str], i: int) -> int:
    """Where the expression starting at tokens[i] ends (Go's newlines are gone: a guess that holds
    for declarations and `return` statements: the expression ends after a closing `)` or `}` not
    followed by `.`, `(`, `{` or `[`, or before the next statement or `name =`)."""
    start = i
    while i < len(tokens):
        t = tokens[i]
        if i > start and (t in _STATEMENT or t == ";"):
            return i
        if i > start and i + 1 < len(tokens) and tokens[i + 1] in ("=", ":="):
            if re.fullmatch(r"[A-Za-z_]\w*", t):
                return i
        if t in _OPEN:
            i = _close(tokens, i) + 1
            if t == "[" or (i < len(tokens) and tokens[i] in ("(", "{", ".", "[")):
                continue
            return i
        i += 1
    return i


# --- expressions: composite literals, calls, names ------------------------------------------------


@dataclass
class Composite:
    type: str
    elements: list[tuple[str | None, Any]]


@dataclass
class Call:
    name: str
    args: list[Any]


@dataclass
class Name:
    name: str


@dataclass
class Other:
    text: str


def parse_expr(tokens: list[str]) -> Any:
    if tokens and tokens[0] == "&":
        tokens = tokens[1:]
    if not tokens:
        return Other("")
    if tokens[0] == "func":
        return Other("func literal")
    if tokens[0] == "{":
        return Composite("", _elements(tokens[1 : _close(tokens, 0)]))
    # A composite literal: a type (names, dots, map[...]/[]..., *) then `{`.
    i = 0
    while i < len(tokens) and tokens[i] not in ("{", "("):
        if tokens[i] == "[":
            i = _close(tokens, i)
        i += 1
    if i < len(tokens) and tokens[i] == "{" and _close(tokens, i) == len(tokens) - 1:
        return Composite("".join(tokens[:i]), _elements(tokens[i + 1 : -1]))
    if i < len(tokens) and tokens[i] == "(" and _close(tokens, i) == len(tokens) - 1:
        return Call("".join(tokens[:i]), [parse_expr(a) for a in _split(tokens[i + 1 : -1])])
    if all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\.", t) for t in tokens):
        return Name("".join(tokens))
    return Other(" ".join(tokens))


def _elements(tokens: list[str]) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for part in _split(tokens):
        if len(part) > 1 and part[1] == ":":
            key = part[0].strip('"`')
            out.append((key, parse_expr(part[2:])))
        else:
            out.append((None, parse_expr(part)))
    return out


# --- a Go package: its top-level functions and variables ------------------------------------------


class Package:
    """The top-level `func` and `var` declarations of the Go files of one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.funcs: dict[str, list[str]] = {}
        self.vars: dict[str, list[str]] = {}
        self.customize: dict[str, list[tuple[str, str]]] = {}
        for path in sorted(directory.glob("*.go")):
            if not path.name.endswith("_test.go"):
                self._index(tokenize(path.read_text(encoding="utf-8", errors="replace")))

    def _index(self, tokens: list[str]) -> None:
        i, depth = 0, 0
        while i < len(tokens):
            t = tokens[i]
            if depth == 0 and t == "func" and i + 1 < len(tokens) and tokens[i + 1] != "(":
                j = i + 2
                while j < len(tokens) and tokens[j] != "{":
                    if tokens[j] in ("(", "["):
                        j = _close(tokens, j)
                    j += 1
                end = _close(tokens, j)
                self.funcs[tokens[i + 1]] = tokens[j + 1 : end]
                i = end + 1
                continue
            if depth == 0 and t == "var":
                if tokens[i + 1] == "(":
                    end = _close(tokens, i + 1)
                    specs, k = tokens[i + 2 : end], 0
                    while k < len(specs):
                        k = self._var(specs, k)
                    i = end + 1
                else:
                    i = self._var(tokens, i + 1)
                continue
            if t in _OPEN:
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            i += 1

    def _var(self, tokens: list[str], i: int) -> int:
        """Record `name [type] = value` at tokens[i]; the index after it."""
        name, k = tokens[i], i + 1
        while k < len(tokens) and tokens[k] != "=":
            if tokens[k] in _OPEN:
                k = _close(tokens, k)
            k += 1
        end = _expr_end(tokens, k + 1)
        self.vars[name] = tokens[k + 1 : end]
        return max(end, i + 1)

    def returned(self, func: str) -> Any:
        """The expression a function returns (its first top-level `return`)."""
        body = self.funcs.get(func)
        if body is None:
            return None
        depth = 0
        for i, t in enumerate(body):
            if t in _OPEN:
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
            elif t == "return" and depth == 0:
                return parse_expr(body[i + 1 : _expr_end(body, i + 1)])
        return None

    def value(self, var: str) -> Any:
        tokens = self.vars.get(var)
        return None if tokens is None else parse_expr(tokens)


# --- schema resolution ----------------------------------------------------------------------------


@dataclass
class Field:
    name: str
    force_new: bool = False
    computed_only: bool = False
    set_type: bool = False
    block: dict[str, Field] | None = None
    """Nested fields of a block (Elem: &schema.Resource{...}), or None for a primitive."""


@dataclass
class Resolver:
    package: Package
    unresolved: list[str] = field(default_factory=list)

    def _deref(self, node: Any, where: str) -> Any:
        """Follow package variables and argument-less local function calls."""
        for _ in range(10):
            if isinstance(node, Name) and "." not in node.name:
                value = self.package.value(node.name)
                if value is None:
                    value = self.package.returned(node.name)
                if value is None:
                    self.unresolved.append(f"{where}: {node.name}")
                    return None
                node = value
            elif (
                isinstance(node, Call) and "." not in node.name and node.name in self.package.funcs
            ):
                node = self.package.returned(node.name)
            else:
                return node
        return node

    def schema_map(self, node: Any, where: str) -> dict[str, Field]:
        node = self._deref(node, where)
        fields: dict[str, Field] = {}
        if isinstance(node, Call) and node.name.lower().endswith("mergeschemas"):
            for arg in node.args:
                fields.update(self.schema_map(arg, where))
        elif isinstance(node, Composite) and node.type.startswith("map["):
            for key, value in node.elements:
                if key is not None:
                    fields[key] = self.field(key, value, f"{where}.{key}")
        elif isinstance(node, Composite) and node.type.endswith("Resource"):
            for key, value in node.elements:
                if key == "Schema":
                    return self.schema_map(value, where)
        elif node is not None:
            self.unresolved.append(f"{where}: {_describe(node)}")
        return fields

    def field(self, name: str, node: Any, where: str) -> Field:
        node = self._deref(node, where)
        f = Field(name)
        if not isinstance(node, Composite):
            self.unresolved.append(f"{where}: {_describe(node)}")
            return f
        attrs = {k: v for k, v in node.elements if k is not None}
        f.force_new = _is_true(attrs.get("ForceNew"))
        f.computed_only = _is_true(attrs.get("Computed")) and not (
            _is_true(attrs.get("Optional")) or _is_true(attrs.get("Required"))
        )
        f.set_type = isinstance(attrs.get("Type"), Name) and attrs["Type"].name.endswith("TypeSet")
        elem = self._deref(attrs.get("Elem"), where) if "Elem" in attrs else None
        if isinstance(elem, Composite) and elem.type.endswith("Resource"):
            f.block = self.schema_map(elem, where)
        return f

    def resource(self, symbol: str, where: str) -> dict[str, Field]:
        return self.schema_map(Name(symbol), where)

    def conditional(self, symbol: str) -> list[tuple[str, str]]:
        """`customdiff.ForceNewIf*("path", ...)` in the resource's CustomizeDiff."""
        tokens = self.package.funcs.get(symbol, [])
        out = []
        for i, t in enumerate(tokens[:-3]):
            if t in ("ForceNewIfChange", "ForceNewIf") and tokens[i + 1] == "(":
                out.append((tokens[i + 2].strip('"'), t))
        return out


def _is_true(node: Any) -> bool:
    return isinstance(node, Name) and node.name == "true"


def _describe(node: Any) -> str:
    if isinstance(node, Call):
        return f"{node.name}(...)"
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Composite):
        return f"{node.type}{{...}}"
    return "unparsed expression" if node is not None else "not found"


# --- schema -> replace-forcing paths --------------------------------------------------------------


def _inputs(fields: dict[str, Field]) -> dict[str, Field]:
    return {k: f for k, f in fields.items() if not f.computed_only}


def _all_force(fields: dict[str, Field]) -> bool:
    return all(
        f.force_new and (f.block is None or _all_force(f.block)) for f in _inputs(fields).values()
    )


def _any_force(fields: dict[str, Field]) -> bool:
    return any(f.force_new or (f.block and _any_force(f.block)) for f in _inputs(fields).values())


def forcing_paths(fields: dict[str, Field], prefix: str = "") -> tuple[list[str], list[str]]:
    """(replace-forcing TF paths, ForceNew blocks that force only on add/remove), dotted."""
    paths: list[str] = []
    blocks: list[str] = []
    for name, f in sorted(_inputs(fields).items()):
        path = prefix + name
        if f.block is None:
            if f.force_new:
                paths.append(path)
            continue
        if (f.force_new and _all_force(f.block)) or (f.set_type and _any_force(f.block)):
            paths.append(path)
            continue
        if f.force_new:
            blocks.append(path)
        sub_paths, sub_blocks = forcing_paths(f.block, path + ".")
        paths += sub_paths
        blocks += sub_blocks
    return paths, blocks


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def tf_path(path: str) -> str:
    """`platform_config.0.type` -> `platform_config.type`."""
    return ".".join(p for p in path.split(".") if not p.isdigit())


# --- Terraform names -> Pulumi input names (through the pinned SDK) -------------------------------


def args_class(type_: str) -> Any:
    """`gcp:container/nodePool:NodePool` -> `pulumi_gcp.container.NodePoolArgs` (None: no SDK)."""
    package, module, name = type_.split(":")
    try:
        sdk = importlib.import_module(f"{SDKS[package]}.{module.split('/')[0].lower()}")
    except ImportError:
        return None
    return getattr(sdk, f"{name}InitArgs", None) or getattr(sdk, f"{name}Args")


def _input_types(cls: Any) -> dict[str, Any] | None:
    return dict(sdk("input_type_types")(cls))


def _element(typ: Any) -> Any:
    unwrap_type = sdk("unwrap_type")
    typ = unwrap_type(typ)
    if typing.get_origin(typ) in (list, collections.abc.Sequence):
        (typ,) = typing.get_args(typ)
        typ = unwrap_type(typ)
    return typ


def pulumi_path(cls: Any, path: str) -> str | None:
    """The Pulumi input path of a TF path, checked against the SDK's Args (None: not an input)."""
    out = []
    for part in path.split("."):
        if cls is None:
            out.append(camel(part))
            continue
        if typing.get_origin(cls) in (dict, collections.abc.Mapping):
            out.append(part)  # a map key stays as it is (instance metadata's user_data)
            cls = None
            continue
        types = _input_types(cls) or {}
        base = camel(part)
        candidates = [base, base + "s", base + "es"]
        if base.endswith("y"):
            candidates.append(base[:-1] + "ies")
        match = next((c for c in candidates if c in types), None)
        if match is None:
            return None
        out.append(match)
        cls = _element(types[match])
        if not isinstance(cls, type) and typing.get_origin(cls) not in (
            dict,
            collections.abc.Mapping,
        ):
            cls = None
    return ".".join(out)


# --- deriving one resource type -------------------------------------------------------------------


@dataclass
class Derived:
    replace: list[str]
    blocks: list[str]
    conditional: dict[str, str]
    unresolved: list[str]


def derive(root: Path, spec: dict[str, Any], type_: str | None = None) -> Derived:
    """The replace-forcing Pulumi paths of one resource from its entry in the sources file."""
    fields: dict[str, Field] = {}
    unresolved: list[str] = []
    conditional: dict[str, str] = {}
    for entry in spec["schema"]:
        path = root / entry["file"]
        resolver = Resolver(Package(path.parent))
        if entry["symbol"] not in resolver.package.funcs | resolver.package.vars:
            raise SystemExit(f"{type_}: {entry['symbol']} not found in {path.parent}")
        fields.update(resolver.resource(entry["symbol"], entry["symbol"]))
        unresolved += resolver.unresolved
        for tf, how in resolver.conditional(entry["symbol"]):
            conditional[tf_path(tf)] = f"customdiff.{how}"
        # `d.ForceNew("path")` in the file's CustomizeDiff functions.
        tokens = tokenize(path.read_text(encoding="utf-8", errors="replace"))
        for i in range(1, len(tokens) - 3):
            if tokens[i - 1] == "." and tokens[i] == "ForceNew" and tokens[i + 1] == "(":
                if tokens[i + 2].startswith('"'):
                    conditional.setdefault(
                        tf_path(tokens[i + 2].strip('"')), "ResourceDiff.ForceNew"
                    )
    for name in spec.get("drop_fields", []):
        fields.pop(name, None)
    tf_paths, tf_blocks = forcing_paths(fields)
    tf_paths += [p for p in conditional if p not in tf_paths]
    for field_name, refined in spec.get("refine", {}).items():
        if field_name in tf_paths:
            tf_paths.remove(field_name)
            tf_paths += refined
    tf_paths += spec.get("add", [])
    cls = args_class(type_) if type_ else None
    replace, blocks, missing = [], [], []
    for tf in tf_paths:
        p = pulumi_path(cls, tf)
        (replace.append(p) if p else missing.append(tf))
    for tf in tf_blocks:
        p = pulumi_path(cls, tf)
        (blocks.append(p) if p else missing.append(tf))
    cond = {pulumi_path(cls, tf) or tf: how for tf, how in conditional.items()}
    return Derived(
        replace=_collapse(replace),
        blocks=sorted(set(blocks)),
        conditional=dict(sorted(cond.items())),
        unresolved=sorted(set(unresolved)) + [f"not a Pulumi input: {m}" for m in missing],
    )


def _collapse(paths: list[str]) -> list[str]:
    """Sorted, without duplicates and without paths below another listed path."""
    unique = sorted(set(paths))
    return [p for p in unique if not any(p.startswith(q + ".") for q in unique if q != p)]


# --- files ----------------------------------------------------------------------------------------


def load_sources(path: Path = SOURCES_FILE) -> dict[str, Any]:
    data: dict[str, Any] = yaml_files.load(path.read_text())
    return data


def derive_all(roots: dict[str, Path], sources: dict[str, Any]) -> dict[str, Derived]:
    out = {}
    for type_, spec in sources["types"].items():
        package = type_.split(":")[0]
        if package in roots:
            out[type_] = derive(roots[package], spec, type_)
    return out


def render_derived(sources: dict[str, Any], derived: dict[str, Derived]) -> str:
    lines = [
        "# Written by tools/replacements_from_providers.py from the Terraform provider sources",
        "# named in tools/replacements_sources.yaml; do not edit. offline/replacements.yaml's",
        "# `replace:` of each type below equals this one (tests/test_replacements.py checks it).",
        "#   replace:     Pulumi input paths whose change forces a replacement (ForceNew, or a",
        "#                CustomizeDiff ForceNewIf*, see conditional)",
        "#   blocks:      ForceNew blocks: adding or removing the whole block forces replacement,",
        "#                a change inside it only through the ForceNew fields listed in replace",
        "#   conditional: replace paths forced by a CustomizeDiff condition, not always",
        "#   unresolved:  what the script could not follow in the Go source, or TF fields that are",
        "#                not Pulumi inputs",
    ]
    providers = {
        name: {k: v for k, v in p.items() if k != "note"}
        for name, p in sources["providers"].items()
    }
    body: dict[str, Any] = {"providers": providers, "types": {}}
    for type_, d in derived.items():
        entry: dict[str, Any] = {
            "terraform": sources["types"][type_]["terraform"],
            "replace": d.replace,
        }
        if d.blocks:
            entry["blocks"] = d.blocks
        if d.conditional:
            entry["conditional"] = d.conditional
        if d.unresolved:
            entry["unresolved"] = d.unresolved
        body["types"][type_] = entry
    return "\n".join(lines) + "\n" + yaml.safe_dump(body, sort_keys=False, width=100)


def flow_list(key: str, items: list[str], indent: int = 4, width: int = 100) -> str:
    """`replace: [a, b, ...]` wrapped the way replacements.yaml writes it."""
    head = " " * indent + f"{key}: ["
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else "]")
        if len(line) + len(piece.rstrip()) > width and line.strip() not in ("", f"{key}: ["):
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece
    if not items:
        line += "]"
    lines.append(line)
    return "\n".join(lines)


def update_replacements(text: str, derived: dict[str, Derived]) -> str:
    """Rewrite the `replace:` list of each derived type, leaving every other line as it is."""
    lines = text.split("\n")
    out: list[str] = []
    i, current = 0, None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^  ([^\s#][^:]*:[^:]*:[^:\s]*):\s*$", line)
        if m:
            current = m.group(1)
        if current in derived and re.match(r"^    replace:", line):
            while "]" not in lines[i]:
                i += 1
            out.append(flow_list("replace", derived[current].replace))
            i += 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="PACKAGE=DIR",
        help=f"a provider source checkout ({', '.join(SDKS)}) at the commit the sources file names",
    )
    parser.add_argument("--sources", type=Path, default=SOURCES_FILE)
    parser.add_argument("--out", type=Path, default=DERIVED_FILE)
    parser.add_argument(
        "--update", action="store_true", help="also rewrite the replace: lists of replacements.yaml"
    )
    args = parser.parse_args(argv)
    roots = {}
    for item in args.source:
        package, _, directory = item.partition("=")
        roots[package] = Path(directory)
    if not roots:
        parser.error("give at least one --source PACKAGE=DIR")
    sources = load_sources(args.sources)
    derived = derive_all(roots, sources)
    if set(roots) != set(SDKS):
        # Keep the types of the providers not given as they are in the derived file.
        old = yaml.safe_load(args.out.read_text()) if args.out.exists() else {"types": {}}
        for type_, entry in old["types"].items():
            if type_ not in derived and type_.split(":")[0] not in roots:
                derived[type_] = Derived(
                    entry["replace"],
                    entry.get("blocks", []),
                    entry.get("conditional", {}),
                    entry.get("unresolved", []),
                )
        derived = {t: derived[t] for t in sources["types"] if t in derived}
    args.out.write_text(render_derived(sources, derived))
    print(f"wrote {args.out}")
    for type_, d in derived.items():
        print(f"{type_}: {', '.join(d.replace) or '(nothing)'}")
        for u in d.unresolved:
            print(f"    unresolved: {u}")
    if args.update:
        REPLACEMENTS_FILE.write_text(update_replacements(REPLACEMENTS_FILE.read_text(), derived))
        print(f"updated {REPLACEMENTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
