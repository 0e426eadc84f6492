"""How often a query term occurs in each matching row of a lexical partition, read
from FTS5's own index without ranking (issue 15).

Scoring over several partitions needs, per matching row, the phrase frequency and
the row's length. Asking FTS5's ``bm25()`` for them (and inverting its score)
costs a ranking of every matching row; for a plain one-token term, FTS5's
``fts5vocab`` *instance* table lists the term's occurrences directly, which reads
the same posting list without scoring it (about 1.7 times faster over a 100k-chunk
home). Only terms that FTS5's ``unicode61`` tokenizer keeps as one token and
stores unchanged take this way (lowercase Latin, Latin-1 and Cyrillic letters and
digits: what the analyzers produce for en, de and ru); any other phrase (several
tokens, a prefix, other scripts) is left to ``bm25()``.
"""

from __future__ import annotations

import re
import sqlite3
from typing import TYPE_CHECKING, Final

from ragox._lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

__all__ = ["plain_term", "term_postings", "term_rows"]

#: one ``unicode61`` token that its case folding leaves as it is
_PLAIN: Final = re.compile(r'"([0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0430-\u044f\u0451]+)"')


def plain_term(phrase: str) -> str | None:
    """The term of a quoted one-token phrase that the vocabulary holds verbatim."""
    found = _PLAIN.fullmatch(phrase)
    return None if found is None else found.group(1)


def _vocabulary(conn: sqlite3.Connection, table: str) -> str:
    """The table's ``instance`` vocabulary, in the connection's temp schema (nothing
    is written to the database)."""
    vocab = f"temp.{table}_instances"
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {table}, 'instance')"
    )
    return vocab


def first_varints(stream: bytes) -> npt.NDArray[np.int64]:
    """The values of a stream of SQLite varints (each a one-column ``docsize`` record)."""
    data = np.frombuffer(stream, dtype=np.uint8)
    ends = np.flatnonzero(data < 0x80)
    starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
    if len(ends) and int((ends - starts).max()) > 1:  # 16384 tokens or more: rare
        values: list[int] = []
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            number = 0
            for byte in data[start : end + 1].tolist():
                number = (number << 7) | (byte & 0x7F)
            values.append(number)
        return np.array(values, dtype=np.int64)
    value = data[ends].astype(np.int64)
    two = ends > starts
    value[two] |= (data[starts[two]].astype(np.int64) & 0x7F) << 7
    return value


def term_postings(
    conn: sqlite3.Connection, table: str, term: str
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """What :func:`term_rows` reads, as arrays (rowids by rowid, occurrences, row
    lengths in tokens), handed over from SQLite as two strings rather than a Python
    tuple per row (several times faster for a common term)."""
    vocab = _vocabulary(conn, table)
    docs, sizes = conn.execute(
        f"SELECT group_concat(v.doc), group_concat(hex(d.sz), '') FROM {vocab} v "
        f"JOIN main.{table}_docsize d ON d.id = v.doc WHERE v.term = ?",
        (term,),
    ).fetchone()
    if not docs:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    every = np.array(str(docs).split(","), dtype=np.int64)  # one per occurrence
    ids, first, counts = np.unique(every, return_index=True, return_counts=True)
    return ids, counts.astype(np.int64), first_varints(bytes.fromhex(str(sizes)))[first]


def term_rows(conn: sqlite3.Connection, table: str, term: str) -> list[tuple[int, int, bytes]]:
    """``(rowid, occurrences, docsize record)`` of every row of ``table`` holding
    ``term``, by rowid. The vocabulary table lives in the connection's temp schema
    (nothing is written to the database)."""
    vocab = _vocabulary(conn, table)
    return conn.execute(
        f"SELECT v.doc, COUNT(*), d.sz FROM {vocab} v "
        f"JOIN main.{table}_docsize d ON d.id = v.doc WHERE v.term = ? GROUP BY v.doc",
        (term,),
    ).fetchall()
