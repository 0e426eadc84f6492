"""Phrase frequencies read from FTS5's vocabulary (issue 15): exactly the occurrences
and row lengths FTS5 holds, and only for terms the vocabulary stores verbatim."""

from __future__ import annotations

import sqlite3

import pytest

from ragox.store._frequencies import plain_term, term_rows
from ragox.store.sqlite._across import first_varint


@pytest.mark.parametrize(
    ("phrase", "term"),
    [
        ('"pump"', "pump"),
        ('"straße"', "straße"),
        ('"насос"', "насос"),
        ('"2024"', "2024"),
        ('"foo bar"', None),  # two tokens: a phrase
        ('"foo_bar"', None),  # unicode61 splits at the underscore
        ('"val"*', None),  # a prefix
        ('"Pump"', None),  # FTS5 would fold it
        ('"שלום"', None),  # another script: left to bm25()
        ('"a""b"', None),
    ],
)
def test_only_plain_terms_take_the_vocabulary(phrase: str, term: str | None) -> None:
    """One lowercase Latin, Latin-1 or Cyrillic token qualifies; anything else does not."""
    assert plain_term(phrase) == term


def test_occurrences_and_lengths_are_fts5s_own() -> None:
    """Each row holding the term, with how often it occurs and its length in tokens."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'unicode61 remove_diacritics 0')"
    )
    bodies = {1: "pump valve pump", 2: "valve", 3: "pump pump pump seal", 7: "pump_house"}
    conn.executemany("INSERT INTO t(rowid, body) VALUES(?, ?)", list(bodies.items()))
    rows = [
        (rowid, count, first_varint(size)) for rowid, count, size in term_rows(conn, "t", "pump")
    ]
    assert rows == [(1, 2, 3), (3, 3, 4), (7, 1, 2)]
    matched = [r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH '\"pump\"'")]
    assert [r[0] for r in rows] == matched
    assert term_rows(conn, "t", "absent") == []
