"""Write the key tables of docs/config-reference.md from the config models (`make docs`).

Each platform package's models are the one place a stack key is described: its type, its default,
its `Field(description=...)` and the bounds the field carries (`ge`, `le`, `min_length`). This
module renders one table per platform package between the page's markers

    <!-- BEGIN GENERATED: gke -->
    ...
    <!-- END GENERATED -->

and leaves the prose around them as written (cluster-toolkit generates its module READMEs' input
tables from the variables' descriptions the same way). A key that only some of a package's
platforms have says which. tests/test_config_reference.py fails when the page and the models
differ:

    .venv/bin/python -m tools.config_reference          # rewrite the tables
    .venv/bin/python -m tools.config_reference --check  # exit 1 if they are out of date
"""

from __future__ import annotations

import json
import re
import sys
import types
import typing
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from gpu_fabric.platform_spec import PlatformSpec
from gpu_fabric.problems import NAMESPACE
from gpu_fabric.registry import SPECS
from tools import generated_file

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "config-reference.md"
REGENERATE = ".venv/bin/python -m tools.config_reference (or `make docs`)"
BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<name>[a-z]+) -->\n).*?(<!-- END GENERATED -->)", re.DOTALL
)
HEADER = (
    "| key | type | default | description |",
    "| --- | --- | --- | --- |",
)


@dataclass
class Row:
    key: str
    type: str
    default: str
    description: str
    platforms: list[str]


def spec_name(spec: PlatformSpec) -> str:
    """The platform package's name (`gke`), the marker's name."""
    return spec.models[0].__module__.split(".")[-2]


def _unwrap(annotation: object) -> object:
    """The type under `Annotated[...]` and `X | None`."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(parts) == 1:
            return _unwrap(parts[0])
    return annotation


def _section(annotation: object) -> type[BaseModel] | None:
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _type(annotation: object) -> str:
    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type(a) for a in typing.get_args(annotation) if a is not type(None))
    if origin is typing.Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(annotation))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return "list of sections" if _section(item) else f"list of {_type(item)}"
    if origin is dict:
        return "mapping of sections" if _section(typing.get_args(annotation)[1]) else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "one of " + ", ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section"
    return {bool: "boolean", int: "integer", str: "text"}.get(annotation, str(annotation))  # type: ignore[call-overload]


def _value(value: object) -> str:
    if isinstance(value, Enum):
        value = value.value
    return f"`{value}`" if isinstance(value, str) and value else f"`{json.dumps(value)}`"


def _default(field: FieldInfo, within: str | None) -> str:
    if field.is_required():
        return f"required in `{within.removeprefix(f'{NAMESPACE}:')}`" if within else "required"
    if field.default_factory is not None:
        made = field.default_factory()  # type: ignore[call-arg]
        return "" if isinstance(made, BaseModel) else _value(made)
    return "unset" if field.default in (None, PydanticUndefined) else _value(field.default)


def _bounds(field: FieldInfo) -> str:
    """The bounds the field carries, in words."""
    words = []
    for rule in field.metadata:
        if isinstance(rule, annotated_types.Ge):
            words.append(f">= {rule.ge}")
        elif isinstance(rule, annotated_types.Le):
            words.append(f"<= {rule.le}")
        elif isinstance(rule, annotated_types.MinLen):
            words.append(f"at least {_items(rule.min_length)}")
        elif isinstance(rule, annotated_types.MaxLen):
            words.append(f"at most {_items(rule.max_length)}")
    return f" Bounds: {', '.join(words)}." if words else ""


def _items(count: int) -> str:
    return f"{count} item" if count == 1 else f"{count} items"


def _rows(
    model: type[BaseModel], prefix: str, within: str | None, expanded: dict[type, str]
) -> list[Row]:
    """The rows of a model's keys under `prefix` (`gpu-fabric:`, or a section's key and `.`).

    `within`: the optional section (or list of sections) these keys belong to, if any;
    `expanded`: sections already written out under a single key, so a list of the same sections
    (`gpuPools`, of `gpuPool`s) points there instead of repeating every key.
    """
    rows = []
    for name, field in model.model_fields.items():
        alias = field.alias or name
        key = alias if ":" in alias else f"{prefix}{alias}"
        annotation = _unwrap(field.annotation)
        origin = typing.get_origin(annotation)
        section = _section(annotation)
        description = (field.description or "").strip() + _fabric_note(model, name)
        if section is None and origin in (list, dict):
            section = _section(typing.get_args(annotation)[-1])
        optional = not field.is_required() and field.default_factory is None
        if section is not None and origin is list and section in expanded:
            description = f"{description} Each item has the keys of `{expanded[section]}`."
        elif section is not None:
            if origin is None:
                expanded.setdefault(section, key)
            if description or optional or origin is not None:
                rows.append(_row(key, field, description, within))
            inner = {list: f"{key}[].", dict: f"{key}.<name>."}.get(
                origin,  # type: ignore[arg-type]
                f"{key}.",
            )
            inner_within = key if (optional or origin is not None) else within
            rows += _rows(section, inner, inner_within, expanded)
            continue
        if not description:
            raise ValueError(f"{model.__name__}.{name} ({key}) has no description")
        rows.append(_row(key, field, description, within))
    return rows


FABRIC_NOTE = " A fabric key: in a split deployment, its fabric stack's."


def _fabric_note(model: type[BaseModel], name: str) -> str:
    """What a top-level key of a stack model says of its stack in a split deployment (its
    `FABRIC_KEYS`, stack_config/split.py)."""
    return FABRIC_NOTE if name in getattr(model, "FABRIC_KEYS", {}) else ""


def _row(key: str, field: FieldInfo, description: str, within: str | None) -> Row:
    return Row(
        key=key,
        type=_type(field.annotation),
        default=_default(field, within),
        description=f"{description}{_bounds(field)}".strip(),
        platforms=[],
    )


def table(spec: PlatformSpec) -> str:
    """The key table of one platform package: every key of every platform it builds."""
    by_key: dict[str, Row] = {}
    for platform, model in spec.platforms.items():
        for row in _rows(model, f"{NAMESPACE}:", None, {}):
            known = by_key.setdefault(row.key, row)
            known.platforms.append(platform)
            if row.key.endswith(":platform"):
                known.type = "one of " + ", ".join(f"`{p}`" for p in known.platforms)
    every = list(spec.platforms)
    lines = list(HEADER)
    # The platform first: it decides which of the other keys a stack may have.
    for row in sorted(by_key.values(), key=lambda r: not r.key.endswith(":platform")):
        only = (
            f" Only {', '.join(f'`{p}`' for p in row.platforms)}."
            if row.platforms != every and not row.key.endswith(":platform")
            else ""
        )
        cells = (f"`{row.key}`", row.type, row.default, f"{row.description}{only}")
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def render(page: str) -> str:
    """The page with every generated block rewritten from the models."""
    tables = {spec_name(s): table(s) for s in SPECS}
    unknown = [m["name"] for m in BLOCK.finditer(page) if m["name"] not in tables]
    if unknown:
        raise ValueError(f"no platform package named {unknown}; markers name one of {list(tables)}")
    return BLOCK.sub(lambda m: f"{m[1]}{tables[m['name']]}{m[3]}", page)


def main(argv: list[str] | None = None) -> int:
    return generated_file.main(__doc__.splitlines()[0], PAGE, render, REGENERATE, argv)


if __name__ == "__main__":
    sys.exit(main())
