"""Extended grapheme cluster boundaries (UAX #29), from the ``regex`` module's ``\\X``.

``regex`` carries its own Unicode database, which may be newer than the
runtime's ``unicodedata``; :data:`GRAPHEME_UNICODE_VERSION` names it so that
profiles and manifests can say which segmentation judged a range.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import regex

__all__ = [
    "GRAPHEME_UNICODE_VERSION",
    "grapheme_boundaries",
    "is_grapheme_boundary",
    "next_grapheme_boundary",
    "previous_grapheme_boundary",
]

_CLUSTER: Final = regex.compile(r"\X", regex.DOTALL)

# A boundary always follows LF (UAX #29 GB4/GB5), so scanning can restart after
# one. Without an LF nearby we restart at most this far back: the rules that need
# more context than that (long runs of regional indicators) are handled below.
_LOOKBACK: Final = 4096

# Characters first assigned in each Unicode version, newest first. ``regex`` has
# no Age property, so we ask whether it knows the character.
_VERSION_PROBES: Final = (
    ("17.0.0", 0x1F6D8),
    ("16.0.0", 0x1FAE9),
    ("15.1.0", 0x2FFC),
    ("15.0.0", 0x1F6DC),
    ("14.0.0", 0x1FAE0),
    ("13.0.0", 0x1F972),
)


def _probe_version() -> str:
    assigned = regex.compile(r"\p{Assigned}")
    for version, code_point in _VERSION_PROBES:
        if assigned.match(chr(code_point)):
            return version
    return "unknown"


GRAPHEME_UNICODE_VERSION: Final = _probe_version()

_REGIONAL_INDICATOR = range(0x1F1E6, 0x1F200)

#: Code points between any two of which there is always a boundary, whatever comes
#: before (UAX #29: none is CR, Extend, ZWJ, SpacingMark, Prepend, a Hangul jamo, a
#: regional indicator or an Indic conjunct letter, so only GB4/GB5 and GB999 apply):
#: Latin, Cyrillic without its combining marks, general punctuation. A range end
#: between two of them needs no scan (``test_graphemes_fast_pairs`` checks every pair
#: against ``regex``'s ``\X``).
_ALWAYS_APART_RANGES: Final = (
    (0x0000, 0x0250),
    (0x0400, 0x0483),
    (0x048A, 0x0500),
    (0x2010, 0x2028),
    (0x2030, 0x205F),
)
_ALWAYS_APART: Final = frozenset(
    chr(code)
    for low, high in _ALWAYS_APART_RANGES
    for code in range(low, high)
    if code != 0x0D  # CR: GB3 keeps CR LF together
)


def _plainly_apart(text: str, offset: int) -> bool:
    """``0 < offset < len(text)`` lies between two code points that are always apart."""
    return text[offset - 1] in _ALWAYS_APART and text[offset] in _ALWAYS_APART


def _scan_start(text: str, offset: int) -> int:
    """A position at or before ``offset`` from which scanning finds true boundaries."""
    lf = text.rfind("\n", max(0, offset - _LOOKBACK), offset)
    if lf >= 0:
        return lf + 1
    start = max(0, offset - _LOOKBACK)
    # Regional indicators pair up from the start of their run (GB12/GB13):
    # move back to the run's start so the pairing parity is right.
    while start > 0 and ord(text[start - 1]) in _REGIONAL_INDICATOR:
        start -= 1
    return start


def is_grapheme_boundary(text: str, offset: int) -> bool:
    """True when ``offset`` (code points) does not split a grapheme cluster."""
    if offset < 0 or offset > len(text):
        return False
    if offset in (0, len(text)) or _plainly_apart(text, offset):
        return True
    position = _scan_start(text, offset)
    if position == offset:
        return True
    for match in _CLUSTER.finditer(text, position):
        end = match.end()
        if end == offset:
            return True
        if end > offset:
            return False
    return False


def previous_grapheme_boundary(text: str, offset: int) -> int:
    """The greatest boundary ``<= offset``."""
    offset = max(0, min(offset, len(text)))
    if offset in (0, len(text)) or _plainly_apart(text, offset):
        return offset
    position = _scan_start(text, offset)
    last = position
    for match in _CLUSTER.finditer(text, position):
        end = match.end()
        if end > offset:
            return last
        last = end
    return last


def next_grapheme_boundary(text: str, offset: int) -> int:
    """The least boundary ``>= offset``."""
    offset = max(0, min(offset, len(text)))
    if offset in (0, len(text)) or _plainly_apart(text, offset):
        return offset
    position = _scan_start(text, offset)
    if position == offset:
        return offset
    for match in _CLUSTER.finditer(text, position):
        end = match.end()
        if end >= offset:
            return end
    return len(text)


def grapheme_boundaries(text: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Boundaries in ``[start, end]``, ``start`` snapped back to a boundary first."""
    stop = len(text) if end is None else min(end, len(text))
    position = previous_grapheme_boundary(text, start)
    if position >= start:
        yield position
    for match in _CLUSTER.finditer(text, position):
        boundary = match.end()
        if boundary > stop:
            return
        if boundary >= start:
            yield boundary
