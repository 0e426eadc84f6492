"""The search text's steps as they were before issue 15's ingestion fast paths, copied
verbatim (only renamed): the segment walk of ``Alignment.compose``, the
normalization step that walked non-normalized lines code point by code point, and
``build_search_text`` with them. ``tests/test_ingest_fast_paths.py`` holds the fast
versions to these, byte for byte. Not repetition to remove: it is the reference."""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from typing import Final

import regex

from ragox.extract import Block
from ragox.ingest._searchtext import SearchText, header_text, skipped_blocks
from ragox.text import Alignment, AlignmentBuilder
from ragox.text._normalize import _composable_seconds, _Form, _is_safe_start

_COPY: Final = 1


def compose(outer: Alignment, inner: Alignment) -> Alignment:
    """``outer`` maps C → B and ``inner`` maps B → A; the result maps C → A."""
    self = outer
    if self.input_length != inner.output_length:
        raise ValueError("alignments do not meet: lengths differ")
    if inner._single_copy():
        return self
    if self._single_copy():
        return inner
    outer_c = _Cursor(self._in, self._out, self._kind)
    inner_c = _Cursor(inner._out, inner._in, inner._kind)
    builder = AlignmentBuilder()
    pos = 0
    while True:
        if outer_c.zero_at(pos):
            builder.replace(outer_c.take_zero(), 0)
            continue
        if inner_c.zero_at(pos):
            builder.replace(0, inner_c.take_zero())
            continue
        if outer_c.done() or inner_c.done():
            break
        if outer_c.current_is_copy() and inner_c.current_is_copy():
            target = min(outer_c.current_end(), inner_c.current_end())
            outer_c.reach(target)
            inner_c.reach(target)
            builder.copy(target - pos)
            pos = target
            continue
        far_outer, far_inner = outer_c.far, inner_c.far
        target = pos
        for cursor in (outer_c, inner_c):
            if not cursor.current_is_copy():
                target = max(target, cursor.current_end())
        while True:
            ext_outer = outer_c.reach(target)
            ext_inner = inner_c.reach(target)
            if ext_outer is None and ext_inner is None:
                break
            target = max(x for x in (ext_outer, ext_inner) if x is not None)
        builder.replace(outer_c.far - far_outer, inner_c.far - far_inner)
        pos = target
    if not (outer_c.done() and inner_c.done()):
        raise ValueError("alignments do not meet: segments left over")
    return builder.build()


class _Cursor:
    """Walks one alignment along its side that meets the other alignment."""

    __slots__ = ("far", "fars", "k", "kinds", "mid", "mids", "n")

    def __init__(self, mids: array[int], fars: array[int], kinds: bytes) -> None:
        self.mids = mids
        self.fars = fars
        self.kinds = kinds
        self.n = len(kinds)
        self.k = 0
        self.mid = 0
        self.far = 0

    def done(self) -> bool:
        return self.k >= self.n

    def zero_at(self, pos: int) -> bool:
        k = self.k
        return k < self.n and self.mids[k] == self.mids[k + 1] == pos and self.mid == pos

    def take_zero(self) -> int:
        k = self.k
        length = self.fars[k + 1] - self.fars[k]
        self.far = self.fars[k + 1]
        self.k += 1
        return length

    def current_is_copy(self) -> bool:
        return self.kinds[self.k] == _COPY

    def current_end(self) -> int:
        return self.mids[self.k + 1]

    def reach(self, target: int) -> int | None:
        """Advance to ``target``; return a later target if it falls inside a replacement."""
        mids, fars, kinds = self.mids, self.fars, self.kinds
        while self.k < self.n:
            k = self.k
            seg_start, seg_end = mids[k], mids[k + 1]
            if seg_end < target or (seg_end == target and seg_start < target):
                self.far = fars[k + 1]
                self.mid = seg_end
                self.k += 1
                continue
            if seg_start >= target:
                break
            if kinds[k] == _COPY:
                self.far = fars[k] + (target - seg_start)
                self.mid = target
                break
            return seg_end
        return None


