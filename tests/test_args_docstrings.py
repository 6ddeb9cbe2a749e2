"""Every field of every component's args (`*Args`, in gpu_fabric/) has a docstring under it:
the hosted components' docstrings become the descriptions of `pulumi package add`'s SDKs, and the
others are what a reader of a component sees first."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gpu_fabric"


def undocumented(source: str, where: str = "") -> list[str]:
    """`Class.field` of every `*Args` field not followed by a string (its docstring)."""
    missing = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name.endswith("Args")):
            continue
        for statement, after in zip(node.body, [*node.body[1:], None], strict=True):
            documented = (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
                and after.value.value.strip()
            )
            if isinstance(statement, ast.AnnAssign) and not documented:
                missing.append(f"{where}{node.name}.{ast.unparse(statement.target)}")
    return missing


def test_every_args_field_has_a_docstring():
    missing = [
        name
        for path in sorted(PACKAGE.rglob("*.py"))
        for name in undocumented(path.read_text(encoding="utf-8"), f"{path.relative_to(PACKAGE)}: ")
    ]
    assert not missing, f"args fields without a docstring: {missing}"


def test_the_check_finds_a_field_without_one():
    source = '''
class PoolArgs:
    name: str
    """Pool name."""
    size: int
    zone: str
    ""
class Other:
    plain: int
'''
    assert undocumented(source) == ["PoolArgs.size", "PoolArgs.zone"]
