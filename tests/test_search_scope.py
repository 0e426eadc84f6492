"""Search statistics and cost see only the reader's scope (issue 10, item 3).

Lexical rows are partitioned by tenant and exact reader-group set: a hidden
document changes no reader's scores, ranks or answer IDF; a term that exists only
in hidden rows is looked up exactly like an absent term (the hidden partition is
never opened); scores over several partitions equal FTS5's ``bm25()`` over one
table of exactly the readable rows; group changes move rows; old homes migrate.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import product
from pathlib import Path

import httpx
import pytest

from conftest import (
    DATA,
    OPERATOR,
    legacy_lexical_tables,
    older_database,
    serving,
    store_sql,
)
from ragox.access import Principal
from ragox.search import SearchMode, analyze_query, fts_match, index_terms, scope_of
from ragox.service import ActionRefused, Ragox
from ragox.store import SCHEMA_VERSION

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))  # one partition
MANY = Principal("mo", groups=frozenset({"staff", "eng", "ops"}))  # three partitions
ACME = Principal("ann", tenant="acme", groups=frozenset({"staff", "board"}))
GROUPS = ({"staff"}, {"eng"}, {"ops"}, {"staff", "eng"})


def _xquad(count: int) -> tuple[list[str], list[str]]:
    data = json.loads((DATA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
    paragraphs: list[str] = []
    questions: list[str] = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            if len(paragraphs) == count:
                return paragraphs, questions
            paragraphs.append(paragraph["context"])
            questions.append(paragraph["qas"][0]["question"])
    return paragraphs, questions


def _ingest(app: Ragox, doc: str, text: str, groups: set[str], tenant: str = "default") -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset(groups), tenant=tenant, language="en"
    )
    assert outcome.state.value == "READY"


def _corpus(app: Ragox, count: int = 24) -> list[str]:
    """XQuAD paragraphs spread over four group sets; their first questions."""
    paragraphs, questions = _xquad(count)
    for index, paragraph in enumerate(paragraphs):
        _ingest(app, f"p{index:02d}", paragraph, GROUPS[index % len(GROUPS)])
    return questions


def _hidden_text(questions: list[str]) -> str:
    """A board document holding every word of the questions, many times over."""
    words = " ".join(questions)
    return "\n\n".join(f"{words} {words}" for _ in range(6))


def _view(app: Ragox, question: str, principal: Principal) -> list[tuple[str, int, int, float]]:
    return [
        (hit.document_id, hit.start, hit.end, hit.score)
        for hit in app.search(question, principal, SearchMode.LEXICAL, limit=10)
    ]


def test_hidden_documents_change_no_score_rank_or_idf(app: Ragox) -> None:
    """A reader's lexical scores, ranks and answer IDF are identical with and without a
    hidden board document holding the query terms (one- and several-partition scopes);
    the operator's do change, so the hidden rows do hold the terms."""
    questions = _corpus(app)[:12]
    terms = sorted({t for q in questions for t in analyze_query(q, ["en"])})

    def observe() -> dict[str, object]:
        seen: dict[str, object] = {}
        for who in (STAFF, MANY, OPERATOR):
            seen[f"{who.name}:idf"] = app.term_weights(who)(terms)
            seen[f"{who.name}:stats"] = app.store.index.term_statistics(scope_of(who), terms)
            for question in questions:
                seen[f"{who.name}:{question}"] = _view(app, question, who)
        return seen

    before = observe()
    _ingest(app, "board-minutes", _hidden_text(questions), {"board"})
    _ingest(app, "board-notes", _hidden_text(questions[:3]), {"board", "directors"})
    after = observe()
    for key, value in before.items():
        if not key.startswith("operator:"):
            assert after[key] == value, key
    assert after["operator:stats"] != before["operator:stats"]
    assert any(after[f"operator:{q}"] != before[f"operator:{q}"] for q in questions)


