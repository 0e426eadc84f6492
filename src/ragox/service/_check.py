"""``ragox check``: the seed 003 round trip as a command.

For every chunk, sample fragments, carry each back through its block to the
source (source code points for text formats, page rectangles for PDFs, the
element locator for HTML, the paragraph, shape or cell locator for Office files)
and verify that the source shows the same text there.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from struct import iter_unpack
from typing import Final

from ragox.anchor import Rect
from ragox.extract import REEXTRACTED_TYPES, Block, ExtractOptions, extractor_for
from ragox.store import ChunkRecord, Store
from ragox.text import (
    Coordinates,
    Profile,
    Span,
    decode_utf8_strict,
    next_grapheme_boundary,
    previous_grapheme_boundary,
)

__all__ = ["CheckReport", "Mismatch", "check_representation"]

FRAGMENT_LENGTH: Final = 24
_SPACE: Final = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A fragment whose source does not show the same text; no text is carried."""

    chunk_id: str
    block_id: str
    locator: str
    range: Span
    reason: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    document_id: str
    revision: str
    manifest_id: str
    chunks: int
    fragments: int
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches and self.fragments > 0


@dataclass(frozen=True, slots=True)
class _Fragment:
    chunk: ChunkRecord
    block: Block
    start: int
    end: int


def _fragments(text: str, chunk: ChunkRecord, blocks: dict[int, Block]) -> list[_Fragment]:
    """Up to three fragments per chunk: at its start, middle and end, each inside one block."""
    found: list[_Fragment] = []
    seen: set[tuple[int, int]] = set()
    for part in chunk.blocks:
        block = blocks[part.block_index]
        length = part.end - part.start
        anchors = {
            part.start,
            part.start + length // 2,
            max(part.start, part.end - FRAGMENT_LENGTH),
        }
        for origin in sorted(anchors):
            start = next_grapheme_boundary(text, origin)
            end = previous_grapheme_boundary(text, min(part.end, start + FRAGMENT_LENGTH))
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start < end and (start, end) not in seen:
                seen.add((start, end))
                found.append(_Fragment(chunk, block, start, end))
    return found


def _squash(value: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", value))


#: ``verify(fragment_text, fragment) -> reason`` or None when the source agrees.
Verifier = Callable[[str, _Fragment], str | None]


def _text_verifier(store: Store, manifest_id: str, data: bytes, profile_id: str) -> Verifier:
    alignment = store.alignment(manifest_id)
    source = decode_utf8_strict(data)
    try:
        profile = Profile.from_id(profile_id)
    except ValueError:
        profile = None

    def verify(expected: str, fragment: _Fragment) -> str | None:
        if alignment is None:
            return "no_source_alignment"
        mapped = alignment.map_back(fragment.start, fragment.end)
        block_source = fragment.block.source
        if block_source is not None and not (
            block_source.start <= mapped.start and mapped.end <= block_source.end
        ):
            return "outside_block_source"
        piece = source[mapped.start : mapped.end]
        shown = profile.normalize_text(piece).text if profile else piece
        if mapped.exact and shown != expected:
            return "source_text_differs"
        if not mapped.exact and expected not in shown:
            return "source_text_differs"
        return None

    return verify


def _html_verifier(data: bytes, profile: Profile, media_type: str) -> Verifier:
    fresh = extractor_for(media_type)(data, profile, ExtractOptions())
    by_locator = {
        block.locator: fresh.text[block.span.start : block.span.end] for block in fresh.blocks
    }

    def verify(expected: str, fragment: _Fragment) -> str | None:
        block_text = by_locator.get(fragment.block.locator)
        if block_text is None:
            return "locator_not_found"
        offset = fragment.start - fragment.block.span.start
        if block_text[offset : offset + len(expected)] != expected:
            return "locator_text_differs"
        return None

    return verify


def _line_groups(boxes: bytes, text: str, start: int, end: int) -> list[tuple[Rect, str]]:
    """Runs of the fragment's characters on one line, each with its bounding rectangle."""
    groups: list[tuple[Rect, str]] = []
    current: list[float] | None = None
    chars: list[str] = []
    for index, (x0, y0, x1, y1) in enumerate(
        iter_unpack("<4f", boxes[start * 16 : end * 16]), start=start
    ):
        if x1 <= x0 or y1 <= y0:
            # Separators have no box; zero-width marks (combining overlays, text
            # from /ActualText) belong to the run they sit in.
            if current is not None and not text[index].isspace() and (x0, y0) != (0.0, 0.0):
                chars.append(text[index])
            continue
        same_line = current is not None and abs(current[1] - y0) < 1.0 and x0 >= current[0] - 0.5
        if current is not None and same_line:
            current = [
                min(current[0], x0),
                min(current[1], y0),
                max(current[2], x1),
                max(current[3], y1),
            ]
            chars.append(text[index])
            continue
        if current is not None:
            groups.append((Rect(*current), "".join(chars)))
        current, chars = [x0, y0, x1, y1], [text[index]]
    if current is not None:
        groups.append((Rect(*current), "".join(chars)))
    return groups


def _pdf_verifier(
    store: Store, manifest_id: str, text_in_rects: Callable[[int, Sequence[Rect]], str]
) -> Verifier:
    boxes = store.char_boxes(manifest_id)
    text = store.text(manifest_id)

    def verify(expected: str, fragment: _Fragment) -> str | None:
        if boxes is None or fragment.block.page is None:
            return "no_character_boxes"
        groups = _line_groups(boxes, text, fragment.start, fragment.end)
        if not groups:
            return "no_rectangles"
        for rect, chars in groups:
            want = _squash(chars)
            got = _squash(text_in_rects(fragment.block.page, [rect]))
            if want not in got:
                return "page_text_differs"
        return None

    return verify


def check_representation(
    store: Store,
    document_id: str,
    revision: str,
    manifest_id: str,
    media_type: str,
    profile_id: str,
    data: bytes,
    pdf_text_in_rects: Callable[[int, Sequence[Rect]], str] | None = None,
) -> CheckReport:
    """Verify sampled fragments of every chunk against the original bytes."""
    text = store.text(manifest_id)
    blocks = {block.index: block for block in store.blocks(manifest_id)}
    chunks: Sequence[ChunkRecord] = store.chunks(manifest_id)
    if media_type == "application/pdf":
        if pdf_text_in_rects is None:
            raise ValueError("a PDF check needs a page text reader")
        verify = _pdf_verifier(store, manifest_id, pdf_text_in_rects)
    elif media_type in REEXTRACTED_TYPES:  # HTML and Office files
        verify = _html_verifier(data, Profile.from_id(profile_id), media_type)
    else:
        verify = _text_verifier(store, manifest_id, data, profile_id)
    mismatches: list[Mismatch] = []
    count = 0
    for chunk in chunks:
        for fragment in _fragments(text, chunk, blocks):
            count += 1
            expected = text[fragment.start : fragment.end]
            if not (chunk.start <= fragment.start and fragment.end <= chunk.end):
                reason: str | None = "outside_chunk"
            else:
                reason = verify(expected, fragment)
            if reason is not None:
                mismatches.append(
                    Mismatch(
                        chunk_id=chunk.chunk_id,
                        block_id=fragment.block.block_id,
                        locator=fragment.block.locator,
                        range=Span(Coordinates.CODEPOINT, fragment.start, fragment.end),
                        reason=reason,
                    )
                )
    return CheckReport(document_id, revision, manifest_id, len(chunks), count, tuple(mismatches))
