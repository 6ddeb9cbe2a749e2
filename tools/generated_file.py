"""The command line of a writer of generated text (`make docs`): rewrite a file's generated
blocks, or with `--check` exit 1 when they are out of date."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(
    description: str,
    path: Path,
    render: Callable[[str], str],
    regenerate: str,
    argv: list[str] | None = None,
) -> int:
    """Write `render(text)` over `path`'s text where they differ; `--check`: only say so."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args(argv)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    written = path.read_text(encoding="utf-8")
    generated = render(written)
    if args.check:
        if generated != written:
            print(f"{shown} is out of date; run {regenerate}", file=sys.stderr)
            return 1
        return 0
    if generated != written:
        path.write_text(generated, encoding="utf-8")
        print(f"wrote {shown}")
    return 0