def _reference_scores(app: Ragox, principal: Principal, match: str) -> dict[str, float]:
    """FTS5's own bm25() over one fresh table holding exactly the chunks the principal
    may read, analyzed as ingestion analyzes them."""
    ref = sqlite3.connect(":memory:")
    ref.execute(
        "CREATE VIRTUAL TABLE ref USING fts5(body, tokenize='unicode61 remove_diacritics 0')"
    )
    ids: list[str] = []
    for document in app.store.list_documents(principal.tenant):
        revision = document.current_revision
        assert revision is not None
        if not (
            principal.operator
            or app.store.groups(principal.tenant, document.document_id, revision) & principal.groups
        ):
            continue
        record = app.store.get_revision(principal.tenant, document.document_id, revision)
        assert record is not None and record.manifest_id is not None
        found = app.store.search_text(record.manifest_id)
        assert found is not None
        for chunk in app.store.chunks(record.manifest_id):
            ids.append(chunk.chunk_id)
            body = index_terms(found[0][chunk.search_start : chunk.search_end], "en")
            ref.execute("INSERT INTO ref(rowid, body) VALUES(?, ?)", (len(ids), body))
    rows = ref.execute("SELECT rowid, -bm25(ref) FROM ref WHERE ref MATCH ?", (match,)).fetchall()
    return {ids[int(rowid) - 1]: float(score) for rowid, score in rows}


def test_scores_across_partitions_equal_fts5_over_the_readable_rows(
    app: Ragox, backend: str
) -> None:
    """Scores computed over several partitions equal FTS5's bm25() over one table of
    exactly the readable rows (same values, same order), phrases of several tokens and
    prefixes included (on SQLite; PostgreSQL matches single tokens, all ragox writes);
    a one-partition scope gets FTS5's own numbers."""
    questions = _corpus(app)
    _ingest(app, "tokens", "The foo bar valve and foo_bar baz, foo bar foo.", {"eng"})
    _ingest(app, "board-minutes", _hidden_text(questions), {"board"})
    matches = [fts_match(analyze_query(q, ["en"])) for q in [*questions[:16], "foo_bar baz"]]
    matches.append('"val"* OR "foo"')  # prefixes too
    if backend == "postgres":
        matches = [m for m in matches if m is not None and "_" not in m and "*" not in m]
    for principal in (MANY, STAFF):
        scope = scope_of(principal)
        for match in matches:
            assert match is not None
            reference = _reference_scores(app, principal, match)
            ours = app.store.index.lexical(match, scope, 20)
            best = sorted(reference.values(), reverse=True)[:20]
            assert [score for _, score in ours] == pytest.approx(best, rel=1e-12, abs=1e-12)
            for chunk_id, score in ours:
                assert score == pytest.approx(reference[chunk_id], rel=1e-12, abs=1e-12)


def _paragraph(seed: int, words: int, term: str, times: int) -> str:
    filler = [f"w{(seed * 7919 + i * 104729) % 5003}" for i in range(words - times)]
    return " ".join([term] * times + filler) + "."


def test_scope_is_inside_the_query_below_many_forbidden_chunks(app: Ragox) -> None:
    """A reader's only matching chunk, which ranks below 60 forbidden ones (the
    operator sees it past rank 50), is still the reader's first hit."""
    forbidden = "\n\n".join(_paragraph(i, 150, "valve", 12) for i in range(60))
    _ingest(app, "board-valves", forbidden, {"board"})
    _ingest(app, "staff-note", _paragraph(999, 280, "valve", 1), {"staff"})
    everyone = [h.document_id for h in app.search("valve", OPERATOR, SearchMode.LEXICAL, limit=100)]
    assert everyone.index("staff-note") >= 50
    hits = app.search("valve", STAFF, SearchMode.LEXICAL, limit=5)
    assert [h.document_id for h in hits] == ["staff-note"]


