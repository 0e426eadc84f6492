"""Explicit migration of an anchor to another representation (seed 000).

Migration never happens during resolution. It is an operation somebody
authorizes; it writes a new anchor and leaves the old one untouched, so the old
anchor still resolves against its own representation while that is retained.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from ragox.anchor._create import check_range, create_anchor, find_occurrences
from ragox.anchor._model import (
    Anchor,
    Refusal,
    RepresentationIdentity,
    ResolutionStatus,
)
from ragox.text import MappedRange

__all__ = ["Migration", "MigrationMethod", "migrate_anchor"]


class MigrationMethod(enum.Enum):
    """How the passage was found in the new representation."""

    #: Same source bytes: the old range was carried through both alignments.
    SOURCE_ALIGNMENT = "source-alignment"
    #: Prefix + exact + suffix occurs exactly once in the new text.
    QUOTE_WITH_CONTEXT = "quote-with-context"


@dataclass(frozen=True, slots=True)
class Migration:
    """A new anchor and how it was derived from the old one."""

    old: Anchor
    new: Anchor
    method: MigrationMethod
    #: The quoted text differs (e.g. a profile that expands ligatures).
    quote_changed: bool


def migrate_anchor(
    old: Anchor,
    old_text: str,
    new_identity: RepresentationIdentity,
    new_text: str,
    via_source: Callable[[int, int], MappedRange] | None = None,
) -> Migration | Refusal:
    """Derive an anchor into ``new_text`` from a verified anchor into ``old_text``.

    ``via_source`` maps an old range to the new text through the shared source
    (only meaningful when both representations come from the same bytes).
    """
    quote = old.quote
    if check_range(old_text, old.start, old.end) is not None or not quote.exact:
        return Refusal(ResolutionStatus.INVALID_RANGE, "old_range_invalid")
    needle = quote.prefix + quote.exact + quote.suffix
    old_hits = find_occurrences(old_text, needle, limit=2)
    if old_hits != [old.start - len(quote.prefix)] or old_text[old.start : old.end] != quote.exact:
        return Refusal(ResolutionStatus.POSITION_MISMATCH, "old_anchor_not_verified")

    if via_source is not None:
        mapped = via_source(old.start, old.end)
        if mapped.exact and check_range(new_text, mapped.start, mapped.end) is None:
            created = create_anchor(new_text, mapped.start, mapped.end, new_identity)
            if isinstance(created, Refusal):
                return created
            return Migration(
                old=old,
                new=created,
                method=MigrationMethod.SOURCE_ALIGNMENT,
                quote_changed=created.quote.exact != quote.exact,
            )

    new_hits = find_occurrences(new_text, needle, limit=2)
    if not new_hits:
        return Refusal(ResolutionStatus.QUOTE_NOT_FOUND, "quote_not_in_new_text")
    if len(new_hits) > 1:
        return Refusal(ResolutionStatus.AMBIGUOUS, "quote_ambiguous_in_new_text")
    start = new_hits[0] + len(quote.prefix)
    created = create_anchor(new_text, start, start + len(quote.exact), new_identity)
    if isinstance(created, Refusal):
        return created
    return Migration(
        old=old, new=created, method=MigrationMethod.QUOTE_WITH_CONTEXT, quote_changed=False
    )
