"""Coordinate conversions agree with Python's own encoders, both directions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragox.text import (
    Coordinates,
    OffsetError,
    OffsetIndex,
    Span,
    codepoint_to_utf8,
    codepoint_to_utf16,
    convert,
    utf8_to_codepoint,
    utf16_to_codepoint,
)

# Astral characters, combining marks, ZWJ, NBSP, CJK and ASCII in one alphabet.
ALPHABET = st.sampled_from(
    ["a", "ü", "e\u0301", "\u00a0", "\u200d", "👨", "🔧", "中", "ﬃ", "\n", "я", "\U00010348"]
)
TEXTS = st.lists(ALPHABET, max_size=60).map("".join) | st.text(max_size=3000)


@given(TEXTS, st.data())
def test_codepoint_to_units_matches_encoders(text: str, data: st.DataObject) -> None:
    """Every code point offset converts to the lengths Python's encoders report."""
    offset = data.draw(st.integers(0, len(text)))
    prefix = text[:offset]
    assert codepoint_to_utf8(text, offset) == len(prefix.encode("utf-8", "surrogatepass"))
    assert codepoint_to_utf16(text, offset) == len(prefix.encode("utf-16-le", "surrogatepass")) // 2


@given(TEXTS)
def test_units_back_to_codepoints_roundtrip(text: str) -> None:
    """Every valid unit boundary maps back to its code point, boundaries included."""
    index = OffsetIndex(text)
    for offset in range(len(text) + 1):
        u8 = index.to_unit(offset, Coordinates.UTF8)
        u16 = index.to_unit(offset, Coordinates.UTF16)
        assert index.from_unit(u8, Coordinates.UTF8) == offset
        assert index.from_unit(u16, Coordinates.UTF16) == offset


def test_large_text_uses_checkpoints_correctly() -> None:
    """Conversions stay exact across many checkpoint strides."""
    text = ("añ🔧" * 5000)[:14999]
    index = OffsetIndex(text)
    for offset in (0, 1, 1023, 1024, 1025, 7777, len(text)):
        assert index.to_unit(offset, Coordinates.UTF8) == len(text[:offset].encode())
        assert (
            index.to_unit(offset, Coordinates.UTF16) == len(text[:offset].encode("utf-16-le")) // 2
        )
    assert index.from_unit(len(text.encode()), Coordinates.UTF8) == len(text)


def test_mid_character_offsets_are_refused() -> None:
    """A UTF-16 offset between surrogates or a byte inside a sequence is an error."""
    text = "a🔧b"
    with pytest.raises(OffsetError):
        utf16_to_codepoint(text, 2)
    with pytest.raises(OffsetError):
        utf8_to_codepoint(text, 3)
    with pytest.raises(OffsetError):
        codepoint_to_utf8(text, 4)
    with pytest.raises(OffsetError):
        utf8_to_codepoint(text, -1)


def test_convert_span_between_systems() -> None:
    """A span converts to utf16 and utf8 and back, keeping its coordinate name."""
    text = "🔧 Müller\nPrüfung"
    index = OffsetIndex(text)
    span = Span(Coordinates.CODEPOINT, 9, 16)
    as16 = convert(index, span, Coordinates.UTF16)
    as8 = convert(index, span, Coordinates.UTF8)
    assert (as16.start, as16.end, as16.coordinates) == (10, 17, Coordinates.UTF16)
    assert (as8.start, as8.coordinates) == (13, Coordinates.UTF8)
    assert convert(index, as8, Coordinates.CODEPOINT) == span
    assert convert(index, as16, Coordinates.UTF8) == as8
    with pytest.raises(OffsetError):
        Span(Coordinates.CODEPOINT, 5, 4)