@contextmanager
def _traced(app: Ragox) -> Iterator[tuple[list[str], list[int]]]:
    """Statements run and SQLite VM steps taken on the store's connection meanwhile."""
    conn = app.store._connection()
    statements: list[str] = []
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    conn.set_trace_callback(statements.append)
    conn.set_progress_handler(step, 1)
    try:
        yield statements, steps
    finally:
        conn.set_trace_callback(None)
        conn.set_progress_handler(None, 1)


def _hidden_partitions(app: Ragox, principal: Principal) -> list[str]:
    conn = app.store._connection()
    rows = conn.execute("SELECT name, groups FROM lexical_partitions").fetchall()
    return [str(n) for n, g in rows if not set(json.loads(g)) & principal.groups]


@pytest.mark.sqlite_only  # reads SQLite's own tables or VM steps
@pytest.mark.alone  # compares timings: no other test runs meanwhile (tests/conftest.py)
def test_a_term_only_in_hidden_rows_costs_what_an_absent_term_costs(app: Ragox) -> None:
    """For a reader without access, a term found only in a large hidden corpus runs the
    same statements with the same number of SQLite VM steps as an absent term, never
    opens a hidden partition, and takes the same time within noise."""
    _corpus(app, 8)
    hidden = "\n\n".join(_paragraph(i, 180, "zyxquor", 3) for i in range(400))
    _ingest(app, "board-archive", hidden, {"board"})
    assert app.search("zyxquor", OPERATOR, SearchMode.LEXICAL, limit=5)
    archive = app.store.get_revision("default", "board-archive", "r1")
    assert archive is not None and archive.manifest_id is not None
    assert app.store.chunk_count(archive.manifest_id) >= 300
    secret_tables = _hidden_partitions(app, MANY)
    assert secret_tables
    for principal in (STAFF, MANY):
        app.search("warmup", principal, SearchMode.LEXICAL)  # caches (scope languages)
        runs: dict[str, tuple[list[str], int]] = {}
        for term in ("zyxquor", "qwvbnmx"):
            with _traced(app) as (statements, steps):
                assert app.search(term, principal, SearchMode.LEXICAL) == []
            runs[term] = ([s.replace(term, "TERM") for s in statements], steps[0])
            for statement in statements:
                assert not any(table in statement for table in secret_tables), statement
        assert runs["zyxquor"] == runs["qwvbnmx"]

        scope = scope_of(principal)
        timings: dict[str, list[float]] = {"zyxquor": [], "qwvbnmx": []}
        for _ in range(40):
            for term in ("zyxquor", "qwvbnmx"):  # interleaved: load affects both alike
                started = time.perf_counter()
                app.store.index.lexical(f'"{term}"', scope, 50)
                timings[term].append(time.perf_counter() - started)
        hidden_median = statistics.median(timings["zyxquor"])
        absent_median = statistics.median(timings["qwvbnmx"])
        assert hidden_median < 1.5 * absent_median + 0.0005


def _partition_rows(app: Ragox, tenant: str, document_id: str) -> dict[str, int]:
    """Group set → number of FTS rows the document's current revision has there."""
    conn = app.store._connection()
    found: dict[str, int] = {}
    for name, groups in conn.execute(
        "SELECT name, groups FROM lexical_partitions WHERE tenant=?", (tenant,)
    ).fetchall():
        count = conn.execute(
            f"SELECT COUNT(*) FROM {name} WHERE rowid IN (SELECT c.rowid FROM chunks c "
            "JOIN revisions r ON r.manifest_id = c.manifest_id "
            "WHERE r.tenant=? AND r.document_id=?)",
            (tenant, document_id),
        ).fetchone()[0]
        if count:
            found[str(groups)] = int(count)
    return found


def _group_sets(app: Ragox) -> set[str]:
    rows = app.store._connection().execute("SELECT groups FROM lexical_partitions").fetchall()
    return {str(row[0]) for row in rows}


