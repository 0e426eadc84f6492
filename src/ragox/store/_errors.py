"""What every backend raises, and the one clock format stored rows carry."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["RevisionConflict", "StoreError", "utc_now"]


class StoreError(Exception):
    """The store cannot be used: newer schema, conflicting write, broken file."""


class RevisionConflict(StoreError):
    """A revision label that exists already with other bytes: revisions are immutable."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
