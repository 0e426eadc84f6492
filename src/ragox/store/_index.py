"""The search index inside the SQLite store: FTS5 per tenant, vectors beside chunks.

Scope filtering is part of every query (a join on the current revision and its
reader groups), never a filter applied after the top k.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Scope", "SqliteIndex"]


@dataclass(frozen=True, slots=True)
class Scope:
    """Who may see what: one tenant, and its groups (or all of them: the operator)."""

    operator: bool
    tenant: str
    groups: tuple[str, ...]


class _Store(Protocol):
    def _connection(self) -> sqlite3.Connection: ...

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


# Current, READY revisions of the scope's tenant that the scope may read (the
# operator reads every group of its tenant). Parameters: operator flag, tenant,
# groups as a JSON array.
_PERMITTED = """
    JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY'
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE r.tenant = :tenant AND (:operator OR EXISTS (
        SELECT 1 FROM revision_groups g
        WHERE g.tenant = r.tenant AND g.document_id = r.document_id AND g.revision = r.revision
          AND g.group_name IN (SELECT value FROM json_each(:groups))))
"""


# The same decision as a list of current manifests (evaluated once per query).
_PERMITTED_MANIFESTS = """
    SELECT r.manifest_id FROM revisions r
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE r.state = 'READY' AND r.tenant = :tenant AND (:operator OR EXISTS (
        SELECT 1 FROM revision_groups g
        WHERE g.tenant = r.tenant AND g.document_id = r.document_id AND g.revision = r.revision
          AND g.group_name IN (SELECT value FROM json_each(:groups))))