@pytest.mark.sqlite_only  # reads SQLite's own tables or VM steps
def test_group_changes_move_rows_and_statistics(app: Ragox) -> None:
    """`ragox acl` moves a revision's rows to the partition of its new groups in the same
    transaction: the statistics and hits of a reader follow, the operator sees all
    throughout, and the old partition keeps nothing."""
    _ingest(app, "public", "The valve must be closed before maintenance.", {"staff"})
    _ingest(app, "board", "Merger: the valve budget is frozen. Valve valve.", {"board"})
    terms = ["valv", "budget"]

    def stats(principal: Principal) -> tuple[int, dict[str, int]]:
        return app.store.index.term_statistics(scope_of(principal), terms)

    assert stats(STAFF) == (1, {"valv": 1, "budget": 0})
    assert stats(OPERATOR) == (2, {"valv": 2, "budget": 1})
    assert _partition_rows(app, "default", "board") == {'["board"]': 1}
    generation = app.store.index.generation()

    app.set_groups("board", frozenset({"staff", "directors"}))
    assert app.store.index.generation() > generation
    assert _partition_rows(app, "default", "board") == {'["directors", "staff"]': 1}
    assert _group_sets(app) == {'["staff"]', '["directors", "staff"]'}  # empty one dropped
    assert stats(STAFF) == (2, {"valv": 2, "budget": 1})
    assert stats(OPERATOR) == (2, {"valv": 2, "budget": 1})
    assert {h.document_id for h in app.search("budget", STAFF, SearchMode.LEXICAL)} == {"board"}

    app.set_groups("board", frozenset({"board"}))
    assert _partition_rows(app, "default", "board") == {'["board"]': 1}
    assert stats(STAFF) == (1, {"valv": 1, "budget": 0})
    assert app.search("budget", STAFF, SearchMode.LEXICAL) == []
    assert {h.document_id for h in app.search("budget", OPERATOR, SearchMode.LEXICAL)} == {"board"}

    assert app.delete("board")
    assert _partition_rows(app, "default", "board") == {}
    assert _group_sets(app) == {'["staff"]'}
    assert stats(OPERATOR) == (1, {"valv": 1, "budget": 0})


def test_leftover_rows_are_swept_and_counted(app: Ragox) -> None:
    """Rows of a revision that is no longer current (a crash leftover) count in the
    statistics until ``remove_orphans`` removes exactly them; a current representation
    has one row per chunk."""
    _ingest(app, "manual", "The valve seal.", {"staff"})
    _ingest(app, "manual", "The pump.", {"staff"})
    old = app.store.get_revision("default", "manual", "r1")
    new = app.store.get_revision("default", "manual", "r2")
    assert old is not None and old.manifest_id and new is not None and new.manifest_id
    app.store.index.write_lexical(
        "default",
        old.manifest_id,
        "en",
        [(c.chunk_id, "valv seal") for c in app.store.chunks(old.manifest_id)],
    )
    assert app.store.index.term_statistics(scope_of(STAFF), ["seal"]) == (2, {"seal": 1})
    with app.store.transaction() as conn:
        assert app.store.index.remove_orphans(conn, "acme") == 0
        assert app.store.index.remove_orphans(conn) == 1
        assert app.store.index.lexical_row_count(conn, "default", old.manifest_id) == 0
        assert app.store.index.lexical_row_count(conn, "default", new.manifest_id) == 1
    assert app.store.index.term_statistics(scope_of(STAFF), ["seal"]) == (1, {"seal": 0})


def _leftover(app: Ragox, tenant: str, document_id: str, body: str) -> tuple[str, int]:
    """Lexical rows written again for a document's first, no longer current revision
    (what a killed run of an older version left): its manifest and how many rows."""
    old = app.store.get_revision(tenant, document_id, "r1")
    assert old is not None and old.manifest_id is not None
    chunks = app.store.chunks(old.manifest_id)
    app.store.index.write_lexical(
        tenant, old.manifest_id, "en", [(c.chunk_id, body) for c in chunks]
    )
    return old.manifest_id, len(chunks)


