"""The search index inside the SQLite store: lexical partitions, vectors beside chunks.

Lexical rows live in FTS5 tables partitioned by tenant and by the exact set of
reader groups of the revision they belong to. A reader's query touches only the
partitions whose group set meets its own (the operator: every partition of its
tenant), so BM25 statistics (row count, average length, document frequencies)
come only from rows the reader may read, and a term that exists only in rows it
may not read costs exactly what an absent term costs: those partitions are never
opened. When a scope covers one partition, FTS5's own ``bm25()`` is scope-exact;
over several, the same formula (k1 = 1.2, b = 0.75, FTS5's IDF) is computed from
the partitions' own statistics, term instances and row lengths.

Scope filtering (current READY revisions whose reader groups meet the reader's)
is still part of every query, never a filter applied after the top k.

What a scope's queries read of its partitions (totals, match counts, posting lists)
is kept for its next queries (``_memo``), keyed by the partitions' generations
(schema 27), which every write to a partition's rows replaces (``_touch``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Final, Protocol

from ragox.store._scope import Scope, scope_digest
from ragox.store.sqlite._across import (
    BM25_B,
    BM25_K1,
    AcrossRanking,
    Partition,
    Totals,
    match_count,
    varints,
)
from ragox.store.sqlite._memo import ScopeMemo, StatisticsMemo

__all__ = ["BM25_B", "BM25_K1", "Scope", "SqliteIndex", "upgrade_lexical"]

_PHRASE: Final = r'"(?:[^"]|"")*"\*?'
_MATCH: Final = re.compile(rf"\s*{_PHRASE}(?:\s+OR\s+{_PHRASE})*\s*")


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


# The same decision as a list of current manifests (evaluated once per query). A
# reader's rows are found from its groups (revision_groups_by_group, schema 28), so
# the work is the revisions it may read, never all of its tenant's; the operator
# reads every current revision of the tenant.
_PERMITTED_MANIFESTS = """
    SELECT r.manifest_id FROM revision_groups g
    CROSS JOIN revisions r ON r.tenant = g.tenant AND r.document_id = g.document_id
        AND r.revision = g.revision
    CROSS JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE NOT :operator AND g.tenant = :tenant
        AND g.group_name IN (SELECT value FROM json_each(:groups)) AND r.state = 'READY'
    UNION ALL
    SELECT r.manifest_id FROM revisions r
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE :operator AND r.tenant = :tenant AND r.state = 'READY'
"""


# Which of some ranked rows (``:rowids``) the scope may read, their chunk ids and
# tie keys (document id, chunk range). CROSS JOIN keeps this order (rows, then their
# chunk, manifest, revision and document), so the work done is per ranked row, never
# per revision of the tenant. Each row is reached by an equality on a whole unique
# key whose right side has no affinity (``+``): SQLite then reads that one row and
# stops; with a column on the right (or through the non-unique revisions_by_manifest)
# it steps to the next entry of the index, and whether there is one (a hidden
# document's random manifest id sorting after the reader's) changed the work done.
_PERMITTED_ROWS = """
    SELECT c.rowid, c.chunk_id, d.document_id, c.start, c.end FROM json_each(:rowids) j
    CROSS JOIN chunks c ON c.rowid = j.value
    CROSS JOIN manifests m ON m.manifest_id = +c.manifest_id
    CROSS JOIN revisions r ON r.tenant = +m.tenant AND r.document_id = +m.document_id
        AND r.revision = +m.revision AND +r.manifest_id = c.manifest_id AND r.state = 'READY'
    CROSS JOIN documents d ON d.tenant = +r.tenant AND d.document_id = +r.document_id
        AND d.current_revision = r.revision
    WHERE r.tenant = :tenant AND (:operator OR EXISTS (
        SELECT 1 FROM revision_groups g
        WHERE g.tenant = +r.tenant AND g.document_id = +r.document_id
          AND g.revision = +r.revision
          AND g.group_name IN (SELECT value FROM json_each(:groups))))
"""


# The partitions a reader may read: found by its groups through an index, so that
# other group sets' partitions are not even listed (the operator lists its tenant's).
_READABLE_PARTITIONS = """
    SELECT DISTINCT p.partition_id, p.name, p.generation FROM lexical_partition_groups g
    JOIN lexical_partitions p ON p.partition_id = g.partition_id
    WHERE g.tenant = :tenant AND g.group_name IN (SELECT value FROM json_each(:groups))
    ORDER BY p.partition_id
"""
_TENANT_PARTITIONS = """
    SELECT p.partition_id, p.name, p.generation FROM lexical_partitions p
    WHERE p.tenant = :tenant ORDER BY p.partition_id
