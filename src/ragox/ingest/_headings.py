"""Heading context: the section headings above a chunk, for its lexical index row only.

A manual answers "which package owns this file?" under a heading that names the
topic ("8.5. How can I find out what package produced a particular file?") and
then in words that do not ("dpkg --search foo"). The chunk's index row carries
the heading path above it (chapter, section, subsection), so that the question
finds the section's chunks. Only the index row: the representation, the chunk's
range, its search text and every quote stay as they are.

The headings a chunk itself opens with are written into its row once more
(:func:`row_headings`), a field weight of two for a section's title against its
body (as BM25F weighs a title field): a title names in few words what its section
is about ("8.4. How do I display the files of an installed package?", "3.2.4.
Going on vacation gracefully"), while a long passage that shares a few of a
question's words in passing outweighed it (issue 16's development set: recall@1
.583 → .611, recall@5 .778 → .806; XQuAD's plain paragraphs have no headings).

A heading's level comes from its HTML element (``h1``–``h6``), else from its
numbering ("8.1.2." is deeper than "8.1."), else it is the deepest level (it
replaces the previous unnumbered heading).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Final

from ragox.extract import Block, BlockKind
from ragox.store import ChunkRecord

__all__ = ["heading_context", "own_headings", "row_headings"]

_HTML_LEVEL: Final = re.compile(r"/h([1-6])(?:\[\d+\])?$")
_NUMBERING: Final = re.compile(r"^\W*(?:\w+\W+)?(\d+(?:\.\d+)*)\.?(?:\s|$)")
#: an unnumbered heading without an HTML level
_DEEPEST: Final = 9
#: a heading longer than this is no heading (a mis-tagged paragraph): not carried
_MAX_HEADING_CHARS: Final = 300


def _level(block: Block, text: str) -> int:
    html = _HTML_LEVEL.search(block.locator)
    if html is not None:
        return int(html.group(1))
    numbered = _NUMBERING.match(text)
    if numbered is not None:
        return numbered.group(1).count(".") + 1
    return _DEEPEST


def heading_context(text: str, blocks: Sequence[Block], chunks: Sequence[ChunkRecord]) -> list[str]:
    """Per chunk (in the given order): the headings above it that it does not itself
    contain, outermost first, joined by a space ("" when there are none)."""
    headings = sorted(
        (b for b in blocks if b.kind is BlockKind.HEADING),
        key=lambda b: b.span.start,
    )
    order = sorted(range(len(chunks)), key=lambda i: chunks[i].start)
    context = [""] * len(chunks)
    path: list[tuple[int, str]] = []
    position = 0
    for index in order:
        chunk = chunks[index]
        while position < len(headings) and headings[position].span.start < chunk.start:
            block = headings[position]
            position += 1
            words = " ".join(text[block.span.start : block.span.end].split())
            if not words or len(words) > _MAX_HEADING_CHARS:
                continue
            level = _level(block, words)
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, words))
        # a chunk that opens with its own heading sits beside that heading's
        # siblings, not under them
        own = _DEEPEST + 1
        if position < len(headings) and headings[position].span.start == chunk.start:
            block = headings[position]
            own = _level(block, " ".join(text[block.span.start : block.span.end].split()))
        context[index] = " ".join(words for level, words in path if level < own)
    return context


def own_headings(text: str, blocks: Sequence[Block], chunks: Sequence[ChunkRecord]) -> list[str]:
    """Per chunk (in the given order): the headings inside its own range (a chunk opens
    with its section's heading, a chapter title packed before it), joined by a space
    ("" when it holds none)."""
    headings = sorted(
        (b for b in blocks if b.kind is BlockKind.HEADING),
        key=lambda b: b.span.start,
    )
    starts = [b.span.start for b in headings]
    own: list[str] = []
    for chunk in chunks:
        found: list[str] = []
        # from the first heading at or after the chunk's start (no slice: a long
        # manual has thousands of headings and tens of thousands of chunks)
        for index in range(bisect_left(starts, chunk.start), len(headings)):
            block = headings[index]
            if block.span.start >= chunk.end:
                break
            words = " ".join(text[block.span.start : min(block.span.end, chunk.end)].split())
            if words and len(words) <= _MAX_HEADING_CHARS:
                found.append(words)
        own.append(" ".join(found))
    return own


def row_headings(text: str, blocks: Sequence[Block], chunks: Sequence[ChunkRecord]) -> list[str]:
    """Per chunk (in the given order): the heading words its lexical index row carries
    before its own search text: the headings above it (:func:`heading_context`), then
    its own headings once more (:func:`own_headings`; its text holds them already)."""
    return [
        f"{above} {own}" if above and own else above or own
        for above, own in zip(
            heading_context(text, blocks, chunks), own_headings(text, blocks, chunks), strict=True
        )
    ]