def test_orphan_sweep_removes_the_orphans_and_nothing_else(app: Ragox) -> None:
    """``remove_orphans`` removes exactly the rows of revisions that are not current,
    only in the tenant named, and leaves every current representation's rows, each
    reader's hits and statistics as they were before the leftovers were written."""
    board = Principal("bo", groups=frozenset({"board"}))
    for tenant in ("default", "acme"):
        _ingest(app, "manual", "The valve seal leaks.", {"staff"}, tenant=tenant)
        _ingest(app, "manual", "The pump seal is new.", {"staff"}, tenant=tenant)
    _ingest(app, "budget", "The valve budget.\n\nThe seal budget.", {"board"})
    _ingest(app, "notes", "Pump notes.", {"staff", "board"})
    readers = (STAFF, board, ACME, OPERATOR)
    question, terms = "valve seal pump budget", ["valv", "seal", "pump", "budget"]

    def observed() -> tuple[object, ...]:
        return tuple(
            (_view(app, question, p), app.store.index.term_statistics(scope_of(p), terms))
            for p in readers
        )

    before = observed()
    current = {
        (t, d): app.store.get_revision(t, d, label)
        for t, d, label in (
            ("default", "manual", "r2"),
            ("acme", "manual", "r2"),
            ("default", "budget", "r1"),
            ("default", "notes", "r1"),
        )
    }
    ours, our_rows = _leftover(app, "default", "manual", "valv seal")
    theirs, their_rows = _leftover(app, "acme", "manual", "valv seal leak")
    assert our_rows > 0 and their_rows > 0
    assert observed() != before  # the leftovers count until swept
    with app.store.transaction() as conn:
        assert app.store.index.remove_orphans(conn, "acme") == their_rows
        assert app.store.index.lexical_row_count(conn, "acme", theirs) == 0
        assert app.store.index.lexical_row_count(conn, "default", ours) == our_rows
        assert app.store.index.remove_orphans(conn) == our_rows
        assert app.store.index.lexical_row_count(conn, "default", ours) == 0
        assert app.store.index.remove_orphans(conn) == 0
        for (tenant, _), record in current.items():
            assert record is not None and record.manifest_id is not None
            assert app.store.index.lexical_row_count(
                conn, tenant, record.manifest_id
            ) == app.store.chunk_count(record.manifest_id)
    assert observed() == before


def test_delete_and_retry_sweep_only_their_documents_leftovers(app: Ragox, home: Path) -> None:
    """Deleting a document removes every lexical trace it can have left (rows of an old
    revision, words of its chunks that no lexical row accounts for) and a retry sweeps
    what its document's dead runs left; both find them by the document's ids and leave
    other documents' leftovers to the whole-store sweep (they scan no one else's rows)."""
    for doc, word in (("manual", "seal"), ("other", "gasket"), ("third", "washer")):
        _ingest(app, doc, f"The valve {word} leaks.", {"staff"})
        _ingest(app, doc, f"The pump {word} is new.", {"staff"})
    ours, _ = _leftover(app, "default", "manual", "valv seal")
    _leftover(app, "default", "other", "valv gasket")
    _, third_rows = _leftover(app, "default", "third", "valv washer")
    current = app.store.get_revision("default", "manual", "r2")
    assert current is not None and current.manifest_id is not None
    # what an older version could leave: the current revision's row entries gone, its
    # words (FTS rows, postings) still there
    store_sql(home, "DELETE FROM lexical_rows WHERE manifest_id = ?", (current.manifest_id,))
    terms = ["seal", "gasket", "washer"]

    def frequencies() -> dict[str, int]:
        return app.store.index.term_statistics(scope_of(OPERATOR), terms)[1]

    assert frequencies() == {"seal": 2, "gasket": 2, "washer": 2}
    assert app.delete("manual")
    assert frequencies() == {"seal": 0, "gasket": 2, "washer": 2}
    assert not app.search("seal", OPERATOR, SearchMode.LEXICAL)
    with app.store.transaction() as conn:
        assert app.store.index.lexical_row_count(conn, "default", ours) == 0
    outcome = app.retry("other", "r2")
    assert not isinstance(outcome, ActionRefused) and outcome.state.value == "READY"
    assert frequencies() == {"seal": 0, "gasket": 1, "washer": 2}
    assert app.store.remove_index_orphans() == third_rows
    assert frequencies() == {"seal": 0, "gasket": 1, "washer": 1}


