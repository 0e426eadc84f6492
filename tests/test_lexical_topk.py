"""BM25 across partitions stops reading posting lists early and still returns the
exact top k (issue 15).

The corpus is real text: the XQuAD paragraphs in English, German and Russian,
analyzed as ingestion analyzes them, spread over two FTS5 partitions; the queries
are XQuAD questions. Every top k with early stopping is compared with the full
pass that scores every matching row (same rows, same scores bit for bit, same
order), at several depths, with the stop allowed as soon as the bounds permit it
(so that it happens for many queries, not by luck).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

import numpy as np
import pytest

from conftest import DATA
from ragox.search import analyze_document, analyze_query, fts_match
from ragox.store._frequencies import first_varints, term_postings, term_rows
from ragox.store.sqlite import _across
from ragox.store.sqlite._across import AcrossRanking, Partition, first_varint
from ragox.store.sqlite._index import SqliteIndex, _phrases

LANGUAGES = ("en", "de", "ru")
TOKENIZER = "tokenize = 'unicode61 remove_diacritics 0'"


@pytest.fixture(scope="module")
def corpus() -> Iterator[tuple[sqlite3.Connection, list[Partition], list[str]]]:
    """XQuAD paragraphs (each sentence pair a row) over two partitions; questions."""
    conn = sqlite3.connect(":memory:")
    partitions = [Partition(n, f"part{n}") for n in (1, 2)]
    for partition in partitions:
        conn.execute(f"CREATE VIRTUAL TABLE {partition.name} USING fts5(body, {TOKENIZER})")
    questions: list[str] = []
    rowid = 0
    for language in LANGUAGES:
        data = json.loads((DATA / "xquad" / f"xquad.{language}.json").read_text("utf-8"))
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                sentences = paragraph["context"].split(". ")
                for at in range(0, len(sentences), 2):
                    rowid += 1
                    body = analyze_document(". ".join(sentences[at : at + 2]), language)
                    table = partitions[rowid % 2 if rowid % 7 else 0].name
                    conn.execute(f"INSERT INTO {table}(rowid, body) VALUES(?, ?)", (rowid, body))
                questions += [qa["question"] for qa in paragraph["qas"][:2]]
    conn.commit()
    yield conn, partitions, questions
    conn.close()


def _ranking(conn: sqlite3.Connection, partitions: list[Partition], match: str) -> AcrossRanking:
    totals = [SqliteIndex._totals(conn, p) for p in partitions]
    return AcrossRanking(conn, partitions, _phrases(match), totals, SqliteIndex._phrase_rows)


def _full(
    conn: sqlite3.Connection, partitions: list[Partition], match: str
) -> list[tuple[int, float]]:
    """Every matching row scored (no list left unread), best first."""
    ranking = _ranking(conn, partitions, match)
    ranked, complete = ranking.top(10**9)
    assert complete and ranking.skipped == 0
    return ranked


def test_early_stop_returns_the_exact_top_k_on_real_text(
    corpus: tuple[sqlite3.Connection, list[Partition], list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Same rows, scores and order as the full pass, for 600 questions in three
    languages at depths 5, 10 and 50; the early stop happens for many of them."""
    conn, partitions, questions = corpus
    monkeypatch.setattr(_across, "_ROW_COST", 0)  # stop whenever the bounds allow it
    stopped = 0
    checked = 0
    for question in questions[::4][:600]:
        match = fts_match(analyze_query(question, LANGUAGES))
        if match is None:
            continue
        full = _full(conn, partitions, match)
        for depth in (5, 10, 50):
            ranking = _ranking(conn, partitions, match)
            top, complete = ranking.top(depth)
            assert top == full[:depth], (question, depth)
            if complete:
                assert len(full) < depth
            stopped += ranking.skipped > 0
            checked += 1
    assert checked > 1000
    assert stopped > checked // 10, (stopped, checked)


