"""A representation made of Office blocks: texts normalized with the profile, joined
with the block separator, each block with its kind and a locator a person reads."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

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
from ragox.text import Coordinates, Profile, Span

__all__ = ["MAX_BLOCKS", "MAX_GRID_SPAN", "GridCell", "Piece", "build_extraction", "clean_name"]

#: Most blocks one Office file may give (a sheet of millions of cells is refused).
MAX_BLOCKS: Final = 1_000_000

#: Control characters other than tab and line feed (XML 1.0 allows few; a library may
#: hand over what a broken writer escaped), and the separator's blank line inside a block.
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLANK_LINES: Final = re.compile(r"\n(?:[ \t]*\n)+")
_NAME_UNSAFE: Final = re.compile(r"[\x00-\x1f\x7f'›]+")
_NAME_LENGTH: Final = 60


@dataclass(frozen=True, slots=True)
class GridCell:
    """Where a table cell of an Office file sits: its table (0-based in the file), its
    row and column (0-based slots of the table's grid; a cell spanning columns starts at
    its first), and whether it is in a header row (each heads the columns it spans)."""

    table: int
    row: int
    col: int
    col_span: int = 1
    header: bool = False


@dataclass(frozen=True, slots=True)
class Piece:
    """One block's text as the file holds it, before normalization."""

    kind: BlockKind
    text: str
    locator: str
    #: a table cell's place in its table (``TABLE_CELL`` pieces)
    grid: GridCell | None = None


def clean_name(name: str) -> str:
    """A shape or sheet name fit for a locator: no controls, quotes or separators, short."""
    cleaned = _NAME_UNSAFE.sub(" ", name).strip()
    return cleaned[:_NAME_LENGTH] or "?"


def build_extraction(
    pieces: Iterable[Piece],
    profile: Profile,
    parser: ParserInfo,
    media_type: str,
    warnings: Iterable[str] = (),
) -> Extraction:
    """The representation of ``pieces`` in order; pieces without visible text are left out.

    Inside a block, carriage returns become line feeds (Office writes both for a line
    break) and a run of blank lines one line feed, so that no block holds the blank
    line that separates blocks.
    """
    found = list(pieces)
    raws = [
        _CONTROL.sub("", piece.text.replace("\r\n", "\n").replace("\r", "\n")) for piece in found
    ]
    texts: list[str] = []
    blocks: list[Block] = []
    #: each table's latest header rows seen so far
    heads: dict[int, list[_HeaderRow]] = {}
    position = 0
    for piece, normalized in zip(found, _normalized(raws, profile), strict=True):
        text = _BLANK_LINES.sub("\n", normalized).strip()
        if not text:
            continue
        if len(blocks) >= MAX_BLOCKS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} blocks")
        if blocks:
            position += len(BLOCK_SEPARATOR)
        blocks.append(
            Block(
                index=len(blocks),
                kind=piece.kind,
                span=Span(Coordinates.CODEPOINT, position, position + len(text)),
                locator=piece.locator,
                cell=None if piece.grid is None else _table_cell(piece.grid, len(blocks), heads),
            )
        )
        texts.append(text)
        position += len(text)
    if not blocks:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no text")
    return Extraction(
        text=BLOCK_SEPARATOR.join(texts),
        blocks=tuple(blocks),
        parser=parser,
        media_type=media_type,
        warnings=tuple(sorted(set(warnings))),
    )


@dataclass(slots=True)
class _HeaderRow:
    """A table's latest header row so far: its row and its cells' column intervals, in
    column order (a header cell is recorded once, whatever its span)."""

    row: int
    starts: list[int] = field(default_factory=list)
    cells: list[tuple[int, int, str]] = field(default_factory=list)


#: the widest grid an Office table has (Excel's 16,384 columns): a cell recorded as
#: spanning more (a hostile ``gridSpan``) spans this many
MAX_GRID_SPAN: Final = 16_384
#: header rows of one table a body cell may look up through (a header of several rows)
MAX_HEADER_ROWS: Final = 4
#: most header cells one body cell names (a cell spanning a whole wide sheet)
MAX_HEADER_IDS: Final = 16


def _table_cell(grid: GridCell, index: int, heads: dict[int, list[_HeaderRow]]) -> TableCell:
    """The cell's place; a header cell is recorded as the head of the columns it spans,
    a body cell gets, for its columns, the header cells of the nearest header row above
    it that has any there (the last :data:`MAX_HEADER_ROWS` rows are kept: a first row
    whose "Part" is merged down over a second row of "min" and "max" still heads the
    "Part" column). Header cells without text give no block to point at. Spans are kept
    as intervals, never column by column: a ``gridSpan`` of a hundred million costs one
    entry."""
    end = grid.col + grid.col_span
    rows = heads.setdefault(grid.table, [])
    if grid.header:
        if not rows or rows[-1].row != grid.row:
            rows.append(_HeaderRow(grid.row))
            del rows[:-MAX_HEADER_ROWS]
        found = rows[-1]
        if not found.starts or grid.col > found.starts[-1]:  # a row's cells come in order
            found.starts.append(grid.col)
            found.cells.append((grid.col, end, f"b{index}"))
        header_ids: tuple[str, ...] = ()
    else:
        ids: list[str] = []
        for found in reversed(rows):
            at = max(bisect_right(found.starts, grid.col) - 1, 0)
            for first, last, block_id in found.cells[at:]:
                if first >= end or len(ids) >= MAX_HEADER_IDS:
                    break
                if last > grid.col:
                    ids.append(block_id)
            if ids:
                break
        header_ids = tuple(ids)
    return TableCell(
        table=grid.table,
        row=grid.row,
        col=grid.col,
        col_span=min(grid.col_span, MAX_GRID_SPAN),
        header=grid.header,
        header_ids=header_ids,
    )


def _normalized(raws: list[str], profile: Profile) -> list[str]:
    """``profile.normalize_text`` of each text. The profile's steps act within a line, so
    when the texts joined by line feeds come out unchanged, so does each text (the
    common case, and one call instead of one per cell of a large sheet)."""
    joined = "\n".join(raws)
    if profile.normalize_text(joined).text == joined:
        return raws
    return [profile.normalize_text(raw).text for raw in raws]
