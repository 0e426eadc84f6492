"""What a query reads per document without reading the document (issue 15; SQLite
schema 28, PostgreSQL schema 6): each representation's chunk count kept as chunks are
written and deleted, a reader's revisions found from its groups, and (SQLite) the
small columns of representations and search texts read from covering indexes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from conftest import PostgresServer, copy_lexical_partitions, older_database, status_listing
from ragox.access import Principal
from ragox.search import scope_of
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION
from ragox.store.postgres import SCHEMA_VERSION as PG_SCHEMA_VERSION
from ragox.store.postgres import PostgresStore
from ragox.store.postgres._index import _PERMITTED_MANIFESTS as PG_PERMITTED

OPERATOR = Principal.local_operator()
STAFF = Principal("sam", groups=frozenset({"staff"}))
ENG = Principal("eve", groups=frozenset({"eng"}))
READERS = (OPERATOR, STAFF, ENG, Principal("nobody", groups=frozenset({"ops"})))


def _ingest(app: Ragox, doc: str, paragraphs: int, groups: set[str], language: str) -> None:
    text = "\n\n".join(
        f"Paragraph {n} of {doc}: the pump {n} is checked, the valve {n} is replaced."
        for n in range(paragraphs)
    )
    outcome = app.ingestor.ingest_bytes(
        text.encode(),
        f"{doc}.txt",
        doc,
        groups=frozenset(groups),
        tenant="default",
        language=language,
    )
    assert outcome.state.value == "READY"


def _fill(app: Ragox) -> None:
    _ingest(app, "staff-a", 40, {"staff"}, "en")
    _ingest(app, "eng-a", 25, {"eng"}, "de")
    _ingest(app, "shared", 3, {"staff", "eng"}, "ru")


def _rows(app: Ragox, sql: str) -> list[tuple[Any, ...]]:
    store: Any = app.store
    if hasattr(store, "_fetchall"):  # PostgreSQL
        return [tuple(row) for row in store._fetchall(sql)]
    return [tuple(row) for row in store._connection().execute(sql).fetchall()]


def _counts_are_exact(app: Ragox) -> dict[str, int]:
    kept = dict(_rows(app, "SELECT manifest_id, chunks FROM chunk_counts"))
    counted = dict(_rows(app, "SELECT manifest_id, COUNT(*) FROM chunks GROUP BY manifest_id"))
    assert {k: int(v) for k, v in kept.items()} == {k: int(v) for k, v in counted.items()}
    return counted


def _status(app: Ragox, principal: Principal) -> list[dict[str, Any]]:
    return status_listing(app, principal)


@pytest.mark.both_backends
def test_chunk_counts_follow_every_write(app: Ragox) -> None:
    """After ingestion, a new revision, a group change, a deletion and a document made
    again, every representation's kept count equals its chunks counted, and status
    shows those counts."""
    _fill(app)
    counted = _counts_are_exact(app)
    assert sorted(counted.values())[0] >= 1 and len(set(counted.values())) == 3
    _ingest(app, "staff-a", 7, {"staff"}, "en")  # a second revision, fewer chunks
    _counts_are_exact(app)
    app.set_groups("shared", frozenset({"staff"}))
    _counts_are_exact(app)
    assert app.delete("eng-a")
    after = _counts_are_exact(app)
    assert len(after) == len(counted)  # eng-a's went; staff-a's second came
    _ingest(app, "eng-a", 25, {"eng"}, "de")
    _counts_are_exact(app)
    for status in app.documents(OPERATOR):
        for row in status.revisions:
            manifest_id = row.revision.manifest_id
            assert manifest_id is not None
            assert row.chunks == app.store.chunk_count(manifest_id) > 0


@pytest.mark.both_backends
def test_languages_follow_the_readers_groups(app: Ragox) -> None:
    """The languages a scope searches in are those of the current revisions it may read
    (found from its groups), all of the tenant's for the operator, none for a reader
    without a document."""
    _fill(app)
    index = app.store.index
    assert index.languages(scope_of(OPERATOR)) == {"en", "de", "ru"}
    assert index.languages(scope_of(STAFF)) == {"en", "ru"}
    assert index.languages(scope_of(ENG)) == {"de", "ru"}
    assert index.languages(scope_of(READERS[3])) == set()
    app.set_groups("shared", frozenset({"staff"}))
    assert index.languages(scope_of(ENG)) == {"de"}


def _plan(conn: sqlite3.Connection, sql: str) -> str:
    """The query plan of a traced statement (its parameters are in its text)."""
    return "\n".join(str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))


def test_sqlite_plans_read_the_indexes_of_schema_28(app: Ragox) -> None:
    """SQLite: the statements a reader's languages and status run start a reader's
    permitted manifests from its groups' rows in revision_groups_by_group, read
    representations and search texts from their covering indexes (never the rows
    behind their texts), and count no chunks."""
    _fill(app)
    conn = app.store._connection()  # type: ignore[attr-defined]
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        app.store.index.languages(scope_of(STAFF))
        app.documents(STAFF)
    finally:
        conn.set_trace_callback(None)
    [languages] = [s for s in seen if "DISTINCT rep.language" in s]
    [status] = [s for s in seen if "JOIN representations rep" in s]
    plan = _plan(conn, languages)
    assert "SEARCH g USING COVERING INDEX revision_groups_by_group (tenant=? AND group_name=?)" in (
        plan
    )
    assert "COVERING INDEX representations_facts" in plan
    plan = _plan(conn, status)
    assert "COVERING INDEX representations_facts" in plan
    assert "COVERING INDEX search_texts_versions" in plan
    assert "chunks" not in plan.replace("chunk_counts", "")


def test_schema_27_home_gets_counts_and_indexes(tmp_path: Path) -> None:
    """A home of schema 27 opens as the current schema with every representation's
    chunk count, the same status and languages for every reader, and counts that
    follow the next writes."""
    assert SCHEMA_VERSION >= 28
    build = tmp_path / "build"
    app = Ragox(build)
    _fill(app)
    _ingest(app, "staff-a", 7, {"staff"}, "en")
    expected = {p.name: (_status(app, p), app.store.index.languages(scope_of(p))) for p in READERS}
    app.close()
    home = tmp_path / "old"
    home.mkdir()
    with older_database(build / "ragox.db", home / "ragox.db", 27) as old:
        copy_lexical_partitions(old)
    with sqlite3.connect(home / "ragox.db") as conn:
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "chunk_counts" not in names and "revision_groups_by_group" not in names
    for name in ("blobs", "keys"):
        shutil.copytree(build / name, home / name)
    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        assert len(_counts_are_exact(upgraded)) == 4
        for principal in READERS:
            seen = (
                _status(upgraded, principal),
                upgraded.store.index.languages(scope_of(principal)),
            )
            assert seen == expected[principal.name], principal.name
        _ingest(upgraded, "later", 5, {"eng"}, "en")
        assert upgraded.delete("shared")
        assert len(_counts_are_exact(upgraded)) == 4
    finally:
        upgraded.close()


def test_postgres_version_5_database_gets_counts_and_the_group_index(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """PostgreSQL: a database of schema 5 opens as the current schema with every
    representation's chunk count and the group index, which a reader's permitted
    manifests are read through; the counts then follow writes."""
    assert PG_SCHEMA_VERSION >= 6
    url = postgres_server.fresh()
    try:
        app = Ragox(tmp_path / "home", store=url)
        try:
            _fill(app)
            expected = _status(app, OPERATOR)
        finally:
            app.close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP TABLE chunk_counts")
            conn.execute("DROP TRIGGER chunk_counts_insert ON chunks")
            conn.execute("DROP TRIGGER chunk_counts_delete ON chunks")
            conn.execute("DROP FUNCTION chunk_counts_add, chunk_counts_remove")
            conn.execute("DROP INDEX revision_groups_by_group")
            conn.execute("UPDATE ragox_schema SET value='5' WHERE key='schema_version'")
        PostgresStore(url, tmp_path / "home").close()
        app = Ragox(tmp_path / "home", store=url)
        try:
            assert app.store.schema_version() == PG_SCHEMA_VERSION
            assert len(_counts_are_exact(app)) == 3
            assert _status(app, OPERATOR) == expected
            _ingest(app, "staff-a", 7, {"staff"}, "en")
            assert app.delete("eng-a")
            assert len(_counts_are_exact(app)) == 3  # staff-a: both revisions
            with psycopg.connect(url) as conn:
                # a handful of rows: make the planner show what it can use
                conn.execute("SET enable_seqscan = off")
                sql = (
                    "EXPLAIN SELECT DISTINCT rep.language FROM representations rep "
                    "WHERE rep.manifest_id IN (" + PG_PERMITTED + ")"
                )
                params = {"tenant": "default", "operator": False, "groups": ["staff"]}
                plan = "\n".join(str(row[0]) for row in conn.execute(sql, params))
            assert "revision_groups_by_group" in plan
        finally:
            app.close()
    finally:
        postgres_server.drop(url)
