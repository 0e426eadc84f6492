"""Grapheme boundaries: the shortcut between plain code points agrees with ``\\X`` (issue 15:
citation validation checks both ends of every quote, and scanning a long line for
each was a tenth of an answer's time)."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ragox.text import is_grapheme_boundary, next_grapheme_boundary, previous_grapheme_boundary
from ragox.text._graphemes import _ALWAYS_APART

_CLUSTER = regex.compile(r"\X", regex.DOTALL)


def test_every_pair_of_plain_code_points_is_two_clusters() -> None:
    plain = sorted(_ALWAYS_APART)
    assert "\r" not in _ALWAYS_APART and "\u0301" not in _ALWAYS_APART
    assert {"a", "я", "ä", "\n", " ", "—", "„"} <= _ALWAYS_APART
    # "a b1 a b2 …": every pair (a, b) and (b, a) is adjacent once; each code point
    # its own cluster means a boundary between every two of them
    for first in plain:
        line = "".join(first + second for second in plain)
        assert len(_CLUSTER.findall(line)) == len(line), hex(ord(first))


#: plain code points beside every kind that joins: CR LF, combining marks, ZWJ emoji
#: sequences, regional indicators, Hangul jamo, a Devanagari conjunct, prepend marks
_MIXED = st.text(
    alphabet=st.sampled_from(
        [
            *"ab я.\n—",
            *("\r", "\u0301", "\u0483", "\u200d", "\U0001f600", "\U0001f1e6", "\U0001f1ea"),
            *("\u1100", "\u1161", "\u11a8", "\u0915", "\u094d", "\u0600", "\u00a9", "\u0903"),
            *("\ufe0f", "\u00ad"),
        ]
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_MIXED)
def test_boundaries_agree_with_a_whole_scan(text: str) -> None:
    ends = {0} | {match.end() for match in _CLUSTER.finditer(text)}
    for offset in range(len(text) + 1):
        assert is_grapheme_boundary(text, offset) == (offset in ends), offset
        assert previous_grapheme_boundary(text, offset) == max(e for e in ends if e <= offset)
        assert next_grapheme_boundary(text, offset) == min(e for e in ends if e >= offset)
