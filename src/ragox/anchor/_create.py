"""Creating anchors: the shortest context that makes a quote unique."""

from __future__ import annotations

from typing import Final

from ragox.anchor._model import (
    Anchor,
    Refusal,
    RepresentationIdentity,
    ResolutionStatus,
    TextQuote,
)
from ragox.text import (
    is_grapheme_boundary,
    next_grapheme_boundary,
    previous_grapheme_boundary,
)

__all__ = ["MAX_CONTEXT", "check_range", "create_anchor", "find_occurrences"]

#: Most code points of prefix or suffix context, before snapping outwards to the
#: next grapheme boundary.
MAX_CONTEXT: Final = 64


def check_range(text: str, start: int, end: int) -> str | None:
    """The reason code why ``[start, end)`` is not a citable range of ``text``, or None."""
    if start < 0 or end < 0:
        return "negative_offset"
    if start == end:
        return "empty_range"
    if start > end:
        return "start_after_end"
    if end > len(text):
        return "end_past_text"
    if not is_grapheme_boundary(text, start) or not is_grapheme_boundary(text, end):
        return "splits_grapheme"
    return None


def find_occurrences(text: str, needle: str, limit: int | None = None) -> list[int]:
    """Start offsets of ``needle`` in ``text``, overlapping ones included."""
    found: list[int] = []
    if not needle:
        return found
    position = text.find(needle)
    while position >= 0:
        found.append(position)
        if limit is not None and len(found) >= limit:
            break
        position = text.find(needle, position + 1)
    return found


def _grow_left(text: str, position: int, limit: int) -> int:
    """Move left over white space, then over one white-space-delimited token."""
    while position > limit and text[position - 1].isspace():
        position -= 1
    while position > limit and not text[position - 1].isspace():
        position -= 1
    return previous_grapheme_boundary(text, position)


def _grow_right(text: str, position: int, limit: int) -> int:
    """Move right over white space, then over one white-space-delimited token."""
    while position < limit and text[position].isspace():
        position += 1
    while position < limit and not text[position].isspace():
        position += 1
    return next_grapheme_boundary(text, position)


def create_anchor(
    text: str, start: int, end: int, identity: RepresentationIdentity
) -> Anchor | Refusal:
    """Anchor ``text[start:end]`` with the shortest unique prefix/suffix context.

    Context grows by whole white-space-delimited tokens, one per side per step,
    so that it reads like the seed's (``Müller\n`` | ``Prüfung`` | ``\nA:``)
    and survives being shown to people. Each side is bounded by
    :data:`MAX_CONTEXT` code points (snapped outwards to a grapheme boundary). A
    quote that is still not unique is refused as AMBIGUOUS rather than stored as
    an anchor that could never resolve.
    """
    reason = check_range(text, start, end)
    if reason is not None:
        return Refusal(ResolutionStatus.INVALID_RANGE, reason)
    exact = text[start:end]
    length = end - start
    rivals = [p for p in find_occurrences(text, exact) if p != start]
    left_limit = max(0, start - MAX_CONTEXT)
    right_limit = min(len(text), end + MAX_CONTEXT)
    prefix_start, suffix_end = start, end
    while True:
        prefix = text[prefix_start:start]
        suffix = text[end:suffix_end]
        rivals = [
            p
            for p in rivals
            if p >= len(prefix)
            and text.startswith(prefix, p - len(prefix))
            and text.startswith(suffix, p + length)
        ]
        if not rivals:
            return Anchor(identity, TextQuote(exact, prefix, suffix), start, end)
        grown_start = _grow_left(text, prefix_start, left_limit)
        grown_end = _grow_right(text, suffix_end, right_limit)
        if grown_start == prefix_start and grown_end == suffix_end:
            return Refusal(ResolutionStatus.AMBIGUOUS, "context_not_unique")
        prefix_start, suffix_end = grown_start, grown_end
