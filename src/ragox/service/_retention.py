"""Retention periods as people write them (``30d``, ``12h``) and the cutoffs they make."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Final

__all__ = ["DurationError", "cutoff", "format_duration", "parse_duration"]

_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION: Final = re.compile(r"([0-9]{1,7})([smhdw])")
#: Longest period accepted: 100 years (longer is "keep", which is no period at all).
MAX_SECONDS: Final = 100 * 365 * 86400


class DurationError(ValueError):
    """Not a duration of the form ``<number><s|m|h|d|w>``."""


def parse_duration(text: str) -> int:
    """Seconds of ``30d``, ``12h``, ``90m``, ``45s`` or ``2w``; zero is allowed (purge
    everything up to now)."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None:
        raise DurationError("a duration is a number and a unit: 30d, 12h, 90m, 45s, 2w")
    seconds = int(match.group(1)) * _UNITS[match.group(2)]
    if seconds > MAX_SECONDS:
        raise DurationError("a retention period is at most 100 years")
    return seconds


def format_duration(seconds: int) -> str:
    """The largest whole unit: 2592000 → ``30d``."""
    for unit in ("w", "d", "h", "m"):
        size = _UNITS[unit]
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def cutoff(seconds: int, now: datetime | None = None) -> str:
    """The creation time (in the store's ``utc_now`` form) before which records are
    older than ``seconds``."""
    moment = (now or datetime.now(UTC)) - timedelta(seconds=seconds)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")
