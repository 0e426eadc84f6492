"""The search text: a cleaned copy of the representation for indexing (DESIGN §4).

Steps, each with its own alignment, composed into one map back to the
representation: repeated page headers and footers removed, the text of a table
cell's header cells put before the cell (``Voltage / X200: 230 V``: inserted,
mapped to no representation text, so that a chunk of cells is found by its
column and row names while its anchors stay the cell's text), hyphenated line
ends joined, compatibility characters expanded (ligatures → letters), white
space collapsed. Anchors and highlights never point into this text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import regex

from ragox.extract import Block, BlockKind
from ragox.text import Alignment, AlignmentBuilder, step_by_name

__all__ = [
    "CLEANER_VERSION",
    "SearchText",
    "build_search_text",
    "header_text",
    "repeated_margin_blocks",
    "skipped_blocks",
]

#: Recorded on every search text this module builds: change it with any rule above or
#: below, so that ``ragox status`` marks older search texts stale and ``ragox
#: reprocess`` rebuilds them.
CLEANER_VERSION: Final = "searchtext@2"

_DIGITS: Final = re.compile(r"\d+")
_SPACES: Final = re.compile(r"\s+")
#: The white space runs that change when collapsed: all but a single U+0020.
_OTHER_SPACES: Final = re.compile(r"(?! (?!\s))\s+")
# A letter, a hyphen (or soft hyphen) at a line end, and a lower-case letter on
# the next line: the word was split for layout.
_HYPHEN_BREAK: Final = regex.compile(r"(?<=\p{L})(?:-|\u00ad)\n[ \t]*(?=\p{Ll})")
_SOFT_HYPHEN: Final = "\u00ad"


@dataclass(frozen=True, slots=True)
class SearchText:
    """Cleaned text and its alignment (search text → representation)."""

    text: str
    alignment: Alignment
    #: block indexes dropped as repeated headers or footers
    dropped_blocks: tuple[int, ...]


def _margin_key(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", text.strip().lower()))


def skipped_blocks(text: str, blocks: Sequence[Block]) -> set[int]:
    """Blocks that are a page's furniture, not its text: repeated headers and footers
    (:func:`repeated_margin_blocks`) and navigation links (``BlockKind.NAVIGATION``).
    They stay in the representation (the viewer shows them) and are neither searched
    nor chunked, so no answer quotes "Chapter 8. … Chapter 10. …" from a page's
    "Prev"/"Next" bar."""
    skipped = repeated_margin_blocks(text, blocks)
    total = sum(b.span.end - b.span.start for b in blocks)
    # each run of furniture blocks (a navigation bar, the page's footer) on its own:
    # together a bar and a footer may hold more than half of a short page
    runs: list[list[Block]] = []
    for block in blocks:
        if block.kind is not BlockKind.NAVIGATION:
            continue
        if runs and runs[-1][-1].index == block.index - 1:
            runs[-1].append(block)
        else:
            runs.append([block])
    for run in runs:
        # Navigation holds less of a page than its own text does: where it holds more
        # (an unclosed <nav> that the HTML parser extends over the page, a
        # role="navigation" on <body> or <main>, a page of links alone) the markup is
        # wrong or the links are the page, and it is indexed as text.
        if 2 * sum(b.span.end - b.span.start for b in run) <= total:
            skipped.update(b.index for b in run)
    return skipped


def repeated_margin_blocks(text: str, blocks: Sequence[Block]) -> set[int]:
    """Blocks at the top or bottom of a page whose text (digits masked) repeats on at
    least half of the pages, and on at least three."""
    by_page: dict[int, list[Block]] = defaultdict(list)
    for block in blocks:
        if block.page is not None and block.bbox is not None:
            by_page[block.page].append(block)
    if len(by_page) < 3:
        return set()
    candidates: dict[int, list[tuple[str, Block]]] = {}
    for page, page_blocks in by_page.items():
        top = min(page_blocks, key=lambda b: b.bbox.y0 if b.bbox else 0.0)
        bottom = max(page_blocks, key=lambda b: b.bbox.y1 if b.bbox else 0.0)
        chosen = {top.index: top, bottom.index: bottom}
        candidates[page] = [
            (_margin_key(text[b.span.start : b.span.end]), b) for b in chosen.values()
        ]
    counts: Counter[str] = Counter()
    for entries in candidates.values():
        counts.update({key for key, _ in entries if key})
    threshold = max(3, (len(by_page) + 1) // 2)
    repeated = {key for key, count in counts.items() if count >= threshold}
    return {b.index for entries in candidates.values() for key, b in entries if key in repeated}


def header_text(
    text: str,
    block: Block,
    by_id: Mapping[str, Block],
    given: set[str] | None = None,
    within: tuple[int, int] = (0, 0),
) -> str:
    """What goes before a table cell in the search text: its header cells' texts,
    ``" / "``-joined, then ``": "``; empty for other blocks and cells without headers.
    Header cells in ``given`` (added to it) or starting ``within`` a range are left out."""
    if block.cell is None or not block.cell.header_ids:
        return ""
    names = []
    for header_id in block.cell.header_ids:
        found = by_id.get(header_id)
        if found is None or (given is not None and header_id in given):
            continue
        if found.kind is BlockKind.NAVIGATION:  # a link in a header cell: no header
            continue
        if within[0] <= found.span.start < within[1]:
            continue
        if given is not None:
            given.add(header_id)
        names.append(text[found.span.start : found.span.end])
    return f"{' / '.join(names)}: " if names else ""


def _drop_and_insert(
    text: str,
    blocks: Sequence[Block],
    dropped: set[int],
    chunk_spans: Sequence[tuple[int, int]],
) -> tuple[str, Alignment]:
    """Step 1 of :func:`build_search_text`: ``dropped`` blocks removed, table cells'
    header texts inserted before them."""
    by_id = {block.block_id: block for block in blocks}
    chunk_starts = [start for start, _ in chunk_spans]
    given: set[str] | None = set() if chunk_spans else None
    in_chunk = -1
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
    return current, builder.build()


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

    # 1. Drop repeated headers and footers (whole blocks); put each table cell's
    #    header text before it (inserted: it maps to no representation text).
    if not dropped and not any(b.cell is not None and b.cell.header_ids for b in blocks):
        # Nothing to drop or insert (most documents): the step is the identity.
        current, alignment = text, Alignment.identity(len(text))
    else:
        current, alignment = _drop_and_insert(text, blocks, dropped, chunk_spans)
    # The representation is not needed below: a caller that passes its only reference
    # lets a large one go here instead of holding it beside the cleaned copies.
    del text

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
        alignment = builder2.build().compose(builder.build().compose(alignment))
        current = "".join(kept)
    else:
        alignment = builder.build().compose(alignment)
        current = joined

    # 3. Compatibility characters: ﬁ → fi, full-width forms, superscripts.
    current, step = step_by_name("NFKC").apply(current)
    alignment = step.compose(alignment)

    # 4. Collapse white space runs to one space (the runs and the text between them
    #    found by two scans in C; the alignment built from their lengths at once).
    runs = _OTHER_SPACES.findall(current)
    if runs:
        kept = _OTHER_SPACES.split(current)
        collapse = Alignment.collapsed(list(map(len, kept)), list(map(len, runs)), 1)
        current = " ".join(kept)
        del kept, runs
        alignment = collapse.compose(alignment)
    return SearchText(current, alignment, tuple(sorted(dropped)))
