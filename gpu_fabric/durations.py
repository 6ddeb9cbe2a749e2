"""Durations a stack writes for a wait (90m, 2h, 1h30m: Go's time.ParseDuration form, which Pulumi's
customTimeouts and Kueue's durations take), bounded to what a GPU node's boot can need."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

_DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


MIN_TIMEOUT_MINUTES = 10


MAX_TIMEOUT_HOURS = 72


def _timeout(value: str) -> str:
    match = _DURATION.fullmatch(value)
    if not value or match is None:
        raise ValueError(
            "must be a duration in hours, minutes and seconds as Pulumi's customTimeouts take "
            "them (Go's time.ParseDuration): 90m, 2h, 1h30m"
        )
    total_minutes = seconds_of(value) / 60
    if total_minutes < MIN_TIMEOUT_MINUTES:
        raise ValueError(
            f"shorter than {MIN_TIMEOUT_MINUTES}m: a GPU node takes minutes to boot, install its "
            "driver and join, so the update would fail on a healthy pool; give 10m or more"
        )
    if total_minutes > MAX_TIMEOUT_HOURS * 60:
        raise ValueError(
            f"longer than {MAX_TIMEOUT_HOURS}h: a wait that long is a stuck update, not a slow "
            "one; check the number"
        )
    return value


Timeout = Annotated[str, AfterValidator(_timeout)]
"""How long Pulumi waits for an operation (a resource option `customTimeouts` value: 90m, 2h)."""


def seconds_of(timeout: str) -> int:
    """The seconds of a `Timeout` (`1h30m`: 5400), for a wait that counts in seconds."""
    match = _DURATION.fullmatch(timeout)
    assert match is not None, timeout  # a Timeout is checked when it is read
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return hours * 3600 + minutes * 60 + seconds