"""


#: most scopes whose languages the home keeps (the oldest stored are dropped first)
SCOPE_LANGUAGES_KEPT: Final = 1024


def _remember_languages(
    conn: sqlite3.Connection, key: str, generations: str, languages: set[str | None]
) -> None:
    """Store a scope's languages under its generations, if the home can be written at
    once: a search never waits for another process's write (nor fails on a home it
    may only read), it computes the set again next time."""
    values = json.dumps(sorted(languages, key=lambda value: (value is None, value or "")))
    previous = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "INSERT OR REPLACE INTO scope_languages(scope_key, generations, languages) "
                "VALUES (?, ?, ?)",
                (key, generations, values),
            )
            # the newest SCOPE_LANGUAGES_KEPT rows stay (a row stored again takes a
            # new rowid: rowids are no count of rows)
            conn.execute(
                "DELETE FROM scope_languages WHERE rowid NOT IN "
                "(SELECT rowid FROM scope_languages ORDER BY rowid DESC LIMIT ?)",
                (SCOPE_LANGUAGES_KEPT,),
            )
            conn.execute("COMMIT")
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError:
        pass  # busy or read-only: nothing is stored
    finally:
        conn.execute(f"PRAGMA busy_timeout = {previous}")


def _params(scope: Scope) -> dict[str, object]:
    return {
        "operator": 1 if scope.operator else 0,
        "tenant": scope.tenant,
        "groups": json.dumps(list(scope.groups)),
    }


def _phrases(match: str) -> list[str]:
    """The phrases of an ``"a" OR "b c" OR "d"*`` expression, in order (the only
    form the cross-partition score accepts: OR of phrases, prefixes allowed)."""
    if not _MATCH.fullmatch(match):
        raise ValueError("a lexical query must be quoted phrases joined by OR")
    return re.findall(_PHRASE, match)


def _window(limit: int) -> int:
    """How many ranked rows to look at first for ``limit`` permitted ones."""
    return max(4 * limit, 200)


#: Lexical rows written per statement batch (bounds the analyzed bodies held at once).
_WRITE_BATCH: Final = 2048


def _create_partition(conn: sqlite3.Connection, tenant: str, groups: frozenset[str]) -> Partition:
    """The partition of ``(tenant, groups)``, created when it does not exist yet."""
    key = json.dumps(sorted(groups))
    row = conn.execute(
        "SELECT partition_id, name FROM lexical_partitions WHERE tenant=? AND groups=?",
        (tenant, key),
    ).fetchone()
    if row is not None:
        return Partition(int(row[0]), str(row[1]))
    digest = hashlib.sha256(json.dumps([tenant, sorted(groups)]).encode()).hexdigest()[:24]
    name = "lexp_" + digest
    conn.execute(
        f"CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize = 'unicode61 remove_diacritics 0')"
    )
    cursor = conn.execute(
        "INSERT INTO lexical_partitions(tenant, groups, name) VALUES(?, ?, ?)",
        (tenant, key, name),
    )
    assert cursor.lastrowid is not None
    conn.executemany(
        "INSERT INTO lexical_partition_groups(tenant, group_name, partition_id) VALUES(?, ?, ?)",
        [(tenant, group, cursor.lastrowid) for group in sorted(groups)],
    )
    return Partition(int(cursor.lastrowid), name)


def _touch(conn: sqlite3.Connection, partition_id: int) -> None:
    """Give a partition whose rows changed a new generation (schema 27): the next
    value of a counter that only grows, so that no earlier state of this partition,
    nor of one dropped and made again under the same id, had it."""
    conn.execute(
        "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key='lexical_generation'"
    )
    conn.execute(
        "UPDATE lexical_partitions SET generation = (SELECT CAST(value AS INTEGER) "
        "FROM settings WHERE key='lexical_generation') WHERE partition_id = ?",
        (partition_id,),
    )


def _manifest_groups(conn: sqlite3.Connection, manifest_id: str) -> frozenset[str]:
    """Reader groups of the revision a representation belongs to."""
    rows = conn.execute(
        "SELECT g.group_name FROM manifests m JOIN revision_groups g "
        "ON g.tenant = m.tenant AND g.document_id = m.document_id AND g.revision = m.revision "
        "WHERE m.manifest_id = ?",
        (manifest_id,),
    ).fetchall()
    return frozenset(str(row[0]) for row in rows)


def _partition_of(conn: sqlite3.Connection, partition_id: int) -> Partition:
    row = conn.execute(
        "SELECT name FROM lexical_partitions WHERE partition_id=?", (partition_id,)
    ).fetchone()
    return Partition(partition_id, str(row[0]))


def _evict(conn: sqlite3.Connection, where: str, params: Sequence[object]) -> None:
    """Remove the lexical rows selected by ``where`` (on ``lexical_rows``) everywhere."""
    for (partition_id,) in conn.execute(
        f"SELECT DISTINCT partition_id FROM lexical_rows WHERE {where}", params
    ).fetchall():
        partition = _partition_of(conn, int(partition_id))
        conn.execute(
            f"DELETE FROM {partition.name} WHERE rowid IN "
            f"(SELECT rowid FROM lexical_rows WHERE partition_id = ? AND ({where}))",
            (partition_id, *params),
        )
        _touch(conn, int(partition_id))
    conn.execute(f"DELETE FROM lexical_rows WHERE {where}", params)


def _prune(conn: sqlite3.Connection) -> None:
    """Drop partitions left without rows (a group set no revision has any more)."""
    for partition_id, name in conn.execute(
        "SELECT p.partition_id, p.name FROM lexical_partitions p WHERE NOT EXISTS "
        "(SELECT 1 FROM lexical_rows l WHERE l.partition_id = p.partition_id)"
    ).fetchall():
        conn.execute(f"DROP TABLE {name}")
        conn.execute("DELETE FROM lexical_partition_groups WHERE partition_id=?", (partition_id,))
        conn.execute("DELETE FROM lexical_partitions WHERE partition_id=?", (partition_id,))


def _insert(
    conn: sqlite3.Connection,
    tenant: str,
    manifest_id: str,
    rows: Sequence[tuple[int, str]],
) -> None:
    """Put ``(chunk rowid, body)`` rows of one representation into its partition."""
    partition = _create_partition(conn, tenant, _manifest_groups(conn, manifest_id))
    conn.executemany(f"INSERT INTO {partition.name}(rowid, body) VALUES(?, ?)", rows)
    conn.executemany(
        "INSERT INTO lexical_rows(rowid, manifest_id, partition_id) VALUES(?, ?, ?)",
        [(rowid, manifest_id, partition.partition_id) for rowid, _ in rows],
    )
    _touch(conn, partition.partition_id)


def upgrade_lexical(conn: sqlite3.Connection) -> None:
    """Move the rows of the per-tenant lexical tables of schema 3 to 9 into partitions.

    Runs inside the migration transaction of schema 10. Rows whose chunk is gone
    (left over by a crash) are not carried over.
    """
    legacy = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='lexical_tables'"
    ).fetchone()
    if legacy is None:
        return
    for tenant, name in conn.execute("SELECT tenant, name FROM lexical_tables").fetchall():
        rows = conn.execute(
            f"SELECT c.manifest_id, t.rowid, t.body FROM {name} t "
            "JOIN chunks c ON c.rowid = t.rowid ORDER BY c.manifest_id, t.rowid"
        ).fetchall()
        by_manifest: dict[str, list[tuple[int, str]]] = {}
        for manifest_id, rowid, body in rows:
            by_manifest.setdefault(str(manifest_id), []).append((int(rowid), str(body)))
        for manifest_id, bodies in by_manifest.items():
            _insert(conn, str(tenant), manifest_id, bodies)
        conn.execute(f"DROP TABLE IF EXISTS {name}_vocab")
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    conn.execute("DROP TABLE lexical_tables")
    _prune(conn)
    conn.execute(
        "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key='index_generation'"
    )


class SqliteIndex:
    """Lexical and vector rows of a :class:`SqliteStore`."""

    def __init__(self, store: _Store) -> None:
        self._store = store
        #: match counts, posting lists and totals per scope and partition generation
        self.memo = StatisticsMemo()

    # -- bookkeeping ---------------------------------------------------------------

    def generation(self) -> int:
        row = (
            self._store._connection()
            .execute("SELECT value FROM settings WHERE key='index_generation'")
            .fetchone()
        )
        return int(row[0])

    def scope_generation(self, scope: Scope) -> tuple[tuple[int, int], ...]:
        """The ``(partition id, generation)`` of each partition the scope may read:
        every write a reader of the scope can see (rows of a new revision, a
        deletion, a group change, vectors written or dropped) gives one of them a new
        generation, and no write to another partition changes it, so that caches
        keyed by it (a searcher's scope languages and vector matrix) stay warm, and
        queries as fast, whatever happens to rows the scope may not read."""
        conn = self._store._connection()
        return tuple((p.partition_id, p.generation) for p in self._partitions(conn, scope))

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

    @contextmanager
    def _snapshot(self, scope: Scope) -> Iterator[tuple[sqlite3.Connection, ScopeMemo | None]]:
        """One read transaction, so that the statistics of several statements agree,
        and the scope's memo. Inside a transaction the caller opened (which may hold
        writes not committed yet, and may roll them back along with the generations
        they drew) nothing is read from the memo or put in it."""
        conn = self._store._connection()
        if conn.in_transaction:
            yield conn, None
            return
        conn.execute("BEGIN")
        try:
            yield conn, self.memo.of(scope)
        finally:
            conn.execute("COMMIT")

    @staticmethod
    def _partitions(conn: sqlite3.Connection, scope: Scope) -> list[Partition]:
        """The partitions the scope may read, with their generations; no other
        partition is ever opened for it."""
        return [
            Partition(int(row[0]), str(row[1]), int(row[2]))
            for row in conn.execute(
                _TENANT_PARTITIONS if scope.operator else _READABLE_PARTITIONS, _params(scope)
            ).fetchall()
        ]

    # -- writing -------------------------------------------------------------------

    def write_lexical(
        self, tenant: str, manifest_id: str, language: str | None, rows: Sequence[tuple[str, str]]
    ) -> None:
        """Index ``(chunk_id, analyzed body)`` rows of one representation."""
        with self._store.transaction() as conn:
            self.write_lexical_rows(conn, tenant, manifest_id, language, rows)

    def write_lexical_rows(
        self,
        conn: sqlite3.Connection,
        tenant: str,
        manifest_id: str,
        language: str | None,
        rows: Iterable[tuple[str, str]],
    ) -> None:
        """Index ``(chunk_id, analyzed body)`` rows inside the caller's open transaction.

        The rows replace the representation's earlier ones and go to the partition of
        its revision's reader groups. They are read once, in batches (they may be
        analyzed as they are read): a large document's bodies are never all held.
        """
        _evict(conn, "manifest_id = ?", (manifest_id,))
        rowids = dict(
            conn.execute(
                "SELECT chunk_id, rowid FROM chunks WHERE manifest_id=?", (manifest_id,)
            ).fetchall()
        )
        source = iter(rows)
        while numbered := [
            (int(rowids[chunk_id]), body)
            for chunk_id, body in itertools.islice(source, _WRITE_BATCH)
        ]:
            # A chunk rowid SQLite handed out again must not keep a stale row of another
            # representation alive.
            _evict(
                conn,
                "rowid IN (SELECT value FROM json_each(?))",
                (json.dumps([rowid for rowid, _ in numbered]),),
            )
            _insert(conn, tenant, manifest_id, numbered)
        _prune(conn)
        # The row is written again whole (its text too) to change the language: only
        # when it differs, read from the index that holds it (schema 28; the table's
        # column lies behind the text's overflow pages).
        conn.execute(
            "UPDATE representations SET language=? WHERE manifest_id=("
            "SELECT manifest_id FROM representations INDEXED BY representations_facts "
            "WHERE manifest_id=? AND language IS NOT ?)",
            (language, manifest_id, language),
        )
        self.bump(conn)

    @staticmethod
    def partition_generations(conn: sqlite3.Connection, tenant: str) -> dict[int, int]:
        """The generation of each of the tenant's partitions (a write changes it)."""
        return {
            int(row[0]): int(row[1])
            for row in conn.execute(
                "SELECT partition_id, generation FROM lexical_partitions WHERE tenant = ?",
                (tenant,),
            ).fetchall()
        }

    def compact(
        self, conn: sqlite3.Connection, partition_ids: Iterable[int] | None = None, least: int = 2
    ) -> int:
        """Merge the full-text index of each partition (of ``partition_ids``, else every
        one) that has at least ``least`` segments into one (FTS5's ``optimize``), in the
        caller's transaction; returns how many were merged.

        Every write leaves a segment that FTS5 merges only a few at a time, and every
        lookup of a term visits each segment: a 100k-chunk home that many documents
        were written to holds a dozen. A deleted row's words also stay in the older
        segments, under a deletion mark, until a merge rewrites them: the one way to
        take a deleted document's vocabulary out of the file. What a query finds and
        how it scores are the same before and after (rows, counts and lengths do not
        change), so generations stay as they are."""
        wanted = None if partition_ids is None else set(partition_ids)
        merged = 0
        for partition_id, name in conn.execute(
            "SELECT partition_id, name FROM lexical_partitions ORDER BY partition_id"
        ).fetchall():
            if wanted is not None and int(partition_id) not in wanted:
                continue
            (segments,) = conn.execute(f"SELECT COUNT(DISTINCT segid) FROM {name}_idx").fetchone()
            if int(segments) >= least:
                conn.execute(f"INSERT INTO {name}({name}) VALUES('optimize')")
                merged += 1
        return merged

    def drop_manifest(self, conn: sqlite3.Connection, tenant: str, manifest_id: str) -> None:
        """Remove a representation's lexical rows (it stopped being current)."""
        _evict(conn, "manifest_id = ?", (manifest_id,))
        _prune(conn)
        self.bump(conn)

    def lexical_row_count(self, conn: sqlite3.Connection, tenant: str, manifest_id: str) -> int:
        """How many lexical rows a representation has (a current one: one per chunk)."""
        row = conn.execute(
            "SELECT COUNT(*) FROM lexical_rows l JOIN lexical_partitions p "
            "ON p.partition_id = l.partition_id WHERE l.manifest_id = ? AND p.tenant = ?",
            (manifest_id, tenant),
        ).fetchone()
        return int(row[0])

    def remove_orphans(self, conn: sqlite3.Connection, tenant: str | None = None) -> int:
        """Delete lexical rows that belong to no chunk of a current, READY revision of
        their partition's tenant (only ``tenant``'s partitions when given), and FTS rows
        no ``lexical_rows`` entry accounts for. Returns how many rows were removed."""
        stale = [
            int(row[0])
            for row in conn.execute(
                "SELECT l.rowid FROM lexical_rows l "
                "JOIN lexical_partitions p ON p.partition_id = l.partition_id "
                "WHERE (:tenant IS NULL OR p.tenant = :tenant) AND NOT EXISTS ("
                "SELECT 1 FROM chunks c "
                "JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY' "
                "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "AND d.current_revision = r.revision "
                "WHERE c.rowid = l.rowid AND c.manifest_id = l.manifest_id "
                "AND r.tenant = p.tenant)",
                {"tenant": tenant},
            )
        ]
        _evict(conn, "rowid IN (SELECT value FROM json_each(?))", (json.dumps(stale),))
        removed = len(stale)
        for partition_id, name in conn.execute(
            "SELECT partition_id, name FROM lexical_partitions WHERE ? IS NULL OR tenant = ?",
            (tenant, tenant),
        ).fetchall():
            cursor = conn.execute(
                f"DELETE FROM {name} WHERE rowid NOT IN "
                "(SELECT rowid FROM lexical_rows WHERE partition_id = ?)",
                (partition_id,),
            )
            if cursor.rowcount:
                _touch(conn, int(partition_id))
            removed += max(cursor.rowcount, 0)
        if removed:
            _prune(conn)
            self.bump(conn)
        return removed

    def remove_orphans_of(self, conn: sqlite3.Connection, tenant: str, document_id: str) -> int:
        """:meth:`remove_orphans` for what one document can have left, found by ids:
        lexical rows of its representations that are not current and READY, or that
        are not one of their chunks or lie outside its tenant's partitions, and FTS
        rows of its chunks' rowids that no ``lexical_rows`` entry of their partition
        accounts for. Returns how many. A sweep costs what the document has, not what
        the store has; FTS rows of chunk rows that no longer exist at all name no
        document: :meth:`remove_orphans` finds those."""
        manifests = [
            str(row[0])
            for row in conn.execute(
                "SELECT manifest_id FROM manifests WHERE tenant = ? AND document_id = ?",
                (tenant, document_id),
            ).fetchall()
        ]
        if not manifests:
            return 0
        current = {
            str(row[0])
            for row in conn.execute(
                "SELECT r.manifest_id FROM documents d JOIN revisions r "
                "ON r.tenant = d.tenant AND r.document_id = d.document_id "
                "AND r.revision = d.current_revision "
                "WHERE d.tenant = ? AND d.document_id = ? AND r.state = 'READY'",
                (tenant, document_id),
            ).fetchall()
        }
        partitions = [
            Partition(int(row[0]), str(row[1]))
            for row in conn.execute(
                "SELECT partition_id, name FROM lexical_partitions WHERE tenant = ?", (tenant,)
            ).fetchall()
        ]
        stale = json.dumps([m for m in manifests if m not in current])
        kept = json.dumps([m for m in manifests if m in current])
        owned = json.dumps([p.partition_id for p in partitions])
        doomed = [
            int(row[0])
            for row in conn.execute(
                "SELECT l.rowid FROM lexical_rows l WHERE l.manifest_id IN "
                "(SELECT value FROM json_each(:stale)) "
                "UNION ALL SELECT l.rowid FROM lexical_rows l "
                "WHERE l.manifest_id IN (SELECT value FROM json_each(:kept)) AND ("
                "l.partition_id NOT IN (SELECT value FROM json_each(:owned)) OR NOT EXISTS "
                "(SELECT 1 FROM chunks c WHERE c.rowid = l.rowid "
                "AND c.manifest_id = l.manifest_id))",
                {"stale": stale, "kept": kept, "owned": owned},
            ).fetchall()
        ]
        _evict(conn, "rowid IN (SELECT value FROM json_each(?))", (json.dumps(doomed),))
        removed = len(doomed)
        everything = json.dumps(manifests)
        for partition in partitions:
            cursor = conn.execute(
                f"DELETE FROM {partition.name} WHERE rowid IN (SELECT c.rowid FROM chunks c "
                "WHERE c.manifest_id IN (SELECT value FROM json_each(?)) AND NOT EXISTS "
                "(SELECT 1 FROM lexical_rows l WHERE l.rowid = c.rowid AND l.partition_id = ?))",
                (everything, partition.partition_id),
            )
            if cursor.rowcount:
                _touch(conn, partition.partition_id)
            removed += max(cursor.rowcount, 0)
        if removed:
            _prune(conn)
            self.bump(conn)
        return removed

    def regroup(
        self, conn: sqlite3.Connection, tenant: str, document_id: str, revision: str
    ) -> None:
        """Move a revision's lexical rows to the partition of its reader groups now.

        Call inside the transaction that changed the groups, after the change.
        """
        manifests = conn.execute(
            "SELECT DISTINCT l.manifest_id, l.partition_id FROM lexical_rows l "
            "JOIN manifests m ON m.manifest_id = l.manifest_id "
            "WHERE m.tenant=? AND m.document_id=? AND m.revision=?",
            (tenant, document_id, revision),
        ).fetchall()
        for manifest_id, partition_id in manifests:
            source = _partition_of(conn, int(partition_id))
            target = _create_partition(conn, tenant, _manifest_groups(conn, str(manifest_id)))
            if target.partition_id == source.partition_id:
                continue
            selected = "SELECT rowid FROM lexical_rows WHERE manifest_id = ? AND partition_id = ?"
            conn.execute(
                f"INSERT INTO {target.name}(rowid, body) SELECT rowid, body FROM {source.name} "
                f"WHERE rowid IN ({selected})",
                (manifest_id, partition_id),
            )
            conn.execute(
                f"DELETE FROM {source.name} WHERE rowid IN ({selected})",
                (manifest_id, partition_id),
            )
            conn.execute(
                "UPDATE lexical_rows SET partition_id=? WHERE manifest_id=? AND partition_id=?",
                (target.partition_id, manifest_id, partition_id),
            )
            _touch(conn, source.partition_id)
            _touch(conn, target.partition_id)
        _prune(conn)
        self.bump(conn)

    def write_vectors(self, embedder_key: str, rows: Sequence[tuple[str, bytes]]) -> None:
        with self._store.transaction() as conn:
            conn.executemany(
                "INSERT INTO embeddings(chunk_id, embedder_key, vector) VALUES(?,?,?) "
                "ON CONFLICT(chunk_id, embedder_key) DO UPDATE SET vector=excluded.vector",
                [(chunk_id, embedder_key, blob) for chunk_id, blob in rows],
            )
            # A reader's vector matrix is keyed by its partitions' generations: the
            # partitions of the chunks whose vectors changed take new ones (a chunk
            # with no lexical row is not current: no scope reads its vector). Vectors
            # of an embedder the index does not record (a reindex before its swap)
            # are read by no search: the swap touches every partition.
            recorded = conn.execute(
                "SELECT value FROM settings WHERE key='embedder_key'"
            ).fetchone()
            touched = (
                conn.execute(
                    "SELECT DISTINCT l.partition_id FROM chunks c "
                    "JOIN lexical_rows l ON l.rowid = c.rowid AND l.manifest_id = c.manifest_id "
                    "WHERE c.chunk_id IN (SELECT value FROM json_each(?))",
                    (json.dumps([chunk_id for chunk_id, _ in rows]),),
                ).fetchall()
                if recorded is not None and str(recorded[0]) == embedder_key
                else []
            )
            for (partition_id,) in touched:
                _touch(conn, int(partition_id))
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
            # Vectors of any partition may be gone, and the index's embedder is the
            # store's: every partition takes a new generation (an operator's reindex).
            for (partition_id,) in conn.execute(
                "SELECT partition_id FROM lexical_partitions"
            ).fetchall():
                _touch(conn, int(partition_id))
            self.bump(conn)

    # -- reading -------------------------------------------------------------------

    def languages(self, scope: Scope) -> set[str | None]:
        """Languages of the current representations the scope can search.

        Kept in the home (``scope_languages``, schema 32) under the scope's partition
        generations, like a searcher keeps them in memory: a command's process (one
        ``ragox search``) finds the set of its scope's last query instead of reading
        every representation the scope may read (54 ms at a million chunks, 250 ms
        with a cold page cache). The key is a digest of the scope (no tenant or
        group name is stored), the set holds only what the scope may read, and any
        write the scope can see gives one of its partitions a new generation, so a
        stored set is used only while it is still the scope's.
        """
        conn = self._store._connection()
        if conn.in_transaction:
            # inside a caller's transaction: its writes may yet be rolled back
            return self._scope_languages(scope)
        key = scope_digest(scope)
        # The generations and the set they key are read in one snapshot (a read
        # transaction of the WAL home): a write committed between two separate reads
        # would store a newer set under older generations, and generations can come
        # back (a partition added, then pruned with its last document), so that set
        # would be served again, in every later process.
        conn.execute("BEGIN")
        try:
            generations = json.dumps(self.scope_generation(scope))
            row = conn.execute(
                "SELECT generations, languages FROM scope_languages WHERE scope_key = ?", (key,)
            ).fetchone()
            if row is not None and row[0] == generations:
                return {None if value is None else str(value) for value in json.loads(row[1])}
            languages = self._scope_languages(scope)
        finally:
            conn.execute("COMMIT")
        _remember_languages(conn, key, generations, languages)
        return languages

    def _scope_languages(self, scope: Scope) -> set[str | None]:
        """The languages of the scope's current representations, read from them."""
        rows = (
            self._store._connection()
            .execute(
                # the language whole in an index (schema 28): the table's row is read
                # through its text's overflow pages
                "SELECT DISTINCT rep.language FROM representations rep "
                "INDEXED BY representations_facts "
                f"WHERE rep.manifest_id IN ({_PERMITTED_MANIFESTS}) "
                # only what the scope's partitions hold (whose generations key the
                # searcher's cache of this set): a representation with no rows has
                # nothing to search
                "AND EXISTS (SELECT 1 FROM lexical_rows l WHERE l.manifest_id = rep.manifest_id)",
                _params(scope),
            )
            .fetchall()
        )
        return {None if row[0] is None else str(row[0]) for row in rows}

    def lexical(self, match: str, scope: Scope, limit: int) -> list[tuple[str, float]]:
        """``(chunk_id, bm25)`` best first; bm25 here is positive, higher is better.

        Only the scope's partitions are read. One partition: FTS5 ranks its matches
        with its own ``bm25()`` (its statistics are the scope's). Several: every
        match is scored with the same formula over the statistics of all of them.
        Rows of a partition that are not (yet, or any longer) current are then left
        out by the permission join, deepening until ``limit`` permitted rows are
        found or the matches run out, so the result is exactly the top ``limit``
        of the permitted rows.
        """
        params = _params(scope)
        with self._snapshot(scope) as (conn, memo):
            partitions = self._partitions(conn, scope)
            if not partitions:
                return []
            if len(partitions) == 1:
                ranked = self._ranked_by_fts5(conn, partitions[0], match, _window(limit))
            else:
                ranked = self._ranked_across(conn, partitions, _phrases(match), limit + 1, memo)
            return self._permitted_top(conn, ranked, params, limit)

    @staticmethod
    def _ranked_by_fts5(
        conn: sqlite3.Connection, partition: Partition, match: str, first: int
    ) -> Iterator[tuple[int, float]]:
        """``(rowid, score)`` best first, ranked by FTS5 in C: the top ``first``, then
        deeper windows (x4) only when the caller asks for more."""
        seen = 0
        depth = first
        while True:
            window = conn.execute(
                f"SELECT rowid, -bm25({partition.name}) AS score FROM {partition.name} "
                f"WHERE {partition.name} MATCH ? ORDER BY score DESC, rowid LIMIT ? OFFSET ?",
                (match, depth - seen, seen),
            ).fetchall()
            for row in window:
                yield int(row[0]), float(row[1])
            if len(window) < depth - seen:
                return
            seen = depth
            depth *= 4

    @staticmethod
    def _permitted_top(
        conn: sqlite3.Connection,
        ranked: Iterator[tuple[int, float]],
        params: dict[str, object],
        limit: int,
    ) -> list[tuple[str, float]]:
        """The first ``limit`` ranked rows the scope may read, as ``(chunk_id, score)``
        (ranked rows are asked for ``limit`` at first, then in windows growing x4).

        Equal scores rank by document id, then the chunk's range in its text, never
        by rowid, which follows the order of ingestion: rows that tie with the
        ``limit``-th are all read before the cut, so that which of them make it
        depends on content only (the first window reads one row more to see that the
        next one does not tie).
        """
        found: list[tuple[float, tuple[str, int, int], str]] = []

        def permit(window: list[tuple[int, float]]) -> None:
            permitted = {
                int(row[0]): (str(row[1]), (str(row[2]), int(row[3]), int(row[4])))
                for row in conn.execute(
                    _PERMITTED_ROWS, {**params, "rowids": json.dumps([r for r, _ in window])}
                ).fetchall()
            }
            found.extend(
                (score, permitted[rowid][1], permitted[rowid][0])
                for rowid, score in window
                if rowid in permitted
            )

        batch = limit + 1
        while True:
            window = [item for _, item in zip(range(batch), ranked, strict=False)]
            if not window:
                break
            permit(window)
            if len(window) < batch:
                break
            if len(found) >= limit:
                # ranked best first: a row after this window scores at most its last
                cut = sorted((-score for score, _, _ in found))[limit - 1]
                if -window[-1][1] > cut:
                    break
                # the last row ties the limit-th: only rows of that very score can
                # still enter (copies of one text score alike), so those are read, up
                # to the first below it, not a window four times as deep
                tied: list[tuple[int, float]] = []
                for item in ranked:
                    if -item[1] > cut:
                        break
                    tied.append(item)
                if tied:
                    permit(tied)
                break
            batch *= 4
        found.sort(key=lambda item: (-item[0], item[1]))
        return [(chunk_id, score) for score, _, chunk_id in found[:limit]]

    @staticmethod
    def _totals(
        conn: sqlite3.Connection, partition: Partition, memo: ScopeMemo | None = None
    ) -> Totals:
        """Row and token counts from FTS5's own averages record (what ``bm25()`` reads)."""
        if memo is not None:
            found = memo.get(partition.partition_id, partition.generation, "totals")
            if isinstance(found, Totals):
                return found
        row = conn.execute(f"SELECT block FROM {partition.name}_data WHERE id = 1").fetchone()
        values = varints(bytes(row[0])) if row is not None and row[0] else []
        totals = Totals(values[0] if values else 0, values[1] if len(values) > 1 else 0)
        if memo is not None:
            memo.put(partition.partition_id, partition.generation, "totals", totals)
        return totals

    @staticmethod
    def _phrase_rows(
        conn: sqlite3.Connection, partition: Partition, phrase: str
    ) -> list[tuple[int, float, bytes]]:
        """Rowid, FTS5 bm25 of the phrase alone, and FTS5's ``docsize`` record (the
        length in tokens) of every row of the partition holding the phrase."""
        return conn.execute(
            f"SELECT t.rowid, -bm25({partition.name}), d.sz FROM {partition.name} t "
            f"JOIN {partition.name}_docsize d ON d.id = t.rowid "
            f"WHERE {partition.name} MATCH ?",
            (phrase,),
        ).fetchall()

    def _ranked_across(
        self,
        conn: sqlite3.Connection,
        partitions: Sequence[Partition],
        phrases: Sequence[str],
        first: int,
        memo: ScopeMemo | None = None,
    ) -> Iterator[tuple[int, float]]:
        """Matches in the partitions, best first, scored as FTS5's ``bm25()`` would
        score them in one table holding exactly these partitions' rows: the exact top
        ``first`` (found by :class:`_AcrossRanking`, which stops reading posting lists
        early), then deeper windows (x4) only when the caller asks for more."""
        totals = [self._totals(conn, partition, memo) for partition in partitions]
        ranking = AcrossRanking(conn, partitions, phrases, totals, self._phrase_rows, memo)
        seen = 0
        depth = first
        while True:
            top, complete = ranking.top(depth)
            yield from top[seen:]
            if complete:
                return
            seen = len(top)
            depth *= 4

    def term_statistics(self, scope: Scope, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """Row count and document frequency of each term over the scope's partitions.

        Like BM25, these see only rows the scope may read, never other groups' rows
        or other tenants'.
        """
        total = 0
        frequencies: dict[str, int] = dict.fromkeys(terms, 0)
        with self._snapshot(scope) as (conn, memo):
            for partition in self._partitions(conn, scope):
                total += self._totals(conn, partition, memo).rows
                for term in terms:
                    phrase = '"' + term.replace('"', '""') + '"'
                    frequencies[term] += match_count(conn, partition, phrase, memo)
        return total, frequencies

    def terms_in_language(self, scope: Scope, terms: Sequence[str], language: str) -> set[str]:
        """Of these terms, those that a row of the scope's partitions holds in a
        representation of ``language`` (one row looked for each, at most)."""
        found: set[str] = set()
        with self._snapshot(scope) as (conn, _):
            for partition in self._partitions(conn, scope):
                for term in terms:
                    if term in found:
                        continue
                    phrase = '"' + term.replace('"', '""') + '"'
                    row = conn.execute(
                        f"SELECT 1 FROM {partition.name} f "
                        "JOIN lexical_rows r ON r.rowid = f.rowid "
                        "JOIN representations rep ON rep.manifest_id = r.manifest_id "
                        f"WHERE {partition.name} MATCH ? AND rep.language = ? LIMIT 1",
                        (phrase, language),
                    ).fetchone()
                    if row is not None:
                        found.add(term)
        return found

    def permitted_vectors(self, embedder_key: str, scope: Scope) -> Iterator[tuple[str, bytes]]:
        """``(chunk_id, vector blob)`` of every current chunk the scope may read, in
        :meth:`tie_keys` order (sorted here: SQLite's sorter would copy every blob)."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT c.chunk_id, e.vector, d.document_id, c.start, c.end FROM chunks c "
                "JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.embedder_key = :key "
                + _PERMITTED,
                {**_params(scope), "key": embedder_key},
            )
            .fetchall()
        )
        rows.sort(key=lambda row: (str(row[2]), int(row[3]), int(row[4])))
        for row in rows:
            yield str(row[0]), bytes(row[1])

    def tie_keys(self, chunk_ids: Sequence[str]) -> dict[str, tuple[str, int, int]]:
        """``chunk_id → (document id, start, end)``: the order of equal scores."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT c.chunk_id, m.document_id, c.start, c.end FROM chunks c "
                "JOIN manifests m ON m.manifest_id = c.manifest_id "
                "WHERE c.chunk_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(chunk_ids)),),
            )
            .fetchall()
        )
        return {str(row[0]): (str(row[1]), int(row[2]), int(row[3])) for row in rows}

    def nearest(
        self, embedder_key: str, scope: Scope, vector: bytes, limit: int
    ) -> list[tuple[str, float]] | None:
        """None: SQLite has no vector index; the caller scans the permitted vectors."""
        return None

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

    def vectors_of(self, embedder_key: str, chunk_ids: Sequence[str]) -> dict[str, bytes]:
        """The vector of each of these chunks that has one of this embedder."""
        rows = (
            self._store._connection()
            .execute(
                "SELECT chunk_id, vector FROM embeddings WHERE embedder_key = ? "
                "AND chunk_id IN (SELECT value FROM json_each(?))",
                (embedder_key, json.dumps(list(chunk_ids))),
            )
            .fetchall()
        )
        return {str(row[0]): bytes(row[1]) for row in rows}

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
