"""What a search hit shows, for all hits of a query in one read (issue 15).

A hit needs its chunk, its document and revision, its own span of the
representation text (for the snippet) and the pages of its blocks. Reading them
chunk by chunk, with the whole text of each document, made building ten hits cost
as much as ranking them; here one statement reads the chunks and a second the texts
of their documents, each text once, and each chunk's span is cut out of it here
(offsets count code points, as Python's do). Cutting with SQLite's ``substr`` read the
whole text again for every chunk: an answer's twenty chunks from a few long
chapters spent 80% of their read in it. The embedded store hands its text cache over:
an answer's searches (a first one, one in the question's language, a collapse's
rounds) and its context meet the same documents, whose texts are decoded once.
A document with a single chunk among those asked for, whose text is not cached, has
only that chunk's span read (``substr``): a collapsed search at 1M chunks reads
candidates from a hundred documents, most of which it never shows, and decoding their
whole texts into Python was a third of its time.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ragox.store._records import BlockRange, ChunkRecord

__all__ = ["HitSource", "TextCache", "hit_sources"]


@dataclass(frozen=True, slots=True)
class HitSource:
    """A chunk with what a hit shows of it."""

    chunk: ChunkRecord
    document_id: str
    revision: str
    #: the representation text of ``[chunk.start, chunk.end)``
    text: str
    #: PDF pages of the chunk's blocks, ascending (none for other formats)
    pages: tuple[int, ...]


# Each row is reached by an equality on a whole unique key whose right side has no
# affinity (``+``, a JSON value): SQLite reads that one row and stops. With a column
# on the right, or an IN list, it stepped on to the next entry of the index, so that
# whether another document's (random) manifest id sorted after this one changed the
# work done for a reader who may not read that document.
_SOURCES = """
    SELECT c.chunk_id, c.manifest_id, c.ordinal, c.start, c.end, c.search_start,
           c.search_end, c.tokens, c.blocks, m.document_id, m.revision,
           (SELECT json_group_array(DISTINCT b.page) FROM json_each(c.blocks) r
            CROSS JOIN blocks b ON b.manifest_id = +c.manifest_id
                AND b.block_index = json_extract(r.value, '$[0]')
            WHERE b.page IS NOT NULL)
    FROM json_each(:ids) j
    CROSS JOIN chunks c ON c.chunk_id = j.value
    CROSS JOIN manifests m ON m.manifest_id = +c.manifest_id
"""
#: the representation texts of those chunks' manifests, each once
_TEXTS = """
    SELECT rep.manifest_id, rep.text FROM json_each(:ids) j
    CROSS JOIN representations rep ON rep.manifest_id = j.value
"""
#: the spans of those chunks alone (code points, as Python's offsets)
_SPANS = """
    SELECT c.chunk_id, substr(rep.text, c.start + 1, c.end - c.start) FROM json_each(:ids) j
    CROSS JOIN chunks c ON c.chunk_id = j.value
    CROSS JOIN representations rep ON rep.manifest_id = +c.manifest_id
"""


class TextCache(Protocol):
    """A store's cache of representation texts (immutable while they exist)."""

    def cached_texts(self, manifest_ids: Collection[str]) -> dict[str, str]:
        """The texts of these representations it holds, valid after the chunk rows
        were read (dropped if a deletion happened since)."""
        ...

    def remember_texts(self, texts: Mapping[str, str]) -> None: ...


def hit_sources(
    conn: sqlite3.Connection, chunk_ids: Sequence[str], cache: TextCache | None = None
) -> dict[str, HitSource]:
    """The chunks of ``chunk_ids`` that exist, by id (a chunk deleted meanwhile is absent).
    With a ``cache``, texts it holds are not read again (the searches of one answer
    meet the same documents), and texts read are kept in it."""
    found: dict[str, HitSource] = {}
    rows = conn.execute(_SOURCES, {"ids": json.dumps(list(chunk_ids))}).fetchall()
    chunks_of = Counter(str(row[1]) for row in rows)
    manifests = sorted(chunks_of)
    texts = {} if cache is None else cache.cached_texts(manifests)
    texts.update(
        _whole_texts(conn, [m for m in manifests if m not in texts and chunks_of[m] > 1], cache)
    )
    alone = {
        str(row[0]): int(row[4]) - int(row[3])
        for row in rows
        if str(row[1]) not in texts and chunks_of[str(row[1])] == 1
    }
    spans: dict[str, str] = {}
    if alone:
        spans = {
            str(chunk_id): str(span)
            for chunk_id, span in conn.execute(_SPANS, {"ids": json.dumps(list(alone))})
        }
        # SQLite's substr stops at a NUL (a text file may hold one past the sample that
        # refuses binary content): a span shorter than its chunk is cut from its whole
        # text instead (red-team: two such chunks had one empty passage key, and were
        # shown as one passage)
        short = {chunk_id for chunk_id, span in spans.items() if len(span) != alone[chunk_id]}
        if short:
            texts.update(
                _whole_texts(conn, sorted({str(r[1]) for r in rows if str(r[0]) in short}), cache)
            )
            spans = {chunk_id: span for chunk_id, span in spans.items() if chunk_id not in short}
    for row in rows:
        text = texts.get(str(row[1]))
        if text is None and str(row[0]) not in spans:
            continue  # a representation deleted between the two reads: the chunk is gone
        blocks = json.loads(str(row[8]))
        chunk = ChunkRecord(
            chunk_id=str(row[0]),
            manifest_id=str(row[1]),
            ordinal=int(row[2]),
            start=int(row[3]),
            end=int(row[4]),
            search_start=int(row[5]),
            search_end=int(row[6]),
            tokens=int(row[7]),
            blocks=tuple(BlockRange(int(b[0]), int(b[1]), int(b[2])) for b in blocks),
        )
        pages = tuple(sorted(int(page) for page in json.loads(str(row[11] or "[]"))))
        span = spans[chunk.chunk_id] if text is None else text[chunk.start : chunk.end]
        found[chunk.chunk_id] = HitSource(chunk, str(row[9]), str(row[10]), span, pages)
    return found


def _whole_texts(
    conn: sqlite3.Connection, manifest_ids: Sequence[str], cache: TextCache | None
) -> dict[str, str]:
    """The whole texts of these representations (those that still exist), kept in
    ``cache``."""
    if not manifest_ids:
        return {}
    read = {
        str(manifest_id): str(text)
        for manifest_id, text in conn.execute(_TEXTS, {"ids": json.dumps(list(manifest_ids))})
    }
    if cache is not None:
        cache.remember_texts(read)
    return read
