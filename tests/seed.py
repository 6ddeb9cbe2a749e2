"""Files the source documents show, copied into tests/fixtures/seeds/ (its README names them)."""

from __future__ import annotations

from pathlib import Path

import yaml

SEEDS = Path(__file__).resolve().parent / "fixtures" / "seeds"
OKE_SEED = SEEDS / "oke-dranet"
ACK_SEED = SEEDS / "ack-lingjun"


def seed_file(title: str, seed: Path = OKE_SEED) -> str:
    """The text of a file the source document shows under its name (`title`)."""
    return (seed / title).read_text()


def seed_objects(title: str, seed: Path = OKE_SEED) -> list[dict]:
    """The YAML documents of a file the source document shows."""
    return [d for d in yaml.safe_load_all(seed_file(title, seed)) if d]
