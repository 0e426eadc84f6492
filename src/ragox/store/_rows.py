"""Stored rows to records and back, the same for both SQL backends: their tables have
the same columns in the same order, so one mapping serves the SQLite and the
PostgreSQL store (and the status reads); only what differs (a revision's reader
groups, read by each store its own way) is passed in."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii as _encode_json_string
from typing import Final

from ragox.anchor import Anchor, Manifest, Rect
from ragox.extract import Block, BlockKind, TableCell
from ragox.store._records import (
    BlockRange,
    ChunkRecord,
    JobRecord,
    JobState,
    RevisionRecord,
    RevisionState,
)
from ragox.text import Coordinates, Span

__all__ = [
    "IN_PROGRESS",
    "JOB_COLUMNS",
    "REVISION_COLUMNS",
    "anchor_from_json",
    "block_from_row",
    "block_ranges_json",
    "block_row",
    "cell_json",
    "chunk_from_row",
    "forget_json_memos",
    "job_record",
    "manifest_from_json",
    "revision_record",
]

#: the columns ``revision_record`` reads, in its order
REVISION_COLUMNS: Final = (
    "tenant, document_id, revision, seq, source_sha256, media_type, filename, size, state, "
    "failed_stage, error_code, error_message, manifest_id, created_at, updated_at, "
    "supplied_by"
)
#: the columns ``job_record`` reads, in its order
JOB_COLUMNS: Final = (
    "job_id, document_id, revision, state, stage, error_code, created_at, finished_at, "
    "pid, host, heartbeat_at, worker, lease_until, attempts"
)
#: revision states an ingestion run is still working through
IN_PROGRESS: Final = frozenset(
    {
        RevisionState.RECEIVED,
        RevisionState.EXTRACTING,
        RevisionState.EXTRACTED,
        RevisionState.INDEXING,
    }
)
_MEMO_JSON_LIMIT: Final = 8192


def revision_record(row: Sequence[object], groups: frozenset[str]) -> RevisionRecord:
    """A row of ``REVISION_COLUMNS`` with the revision's reader groups."""
    return RevisionRecord(
        tenant=str(row[0]),
        document_id=str(row[1]),
        revision=str(row[2]),
        seq=int(str(row[3])),
        source_sha256=str(row[4]),
        media_type=str(row[5]),
        filename=str(row[6]),
        size=int(str(row[7])),
        state=RevisionState(row[8]),
        failed_stage=None if row[9] is None else str(row[9]),
        error_code=None if row[10] is None else str(row[10]),
        error_message=None if row[11] is None else str(row[11]),
        manifest_id=None if row[12] is None else str(row[12]),
        groups=groups,
        created_at=str(row[13]),
        updated_at=str(row[14]),
        supplied_by=None if row[15] is None else str(row[15]),
    )


def job_record(r: Sequence[object]) -> JobRecord:
    """A row of ``JOB_COLUMNS``."""
    return JobRecord(
        str(r[0]),
        str(r[1]),
        str(r[2]),
        JobState(r[3]),
        None if r[4] is None else str(r[4]),
        None if r[5] is None else str(r[5]),
        str(r[6]),
        None if r[7] is None else str(r[7]),
        None if r[8] is None else int(str(r[8])),
        None if r[9] is None else str(r[9]),
        None if r[10] is None else str(r[10]),
        None if r[11] is None else str(r[11]),
        None if r[12] is None else str(r[12]),
        int(str(r[13])),
    )


# Stored anchors and manifests are immutable rows: the same JSON text always parses
# (and validates) to the same frozen value, so parsing is memoized by the text itself
# (for rows of ordinary size only: an anchor may quote up to 100,000 code points).
def anchor_from_json(text: str) -> Anchor:
    if len(text) <= _MEMO_JSON_LIMIT:
        return _anchor_from_small_json(text)
    return Anchor.from_json(json.loads(text))


@functools.lru_cache(maxsize=4096)
def _anchor_from_small_json(text: str) -> Anchor:
    return Anchor.from_json(json.loads(text))


def manifest_from_json(text: str) -> Manifest:
    if len(text) <= _MEMO_JSON_LIMIT:
        return _manifest_from_small_json(text)
    return Manifest.from_json(json.loads(text))


