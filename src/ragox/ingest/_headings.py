"""Heading context: the section headings above a chunk, for its lexical index row only.

A manual answers "which package owns this file?" under a heading that names the
topic ("8.5. How can I find out what package produced a particular file?") and
then in words that do not ("dpkg --search foo"). The chunk's index row carries
the heading path above it (chapter, section, subsection), so that the question
finds the section's chunks. Only the index row: the representation, the chunk's
range, its search text and every quote stay as they are.

A heading's level comes from its HTML element (``h1``–``h6``), else from its
numbering ("8.1.2." is deeper than "8.1."), else it is the deepest level (it
replaces the previous unnumbered heading).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ragox.extract import Block, BlockKind
from ragox.store import ChunkRecord

__all__ = ["heading_context"]

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