def test_deeper_windows_continue_the_same_ranking(
    corpus: tuple[sqlite3.Connection, list[Partition], list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The store's iterator (top k, then windows growing x4) lists every match in
    exactly the full pass's order."""
    conn, partitions, questions = corpus
    monkeypatch.setattr(_across, "_ROW_COST", 0)
    index = SqliteIndex.__new__(SqliteIndex)
    for question in questions[1::40]:
        match = fts_match(analyze_query(question, LANGUAGES))
        if match is None:
            continue
        ranked = list(index._ranked_across(conn, partitions, _phrases(match), 3))
        assert ranked == _full(conn, partitions, match), question


def test_rows_beyond_plain_words_are_counted_by_fts5(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Candidates whose text is more than plain lowercase words (capitals, hyphens,
    other scripts, accents FTS5 keeps) get their term counts from FTS5 itself."""
    monkeypatch.setattr(_across, "_ROW_COST", 0)
    conn = sqlite3.connect(":memory:")
    partitions = [Partition(n, f"p{n}") for n in (1, 2)]
    for partition in partitions:
        conn.execute(f"CREATE VIRTUAL TABLE {partition.name} USING fts5(body, {TOKENIZER})")
    bodies = [
        "pump valve seal gasket",
        "Pump PUMP pump-house pump_room valve",
        "naïve pump šroub pump",
        "pump pumpe pumps",
        "valve valve valve",
        "seal",
    ]
    filler = [f"rare{n} common pump" if n % 3 else f"common rare{n}" for n in range(60)]
    for rowid, body in enumerate(bodies + filler, start=1):
        conn.execute(f"INSERT INTO p{1 + rowid % 2}(rowid, body) VALUES(?, ?)", (rowid, body))
    conn.commit()
    for match in ('"rare7" OR "pump" OR "common"', '"seal" OR "valve" OR "pump" OR "room"'):
        full = _full(conn, partitions, match)
        for depth in (1, 2, 3, 5):
            assert _ranking(conn, partitions, match).top(depth)[0] == full[:depth]
    ranking = _ranking(conn, partitions, '"seal" OR "pump" OR "house"')
    ranking._read('"seal"')
    ids = ranking._postings['"seal"'].ids
    counted = ranking._frequencies(['"pump"', '"house"'], np.array([1, 2, 3, 4, 6]))
    assert counted == {'"pump"': [1, 4, 2, 1, 0], '"house"': [0, 1, 0, 0, 0]}
    assert sorted(ids.tolist()) == [1, 6]


def test_plain_rows_are_counted_as_fts5_counts_them() -> None:
    """Counting the unread terms in plain rows (one pass over their joined texts)
    gives FTS5's own counts: words at a text's ends, beside ``_`` and any ASCII white
    space, repeated, and at the start or end of longer words (which are other
    tokens)."""
    rng = np.random.default_rng(16)
    vocabulary = [
        *("pump", "pumps", "pumpe", "valve", "seal", "a", "насос", "насосы", "2024"),
        *("unseal", "mega", "12024", "впрочем"),  # ending in another word
    ]
    separators = [" ", "  ", "_", "\t", "\n", "\r\n", " _ ", "\f", "\v"]
    conn = sqlite3.connect(":memory:")
    partitions = [Partition(n, f"q{n}") for n in (1, 2)]
    for partition in partitions:
        conn.execute(f"CREATE VIRTUAL TABLE {partition.name} USING fts5(body, {TOKENIZER})")
    for rowid in range(1, 301):
        words = rng.choice(vocabulary, size=int(rng.integers(1, 30))).tolist()
        body = "".join(w + str(rng.choice(separators)) for w in words[:-1]) + words[-1]
        if rowid % 5 == 0:
            body = str(rng.choice(separators)) + body + str(rng.choice(separators))
        conn.execute(f"INSERT INTO q{1 + rowid % 2}(rowid, body) VALUES(?, ?)", (rowid, body))
    conn.commit()
    terms = [f'"{word}"' for word in vocabulary]
    ranking = _ranking(conn, partitions, " OR ".join(terms))
    ids = np.array(sorted(rng.choice(np.arange(1, 301), size=120, replace=False).tolist()))
    counted = ranking._frequencies(terms, ids)
    for term in terms:
        for place, rowid in enumerate(ids.tolist()):
            partition = partitions[(1 + rowid % 2) - 1]
            assert counted[term][place] == ranking._occurrences(partition, term, rowid), (
                term,
                rowid,
            )
    assert sum(sum(column) for column in counted.values()) > 1000


def test_postings_as_arrays_equal_fts5s_rows() -> None:
    """Occurrences and row lengths read as arrays are FTS5's, long rows included."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, {TOKENIZER})")
    bodies = {
        1: "pump valve pump",
        2: "valve",
        3: " ".join(["pump"] * 200),  # a two-byte length
        9: " ".join(["pump", "valve"] * 9000),  # a three-byte length
        12: "pump_house",
    }
    conn.executemany("INSERT INTO t(rowid, body) VALUES(?, ?)", list(bodies.items()))
    for term in ("pump", "valve", "house", "absent"):
        ids, counts, lengths = term_postings(conn, "t", term)
        rows = term_rows(conn, "t", term)
        assert ids.tolist() == [r[0] for r in rows]
        assert counts.tolist() == [r[1] for r in rows]
        assert lengths.tolist() == [first_varint(r[2]) for r in rows]
    assert term_postings(conn, "t", "pump")[2].tolist() == [3, 200, 18000, 2]
    assert first_varints(bytes([0x05, 0x81, 0x00, 0x81, 0x80, 0x01])).tolist() == [5, 128, 16385]


def test_sorted_unique_is_numpys_unique() -> None:
    """The union of posting lists keeps every row once, in order, as ``np.unique``
    would (it is written without it only to skip the import of ``numpy.ma``)."""
    rng = np.random.default_rng(15)
    cases = [np.zeros(0, dtype=np.int64), np.array([7], dtype=np.int64)]
    cases += [rng.integers(0, n, size=n, dtype=np.int64) for n in (2, 3, 50, 4000)]
    cases.append(np.array([5, 5, 5, 1, 1], dtype=np.int64))
    for values in cases:
        got = _across._sorted_unique(values)
        assert got.dtype == np.int64
        assert got.tolist() == np.unique(values).tolist()