@pytest.mark.sqlite_only  # reads SQLite's own tables or VM steps
def test_tenants_never_share_partitions_or_statistics(app: Ragox) -> None:
    """Same group names in two tenants are two partitions: each tenant's readers and
    operator count and find only their own rows."""
    _ingest(app, "manual", "The valve budget and the valve seal.", {"staff"})
    _ingest(app, "manual", "Valve.", {"staff"}, tenant="acme")
    _ingest(app, "board", "A budget.", {"board"}, tenant="acme")
    acme_operator = Principal.local_operator("acme")
    assert app.store.index.term_statistics(scope_of(ACME), ["valv", "budget", "seal"]) == (
        2,
        {"valv": 1, "budget": 1, "seal": 0},
    )
    assert app.store.index.term_statistics(scope_of(acme_operator), ["seal"]) == (2, {"seal": 0})
    assert app.store.index.term_statistics(scope_of(STAFF), ["budget", "seal"]) == (
        1,
        {"budget": 1, "seal": 1},
    )
    assert {h.document_id for h in app.search("seal", ACME, SearchMode.LEXICAL)} == set()
    assert {h.document_id for h in app.search("valve", ACME, SearchMode.LEXICAL)} == {"manual"}
    tenants = (
        app.store._connection()
        .execute("SELECT tenant, groups FROM lexical_partitions ORDER BY tenant, groups")
        .fetchall()
    )
    assert tenants == [("acme", '["board"]'), ("acme", '["staff"]'), ("default", '["staff"]')]


# -- migration from schema 7 ----------------------------------------------------------------


def _copy_as_schema7(new_home: Path, old_db: Path, orphan: bool) -> None:
    """A database of schema 7 (migrations up to 7 only) holding the rows of ``new_home``,
    its lexical rows in one FTS5 table per tenant as schema 7 kept them; with ``orphan``,
    plus a leftover row whose chunk is gone."""
    with older_database(new_home / "ragox.db", old_db, 7) as old:
        names = legacy_lexical_tables(old)
        if orphan:
            table = names["default"]
            old.execute(f"INSERT INTO main.{table}(rowid, body) VALUES(999999, 'valv orphan')")


@pytest.mark.sqlite_only  # reads SQLite's own tables or VM steps
def test_schema7_home_is_partitioned_on_open(tmp_path: Path) -> None:
    """A schema-7 home (per-tenant lexical tables, a leftover row) opens as schema 10:
    rows land in partitions by their revision's groups, the leftover is gone, the old
    tables are dropped, and every principal's hits and scores are what a fresh home
    gives."""
    assert SCHEMA_VERSION >= 10
    build = tmp_path / "build"
    app = Ragox(build)
    questions = _corpus(app, 12)
    _ingest(app, "board-minutes", _hidden_text(questions[:4]), {"board"})
    _ingest(app, "manual", "The valve and its seal.", {"staff"}, tenant="acme")
    principals = (STAFF, MANY, OPERATOR, ACME)
    expected = {(p.name, q): _view(app, q, p) for p in principals for q in questions[:6]}
    terms = ["orphan", "valv", *analyze_query(questions[0], ["en"])]
    expected_statistics = {
        p.name: app.store.index.term_statistics(scope_of(p), terms) for p in principals
    }
    app.close()

    home = tmp_path / "old"
    home.mkdir()
    _copy_as_schema7(build, home / "ragox.db", orphan=True)
    (build / "blobs").rename(home / "blobs")
    (build / "keys").rename(home / "keys")
    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        conn = upgraded.store._connection()
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "lexical_tables" not in names
        assert not any(n.startswith("lexical_") and len(n) == 32 for n in names)
        assert (
            conn.execute("SELECT COUNT(*) FROM lexical_rows WHERE rowid=999999").fetchone()[0] == 0
        )
        groups = {str(g) for (g,) in conn.execute("SELECT groups FROM lexical_partitions")}
        assert groups == {'["staff"]', '["eng"]', '["ops"]', '["eng", "staff"]', '["board"]'}
        for (p, q), hits in expected.items():
            principal = next(x for x in principals if x.name == p)
            assert _view(upgraded, q, principal) == hits, (p, q)
        for principal in principals:
            statistics_now = upgraded.store.index.term_statistics(scope_of(principal), terms)
            assert statistics_now == expected_statistics[principal.name], principal.name
    finally:
        upgraded.close()


