"""Files of the seed documents (`../shared/seeds/`), read the way their readers see them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

_FILE_NAME = re.compile(r"^[\w.-]+\.(yaml|sh)$")

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
OKE_SEED = SEEDS / "002_0d106515cd75c528.txt"


def seed_file(title: str, seed: Path = OKE_SEED) -> str:
    """The text of a file the seed shows under its name (`title`): up to a blank line or the name
    of the next file."""
    if not seed.exists():
        pytest.skip(f"needs the seed documents ({seed.parent})")
    lines = seed.read_text().splitlines()
    start = lines.index(title) + 1
    end = next(i for i in range(start, len(lines)) if not lines[i] or _FILE_NAME.match(lines[i]))
    return "\n".join(lines[start:end]) + "\n"


def seed_objects(title: str, seed: Path = OKE_SEED) -> list[dict]:
    """The YAML documents of a file the seed shows."""
    return [d for d in yaml.safe_load_all(seed_file(title, seed)) if d]
