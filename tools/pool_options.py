"""The pool options of the hosted GKE layer, written from the stack config: `make docs`.

    python -m tools.pool_options [--check]

A `GpuPoolConfig` field marked `POOL_OPTION` (gpu_fabric/gke/pool/config.py) reaches the node pool
as it is written. Its field in `GkeGpuPool` (gpu_fabric/gke/pool/args.py, between the GENERATED
markers) is written here from the model: the name, the type, and the description as the field's
docstring, which is what Pulumi's component analyzer reads for the schema (`Analyzer.get_docstring`
parses the class's source: pulumi/provider/experimental/analyzer.py). So a pool option is its config
field, its use in the node pool, and a test; tests/test_gke_pool_options.py fails when the block is
out of date.
"""

from __future__ import annotations

import re
import sys
import textwrap
import types
import typing
from pathlib import Path

from pydantic.fields import FieldInfo

from gpu_fabric.gke.pool.config import GpuPoolConfig, pool_options
from tools import generated_file

ROOT = Path(__file__).resolve().parents[1]
ARGS_FILE = ROOT / "gpu_fabric" / "gke" / "pool" / "args.py"
REGENERATE = "`make docs`"
BLOCK = re.compile(
    r"(    # BEGIN GENERATED: pool options[^\n]*\n).*?(    # END GENERATED\n)", re.DOTALL
)
LINE_LENGTH = 100
"""ruff's line length (pyproject.toml)."""
_PLAIN = {str: "str", int: "int", float: "float", bool: "bool"}


def _type(name: str, field: FieldInfo) -> str:
    """The TypedDict type of a pool option: plain types only (the schema's), every option optional
    in the args (the model's default applies where it is left out)."""
    annotation: typing.Any = field.annotation
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if annotation not in _PLAIN:
        raise ValueError(
            f"GpuPoolConfig.{name} is a pool option of type {annotation!r}; a pool option is "
            f"{', '.join(_PLAIN.values())} (the node pool takes it as written)"
        )
    return f"NotRequired[{_PLAIN[annotation]}]"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _docstring(name: str, field: FieldInfo) -> list[str]:
    """The field's docstring: one line where it fits, else adjacent literals in parentheses,
    which Python joins into the one string constant the analyzer reads."""
    if not field.description:
        raise ValueError(f"GpuPoolConfig.{name} is a pool option without a description")
    escaped = field.description.replace("\\", "\\\\")
    one_line = f'    """{escaped}"""'
    if len(one_line) <= LINE_LENGTH:
        return [one_line]
    pieces = textwrap.wrap(field.description, LINE_LENGTH - 12, drop_whitespace=False)
    return ["    (", *(f"        {_quoted(piece)}" for piece in pieces), "    )"]


def block() -> str:
    """The generated fields, one option after another."""
    lines = []
    for name in pool_options():
        field = GpuPoolConfig.model_fields[name]
        lines += [f"    {name}: {_type(name, field)}", *_docstring(name, field)]
    return "".join(f"{line}\n" for line in lines)


def render(source: str) -> str:
    """`source` (pool/args.py) with the generated block rewritten."""
    if not BLOCK.search(source):
        raise ValueError(f"{ARGS_FILE.name} has no `# BEGIN GENERATED: pool options` block")
    return BLOCK.sub(lambda m: f"{m[1]}{block()}{m[2]}", source)


def main(argv: list[str] | None = None) -> int:
    return generated_file.main(__doc__.splitlines()[0], ARGS_FILE, render, REGENERATE, argv)


if __name__ == "__main__":
    sys.exit(main())