# -- access matrix: search statistics ------------------------------------------------------

TENANTS = ("default", "acme")
COLOURS = ("red", "green", "blue")


def _reader(tenant: str, group: str) -> Principal:
    return Principal(f"{tenant}-{group}", tenant=tenant, groups=frozenset({group}))


def _matrix_home(app: Ragox) -> list[str]:
    """Each of 2 tenants x 3 groups holds two XQuAD paragraphs; the questions to ask."""
    paragraphs, questions = _xquad(12)
    cell = 0
    for tenant in TENANTS:
        for group in COLOURS:
            for k in (0, 1):
                _ingest(app, f"{group}-{k}", paragraphs[2 * cell + k], {group}, tenant)
            cell += 1
    return questions[:12:3]


def _observed(app: Ragox, principal: Principal, questions: list[str]) -> tuple[object, ...]:
    """Everything search statistics can show a reader: hits with scores, answer term
    weights, an extractive answer, and the statements the searches ran."""
    terms = sorted({t for q in questions for t in analyze_query(q, ["en"])})
    for question in questions:  # warm the caches keyed by the index generation
        app.search(question, principal, SearchMode.LEXICAL)
    with _traced(app) as (statements, steps):
        hits = [_view(app, question, principal) for question in questions]
    # The steps of the fewer of two identical passes: a one-off cost of the moment (seen
    # once in CI, 1.1% on one pass) is not a property of the data; a cost that depends
    # on the hidden document is in both passes.
    with _traced(app) as (again, steps_again):
        assert [_view(app, question, principal) for question in questions] == hits
    assert again == statements
    answer = app.ask(questions[0], principal)
    return (
        hits,
        app.term_weights(principal)(terms),
        answer.answer,
        [c.anchor.to_json() for c in answer.citations],
        list(statements),
        min(steps[0], steps_again[0]),
    )


