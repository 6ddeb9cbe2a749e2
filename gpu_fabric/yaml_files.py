"""YAML read with libyaml's parser where PyYAML was built with it.

`yaml.CSafeLoader` is libyaml's parser under PyYAML's own safe constructor and resolver, so it
builds the same values as `yaml.safe_load`, about eight times faster (PyYAML docs, "Installation":
`yaml.CLoader`; `yaml/cyaml.py`). PyYAML without libyaml has no CSafeLoader: then the pure-Python
SafeLoader reads the same documents.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

SAFE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader if PyYAML has it, else PyYAML's own."""
SAFE_DUMPER: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's safe dumper if PyYAML has it, else PyYAML's own (the same text)."""


def load(text: str) -> Any:
    """The document of `text`, as `yaml.safe_load` reads it."""
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 (a safe loader)


def load_all(text: str) -> list[Any]:
    """Every document of `text`, as `yaml.safe_load_all` reads them."""
    return list(yaml.load_all(text, Loader=SAFE_LOADER))  # noqa: S506 (a safe loader)


def dump(value: Any) -> str:
    """`value` as a YAML document, keys in their order (what a chart value that takes YAML text
    gets)."""
    return yaml.dump(value, Dumper=SAFE_DUMPER, sort_keys=False)


def read(path: Path) -> Any:
    """The document of a file this package ships (an upstream manifest), parsed once per
    process: every plan reads the same few. A copy, which the caller may change."""
    return copy.deepcopy(_parsed(path, path.stat().st_mtime_ns, False))


def read_all(path: Path) -> list[Any]:
    """Every document of a file this package ships, parsed once per process (a copy)."""
    return copy.deepcopy(_parsed(path, path.stat().st_mtime_ns, True))


@functools.lru_cache(maxsize=64)
def _parsed(path: Path, mtime_ns: int, every_document: bool) -> Any:
    """The file's document (or documents) while it is unchanged (`mtime_ns` is in the key)."""
    text = path.read_text()
    return load_all(text) if every_document else load(text)
