"""The PostgreSQL store itself: schema versions, shared originals, the ``--store``
setting, and BM25 equal to the SQLite store's on the same corpus."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from conftest import PostgresServer, run_ragox
from ragox.access import Principal
from ragox.search import SearchMode, scope_of
from ragox.service import Ragox
from ragox.store import StoreError
from ragox.store.postgres import SCHEMA_VERSION, PostgresStore

OPERATOR = Principal.local_operator()
STAFF = Principal("sam", groups=frozenset({"staff"}))
MANY = Principal("mo", groups=frozenset({"staff", "eng"}))

PARAGRAPHS = [
    ("pump", "The pump impeller is inspected every month; the impeller wears fast.", {"staff"}),
    ("seal", "Check the seal of the pump weekly. A worn seal leaks oil.", {"eng"}),
    ("valve", "The valve opens at three bar; the valve seal is replaced yearly.", {"staff", "eng"}),
    ("board", "Board minutes: the pump budget and the valve budget were approved.", {"board"}),
]


@pytest.fixture
def url(postgres_server: PostgresServer) -> str:
    fresh = postgres_server.fresh()
    yield fresh  # type: ignore[misc]
    postgres_server.drop(fresh)


def _fill(app: Ragox) -> None:
    for doc, text, groups in PARAGRAPHS:
        outcome = app.ingestor.ingest_bytes(
            text.encode(),
            f"{doc}.txt",
            doc,
            groups=frozenset(groups),
            tenant="default",
            language="en",
        )
        assert outcome.state.value == "READY"


def test_schema_is_versioned_and_a_newer_one_refused(url: str, tmp_path: Path) -> None:
    """A new database is migrated to this version; one a newer ragox wrote is refused."""
    store = PostgresStore(url, tmp_path / "home")
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE ragox_schema SET value='999' WHERE key='schema_version'")
    with pytest.raises(StoreError, match="newer"):
        PostgresStore(url, tmp_path / "home")


def test_a_version_4_database_gains_the_jobs_ocr_mode(url: str, tmp_path: Path) -> None:
    """Migration 5 (SQLite's 26): a database from before it, with a queued job, gets the
    job's OCR mode column, NULL for the waiting job (read as ``auto``)."""
    note = tmp_path / "note.txt"
    note.write_text("A queued note about the pump.\n")
    app = Ragox(tmp_path / "home", store=url)
    try:
        assert app.ingest_path(note, tmp_path, queue=True).queued
    finally:
        app.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER TABLE jobs DROP COLUMN ocr")
        conn.execute("UPDATE ragox_schema SET value='4' WHERE key='schema_version'")
    store = PostgresStore(url, tmp_path / "home")
    try:
        assert store.schema_version() == SCHEMA_VERSION
        with store.read() as conn:
            rows = conn.execute("SELECT state, ocr FROM jobs").fetchall()
    finally:
        store.close()
    assert len(rows) == 1 and rows[0][1] is None


def test_a_version_5_database_gains_partition_generations(url: str, tmp_path: Path) -> None:
    """Migration 7 (SQLite's 27): a database from before it (no partition generations)
    opens at the latest version; every partition is at generation 0, readers find what
    they found, a write gives the partitions it touches a new generation and leaves
    the others' as they were."""
    app = Ragox(tmp_path / "home", store=url)
    try:
        _fill(app)
        expected = [hit.chunk_id for hit in app.search("pump seal valve", MANY)]
    finally:
        app.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE lexical_generations")
        conn.execute("UPDATE ragox_schema SET value='5' WHERE key='schema_version'")
    upgraded = Ragox(tmp_path / "home", store=url)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION >= 7
        staff, board = scope_of(STAFF), scope_of(Principal("bo", groups=frozenset({"board"})))
        before = upgraded.store.index.scope_generation(staff)
        assert before and {generation for _, generation in before} == {0}
        assert [hit.chunk_id for hit in upgraded.search("pump seal valve", MANY)] == expected
        outcome = upgraded.ingestor.ingest_bytes(
            b"The pump motor hums.", "motor.txt", "motor", groups=frozenset({"staff"}),
            tenant="default", language="en",
        )  # fmt: skip
        assert outcome.state.value == "READY"
        after = dict(upgraded.store.index.scope_generation(staff))
        assert after != dict(before) and max(after.values()) > 0
        assert {generation for _, generation in upgraded.store.index.scope_generation(board)} == {0}
    finally:
        upgraded.close()


def test_originals_are_in_the_database_for_every_process(url: str, tmp_path: Path) -> None:
    """An ingested original is read back by a store with another home (another machine),
    and no blob folder is written."""
    first = Ragox(tmp_path / "a", store=url)
    try:
        _fill(first)
        record = first.store.get_revision("default", "pump", "r1")
        assert record is not None
    finally:
        first.close()
    assert not (tmp_path / "a" / "blobs").exists()
    second = Ragox(tmp_path / "b", store=url)
    try:
        assert second.store.blobs.get(record.source_sha256) == PARAGRAPHS[0][1].encode()
        assert second.store.blobs.digest(record.source_sha256) == record.source_sha256
        assert (
            second.store.blobs.path(record.source_sha256).read_bytes() == PARAGRAPHS[0][1].encode()
        )
        assert [hit.document_id for hit in second.search("impeller", STAFF)] == ["pump"]
    finally:
        second.close()


def test_store_option_selects_the_database(url: str, tmp_path: Path) -> None:
    """``--store URL`` puts a home's data in PostgreSQL; the same home without it is
    the SQLite one, and sees nothing of it."""
    source = tmp_path / "note.txt"
    source.write_text("The boiler pressure stays below three bar.\n", encoding="utf-8")
    home = tmp_path / "home"
    assert run_ragox(home, "--store", url, "ingest", str(source)).code == 0
    found = run_ragox(home, "--store", url, "search", "boiler", "--json")
    assert found.code == 0 and json.loads(found.stdout)["hits"]
    # without it, the home holds no SQLite store: a search says so and creates none
    alone = run_ragox(home, "search", "boiler", "--json")
    assert alone.code == 1 and "no ragox home" in alone.stderr and "boiler" not in alone.stdout
    assert not (home / "ragox.db").exists()


def test_bm25_equals_the_sqlite_store_on_the_same_corpus(url: str, tmp_path: Path) -> None:
    """The same documents in both backends: the same hits, in the same order, with the
    same BM25 scores and term statistics, for one- and several-partition scopes."""
    sqlite_app = Ragox(tmp_path / "sqlite", store="")
    postgres_app = Ragox(tmp_path / "postgres", store=url)
    try:
        _fill(sqlite_app)
        _fill(postgres_app)
        for principal in (STAFF, MANY, OPERATOR):
            for query in ("pump seal", "valve budget", "impeller wears", "oil leaks weekly"):
                ours = postgres_app.search(query, principal, SearchMode.LEXICAL)
                theirs = sqlite_app.search(query, principal, SearchMode.LEXICAL)
                assert [h.document_id for h in ours] == [h.document_id for h in theirs]
                assert [h.score for h in ours] == pytest.approx([h.score for h in theirs])
            terms = ["pump", "seal", "budget"]
            scope = scope_of(principal)
            assert postgres_app.store.index.term_statistics(
                scope, terms
            ) == sqlite_app.store.index.term_statistics(scope, terms)
    finally:
        sqlite_app.close()
        postgres_app.close()


def _anchor_statuses(app: Ragox) -> dict[str, str]:
    statuses: dict[str, str] = {}
    for manifest_id in app.store.manifest_ids():
        for stored in app.store.anchors_on("default", manifest_id):
            anchor_id = stored.anchor.anchor_id
            statuses[anchor_id] = app.resolve_id(anchor_id, OPERATOR).status.value
    return statuses


def _indexed(app: Ragox) -> dict[str, object]:
    """Per representation: its search text, chunks, blocks and extraction notes."""
    seen: dict[str, object] = {}
    for manifest_id in app.store.manifest_ids():
        found = app.store.search_text(manifest_id)
        seen[manifest_id] = (
            None if found is None else (found[0], found[1].to_bytes()),
            app.store.chunks(manifest_id),
            app.store.blocks(manifest_id),
            app.store.notes(manifest_id),
            app.store.index_versions(manifest_id),
        )
    return seen


def test_migrate_store_keeps_every_anchor_resolving(url: str, tmp_path: Path) -> None:
    """A populated embedded home (text, HTML and PDF, an old revision, an edited
    representation, an answer) copied into PostgreSQL: every anchor resolves with the
    same status, search finds the same, the answer and the originals are there."""
    examples = Path(__file__).parent.parent / "examples"
    home = tmp_path / "home"
    app = Ragox(home, store="")
    try:
        for path in (
            examples / "manual-17.txt",
            examples / "pump-manual.html",
            Path(__file__).parent / "data" / "pdf" / "multicolumn.pdf",
        ):
            assert app.ingest_path(path, path.parent).outcome is not None
        for document in app.store.list_documents("default"):
            for start in (0, 10, 40):
                app.create_anchor(document.document_id, start, start + 12, OPERATOR)
        old = tmp_path / "manual-17.txt"
        old.write_text("A second revision of the manual.\n", encoding="utf-8")
        app.ingest_path(old, old.parent, document_id="manual-17")
        answer = app.ask("How often is the impeller inspected?", OPERATOR)
        before = _anchor_statuses(app)
        hits = [h.chunk_id for h in app.search("impeller seal", OPERATOR, SearchMode.LEXICAL)]
        indexed = _indexed(app)
    finally:
        app.close()
    assert len(before) >= 9 and set(before.values()) >= {"RESOLVED"}
    copied = run_ragox(home, "migrate-store", str(home), url, "--json")
    assert copied.code == 0, copied.stderr
    assert json.loads(copied.stdout)["rows"]["anchors"] == len(before)
    again = run_ragox(home, "migrate-store", str(home), url)
    assert again.code == 1 and "not empty" in again.stderr
    moved = Ragox(home, store=url)
    try:
        assert type(moved.store).__name__ == "PostgresStore"
        assert _anchor_statuses(moved) == before
        after = [h.chunk_id for h in moved.search("impeller seal", OPERATOR, SearchMode.LEXICAL)]
        assert after == hits
        assert _indexed(moved) == indexed
        assert moved.store.get_answer(answer.answer_id) is not None
        for sha256 in moved.store.source_hashes():
            assert moved.store.blobs.digest(sha256) == sha256
    finally:
        moved.close()
