"""Chunking a representation into retrieval units (seed 003).

Chunks follow blocks: a block that fits is one chunk (small neighbours such as a
heading and its paragraph are packed together); a block that is too long is cut
at sentence ends, with whole sentences of overlap. A heading always starts a
chunk: it is packed with what follows it, never onto the end of the section
before it; so does a short question in a paragraph of its own (an FAQ's). Every
position comes from the splitter's own cursor, never from searching the text
afterwards, and no chunk boundary splits a grapheme cluster.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ragox.anchor import sha256_hex
from ragox.extract import Block, BlockKind
from ragox.ingest._searchtext import SearchText, build_search_text, skipped_blocks
from ragox.ingest._sentences import split_sentences, token_count, token_spans
from ragox.store import BlockRange, ChunkRecord
from ragox.text import Alignment, next_grapheme_boundary, previous_grapheme_boundary

__all__ = [
    "CHUNKER_VERSION",
    "ChunkingConfig",
    "chunk_id",
    "chunk_representation",
    "plan_chunks",
    "planned_chunks",
    "search_text_and_chunks",
]

#: Recorded on every chunk: change it with the algorithm or :data:`DEFAULT_CHUNKING`.
CHUNKER_VERSION: Final = "chunker@3"


@dataclass(frozen=True, slots=True)
class ChunkingConfig:
    """Sizes in word tokens (``\\w+``)."""

    target_tokens: int = 200
    max_tokens: int = 300
    #: headings, list items and table cells below this join their neighbours
    small_tokens: int = 40
    #: any block below this (a title line, a caption) joins its neighbours; real
    #: paragraphs above it stay chunks of their own
    tiny_tokens: int = 12
    overlap_tokens: int = 40


DEFAULT_CHUNKING: Final = ChunkingConfig()


def chunk_id(manifest_id: str, start: int, end: int) -> str:
    """Derived from the representation and the range: re-ingesting never duplicates."""
    return sha256_hex(f"{manifest_id}:codepoint:{start}:{end}".encode())


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    end: int
    tokens: int
    #: may be packed together with its neighbours
    small: bool = False
    #: PDF page of the block (pieces of different pages are never packed together)
    page: int | None = None
    #: a heading, or a short question in a paragraph of its own: it starts a chunk,
    #: packed onto the piece before it only when that piece is itself headings (a
    #: chapter title, then a section's)
    heading: bool = False


_PACKABLE: Final = frozenset({BlockKind.HEADING, BlockKind.LIST_ITEM, BlockKind.TABLE_CELL})


def _split_long(text: str, start: int, end: int, config: ChunkingConfig) -> list[_Piece]:
    """Cut ``[start, end)`` at sentence ends into pieces of about ``target_tokens``."""
    sentences: list[_Piece] = []
    for s, e in split_sentences(text, start, end):
        tokens = token_count(text, s, e)
        if tokens <= config.max_tokens:
            sentences.append(_Piece(s, e, tokens))
            continue
        # A run-on "sentence" (tables, lists without punctuation): cut between words.
        words = token_spans(text, s, e)
        for i in range(0, len(words), config.target_tokens):
            group = words[i : i + config.target_tokens]
            piece_start = s if i == 0 else previous_grapheme_boundary(text, group[0][0])
            last = i + config.target_tokens >= len(words)
            piece_end = e if last else next_grapheme_boundary(text, group[-1][1])
            sentences.append(_Piece(piece_start, piece_end, len(group)))
    pieces: list[_Piece] = []
    i = 0
    while i < len(sentences):
        j = i
        tokens = 0
        while j < len(sentences) and (
            j == i or tokens + sentences[j].tokens <= config.target_tokens
        ):
            tokens += sentences[j].tokens
            j += 1
        pieces.append(_Piece(sentences[i].start, sentences[j - 1].end, tokens))
        if j >= len(sentences):
            break
        # Overlap: step back over whole sentences worth at most overlap_tokens.
        back = j
        overlap = 0
        while back - 1 > i and overlap + sentences[back - 1].tokens <= config.overlap_tokens:
            back -= 1
            overlap += sentences[back].tokens
        i = back
    return pieces


def _block_ranges(
    blocks: Sequence[Block], starts: Sequence[int], start: int, end: int
) -> tuple[BlockRange, ...]:
    """Blocks (sorted by start, ``starts`` their starts) that overlap ``[start, end)``."""
    found = []
    for b in blocks[max(0, bisect_right(starts, start) - 1) : bisect_left(starts, end)]:
        if b.span.start < end and b.span.end > start:
            found.append(BlockRange(b.index, max(start, b.span.start), min(end, b.span.end)))
    return tuple(found)


def chunk_representation(
    manifest_id: str,
    text: str,
    blocks: Sequence[Block],
    search_alignment: Alignment,
    config: ChunkingConfig = DEFAULT_CHUNKING,
    skip_blocks: frozenset[int] = frozenset(),
) -> list[ChunkRecord]:
    """Chunks of a representation, with their blocks and search-text ranges.

    ``skip_blocks`` (repeated headers and footers) never start a chunk on their own.
    """
    pieces = _plan(text, blocks, config, skip_blocks)
    return _records(manifest_id, blocks, pieces, search_alignment)


def search_text_and_chunks(
    manifest_id: str,
    text: str,
    blocks: Sequence[Block],
    config: ChunkingConfig = DEFAULT_CHUNKING,
) -> tuple[SearchText, list[ChunkRecord]]:
    """The search text and the chunks of a representation: chunks are cut first, so
    that the search text gives each chunk the header text of its table cells once
    (the header cells it does not hold itself)."""
    search, pieces = plan_chunks(text, blocks, config)
    return search, planned_chunks(manifest_id, blocks, search, pieces)


def plan_chunks(
    text: str, blocks: Sequence[Block], config: ChunkingConfig = DEFAULT_CHUNKING
) -> tuple[SearchText, list[tuple[int, int, int]]]:
    """The search text and the chunks' ``(start, end, tokens)`` of a representation:
    :func:`search_text_and_chunks` without the records (which name the manifest)."""
    skip = frozenset(skipped_blocks(text, blocks))
    pieces = _plan(text, blocks, config, skip)
    spans = [(p.start, p.end) for p in pieces if p.tokens]
    search = build_search_text(text, blocks, chunk_spans=spans)
    return search, [(p.start, p.end, p.tokens) for p in pieces if p.tokens]


def planned_chunks(
    manifest_id: str,
    blocks: Sequence[Block],
    search: SearchText,
    pieces: Sequence[tuple[int, int, int]],
) -> list[ChunkRecord]:
    """The chunk records of a :func:`plan_chunks` plan: those of
    :func:`search_text_and_chunks`."""
    return _records(manifest_id, blocks, [_Piece(*p) for p in pieces], search.alignment)


def _plan(
    text: str,
    blocks: Sequence[Block],
    config: ChunkingConfig,
    skip_blocks: frozenset[int],
) -> list[_Piece]:
    """The chunks' representation ranges: block pieces, small neighbours packed."""
    units = [b for b in sorted(blocks, key=lambda b: b.span.start) if b.index not in skip_blocks]
    # where skipped blocks start: no chunk is packed across one (a navigation bar
    # between two short sections stays out of both)
    skipped = sorted(b.span.start for b in blocks if b.index in skip_blocks)
    if not units and text.strip():
        units = []
        spans = [_Piece(0, len(text), token_count(text))]
    else:
        spans = []
    # 1. Pieces per block: whole, or cut at sentence ends.
    for block in units:
        tokens = token_count(text, block.span.start, block.span.end)
        if tokens > config.max_tokens:
            spans.extend(_split_long(text, block.span.start, block.span.end, config))
        else:
            small = tokens < config.tiny_tokens or (
                block.kind in _PACKABLE and tokens < config.small_tokens
            )
            # a short question opens its chunk as a heading does: an FAQ's "Q: Ctrl+A
            # does not work, where do I turn it on?" in a paragraph of its own goes
            # with its answer, not onto the end of the answer before it
            heading = block.kind is BlockKind.HEADING or (
                small and text[block.span.start : block.span.end].rstrip().endswith("?")
            )
            spans.append(
                _Piece(block.span.start, block.span.end, tokens, small, block.page, heading)
            )
    # 2. Pack small neighbours (a heading with its paragraph, short list items), never
    #    two regular paragraphs, up to the target size; a section's heading opens a
    #    new chunk.
    packed: list[_Piece] = []
    for piece in spans:
        if packed:
            last = packed[-1]
            total = last.tokens + piece.tokens
            if (
                (piece.small or last.small)
                and (not piece.heading or last.heading)
                and total <= config.target_tokens
                and piece.start >= last.end
                and piece.page == last.page
                and bisect_left(skipped, piece.start) == bisect_left(skipped, last.end)
            ):
                small = last.small and piece.small and total < config.small_tokens
                heading = last.heading and piece.heading
                packed[-1] = _Piece(last.start, piece.end, total, small, last.page, heading)
                continue
        packed.append(piece)
    return packed


def _records(
    manifest_id: str,
    blocks: Sequence[Block],
    packed: Sequence[_Piece],
    search_alignment: Alignment,
) -> list[ChunkRecord]:
    # (reads only the pieces' start, end and tokens)
    """3. Records with block ranges and search-text ranges."""
    ordered = sorted(blocks, key=lambda b: b.span.start)
    starts = [b.span.start for b in ordered]
    records: list[ChunkRecord] = []
    seen: set[tuple[int, int]] = set()
    for piece in packed:
        if piece.tokens == 0 or (piece.start, piece.end) in seen:
            continue
        seen.add((piece.start, piece.end))
        # A chunk that starts with a table cell takes the cell's header text, which
        # the search text holds just before it (inserted at the cell's start).
        forward = search_alignment.map_forward(piece.start, piece.end, insertions_at_start=True)
        records.append(
            ChunkRecord(
                chunk_id=chunk_id(manifest_id, piece.start, piece.end),
                manifest_id=manifest_id,
                ordinal=len(records),
                start=piece.start,
                end=piece.end,
                search_start=forward.start,
                search_end=forward.end,
                tokens=piece.tokens,
                blocks=_block_ranges(ordered, starts, piece.start, piece.end),
            )
        )
    return records
