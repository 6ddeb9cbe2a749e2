"""What `pip install` ships: every package of the source tree and every data file it reads."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_of_the_tree_is_listed():
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "gpu_fabric").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert set(SETUPTOOLS["packages"]) == found


def test_every_data_file_beside_the_code_is_shipped():
    data = SETUPTOOLS["package-data"]
    missing = []
    for package in SETUPTOOLS["packages"]:
        directory = ROOT / package.replace(".", "/")
        patterns = data.get(package, [])
        for path in directory.rglob("*"):
            relative = path.relative_to(directory)
            if path.is_dir() or "__pycache__" in relative.parts or path.suffix == ".py":
                continue
            # A file of a subpackage is that package's to ship.
            if any((directory / part / "__init__.py").exists() for part in relative.parts[:1]):
                continue
            if not any(fnmatch.fnmatch(str(relative), pattern) for pattern in patterns):
                missing.append(f"{package}: {relative}")
    assert missing == []