"""


# Chunk rowids of the current, READY revisions of one tenant (parameter: tenant): the
# only rows a lexical table may hold.
_CURRENT_ROWIDS = """
    SELECT c.rowid FROM chunks c
    JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY'
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE r.tenant = ?
"""


def _table_name(tenant: str) -> str:
    return "lexical_" + hashlib.sha256(tenant.encode()).hexdigest()[:24]


def _params(scope: Scope) -> dict[str, object]:
    return {
        "operator": 1 if scope.operator else 0,
        "tenant": scope.tenant,
        "groups": json.dumps(list(scope.groups)),
    }


class SqliteIndex:
    """Lexical and vector rows of a :class:`SqliteStore`."""

    def __init__(self, store: _Store) -> None:
        self._store = store

    # -- bookkeeping ---------------------------------------------------------------

    def generation(self) -> int:
        row = (
            self._store._connection()
            .execute("SELECT value FROM settings WHERE key='index_generation'")
            .fetchone()
        )
        return int(row[0])

    def bump(self, conn: sqlite3.Connection) -> None:
        """Every change to what a scope may find bumps the generation (cache key)."""
        conn.execute(
            "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key='index_generation'"
        )

    def setting(self, key: str) -> str | None:
        row = (
            self._store._connection()
            .execute("SELECT value FROM settings WHERE key=?", (key,))
            .fetchone()
        )
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO settings(key, value) VALUES(?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )
            self.bump(conn)

    def _table(self, conn: sqlite3.Connection, tenant: str, create: bool) -> str | None:
        row = conn.execute("SELECT name FROM lexical_tables WHERE tenant=?", (tenant,)).fetchone()
        if row is not None:
            return str(row[0])
        if not create:
            return None
        name = _table_name(tenant)
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5("
            "body, tokenize = 'unicode61 remove_diacritics 0')"
        )
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {name}_vocab USING fts5vocab({name}, 'row')"
        )
        conn.execute("INSERT INTO lexical_tables(tenant, name) VALUES(?, ?)", (tenant, name))
        return name

    def _tables(self, scope: Scope) -> list[str]:
        conn = self._store._connection()
        table = self._table(conn, scope.tenant, create=False)
        return [] if table is None else [table]

    # -- writing -------------------------------------------------------------------

    def write_lexical_rows(
        self,
        conn: sqlite3.Connection,
        tenant: str,
        manifest_id: str,
        language: str | None,
        rows: Sequence[tuple[str, str]],
    ) -> None:
        """Index ``(chunk_id, analyzed body)`` rows of one representation, inside the
        caller's transaction: the store's ``make_current`` calls this in the transaction
        that makes the revision READY and current, so that rows never exist for a
        revision that is not current (a crash before the commit leaves none)."""
        table = self._table(conn, tenant, create=True)
        self._drop(conn, table, manifest_id)
        rowids = dict(
            conn.execute(
                "SELECT chunk_id, rowid FROM chunks WHERE manifest_id=?", (manifest_id,)
            ).fetchall()
        )
        conn.executemany(
            f"INSERT INTO {table}(rowid, body) VALUES(?, ?)",
            [(rowids[chunk_id], body) for chunk_id, body in rows],
        )
        conn.execute(
            "UPDATE representations SET language=? WHERE manifest_id=?",
            (language, manifest_id),
        )
        self.bump(conn)

    def _drop(self, conn: sqlite3.Connection, table: str | None, manifest_id: str) -> None:
        if table is None:
            return
        conn.execute(
            f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM chunks WHERE manifest_id=?)",
            (manifest_id,),
        )

    def drop_manifest(self, conn: sqlite3.Connection, tenant: str, manifest_id: str) -> None:
        """Remove a representation's lexical rows (it stopped being current)."""
        self._drop(conn, self._table(conn, tenant, create=False), manifest_id)
        self.bump(conn)

    def lexical_row_count(self, conn: sqlite3.Connection, tenant: str, manifest_id: str) -> int:
        """How many lexical rows a representation has (a current one: one per chunk)."""
        table = self._table(conn, tenant, create=False)
        if table is None:
            return 0
        row = conn.execute(
            f"SELECT COUNT(*) FROM {table} "
            "WHERE rowid IN (SELECT rowid FROM chunks WHERE manifest_id=?)",
            (manifest_id,),
        ).fetchone()
        return int(row[0])

    def remove_orphans(self, conn: sqlite3.Connection, tenant: str | None = None) -> int:
        """Delete lexical rows that belong to no chunk of a current, READY revision.

        Versions before schema 9 wrote rows before the revision became current and
        rewrote chunks (new rowids) on a rerun, so a crash or a concurrent ingest could
        leave rows no drop would find: a deleted document's words stayed matchable, and
        a later chunk reusing the rowid inherited them. Only ``tenant``'s tables when
        given. Returns how many were removed.
        """
        removed = 0
        tables = conn.execute(
            "SELECT tenant, name FROM lexical_tables WHERE ? IS NULL OR tenant = ?",
            (tenant, tenant),
        ).fetchall()
        for owner, table in tables:
            cursor = conn.execute(
                f"DELETE FROM {table} WHERE rowid NOT IN ({_CURRENT_ROWIDS})", (owner,)
            )
            removed += max(cursor.rowcount, 0)
        if removed:
            self.bump(conn)
        return removed

    def write_vectors(self, embedder_key: str, rows: Sequence[tuple[str, bytes]]) -> None:
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT INTO embeddings(chunk_id, embedder_key, vector) VALUES(?,?,?) "
                "ON CONFLICT(chunk_id, embedder_key) DO UPDATE SET vector=excluded.vector",
                [(chunk_id, embedder_key, blob) for chunk_id, blob in rows],
            )
            self.bump(conn)

    def swap_embedder(self, embedder_key: str, spec: str) -> None:
        """Record the embedder of the index and drop other embedders' vectors, at once."""
        with self._store.transaction() as conn:
            for key, value in (("embedder_key", embedder_key), ("embedder_spec", spec)):
                conn.execute(
                    "INSERT INTO settings(key, value) VALUES(?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (key, value),
                )
            conn.execute("DELETE FROM embeddings WHERE embedder_key <> ?", (embedder_key,))
            self.bump(conn)

    # -- reading -------------------------------------------------------------------

    def representation_languages(self, manifest_ids: Sequence[str]) -> dict[str, str]:
        """The detected language of each of these representations that has one."""
        found: dict[str, str] = {}
        ids = list(manifest_ids)
        for at in range(0, len(ids), 500):  # SQLite's bound-parameter limit
            part = ids[at : at + 500]
            rows = (
                self._store._connection()
                .execute(
                    "SELECT manifest_id, language FROM representations "
                    f"WHERE language IS NOT NULL AND manifest_id IN ({','.join('?' * len(part))})",
                    part,
                )
                .fetchall()
            )
            found.update({str(row[0]): str(row[1]) for row in rows})
        return found

    def languages(self, scope: Scope) -> set[str | None]:
        """Languages of the current representations the scope can search."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT DISTINCT rep.language FROM representations rep "
                f"WHERE rep.manifest_id IN ({_PERMITTED_MANIFESTS})",
                _params(scope),
            )
            .fetchall()
        )
        return {None if row[0] is None else str(row[0]) for row in rows}

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str | None]:
        """The language of each chunk's representation (None: not detected)."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT c.chunk_id, rep.language FROM chunks c "
                "JOIN representations rep ON rep.manifest_id = c.manifest_id "
                "WHERE c.chunk_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(chunk_ids)),),
            )
            .fetchall()
        )
        return {str(row[0]): None if row[1] is None else str(row[1]) for row in rows}

    def lexical(self, match: str, scope: Scope, limit: int) -> list[tuple[str, float]]:
        """``(chunk_id, bm25)`` best first; bm25 here is positive, higher is better.

        FTS5 ranks every match in C; the permitted rows among them are then taken
        by a join, deepening (x4) until ``limit`` permitted rows are found or the
        matches run out. The result is exactly the top ``limit`` of the permitted
        rows: any permitted row left out ranks below the ones returned. Tables are
        per tenant, so other tenants' rows are never even ranked.
        """
        found: list[tuple[str, float]] = []
        conn = self._store._connection()
        params = _params(scope)
        for table in self._tables(scope):
            depth = max(4 * limit, 200)
            while True:
                ranked = conn.execute(
                    f"SELECT rowid, -bm25({table}) AS score FROM {table} "
                    f"WHERE {table} MATCH ? ORDER BY score DESC LIMIT ?",
                    (match, depth),
                ).fetchall()
                scores = {int(row[0]): float(row[1]) for row in ranked}
                permitted = conn.execute(
                    "SELECT c.rowid, c.chunk_id FROM chunks c "
                    "WHERE c.rowid IN (SELECT value FROM json_each(:rowids)) "
                    f"AND c.manifest_id IN ({_PERMITTED_MANIFESTS})",
                    {**params, "rowids": json.dumps(list(scores))},
                ).fetchall()
                if len(permitted) >= limit or len(ranked) < depth:
                    break
                depth *= 4
            best = sorted(permitted, key=lambda row: (-scores[int(row[0])], int(row[0])))
            found.extend((str(row[1]), scores[int(row[0])]) for row in best[:limit])
        found.sort(key=lambda item: -item[1])
        return found[:limit]

    def term_statistics(self, scope: Scope, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """Row count and document frequency of each term in the scope's lexical tables.

        Statistics are per tenant table (what BM25 sees), never across tenants.
        """
        conn = self._store._connection()
        total = 0
        frequencies: dict[str, int] = dict.fromkeys(terms, 0)
        for table in self._tables(scope):
            vocab = f"{table}_vocab"
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab({table}, 'row')"
            )
            total += int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for term in terms:
                row = conn.execute(f"SELECT doc FROM {vocab} WHERE term=?", (term,)).fetchone()
                if row is not None:
                    frequencies[term] += int(row[0])
        return total, frequencies

    def permitted_vectors(self, embedder_key: str, scope: Scope) -> Iterator[tuple[str, bytes]]:
        """``(chunk_id, vector blob)`` of every current chunk the scope may read."""
        cursor = self._store._connection().execute(
            "SELECT c.chunk_id, e.vector FROM chunks c "
            "JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.embedder_key = :key " + _PERMITTED,
            {**_params(scope), "key": embedder_key},
        )
        for row in cursor:
            yield str(row[0]), bytes(row[1])

    def missing_vectors(self, manifest_id: str, embedder_key: str) -> int:
        """How many chunks of one representation lack this embedder's vector."""
        row = (
            self._store._connection()
            .execute(
                "SELECT COUNT(*) FROM chunks c WHERE c.manifest_id = ? AND NOT EXISTS "
                "(SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id "
                "AND e.embedder_key = ?)",
                (manifest_id, embedder_key),
            )
            .fetchone()
        )
        return int(row[0])

    def chunks_without_vectors(self, embedder_key: str) -> list[tuple[str, str]]:
        """``(chunk_id, manifest_id)`` of current chunks that lack this embedder's vector."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT c.chunk_id, c.manifest_id FROM chunks c "
                "JOIN revisions r ON r.manifest_id = c.manifest_id "
                "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "AND d.current_revision = r.revision "
                "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id "
                "AND e.embedder_key = ?) ORDER BY c.manifest_id, c.ordinal",
                (embedder_key,),
            )
            .fetchall()
        )
        return [(str(row[0]), str(row[1])) for row in rows]
