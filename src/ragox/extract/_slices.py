"""Representations made of verbatim slices of a normalized text file (Markdown,
reStructuredText): the blocks joined with the block separator, an alignment back to
the decoded source, and one block per slice with its source range and line locator."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ragox.extract._htmltables import MAX_SLOTS
from ragox.extract._model import (
    BLOCK_SEPARATOR,
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ParserInfo,
    TableCell,
)
from ragox.text import AlignmentBuilder, Coordinates, Normalized, Span

__all__ = ["refuse_many_cell_walls", "verbatim_slices"]


def refuse_many_cell_walls(text: str) -> None:
    """Refuse, before a parser reads it, a file with more table cell walls ("|") than
    HTML's slots of one table: every cell of a Markdown or grid table but a row's last
    follows one, and a parse of that many cells takes gigabytes (a 6 MB Markdown table
    of a million cells: 2.4 GB, a minute)."""
    if text.count("|") > MAX_SLOTS:
        raise ExtractionError(
            ErrorCode.TOO_COMPLEX, f"more than {MAX_SLOTS} table cell walls ('|')"
        )


def verbatim_slices(
    found: Sequence[tuple[BlockKind, int, int]],
    normalized: Normalized,
    line_of: Callable[[int], int],
    parser: ParserInfo,
    media_type: str,
    cells: Mapping[int, TableCell] | None = None,
) -> Extraction:
    """The representation of ``found`` blocks, ``(kind, start, end)`` in ``normalized``'s
    text, in order and without overlaps; ``line_of`` gives a position's 1-based line;
    ``cells`` the table cell of a block, by its index in ``found``."""
    cells = cells or {}
    if not found:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no text blocks")
    text = normalized.text
    builder = AlignmentBuilder()
    pieces: list[str] = []
    previous_end = 0
    for index, (_, start, end) in enumerate(found):
        if start < previous_end or end <= start:
            raise ExtractionError(ErrorCode.INTERNAL, f"{parser.name} blocks out of order")
        separator = BLOCK_SEPARATOR if index else ""
        builder.replace(len(separator), start - previous_end)
        builder.copy(end - start)
        pieces.append(separator)
        pieces.append(text[start:end])
        previous_end = end
    builder.replace(0, len(text) - previous_end)
    to_normalized = builder.build()
    # representation → normalized text, then normalized text → decoded source
    identity = normalized.alignment.is_identity()
    to_source = to_normalized if identity else to_normalized.compose(normalized.alignment)
    blocks: list[Block] = []
    position = 0
    for index, (kind, start, end) in enumerate(found):
        if index:
            position += len(BLOCK_SEPARATOR)
        span = Span(Coordinates.CODEPOINT, position, position + end - start)
        if identity:
            # A block is one copy segment of ``to_normalized``, which maps it back to
            # exactly ``start, end``: the source range itself, without the lookup.
            source = Span(Coordinates.SOURCE_CODEPOINT, start, end)
        else:
            mapped = to_source.map_back(span.start, span.end)
            source = Span(Coordinates.SOURCE_CODEPOINT, mapped.start, mapped.end)
        blocks.append(
            Block(
                index=index,
                kind=kind,
                span=span,
                locator=f"lines={line_of(start)}-{line_of(end - 1)}",
                source=source,
                cell=cells.get(index),
            )
        )
        position += end - start
    return Extraction(
        text="".join(pieces),
        blocks=tuple(blocks),
        parser=parser,
        media_type=media_type,
        source_alignment=to_source,
    )