@functools.lru_cache(maxsize=1024)
def _manifest_from_small_json(text: str) -> Manifest:
    return Manifest.from_json(json.loads(text))


def forget_json_memos() -> None:
    """Drop the parsed anchors and manifests (after an erasure: they quote text)."""
    _anchor_from_small_json.cache_clear()
    _manifest_from_small_json.cache_clear()


def block_row(manifest_id: str, block: Block) -> tuple[object, ...]:
    """A block's values in the order of the ``blocks`` table's columns (``ocr`` a bool,
    which SQLite stores as the integer it is)."""
    bbox = block.bbox
    return (
        manifest_id,
        block.index,
        block.kind.value,
        block.span.start,
        block.span.end,
        block.locator,
        block.page,
        None if bbox is None else bbox.x0,
        None if bbox is None else bbox.y0,
        None if bbox is None else bbox.x1,
        None if bbox is None else bbox.y1,
        None if block.source is None else block.source.start,
        None if block.source is None else block.source.end,
        block.ocr,
        None if block.cell is None else cell_json(block.cell),
    )


#: The fields cell_json writes are all the fields a TableCell has.
_CELL_FIELDS_KNOWN: Final = tuple(f.name for f in dataclasses.fields(TableCell)) == (
    "table",
    "row",
    "col",
    "row_span",
    "col_span",
    "header",
    "header_ids",
)


def cell_json(cell: TableCell) -> str:
    """``json.dumps(cell.to_json(), sort_keys=True)``, written directly for a cell of
    plain ints, a bool and string ids (each id escaped by json's own string encoder),
    five times faster: an HTML page's tables have thousands of cells."""
    table, row, col, row_span, col_span = (
        cell.table,
        cell.row,
        cell.col,
        cell.row_span,
        cell.col_span,
    )
    header, ids = cell.header, cell.header_ids
    if not (
        _CELL_FIELDS_KNOWN
        and type(table) is int
        and type(row) is int
        and type(col) is int
        and type(row_span) is int
        and type(col_span) is int
        and type(header) is bool
        and type(ids) is tuple
        and all(type(i) is str for i in ids)
    ):
        return json.dumps(cell.to_json(), sort_keys=True)
    listed = ", ".join(map(_encode_json_string, ids))
    return (
        f'{{"col": {col}, "col_span": {col_span}, "header": {"true" if header else "false"}, '
        f'"header_ids": [{listed}], "row": {row}, "row_span": {row_span}, "table": {table}}}'
    )


def block_from_row(row: Sequence[object]) -> Block:
    def number(value: object) -> float:
        assert isinstance(value, int | float)
        return float(value)

    bbox = None
    if row[6] is not None:
        bbox = Rect(number(row[6]), number(row[7]), number(row[8]), number(row[9]))
    source = None
    if row[10] is not None:
        source = Span(Coordinates.SOURCE_CODEPOINT, int(str(row[10])), int(str(row[11])))
    return Block(
        index=int(str(row[0])),
        kind=BlockKind(row[1]),
        span=Span(Coordinates.CODEPOINT, int(str(row[2])), int(str(row[3]))),
        locator=str(row[4]),
        page=None if row[5] is None else int(str(row[5])),
        bbox=bbox,
        source=source,
        ocr=bool(row[12]),
        cell=None if row[13] is None else TableCell.from_json(json.loads(str(row[13]))),
    )


def block_ranges_json(ranges: Sequence[BlockRange]) -> str:
    """A chunk's block ranges as its row stores them: the text of ``json.dumps`` of
    ``[[block_index, start, end], …]`` (integers), made directly (a chunk row each, and
    the standard encoder's setup costs more than the text)."""
    return "[" + ", ".join(f"[{b.block_index:d}, {b.start:d}, {b.end:d}]" for b in ranges) + "]"


def chunk_from_row(row: Sequence[object]) -> ChunkRecord:
    blocks = json.loads(str(row[8]))
    return ChunkRecord(
        chunk_id=str(row[0]),
        manifest_id=str(row[1]),
        ordinal=int(str(row[2])),
        start=int(str(row[3])),
        end=int(str(row[4])),
        search_start=int(str(row[5])),
        search_end=int(str(row[6])),
        tokens=int(str(row[7])),
        blocks=tuple(BlockRange(int(b[0]), int(b[1]), int(b[2])) for b in blocks),
    )
