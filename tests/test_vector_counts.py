"""Chunks without vectors as status counts them, kept at write time (issue 15; SQLite
schema 31, PostgreSQL schema 8): each representation's count of chunks with a vector
per embedder (``vector_counts``) equals the one counted from chunks and vectors after
every write path (ingest with and without the embedder, reindex, vectors written for
some chunks, reprocess, a chunk written again with the vector it had, a group change,
a representation dropped, a delete, another embedder), and status shows exactly the
chunks that lack the embedder's vector; an older home gets the counts at upgrade."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
import pytest

from conftest import PostgresServer, drop_to_schema, status_listing
from ragox.access import Principal
from ragox.search import EmbedderError, EmbedderIdentity, reindex
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION
from ragox.store._open import migrate_store
from ragox.store.postgres import SCHEMA_VERSION as PG_SCHEMA_VERSION
from ragox.store.postgres import PostgresStore

OPERATOR = Principal.local_operator()
TENANT = "default"


class _HashEmbedder:
    """Vectors from a hash of each text: an embedder without a model (unreachable
    while ``down``)."""

    def __init__(self, name: str) -> None:
        self.identity = EmbedderIdentity(name, "sha256", "1", 8, "", "")
        self.down = False

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        if self.down:
            raise EmbedderError("UNREACHABLE", "down for the test")
        rows = [
            np.frombuffer(hashlib.sha256(f"{self.identity.name}:{t}".encode()).digest()[:8], "u1")
            for t in texts
        ]
        found = np.array(rows, dtype=np.float32).reshape(len(texts), 8) + 1.0
        return found / np.linalg.norm(found, axis=1, keepdims=True)


def _ingest(app: Ragox, doc: str, paragraphs: int, groups: set[str] | None = None) -> None:
    text = "\n\n".join(
        f"Paragraph {n} of {doc}: the pump {n} is checked, the valve {n} is replaced "
        "and the seal of the housing is cleaned before the pump runs again."
        for n in range(paragraphs)
    )
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset(groups or {"staff"}), tenant=TENANT
    )
    assert outcome.state.value == "READY"


def _postgres(app: Ragox) -> bool:
    return hasattr(app.store, "_fetchall")


def _rows(app: Ragox, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
    store: Any = app.store
    if _postgres(app):
        return [tuple(row) for row in store._fetchall(sql.replace("?", "%s"), tuple(params))]
    return [tuple(row) for row in store._connection().execute(sql, tuple(params)).fetchall()]


def _execute(app: Ragox, sql: str, params: Sequence[object] = ()) -> None:
    store: Any = app.store
    with store.transaction() as conn:
        conn.execute(sql.replace("?", "%s") if _postgres(app) else sql, tuple(params))


def _counts_are_exact(app: Ragox, keys: Sequence[str]) -> dict[tuple[str, str], int]:
    """The kept counts equal those counted from chunks and vectors, and status (both
    of its reads) shows each revision's chunks without each embedder's vector as
    counted one by one; returns the counts."""
    kept = {(str(m), str(k)): int(n) for m, k, n in _rows(app, "SELECT * FROM vector_counts")}
    counted = {
        (str(m), str(k)): int(n)
        for m, k, n in _rows(
            app,
            "SELECT c.manifest_id, e.embedder_key, COUNT(*) FROM chunks c "
            "JOIN embeddings e ON e.chunk_id = c.chunk_id GROUP BY c.manifest_id, e.embedder_key",
        )
    }
    assert kept == counted
    for key in keys:
        listed = {}
        for document, revisions in app.store.status_reads(TENANT, None, key):
            for reads in revisions:
                manifest_id = reads.record.manifest_id
                expected = (
                    0 if manifest_id is None else app.store.index.missing_vectors(manifest_id, key)
                )
                assert reads.vectors_missing == expected, (document.document_id, key)
                listed[document.document_id, reads.record.revision] = expected
        facts, _ = app.store.status_facts(TENANT, key)
        assert {(f.document_id, f.revision): f.vectors_missing for f in facts} == listed
    return counted


def _missing(app: Ragox) -> int:
    """Chunks without the index's vector, as the summary of status counts them."""
    return app.status_summary(OPERATOR).vectors_missing or 0