def normalize(form: _Form, text: str) -> tuple[str, Alignment]:
    """The normalization step's ``apply``."""
    if unicodedata.is_normalized(form, text):
        return text, Alignment.identity(len(text))
    whole = unicodedata.normalize(form, text)
    seconds = _composable_seconds()
    builder = AlignmentBuilder()
    # Chunking at stable boundaries must agree with normalizing the whole text:
    # each piece is compared with `whole` where it should sit (no list of pieces,
    # as large as the text, is built). If they ever disagree, fall back to one
    # honest, coarse segment.
    cursor = 0
    agrees = True
    # LF is a stable boundary in every form: lines that are already normalized
    # are copied whole, and only the others are walked code point by code point.
    line_start = 0
    total = len(text)
    while agrees and line_start < total:
        newline = text.find("\n", line_start)
        line_end = total if newline < 0 else newline + 1
        line = text[line_start:line_end]
        line_start = line_end
        if unicodedata.is_normalized(form, line):
            builder.copy(len(line))
            agrees = whole.startswith(line, cursor)
            cursor += len(line)
            continue
        start = 0
        length = len(line)
        while agrees and start < length:
            end = start + 1
            while end < length and not _is_safe_start(line[end], seconds, form):
                end += 1
            chunk = line[start:end]
            normalized = unicodedata.normalize(form, chunk)
            if normalized == chunk:
                builder.copy(len(chunk))
            else:
                builder.replace(len(normalized), len(chunk))
            agrees = whole.startswith(normalized, cursor)
            cursor += len(normalized)
            start = end
    if not agrees or cursor != len(whole):
        fallback = AlignmentBuilder()
        fallback.replace(len(whole), len(text))
        return whole, fallback.build()
    return whole, builder.build()


_OTHER_SPACES: Final = re.compile(r"(?! (?!\s))\s+")
_HYPHEN_BREAK: Final = regex.compile(r"(?<=\p{L})(?:-|\u00ad)\n[ \t]*(?=\p{Ll})")
_SOFT_HYPHEN: Final = "\u00ad"


def build_search_text(
    text: str,
    blocks: Sequence[Block],
    chunk_spans: Sequence[tuple[int, int]] = (),
) -> SearchText:
    """Clean ``text`` for indexing; the result maps back to ``text`` exactly where it can.

    With ``chunk_spans`` (the chunks' representation ranges, in order), a cell's header
    text is given once per chunk, and only for header cells outside the chunk;
    without, every cell gets all of its headers."""
    dropped = skipped_blocks(text, blocks)
    by_id = {block.block_id: block for block in blocks}
    chunk_starts = [start for start, _ in chunk_spans]
    given: set[str] | None = set() if chunk_spans else None
    in_chunk = -1

    # 1. Drop repeated headers and footers (whole blocks); put each table cell's
    #    header text before it (inserted: it maps to no representation text).
    builder = AlignmentBuilder()
    pieces: list[str] = []
    position = 0
    for block in sorted(blocks, key=lambda b: b.span.start):
        start, end = block.span.start, block.span.end
        if block.index not in dropped:
            within = (0, 0)
            if given is not None:
                chunk = bisect_right(chunk_starts, start) - 1
                if chunk != in_chunk:
                    in_chunk = chunk
                    given.clear()
                if chunk >= 0:
                    within = chunk_spans[chunk]
            inserted = header_text(text, block, by_id, given, within)
            if inserted and start >= position:
                builder.copy(start - position)
                pieces.append(text[position:start])
                builder.replace(len(inserted), 0)
                pieces.append(inserted)
                position = start
            continue
        if start < position:
            continue
        builder.copy(start - position)
        pieces.append(text[position:start])
        builder.replace(0, end - start)
        position = end
    builder.copy(len(text) - position)
    pieces.append(text[position:])
    current = "".join(pieces)
    alignment = builder.build()
    # The representation is not needed below: a caller that passes its only reference
    # lets a large one go here instead of holding it beside the cleaned copies.
    del text, pieces

    # 2. Join words hyphenated at line ends; drop remaining soft hyphens.
    # (The alignment is built from the matches; the text by one substitution, so no
    # list of slices, as large as the text, is held beside it.)
    builder = AlignmentBuilder()
    position = 0
    for match in _HYPHEN_BREAK.finditer(current):
        builder.copy(match.start() - position)
        builder.replace(0, match.end() - match.start())
        position = match.end()
    builder.copy(len(current) - position)
    joined = _HYPHEN_BREAK.sub("", current) if position else current
    if _SOFT_HYPHEN in joined:
        builder2 = AlignmentBuilder()
        kept: list[str] = []
        last = 0
        for index, ch in enumerate(joined):
            if ch == _SOFT_HYPHEN:
                builder2.copy(index - last)
                kept.append(joined[last:index])
                builder2.replace(0, 1)
                last = index + 1
        builder2.copy(len(joined) - last)
        kept.append(joined[last:])
        alignment = compose(builder2.build(), compose(builder.build(), alignment))
        current = "".join(kept)
    else:
        alignment = compose(builder.build(), alignment)
        current = joined

    # 3. Compatibility characters: ﬁ → fi, full-width forms, superscripts.
    current, step = normalize("NFKC", current)
    alignment = compose(step, alignment)

    # 4. Collapse white space runs to one space.
    builder = AlignmentBuilder()
    spaces = (space.span() for space in _OTHER_SPACES.finditer(current))
    if builder.replace_runs(spaces, 1, len(current)):
        current = _OTHER_SPACES.sub(" ", current)
    alignment = compose(builder.build(), alignment)
    return SearchText(current, alignment, tuple(sorted(dropped)))
