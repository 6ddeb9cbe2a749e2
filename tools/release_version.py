"""`python -m tools.release_version TAG`: may TAG be released? (the release workflow's first step)

A release tag is `v<version>` of the package's version (`gpu_fabric/__init__.py`, which
pyproject.toml reads), and CHANGELOG.md has that version's section, no longer marked "(unreleased)":
what PyPI publishes, what `pulumi package add <git URL>@<tag>` builds and what the changelog says
are one version. Exit 0 when it may, 2 with the fix when not.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gpu_fabric import __version__

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"


def tag_problem(tag: str, version: str = __version__, changelog: str | None = None) -> str | None:
    """Why `tag` may not be released, or None."""
    if tag != f"v{version}":
        return (
            f"tag {tag!r} is not the package's version v{version} (gpu_fabric/__init__.py): tag "
            f"v{version}, or set __version__ to the tag's version first"
        )
    text = CHANGELOG.read_text() if changelog is None else changelog
    heading = re.search(rf"^## {re.escape(version)}\b(.*)$", text, re.M)
    if heading is None:
        return f"CHANGELOG.md has no section '## {version}': add what the release changes"
    if "unreleased" in heading.group(1):
        return (
            f"CHANGELOG.md still marks {version} '(unreleased)': replace it with the release date "
            "in the commit the tag points at"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m tools.release_version TAG", file=sys.stderr)
        return 2
    problem = tag_problem(args[0])
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    print(f"{args[0]}: gpu-fabric {__version__}, in CHANGELOG.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