def _every_write(app: Ragox, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write path, the counts checked after each one."""
    a, b = _HashEmbedder("hash-a"), _HashEmbedder("hash-b")
    keys = (a.identity.key, b.identity.key)
    _ingest(app, "d0", 12)
    _ingest(app, "d1", 4, {"eng"})
    assert _counts_are_exact(app, keys) == {}  # no vectors yet
    reindex(app.store, a, "hash-a")  # type: ignore[arg-type]
    counted = _counts_are_exact(app, keys)
    assert len(counted) == 2 and _missing(app) == 0
    # ingestion that embeds its own chunks (a process holding the index's embedder),
    # once while the embedder is down
    app._embedder, app._embedder_spec = a, "hash-a"  # type: ignore[assignment]
    a.down = True
    _ingest(app, "d2", 6)
    a.down = False
    _counts_are_exact(app, keys)
    assert _missing(app) > 0
    _ingest(app, "d3", 5)
    _ingest(app, "d0", 9)  # a second revision: the first keeps its vectors
    _counts_are_exact(app, keys)
    # vectors written for some chunks only (an interrupted reindex)
    [(manifest_id,)] = _rows(app, "SELECT manifest_id FROM revisions WHERE document_id = 'd2'")
    chunks = [
        str(r[0])
        for r in _rows(app, "SELECT chunk_id FROM chunks WHERE manifest_id = ?", (manifest_id,))
    ]
    texts = ["x"] * 2
    blobs = [row.astype("<f4").tobytes() for row in a.embed(texts, "passage")]
    app.store.index.write_vectors(a.identity.key, list(zip(chunks[:2], blobs, strict=True)))
    app.store.index.write_vectors(a.identity.key, list(zip(chunks[:1], blobs[:1], strict=True)))
    assert _missing(app) == len(chunks) - 2
    _counts_are_exact(app, keys)
    reindex(app.store, a, "hash-a")  # type: ignore[arg-type]
    assert _missing(app) == 0
    _counts_are_exact(app, keys)
    # a chunk written again with the id it had (reprocess of unchanged spans) finds
    # its vector; a vector without its chunk counts nowhere
    columns = (
        'chunk_id, manifest_id, ordinal, start, "end", search_start, search_end, tokens, blocks'
    )
    [row] = _rows(app, f"SELECT {columns} FROM chunks WHERE chunk_id = ?", (chunks[0],))
    _execute(app, "DELETE FROM chunks WHERE chunk_id = ?", (chunks[0],))
    assert _counts_are_exact(app, keys)[manifest_id, a.identity.key] == len(chunks) - 1
    marks = ", ".join("?" * len(row))
    _execute(app, f"INSERT INTO chunks({columns}) VALUES({marks})", row)
    assert _counts_are_exact(app, keys)[manifest_id, a.identity.key] == len(chunks)
    # ids changed in place (nothing writes so today): counted where they now belong
    for sql, params, expected in (
        ("UPDATE chunks SET chunk_id = 'moved' WHERE chunk_id = ?", (chunks[0],), -1),
        ("UPDATE chunks SET chunk_id = ? WHERE chunk_id = 'moved'", (chunks[0],), 0),
        ("UPDATE embeddings SET embedder_key = 'other' WHERE chunk_id = ?", (chunks[1],), -1),
        (
            "UPDATE embeddings SET embedder_key = ? WHERE chunk_id = ?",
            (a.identity.key, chunks[1]),
            0,
        ),
        ("UPDATE embeddings SET chunk_id = 'gone' WHERE chunk_id = ?", (chunks[1],), -1),
        ("UPDATE embeddings SET chunk_id = ? WHERE chunk_id = 'gone'", (chunks[1],), 0),
    ):
        _execute(app, sql, params)
        counted = _counts_are_exact(app, keys)
        assert counted[manifest_id, a.identity.key] == len(chunks) + expected, sql
    # reprocess (a new chunker version: chunks and search texts written again)
    monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@vector-counts-test")
    assert app.reprocess(["d0", "d1"]).rebuilds
    _counts_are_exact(app, keys)
    app.set_groups("d1", frozenset({"staff", "eng"}))  # regrouping
    _counts_are_exact(app, keys)
    # a representation no longer retained: its chunks go by cascade, its vectors stay
    [(old,)] = _rows(
        app, "SELECT manifest_id FROM revisions WHERE document_id = 'd0' ORDER BY seq LIMIT 1"
    )
    app.store.drop_representation(str(old))
    assert not [k for k in _counts_are_exact(app, keys) if k[0] == old]
    assert app.delete("d3")
    _counts_are_exact(app, keys)
    # another embedder: every chunk lacks its vector until its reindex, which drops
    # the first one's
    assert _counts_are_exact(app, (b.identity.key,))
    missing_b = sum(
        reads.vectors_missing or 0
        for _, revisions in app.store.status_reads(TENANT, None, b.identity.key)
        for reads in revisions
    )
    assert missing_b == sum(
        reads.chunks for _, revisions in app.store.status_reads(TENANT) for reads in revisions
    )
    reindex(app.store, b, "hash-b")  # type: ignore[arg-type]
    counted = _counts_are_exact(app, keys)
    assert counted and {key for _, key in counted} == {b.identity.key}
    assert _missing(app) == 0
    assert app.delete("d0") and app.delete("d1") and app.delete("d2")
    assert _counts_are_exact(app, keys) == {}


@pytest.mark.both_backends
def test_vector_counts_follow_every_write(app: Ragox, monkeypatch: pytest.MonkeyPatch) -> None:
    """After every write path the kept counts of chunks with vectors equal those
    counted, and status shows each revision's chunks without vectors as counted."""
    _every_write(app, monkeypatch)


def _status(app: Ragox) -> list[dict[str, Any]]:
    return status_listing(app, OPERATOR)


def _vectors(app: Ragox) -> tuple[int | None, int | None]:
    summary = app.status_summary(OPERATOR)
    return summary.vectors_missing, summary.revisions_missing_vectors


def _half_vectors(app: Ragox) -> None:
    """Documents with vectors, one revision without (an embedder outage)."""
    a = _HashEmbedder("hash-a")
    _ingest(app, "d0", 12)
    _ingest(app, "d1", 4, {"eng"})
    reindex(app.store, a, "hash-a")  # type: ignore[arg-type]
    app._embedder, app._embedder_spec = a, "hash-a"  # type: ignore[assignment]
    a.down = True
    _ingest(app, "d2", 6)
    a.down = False
    _ingest(app, "d0", 3)


def test_schema_30_home_gets_vector_counts(tmp_path: Path) -> None:
    """A home of schema 30 opens as the current schema with every representation's
    count of chunks with vectors, the same status as counted before, counts that
    follow the next writes, and the same counts when migration 31 runs again."""
    assert SCHEMA_VERSION >= 31
    build = tmp_path / "build"
    app = Ragox(build)
    _half_vectors(app)
    expected = (_status(app), _vectors(app))
    assert expected[1][0]
    app.close()
    home = tmp_path / "old"
    shutil.copytree(build, home)
    drop_to_schema(home / "ragox.db", "vector_counts", 30)  # what schema 30 wrote: no counts
    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        assert len(_counts_are_exact(upgraded, [_HashEmbedder("hash-a").identity.key])) == 3
        assert (_status(upgraded), _vectors(upgraded)) == expected
        upgraded._embedder, upgraded._embedder_spec = _HashEmbedder("hash-a"), "hash-a"  # type: ignore[assignment]
        _ingest(upgraded, "d3", 5)
        assert upgraded.delete("d1")
        _counts_are_exact(upgraded, [_HashEmbedder("hash-a").identity.key])
    finally:
        upgraded.close()
    with sqlite3.connect(home / "ragox.db") as conn:
        kept = conn.execute("SELECT * FROM vector_counts ORDER BY 1, 2").fetchall()
        conn.execute("DELETE FROM vector_counts")
        conn.execute("UPDATE meta SET value = '30' WHERE key = 'schema_version'")
    Ragox(home).close()  # migration 31 again: every row counted anew, the same
    with sqlite3.connect(home / "ragox.db") as conn:
        assert conn.execute("SELECT * FROM vector_counts ORDER BY 1, 2").fetchall() == kept


def test_postgres_version_7_database_gets_vector_counts(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """PostgreSQL: a database of schema 7 opens as the current schema with every
    representation's count of chunks with vectors and the same status as counted
    before; the counts then follow writes."""
    assert PG_SCHEMA_VERSION >= 8
    url = postgres_server.fresh()
    try:
        app = Ragox(tmp_path / "home", store=url)
        try:
            _half_vectors(app)
            expected = (_status(app), _vectors(app))
            assert expected[1][0]
        finally:
            app.close()
        with psycopg.connect(url, autocommit=True) as conn:
            for table in ("embeddings", "chunks"):
                for event in ("insert", "delete", "update"):
                    conn.execute(f"DROP TRIGGER vector_counts_{table}_{event} ON {table}")
            conn.execute(
                "DROP FUNCTION vector_counts_vectors_added, vector_counts_vectors_removed, "
                "vector_counts_chunks_added, vector_counts_chunks_removed, vector_counts_moved"
            )
            conn.execute("DROP TABLE vector_counts")
            conn.execute("UPDATE ragox_schema SET value='7' WHERE key='schema_version'")
        PostgresStore(url, tmp_path / "home").close()
        app = Ragox(tmp_path / "home", store=url)
        try:
            assert app.store.schema_version() == PG_SCHEMA_VERSION
            key = _HashEmbedder("hash-a").identity.key
            assert len(_counts_are_exact(app, [key])) == 3
            assert (_status(app), _vectors(app)) == expected
            app._embedder, app._embedder_spec = _HashEmbedder("hash-a"), "hash-a"  # type: ignore[assignment]
            _ingest(app, "d3", 5)
            assert app.delete("d1")
            _counts_are_exact(app, [key])
        finally:
            app.close()
    finally:
        postgres_server.drop(url)


def test_sqlite_status_with_vectors_reads_no_chunk_and_no_vector(app: Ragox) -> None:
    """SQLite: status in a home with vectors (its listing and its summary) reads the
    kept counts, never a chunk or a vector."""
    _half_vectors(app)
    conn = app.store._connection()  # type: ignore[attr-defined]
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        assert app.documents(OPERATOR) and _vectors(app)[0]
    finally:
        conn.set_trace_callback(None)
    read = [s for s in seen if "vector_counts" in s]
    assert len(read) >= 2  # the listing's queries and the summary's
    for sql in read:
        plan = "\n".join(str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        words = set(plan.replace("(", " ").split())
        assert "chunks" not in words and "embeddings" not in words, plan


def test_migrate_store_copies_with_vector_counts(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """An embedded home copied into PostgreSQL (``migrate-store``: chunks in one COPY,
    vectors a row at a time) has the counts of its chunks and vectors, and status shows
    what it showed."""
    home = tmp_path / "home"
    app = Ragox(home)
    try:
        _half_vectors(app)
        expected = (_status(app), _vectors(app))
    finally:
        app.close()
    url = postgres_server.fresh()
    try:
        migrate_store(home, url)
        copied = Ragox(home, store=url)
        try:
            assert len(_counts_are_exact(copied, [_HashEmbedder("hash-a").identity.key])) == 3
            assert (_status(copied), _vectors(copied)) == expected
        finally:
            copied.close()
    finally:
        postgres_server.drop(url)
