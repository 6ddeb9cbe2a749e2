"""The suite in a user's repository: a new stack file beside the examples, and real projects in
every stack file, keep `make test` green with nothing skipped. It runs the whole suite once more in
a copy of the tree, so it is marked `clone` and run by `.ci/run` (not by `make test`, whose own
run it would double)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL_PROJECT = "acme-ml-prod-4711"


def _copy_of_the_tree(target: Path) -> Path:
    """The tracked files as they are in the working tree (uncommitted edits too)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _as_a_user_has_them(stacks: Path) -> None:
    """A real-looking project in every GKE stack file, and a stack of the user's own."""
    for path in stacks.glob("Pulumi.*.yaml"):
        text = path.read_text()
        path.write_text(re.sub(r"(gcp:project:\s*)\S+", rf"\g<1>{REAL_PROJECT}", text))
    mine = (stacks / "Pulumi.a3-prod.yaml").read_text().replace("a3-prod", "team-a3")
    (stacks / "Pulumi.team-a3.yaml").write_text(mine)


@pytest.mark.clone
def test_the_suite_passes_with_a_users_stack_files_and_skips_nothing(tmp_path):
    tree = _copy_of_the_tree(tmp_path / "repo")
    _as_a_user_has_them(tree / "stacks")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-m",
            "not reference and not clone",
            "-q",
        ],  # fmt: skip
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in summary and "skipped" not in summary, summary