@pytest.mark.sqlite_only  # reads SQLite's own tables or VM steps
def test_search_statistics_matrix_forbidden_equals_missing(app: Ragox) -> None:
    """2 tenants x 3 groups: a document a reader may not read (another group of its
    tenant, or another tenant) leaves its hits, scores, answer weights, answer and the
    statements run exactly as when the document is missing, and their SQLite VM steps
    within 1%; its own group's reader sees it."""
    questions = _matrix_home(app)
    cells = [(tenant, group) for tenant in TENANTS for group in COLOURS]
    for tenant, group in cells:
        before = {cell: _observed(app, _reader(*cell), questions) for cell in cells}
        _ingest(app, f"secret-{group}", _hidden_text(questions), {group}, tenant)
        for cell in cells:
            now = _observed(app, _reader(*cell), questions)
            if cell == (tenant, group):
                assert now[0] != before[cell][0]  # the owner finds it: it matches
            else:
                assert now[:-1] == before[cell][:-1], (tenant, group, cell)
                # The same statements; their VM steps differ by a B-tree's shape at most.
                steps = before[cell][-1]
                assert isinstance(steps, int) and isinstance(now[-1], int)
                assert abs(now[-1] - steps) <= max(10, steps // 100), (tenant, group, cell)


@pytest.mark.sqlite_only  # reads SQLite's VM steps
def test_a_hidden_manifest_sorting_after_the_readers_costs_no_step(app: Ragox) -> None:
    """Manifest ids are random: a hidden document's (another tenant, another group)
    sorts after a reader's own with even chance. The reader's search runs the same
    statements with exactly the same SQLite VM steps whether or not the last entry of
    an index by manifest (revisions, blocks) is the reader's: its lookups never step
    onto a neighbour's entry (they did: +1 step per hit and lookup, and the matrix
    test above failed 2 of 60 runs)."""
    # A note whose manifest id sorts in the lower half (ingested again after a deletion
    # until it does: a new creation time is a new id), so that each hidden manifest
    # sorts after it with chance 1/2 at least (an id near the top left the loop below
    # without the case it is for, one run in about forty).
    for _ in range(64):
        _ingest(app, "note", "The valve on the north pump leaks at night.", {"staff"})
        note = app.store.get_revision("default", "note", "r1")
        assert note is not None and note.manifest_id is not None
        if note.manifest_id < "8":
            break
        assert app.delete("note")
    assert note.manifest_id < "8"
    hidden_text = "The valve of the board leaks. " * 20

    def observed() -> tuple[list[str], int]:
        app.search("valve leaks", STAFF, SearchMode.LEXICAL)  # caches of this generation
        with _traced(app) as (statements, steps):
            hits = app.search("valve leaks", STAFF, SearchMode.LEXICAL)
            assert [h.document_id for h in hits] == ["note"]
        return list(statements), steps[0]

    before = observed()
    after_it = 0
    for k in range(40):  # each hidden manifest sorts after the note's with chance 1/2
        tenant, groups = (("acme", {"staff"}), ("default", {"board"}))[k % 2]
        _ingest(app, f"hidden-{k}", hidden_text, groups, tenant)
        record = app.store.get_revision(tenant, f"hidden-{k}", "r1")
        assert record is not None and record.manifest_id is not None
        after_it += record.manifest_id > note.manifest_id
        assert observed() == before, k
        if after_it >= 2:
            break
    assert after_it >= 2  # the case that cost a step did happen


def test_search_statistics_over_http_forbidden_equals_missing(app: Ragox, home: Path) -> None:
    """Over the real API, every reader key of the matrix gets the same status and body
    from search and ask whether a vault document holding the query words exists in its
    tenant (in a group no key has) or not."""
    questions = _matrix_home(app)
    keys = {cell: app.create_key(_reader(*cell)) for cell in product(TENANTS, COLOURS)}
    app.close()

    def responses(url: str) -> list[tuple[int, object]]:
        seen: list[tuple[int, object]] = []
        for key in keys.values():
            auth = {"Authorization": f"Bearer {key}"}
            for question in questions[:2]:
                reply = httpx.get(
                    f"{url}/v1/search", params={"q": question, "mode": "lexical"}, headers=auth
                )
                seen.append((reply.status_code, reply.json()))
            asked = httpx.post(
                f"{url}/v1/ask",
                json={"question": questions[0], "generator": "extractive"},
                headers=auth,
                timeout=30,
            )
            body = asked.json()
            body.pop("answer_id", None)
            seen.append((asked.status_code, body))
        return seen

    with serving(home) as url:
        missing = responses(url)
        writer = Ragox(home)
        for tenant in TENANTS:
            _ingest(writer, "vault", _hidden_text(questions), {"vault"}, tenant)
        writer.close()
        exists = responses(url)
    assert all(status == 200 for status, _ in missing)
    assert exists == missing
