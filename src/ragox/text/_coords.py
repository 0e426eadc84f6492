"""Named coordinate systems and conversions between code points, UTF-16 and UTF-8.

Every offset travels with the name of its coordinate system (DESIGN §3).
Conversions never guess: an offset that falls inside a surrogate pair or inside a
multi-byte UTF-8 sequence is an error, not "the nearest character".
"""

from __future__ import annotations

import enum
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Final

__all__ = [
    "Coordinates",
    "OffsetError",
    "OffsetIndex",
    "Span",
    "codepoint_to_utf8",
    "codepoint_to_utf16",
    "convert",
    "utf8_to_codepoint",
    "utf16_to_codepoint",
]


class Coordinates(enum.Enum):
    """The unit an offset counts, and of which text (DESIGN §3)."""

    #: Unicode code points of the normalized representation text.
    CODEPOINT = "codepoint"
    #: UTF-16 code units of the same text, as browsers count.
    UTF16 = "utf16"
    #: Bytes of the UTF-8 encoding of the same text.
    UTF8 = "utf8"
    #: Code points of the decoded source before normalization.
    SOURCE_CODEPOINT = "source-codepoint"
    #: 1-based PDF page number plus rectangles in points, origin top-left.
    PDF = "pdf"


class OffsetError(ValueError):
    """An offset outside the text, or inside a character in the target unit."""


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range ``[start, end)`` with its coordinate system."""

    coordinates: Coordinates
    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise OffsetError(f"invalid span [{self.start}, {self.end})")

    @property
    def length(self) -> int:
        return self.end - self.start

    def to_json(self) -> dict[str, object]:
        return {"coordinates": self.coordinates.value, "start": self.start, "end": self.end}


_STRIDE: Final = 1024


def _utf8_width(ch: str) -> int:
    cp = ord(ch)
    if cp < 0x80:
        return 1
    if cp < 0x800:
        return 2
    if cp < 0x10000:
        return 3
    return 4


def _utf16_width(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


class OffsetIndex:
    """Checkpointed cumulative widths of a text, for repeated conversions.

    Converting one offset costs at most one stride of code points instead of a
    scan from the start of a multi-megabyte text.
    """

    __slots__ = ("_text", "_u8", "_u16")

    def __init__(self, text: str) -> None:
        self._text = text
        u8 = array("q", [0])
        u16 = array("q", [0])
        total8 = total16 = 0
        for base in range(0, len(text), _STRIDE):
            piece = text[base : base + _STRIDE]
            total8 += len(piece.encode("utf-8", "surrogatepass"))
            total16 += len(piece.encode("utf-16-le", "surrogatepass")) // 2
            u8.append(total8)
            u16.append(total16)
        self._u8 = u8
        self._u16 = u16

    @property
    def text(self) -> str:
        return self._text

    def to_unit(self, offset: int, unit: Coordinates) -> int:
        """Code point offset → UTF-8 or UTF-16 offset."""
        text = self._text
        if not 0 <= offset <= len(text):
            raise OffsetError(f"offset {offset} outside [0, {len(text)}]")
        checkpoints = self._table(unit)
        block = offset // _STRIDE
        base = block * _STRIDE
        piece = text[base:offset]
        if unit is Coordinates.UTF8:
            return checkpoints[block] + len(piece.encode("utf-8", "surrogatepass"))
        return checkpoints[block] + len(piece.encode("utf-16-le", "surrogatepass")) // 2

    def from_unit(self, offset: int, unit: Coordinates) -> int:
        """UTF-8 or UTF-16 offset → code point offset; refuses mid-character offsets."""
        checkpoints = self._table(unit)
        if not 0 <= offset <= checkpoints[-1]:
            raise OffsetError(f"{unit.value} offset {offset} outside [0, {checkpoints[-1]}]")
        lo = min(bisect_right(checkpoints, offset) - 1, len(checkpoints) - 1)
        position = min(lo * _STRIDE, len(self._text))
        count = checkpoints[lo]
        width = _utf8_width if unit is Coordinates.UTF8 else _utf16_width
        text = self._text
        while count < offset:
            count += width(text[position])
            position += 1
        if count != offset:
            raise OffsetError(f"{unit.value} offset {offset} falls inside a character")
        return position

    def _table(self, unit: Coordinates) -> array[int]:
        if unit is Coordinates.UTF8:
            return self._u8
        if unit is Coordinates.UTF16:
            return self._u16
        raise OffsetError(f"no conversion between codepoint and {unit.value}")


def codepoint_to_utf16(text: str, offset: int) -> int:
    """Code point offset → UTF-16 code unit offset."""
    return OffsetIndex(text).to_unit(offset, Coordinates.UTF16)


def utf16_to_codepoint(text: str, offset: int) -> int:
    """UTF-16 code unit offset → code point offset; an offset between surrogates fails."""
    return OffsetIndex(text).from_unit(offset, Coordinates.UTF16)


def codepoint_to_utf8(text: str, offset: int) -> int:
    """Code point offset → UTF-8 byte offset."""
    return OffsetIndex(text).to_unit(offset, Coordinates.UTF8)


def utf8_to_codepoint(text: str, offset: int) -> int:
    """UTF-8 byte offset → code point offset; an offset inside a sequence fails."""
    return OffsetIndex(text).from_unit(offset, Coordinates.UTF8)


def convert(index: OffsetIndex, span: Span, to: Coordinates) -> Span:
    """Convert a span of the indexed text between codepoint, utf16 and utf8."""
    if span.coordinates is to:
        return span
    if span.coordinates is Coordinates.CODEPOINT:
        start, end = span.start, span.end
    else:
        start = index.from_unit(span.start, span.coordinates)
        end = index.from_unit(span.end, span.coordinates)
    if to is Coordinates.CODEPOINT:
        return Span(to, start, end)
    return Span(to, index.to_unit(start, to), index.to_unit(end, to))
