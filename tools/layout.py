"""The package's folders in docs/architecture.md, written from the tree: `make docs`.

    python -m tools.layout [--check]

One row per package folder under gpu_fabric/ (a platform, or a concern of one: `gke/pool/`): what
it holds (its `__init__.py` docstring's first sentence), its modules, and the test files named
after it (`tests/test_gke_pool*.py` for `gke/pool/`), so where a change goes is read from the
layout itself; tests/test_docs.py fails when the table is out of date.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from tools import generated_file

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gpu_fabric"
PAGE = ROOT / "docs" / "architecture.md"
REGENERATE = "`make docs`"
BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: layout[^\n]*-->\n).*?(<!-- END GENERATED: layout -->\n)", re.DOTALL
)


def _summary(init: Path) -> str:
    """The first sentence of a package's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    text = " ".join(doc.split())
    end = re.search(r"(?<=\.)\s", text)
    return (text[: end.start()] if end else text).rstrip(".")


def _tests_of(folder: Path) -> list[str]:
    """The test files named after a folder: `test_<platform>_<concern>*.py` for a concern's
    folder, `test_<name>*.py` for a top-level package."""
    parts = folder.relative_to(PACKAGE).parts
    if not parts:
        return []
    stem = "test_" + "_".join(parts)
    tests = ROOT / "tests"
    found = sorted(p.name for p in tests.glob(f"{stem}*.py"))
    if len(parts) == 1:  # a platform's own files, not its concerns' (those have their own row)
        concerns = {c.name for c in folder.iterdir() if (c / "__init__.py").exists()}
        found = [n for n in found if not any(n.startswith(f"{stem}_{c}") for c in concerns)]
    return found


def _row(folder: Path) -> str:
    modules = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
    tests = ", ".join(_tests_of(folder)) or "-"
    shown = f"`{folder.relative_to(ROOT)}/`"
    return f"| {shown} | {_summary(folder / '__init__.py')} | {', '.join(modules)} | {tests} |"


def table() -> str:
    """The table of every package folder, the top-level package first."""
    folders = sorted(
        (init.parent for init in PACKAGE.rglob("__init__.py")),
        key=lambda f: f.relative_to(PACKAGE).parts,
    )
    lines = ["| folder | what it holds | modules | its tests |", "| --- | --- | --- | --- |"]
    return "\n".join(lines + [_row(folder) for folder in folders]) + "\n"


def render(text: str) -> str:
    """`text` (the page) with its layout block rewritten."""
    if not BLOCK.search(text):
        raise ValueError(f"{PAGE.name} has no `<!-- BEGIN GENERATED: layout` block")
    return BLOCK.sub(lambda m: m[1] + table() + m[2], text)


if __name__ == "__main__":
    sys.exit(generated_file.main(__doc__.splitlines()[0], PAGE, render, REGENERATE))
