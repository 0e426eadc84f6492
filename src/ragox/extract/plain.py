"""The seed's plain-text adapter: the representation is the normalized text itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from ragox.extract._model import (
    MAX_BLOCKS,
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.text import Coordinates, DecodeError, Normalized, Profile, Span

__all__ = [
    "PLAIN_TEXT",
    "extract_plain_text",
    "normalize_text_file",
    "paragraph_blocks",
    "reject_binary",
]

PLAIN_TEXT: Final = ParserInfo("plain-text", "1", {"blocks": "blank-line-paragraphs"})

# Control characters other than TAB, LF, CR, FF: a text file has none of them.
_CONTROLS: Final = frozenset(chr(c) for c in range(32) if chr(c) not in "\t\n\r\f")
#: The same characters as bytes: each is one byte in UTF-8, and no byte of another
#: character's UTF-8 sequence (nor of a surrogate's) is below 0x20.
_CONTROL_BYTES: Final = "".join(sorted(_CONTROLS)).encode("ascii")


def reject_binary(text: str) -> None:
    """Refuse decoded text that is really binary: a NUL anywhere (no store keeps one
    whole: PostgreSQL's text cannot hold it and SQLite's ``substr`` stops at it; only
    the first 64 Ki characters were looked at, so a NUL past them was stored), or
    control characters in more than one of a hundred of the first 64 Ki characters."""
    if "\x00" in text:
        raise ExtractionError(ErrorCode.BINARY_CONTENT, "file contains NUL bytes")
    sample = text[:65536]
    controls = control_count(sample)
    if controls > max(8, len(sample) // 100):
        raise ExtractionError(ErrorCode.BINARY_CONTENT, "file contains control characters")


def control_count(text: str) -> int:
    """How many control characters (other than TAB, LF, CR, FF) ``text`` holds:
    the bytes its UTF-8 encoding loses when they are deleted (in C, a byte at a time)."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(encoded) - len(encoded.translate(None, _CONTROL_BYTES))


def _lines(text: str) -> Iterator[str]:
    """``text.splitlines(keepends=True)``, a slice at a time (cut after a LF, where
    splitting the parts gives the same lines): no list of every line of a large text."""
    start, total = 0, len(text)
    while start < total:
        cut = text.find("\n", start + _LINES_SLICE)
        end = total if cut < 0 else cut + 1
        yield from text[start:end].splitlines(keepends=True)
        start = end


#: Code points split into lines at a time by :func:`_lines`.
_LINES_SLICE: Final = 1 << 20


def paragraph_blocks(text: str) -> list[tuple[int, int, int, int]]:
    """Runs of non-blank lines: ``(start, end, first_line, last_line)``, 1-based lines;
    more than :data:`MAX_BLOCKS` of them is refused ``TOO_COMPLEX``."""
    found: list[tuple[int, int, int, int]] = []
    position = 0
    line_no = 1
    run_start: int | None = None
    run_line = 0
    run_end = 0
    last_line = 0
    for line in _lines(text):
        stripped = line.rstrip("\n")
        if stripped.strip():
            if run_start is None:
                run_start = position
                run_line = line_no
            run_end = position + len(stripped)
            last_line = line_no
        elif run_start is not None:
            found.append((run_start, run_end, run_line, last_line))
            run_start = None
            if len(found) > MAX_BLOCKS:
                raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} paragraphs")
        position += len(line)
        line_no += 1
    if run_start is not None:
        found.append((run_start, run_end, run_line, last_line))
    return found


#: a text with nothing but white space and byte order marks (an empty one too)
_BLANK: Final = re.compile(r"[\s\ufeff]*")


def normalize_text_file(data: bytes, profile: Profile) -> Normalized:
    """Strict decode and profile for a text format; refuses empty, invalid UTF-8
    (naming the byte offset), binary and white-space-only input with their codes."""
    if not data:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "file is empty")
    try:
        normalized = profile.normalize_bytes(data)
    except DecodeError as error:
        raise ExtractionError(
            ErrorCode.INVALID_UTF8, f"invalid UTF-8 at byte {error.byte_offset}"
        ) from None
    reject_binary(normalized.text)
    # (not ``strip()``: that would copy a large text just to test it); a byte order
    # mark alone is no text either (kept in the text, it is no word to find or cite)
    if _BLANK.fullmatch(normalized.text):
        raise ExtractionError(
            ErrorCode.EMPTY_FILE, "file contains only white space or a byte order mark"
        )
    return normalized


def extract_plain_text(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Strictly decoded, profile-normalized text; paragraphs become blocks."""
    normalized = normalize_text_file(data, profile)
    blocks = []
    for index, (start, end, first, last) in enumerate(paragraph_blocks(normalized.text)):
        mapped = normalized.alignment.map_back(start, end)
        blocks.append(
            Block(
                index=index,
                kind=BlockKind.PARAGRAPH,
                span=Span(Coordinates.CODEPOINT, start, end),
                locator=f"lines={first}-{last}",
                source=Span(Coordinates.SOURCE_CODEPOINT, mapped.start, mapped.end),
            )
        )
    return Extraction(
        text=normalized.text,
        blocks=tuple(blocks),
        parser=PLAIN_TEXT,
        media_type="text/plain",
        source_alignment=normalized.alignment,
    )
