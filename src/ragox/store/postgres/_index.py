"""The search index inside the PostgreSQL store: BM25 over postings, pgvector beside.

Lexical rows are partitioned as in the SQLite backend, by tenant and exact set of
reader groups (a column here, not a table per partition). Each row's analyzed body
(the same Snowball terms the SQLite backend writes) is split into terms and stored
as postings ``(partition, term, row, tf)``; each partition keeps its row and token
counts. A query reads only the partitions the scope may read, and computes BM25 in
SQL from their statistics alone, with FTS5's formula and parameters (k1 = 1.2,
b = 0.75, IDF ``ln((N - n + 0.5) / (n + 0.5))`` floored at 1e-6), so that both
backends rank alike: the statistics of one scope are the same numbers in both.

Scope filtering (current READY revisions whose reader groups meet the reader's) is
part of the ranking query itself, never a filter applied after a top k.

Each partition has a generation (migration 7, ``lexical_generations``) that every
write a reader of the partition could see raises in the writer's transaction, as
its last step (:meth:`PostgresIndex.flush_bump`): a searcher keys its caches of a
scope by its own partitions' generations, so a write in groups a reader cannot
read leaves that reader's caches, and the time of its next query, as they were.

Vectors of the recorded embedder have an HNSW index (pgvector), a partial index on
that embedder's rows, cast to its dimension. A nearest-neighbour query filters by
the reader's scope inside an iterative index scan (pgvector >= 0.8, strict order):
the scan goes on past the first candidates until ``limit`` permitted rows are found,
so a reader who may read a small share of the vectors still gets all of its top k;
when the scan stops short (its tuple budget spent), the same query runs exactly. A
scope with few rows is left to the caller's exact scan of its permitted vectors.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final, Protocol

import numpy as np
import psycopg
import regex
from psycopg import pq, sql

from ragox.store._scope import Scope, scope_digest
from ragox.store.postgres._schema import ANN_SQL

__all__ = [
    "ANN_MIN_ROWS",
    "BM25_B",
    "BM25_K1",
    "PostgresIndex",
    "ann_index_name",
]

#: FTS5's ``bm25()`` defaults, as the SQLite backend ranks with them.
BM25_K1: Final = 1.2
BM25_B: Final = 0.75
_MIN_IDF: Final = 1e-6
_PHRASE: Final = r'"(?:[^"]|"")*"\*?'
_MATCH: Final = re.compile(rf"\s*{_PHRASE}(?:\s+OR\s+{_PHRASE})*\s*")
#: A scope with fewer permitted rows than this is searched exactly by the caller (a
#: scan of its permitted vectors, 150 MB at 384 dimensions); from this many on,
#: through the HNSW index. Below it the exact scan is about as fast as the index
#: (bench/bench_store.py at 100k chunks), and exact where HNSW is approximate.
ANN_MIN_ROWS: Final = 100_000
#: Candidates an HNSW scan keeps (pgvector's ``ef_search``; at least the k asked).
_ANN_EF_SEARCH: Final = 100
#: Rows an iterative scan may visit before it gives up (then: the exact query).
_ANN_MAX_SCAN_TUPLES: Final = 50_000
#: Memory for building the index (pgvector builds fastest when the graph fits).
_ANN_BUILD_MEMORY: Final = "256MB"


class _Store(Protocol):
    def read(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...

    def transaction(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...

    def shared_transaction(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...


# Current, READY revisions of the scope's tenant that the scope may read (the
# operator reads every group of its tenant). Parameters: operator, tenant, groups.
_PERMITTED = """
    JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY'
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE r.tenant = %(tenant)s AND (%(operator)s OR EXISTS (
        SELECT 1 FROM revision_groups g
        WHERE g.tenant = r.tenant AND g.document_id = r.document_id AND g.revision = r.revision
          AND g.group_name = ANY(%(groups)s)))
"""

# The permission decision as a list of current manifests. A reader's rows are found
# from its groups (revision_groups_by_group, schema 6), so the work is the revisions
# it may read, never all of its tenant's; the operator reads every current revision.
_PERMITTED_MANIFESTS = """
    SELECT r.manifest_id FROM revision_groups g
    JOIN revisions r ON r.tenant = g.tenant AND r.document_id = g.document_id
        AND r.revision = g.revision
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE NOT %(operator)s AND g.tenant = %(tenant)s AND g.group_name = ANY(%(groups)s)
        AND r.state = 'READY'
    UNION ALL
    SELECT r.manifest_id FROM revisions r
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE %(operator)s AND r.tenant = %(tenant)s AND r.state = 'READY'
"""

# The partitions a reader may read, found by its groups (the operator: its tenant's).
_PARTITIONS = """
    SELECT p.partition_id FROM lexical_partitions p
    WHERE p.tenant = %(tenant)s AND (%(operator)s OR p.partition_id IN (
        SELECT g.partition_id FROM lexical_partition_groups g
        WHERE g.tenant = %(tenant)s AND g.group_name = ANY(%(groups)s)))
"""

# The scope's partitions with their generations (0: never written since migration 7).
_SCOPE_GENERATIONS = f"""
    SELECT p.partition_id, COALESCE(g.generation, 0) FROM lexical_partitions p
    LEFT JOIN lexical_generations g ON g.partition_id = p.partition_id
    WHERE p.partition_id IN ({_PARTITIONS})
    ORDER BY p.partition_id
"""

#: most scopes whose languages the database keeps (the oldest stored are dropped first)
SCOPE_LANGUAGES_KEPT: Final = 1024
#: how long storing a scope's languages may wait for another writer's lock: a search
#: never waits on one (it computes the set again next time)
_LANGUAGES_LOCK_TIMEOUT: Final = "50ms"
#: the advisory lock of storing a scope's languages (a constant of the one-bigint key
#: space beside the store's own)
_LANGUAGES_LOCK: Final = 0x7261676F7A
# The scope's partitions and their generations as one text ("id:generation,…").
_GENERATIONS_TEXT = f"""
    SELECT COALESCE(string_agg(g.partition_id || ':' || g.generation, ','
                               ORDER BY g.partition_id), '')
    FROM ({_SCOPE_GENERATIONS}) g(partition_id, generation)
"""
# Now's generations and the scope's stored ones with their set, in one snapshot.
_STORED_LANGUAGES = f"""
    SELECT ({_GENERATIONS_TEXT}), s.generations, s.languages
    FROM (SELECT 1) one LEFT JOIN scope_languages s ON s.scope_key = %(scope_key)s
"""
# The generations and the languages of the scope's current representations, in one
# snapshot; only what the scope's partitions hold (a representation with no rows has
# nothing to search).
_SCOPE_LANGUAGES = f"""
    SELECT ({_GENERATIONS_TEXT}), (
        SELECT COALESCE(json_agg(DISTINCT rep.language), '[]'::json)::text
        FROM representations rep
        WHERE rep.manifest_id IN ({_PERMITTED_MANIFESTS})
          AND EXISTS (SELECT 1 FROM lexical_rows l WHERE l.manifest_id = rep.manifest_id))
"""

# BM25 of every permitted row holding a query term, over the scope's partitions only;
# ``terms`` may repeat a term (FTS5 then counts it twice, and so does this).
_RANKED = f"""
    WITH parts AS ({_PARTITIONS}),
    totals AS (
        SELECT COALESCE(SUM(p.rows), 0)::float8 AS n, COALESCE(SUM(p.tokens), 0)::float8 AS tok
        FROM lexical_partitions p WHERE p.partition_id IN (SELECT partition_id FROM parts)),
    wanted AS (
        SELECT t.term, COUNT(*)::float8 AS times
        FROM unnest(%(terms)s::text[]) AS t(term) GROUP BY t.term),
    postings AS (
        SELECT o.rowid, o.term, o.tf FROM lexical_postings o
        WHERE o.partition_id IN (SELECT partition_id FROM parts)
          AND o.term IN (SELECT term FROM wanted)),
    weights AS (
        SELECT w.term, w.times * (CASE WHEN x.idf > 0 THEN x.idf ELSE {_MIN_IDF} END) AS weight
        FROM wanted w
        JOIN (SELECT o.term, COUNT(*)::float8 AS hits FROM postings o GROUP BY o.term) h
            ON h.term = w.term
        CROSS JOIN totals
        CROSS JOIN LATERAL (SELECT ln((totals.n - h.hits + 0.5) / (h.hits + 0.5)) AS idf) x),
    scored AS (
        SELECT o.rowid, SUM(w.weight * (o.tf * {BM25_K1 + 1.0})
            / (o.tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * l.length / (totals.tok / totals.n)))
            ORDER BY o.term) AS score
        FROM postings o
        JOIN weights w ON w.term = o.term
        JOIN lexical_rows l ON l.rowid = o.rowid
        CROSS JOIN totals
        GROUP BY o.rowid)
    SELECT c.chunk_id, s.score FROM scored s
    JOIN chunks c ON c.rowid = s.rowid
    {_PERMITTED}
    ORDER BY s.score DESC, d.document_id COLLATE "C", c.start, c."end"
    LIMIT %(limit)s
"""


def ann_index_name(embedder_key: str) -> str:
    """The name of the HNSW index of one embedder's vectors (as migration 4 names it)."""
    return "embeddings_hnsw_" + hashlib.md5(embedder_key.encode()).hexdigest()[:16]  # noqa: S324


def _one(conn: psycopg.Connection[Any], query: str, params: Any = None) -> Any:
    """The one row a query returns (an aggregate, or a row known to exist)."""
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row


def _language_set(stored: str) -> set[str | None]:
    return {None if value is None else str(value) for value in json.loads(stored)}


def _remember_languages(
    conn: psycopg.Connection[Any], key: str, generations: str, languages: str
) -> None:
    """Store a scope's languages under the generations they were read at, unless that
    would wait for another writer or the database may not be written: nothing is
    stored then, and the set is computed again next time."""
    try:
        with conn.transaction():
            conn.execute(f"SET LOCAL lock_timeout = '{_LANGUAGES_LOCK_TIMEOUT}'")
            # one storer at a time: two at once each trimmed the row the other's
            # insert made the oldest, and one row more than the bound stayed
            conn.execute("SELECT pg_advisory_xact_lock(%s::bigint)", (_LANGUAGES_LOCK,))
            conn.execute(
                "INSERT INTO scope_languages(scope_key, generations, languages) "
                "VALUES (%s, %s, %s) ON CONFLICT (scope_key) DO UPDATE SET "
                "generations = excluded.generations, languages = excluded.languages, "
                "stored = nextval('scope_languages_stored')",
                (key, generations, languages),
            )
            # the newest SCOPE_LANGUAGES_KEPT stay
            conn.execute(
                "DELETE FROM scope_languages WHERE stored < (SELECT stored FROM "
                "scope_languages ORDER BY stored DESC OFFSET %s LIMIT 1)",
                (SCOPE_LANGUAGES_KEPT - 1,),
            )
    except psycopg.Error:
        pass  # busy or read-only: nothing is stored


def _params(scope: Scope) -> dict[str, object]:
    return {"operator": scope.operator, "tenant": scope.tenant, "groups": list(scope.groups)}


def _terms(match: str) -> list[str]:
    """The tokens of an ``"a" OR "b" OR "c"`` expression, in order (repeats kept).

    The analyzer's terms are single tokens. Two known differences from FTS5, for
    queries ragox does not write: a phrase of several tokens (``"foo_bar"``: FTS5
    splits at the underscore) counts as its tokens OR-ed, and a prefix phrase
    (``"d"*``) as the exact token.
    """
    if not _MATCH.fullmatch(match):
        raise ValueError("a lexical query must be quoted phrases joined by OR")
    terms: list[str] = []
    for phrase in re.findall(_PHRASE, match):
        text = phrase[1:-1] if not phrase.endswith("*") else phrase[1:-2]
        terms.extend(_tokens(text.replace('""', '"')))
    return terms


#: FTS5's unicode61 token characters (letters, numbers, private use, and the
#: combining marks it keeps with remove_diacritics 0): a row's length and terms are
#: counted as the SQLite backend's FTS5 counts them.
_TOKEN: Final = regex.compile(r"[\p{L}\p{N}\p{Co}\p{Mn}]+")


def _tokens(text: str) -> list[str]:
    return [token.lower() for token in _TOKEN.findall(text)]


def _body_terms(body: str) -> Counter[str]:
    """Term frequencies of an analyzed body, tokenized as FTS5's unicode61 does."""
    return Counter(_tokens(body))


class PostgresIndex:
    """Lexical postings and pgvector rows of a :class:`PostgresStore`."""

    def __init__(self, store: _Store) -> None:
        self._store = store
        #: per thread: whether its open write transaction changed what scopes find
        #: (``pending``), and the partitions whose readers could see it (``touched``)
        self._bumps = threading.local()
        #: see :data:`ANN_MIN_ROWS` (per index, so that a test can lower it)
        self.ann_min_rows = ANN_MIN_ROWS

    # -- bookkeeping ---------------------------------------------------------------

    def generation(self) -> int:
        with self._store.read() as conn:
            return int(_one(conn, "SELECT value FROM settings WHERE key='index_generation'")[0])

    def scope_generation(self, scope: Scope) -> tuple[tuple[int, int], ...]:
        """The ``(partition id, generation)`` of each partition the scope may read
        (migration 7): every write a reader of the scope can see (rows of a new
        revision, a deletion, a group change, vectors written, an embedder swap)
        gives one of them a new generation, and no write to another partition
        changes it, so that caches keyed by it (a searcher's scope languages and
        vector matrix) stay warm, and queries as fast, whatever happens to rows the
        scope may not read. One statement: the partitions and their generations of
        one snapshot."""
        with self._store.read() as conn:
            rows = conn.execute(_SCOPE_GENERATIONS, _params(scope)).fetchall()
        return tuple((int(row[0]), int(row[1])) for row in rows)

    def _touch(self, partition_ids: Iterable[int]) -> None:
        """These partitions' readers could see what the open write transaction
        changed: each takes a new generation when it commits (:meth:`flush_bump`)."""
        touched: set[int] | None = getattr(self._bumps, "touched", None)
        if touched is None:
            touched = self._bumps.touched = set()
        touched.update(int(partition_id) for partition_id in partition_ids)

    def bump(self, conn: psycopg.Connection[Any]) -> None:
        """Every change to what a scope may find bumps the generation (cache key):
        once, as the last statement of the write transaction (:meth:`flush_bump`),
        so that the one row every indexing transaction updates is locked for the
        shortest time, and after every other row (no two transactions wait for each
        other's rows in opposite orders)."""
        self._bumps.pending = True

    def flush_bump(self, conn: psycopg.Connection[Any]) -> None:
        """What the ending transaction asked for (called by the store): first the
        counters of the partitions whose rows it changed (:meth:`_count`) and the
        prune of partitions it left empty, then the generations of the partitions it
        touched, then the store's generation; each kind in partition id order.

        Every transaction locks these rows last and in the same order, so that two
        indexings or regroups (whatever order their rows came in) and a vector write
        (which holds no counter) never wait for each other's rows in opposite orders.
        ``generation + 1`` is computed on the row as it is once the lock is held, so
        two writers never lose an increment. A partition pruned meanwhile gets none
        (partition ids are never reused)."""
        counts = sorted((getattr(self._bumps, "counts", None) or {}).items())
        self._bumps.counts = None
        for partition_id, (rows, tokens) in counts:
            if rows or tokens:
                conn.execute(
                    "UPDATE lexical_partitions SET rows = rows + %s, tokens = tokens + %s "
                    "WHERE partition_id = %s",
                    (rows, tokens, partition_id),
                )
        if getattr(self._bumps, "prune", False):
            self._bumps.prune = False
            self._prune_now(conn)
        touched = sorted(getattr(self._bumps, "touched", None) or ())
        self._bumps.touched = None
        if touched:
            conn.execute(
                "INSERT INTO lexical_generations(partition_id, generation) "
                "SELECT t.id, 1 FROM unnest(%s::bigint[]) AS t(id) WHERE EXISTS "
                "(SELECT 1 FROM lexical_partitions p WHERE p.partition_id = t.id) ORDER BY t.id "
                "ON CONFLICT(partition_id) DO UPDATE "
                "SET generation = lexical_generations.generation + 1",
                (touched,),
            )
        if getattr(self._bumps, "pending", False):
            self._bumps.pending = False
            conn.execute(
                "UPDATE settings SET value = (value::bigint + 1)::text WHERE key='index_generation'"
            )

    def discard_bump(self) -> None:
        """The transaction ended without committing: nothing changed."""
        self._bumps.pending = False
        self._bumps.touched = None
        self._bumps.counts = None
        self._bumps.prune = False

    def setting(self, key: str) -> str | None:
        with self._store.read() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key=%s", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._store.transaction() as conn:
            conn.execute(
                "INSERT INTO settings(key, value) VALUES(%s, %s) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )
            self.bump(conn)

    # -- partitions ----------------------------------------------------------------

    @staticmethod
    def _partition(conn: psycopg.Connection[Any], tenant: str, groups: frozenset[str]) -> int:
        """The partition of ``(tenant, groups)``, created when it does not exist yet.

        Looked up first: an INSERT … ON CONFLICT would wait for any transaction that
        updated the partition's counters to end, and so make every indexing of the
        same groups wait for the one before it to commit. The row found is locked
        ``FOR KEY SHARE`` (it does not wait for counter updates): a concurrent prune
        of a partition left empty cannot delete it under this transaction's rows."""
        key = _groups_key(groups)
        existing = conn.execute(
            "SELECT partition_id FROM lexical_partitions WHERE tenant=%s AND groups=%s "
            "FOR KEY SHARE",
            (tenant, key),
        ).fetchone()
        if existing is not None:
            return int(existing[0])
        row = conn.execute(
            "INSERT INTO lexical_partitions(tenant, groups) VALUES(%s, %s) "
            "ON CONFLICT(tenant, groups) DO NOTHING RETURNING partition_id",
            (tenant, key),
        ).fetchone()
        if row is None:
            found = _one(
                conn,
                "SELECT partition_id FROM lexical_partitions WHERE tenant=%s AND groups=%s",
                (tenant, key),
            )
            return int(found[0])
        partition_id = int(row[0])
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO lexical_partition_groups(tenant, group_name, partition_id) "
                "VALUES(%s, %s, %s)",
                [(tenant, group, partition_id) for group in sorted(groups)],
            )
        return partition_id

    @staticmethod
    def _manifest_groups(conn: psycopg.Connection[Any], manifest_id: str) -> frozenset[str]:
        rows = conn.execute(
            "SELECT g.group_name FROM manifests m JOIN revision_groups g "
            "ON g.tenant = m.tenant AND g.document_id = m.document_id AND g.revision = m.revision "
            "WHERE m.manifest_id = %s",
            (manifest_id,),
        ).fetchall()
        return frozenset(str(row[0]) for row in rows)

    def _evict(
        self,
        conn: psycopg.Connection[Any],
        where: str,
        params: Sequence[object],
        prepare: bool | None = None,
    ) -> int:
        """Remove the lexical rows selected by ``where`` (on ``lexical_rows``), their
        postings, and their counts from their partitions. Returns how many.
        ``prepare=False``: plan the deletes now, never from a prepared statement's plan."""
        gone = conn.execute(
            f"DELETE FROM lexical_rows WHERE {where} RETURNING rowid, partition_id, length",
            params,
            prepare=prepare,
        ).fetchall()
        if not gone:
            return 0
        conn.execute(
            "DELETE FROM lexical_postings WHERE rowid = ANY(%s)",
            ([int(r[0]) for r in gone],),
            prepare=prepare,
        )
        per: dict[int, list[int]] = {}
        for _, partition_id, length in gone:
            counts = per.setdefault(int(partition_id), [0, 0])
            counts[0] += 1
            counts[1] += int(length)
        for partition_id, (rows, tokens) in per.items():
            self._count(partition_id, -rows, -tokens)
        self._touch(per)
        return len(gone)

    def _count(self, partition_id: int, rows: int, tokens: int) -> None:
        """Add to a partition's row and token counters when the open write transaction
        ends (:meth:`flush_bump`), not now: counters are locked by every indexing, so
        each transaction locks the ones it changes at its end and in id order. Updated
        where the rows moved, a regroup of one document from partition 1 to 2 and one
        of another from 2 to 1 each held one counter and waited for the other's: a
        deadlock, and PostgreSQL aborted one of them."""
        counts: dict[int, tuple[int, int]] | None = getattr(self._bumps, "counts", None)
        if counts is None:
            counts = self._bumps.counts = {}
        held_rows, held_tokens = counts.get(int(partition_id), (0, 0))
        counts[int(partition_id)] = (held_rows + rows, held_tokens + tokens)

    def _prune(self, conn: psycopg.Connection[Any]) -> None:
        """Drop partitions left without rows, when the transaction ends (after its
        counters, :meth:`flush_bump`)."""
        self._bumps.prune = True

    @staticmethod
    def _prune_now(conn: psycopg.Connection[Any]) -> None:
        """Drop partitions left without rows that no other transaction holds: a
        partition another one is writing rows into (locked ``FOR KEY SHARE`` by
        :meth:`_partition`) or counting is skipped rather than waited for, and pruned
        by a later write once it is empty."""
        conn.execute(
            "DELETE FROM lexical_partitions WHERE partition_id IN ("
            "SELECT p.partition_id FROM lexical_partitions p WHERE p.rows = 0 AND NOT EXISTS "
            "(SELECT 1 FROM lexical_rows l WHERE l.partition_id = p.partition_id) "
            "FOR UPDATE OF p SKIP LOCKED)"
        )

    # -- writing -------------------------------------------------------------------

    def write_lexical(
        self, tenant: str, manifest_id: str, language: str | None, rows: Sequence[tuple[str, str]]
    ) -> None:
        """Index ``(chunk_id, analyzed body)`` rows of one representation."""
        with self._store.transaction() as conn:
            self.write_lexical_rows(conn, tenant, manifest_id, language, rows)

    def write_lexical_rows(
        self,
        conn: psycopg.Connection[Any],
        tenant: str,
        manifest_id: str,
        language: str | None,
        rows: Iterable[tuple[str, str]],
    ) -> None:
        """Index ``(chunk_id, analyzed body)`` rows (read once) inside the caller's open
        transaction:
        they replace the representation's earlier ones, in the partition of its
        revision's reader groups."""
        self._evict(conn, "manifest_id = %s", (manifest_id,))
        rowids = dict(
            conn.execute(
                "SELECT chunk_id, rowid FROM chunks WHERE manifest_id=%s", (manifest_id,)
            ).fetchall()
        )
        numbered = [(int(rowids[chunk_id]), body) for chunk_id, body in rows]
        self._evict(conn, "rowid = ANY(%s)", ([rowid for rowid, _ in numbered],))
        partition_id = self._partition(conn, tenant, self._manifest_groups(conn, manifest_id))
        lengths: list[tuple[int, str, int, int]] = []
        postings: list[tuple[int, str, int, int]] = []
        for rowid, body in numbered:
            counts = _body_terms(body)
            lengths.append((rowid, manifest_id, partition_id, sum(counts.values())))
            postings.extend((partition_id, term, rowid, tf) for term, tf in counts.items())
        with conn.cursor() as cursor:
            with cursor.copy(
                "COPY lexical_rows(rowid, manifest_id, partition_id, length) FROM STDIN"
            ) as copy:
                for item in lengths:
                    copy.write_row(item)
            with cursor.copy(
                "COPY lexical_postings(partition_id, term, rowid, tf) FROM STDIN"
            ) as copy:
                for item in postings:
                    copy.write_row(item)
        self._count(partition_id, len(lengths), sum(item[3] for item in lengths))
        if lengths:  # no row written: no reader can find anything new
            self._touch([partition_id])
        self._prune(conn)
        conn.execute(
            "UPDATE representations SET language=%s "
            "WHERE manifest_id=%s AND language IS DISTINCT FROM %s",
            (language, manifest_id, language),
        )
        self.bump(conn)

    def drop_manifest(self, conn: psycopg.Connection[Any], tenant: str, manifest_id: str) -> None:
        """Remove a representation's lexical rows (it stopped being current)."""
        self._evict(conn, "manifest_id = %s", (manifest_id,))
        self._prune(conn)
        self.bump(conn)

    def lexical_row_count(
        self, conn: psycopg.Connection[Any], tenant: str, manifest_id: str
    ) -> int:
        row = _one(
            conn,
            "SELECT COUNT(*) FROM lexical_rows l JOIN lexical_partitions p "
            "ON p.partition_id = l.partition_id WHERE l.manifest_id = %s AND p.tenant = %s",
            (manifest_id, tenant),
        )
        return int(row[0])

    def remove_orphans(self, conn: psycopg.Connection[Any], tenant: str | None = None) -> int:
        """Delete lexical rows that belong to no chunk of a current, READY revision of
        their partition's tenant (only ``tenant``'s partitions when given).

        Decided per representation, not per row: the rows' representations (one
        table), which of them are current and READY in which tenant (a short list of
        ids), then deletes by those ids and a row check through the chunks' unique
        key. No statement joins the whole lexical table to chunks, revisions and
        documents, and none is prepared: a connection's prepared statements keep the
        generic plan made when the tables were small (``force_generic_plan``), and the
        one anti-join this replaced once ran for minutes on 90k new rows and 1.5M
        postings. Each statement here is planned when it runs, on one table or through
        a unique key."""
        owners = {
            int(partition): str(owner)
            for partition, owner in conn.execute(
                "SELECT partition_id, tenant FROM lexical_partitions "
                "WHERE %(tenant)s::text IS NULL OR tenant = %(tenant)s",
                {"tenant": tenant},
                prepare=False,
            ).fetchall()
        }
        held = conn.execute(
            "SELECT DISTINCT manifest_id, partition_id FROM lexical_rows "
            "WHERE partition_id = ANY(%s)",
            (list(owners),),
            prepare=False,
        ).fetchall()
        current = {
            (str(manifest_id), str(owner))
            for manifest_id, owner in conn.execute(
                "SELECT r.manifest_id, r.tenant FROM revisions r JOIN documents d "
                "ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "AND d.current_revision = r.revision "
                "WHERE r.manifest_id = ANY(%s) AND r.state = 'READY'",
                (sorted({str(m) for m, _ in held}),),
                prepare=False,
            ).fetchall()
        }
        # partition → its representations that are current in its tenant, or not
        kept: dict[int, list[str]] = {}
        gone: dict[int, list[str]] = {}
        for manifest_id, partition in held:
            ok = (str(manifest_id), owners[int(partition)]) in current
            (kept if ok else gone).setdefault(int(partition), []).append(str(manifest_id))
        removed = 0
        for partition, manifests in sorted(gone.items()):
            removed += self._evict(
                conn,
                "partition_id = %s AND manifest_id = ANY(%s)",
                (partition, manifests),
                prepare=False,
            )
        for partition, manifests in sorted(kept.items()):
            # rows of a current representation that are not one of its chunks
            removed += self._evict(
                conn,
                "partition_id = %s AND manifest_id = ANY(%s) AND NOT EXISTS "
                "(SELECT 1 FROM chunks c WHERE c.rowid = lexical_rows.rowid "
                "AND c.manifest_id = lexical_rows.manifest_id)",
                (partition, manifests),
                prepare=False,
            )
        # postings of no row: a set difference (hashed or sorted, never a join order
        # to guess), then a delete by those ids
        stray = conn.execute(
            "DELETE FROM lexical_postings WHERE rowid = ANY(ARRAY("
            "SELECT rowid FROM lexical_postings EXCEPT SELECT rowid FROM lexical_rows)) "
            "RETURNING partition_id",
            prepare=False,
        ).fetchall()
        # a posting counts in its term's document frequency (BM25) until it is gone
        self._touch({int(row[0]) for row in stray})
        removed += len(stray)
        # generations of partitions pruned by writes beside others (this runs alone)
        conn.execute(
            "DELETE FROM lexical_generations g WHERE NOT EXISTS "
            "(SELECT 1 FROM lexical_partitions p WHERE p.partition_id = g.partition_id)",
            prepare=False,
        )
        if removed:
            self._prune(conn)
            self.bump(conn)
        return removed

    def remove_orphans_of(
        self, conn: psycopg.Connection[Any], tenant: str, document_id: str
    ) -> int:
        """:meth:`remove_orphans` for what one document can have left, found by ids:
        lexical rows of its representations that are not current and READY, or that
        are not one of their chunks or lie outside its tenant's partitions, and
        postings of its chunks' rows that no lexical row holds. Returns how many.

        Every statement reads through an index by the document's ids (its manifests,
        their chunks' rowids), so a sweep costs what the document has, not what the
        store has (the whole-store sweep reads every posting). None is prepared: a
        generic plan made while the tables were small is what made the anti-join this
        replaces run for minutes (bench/pg_orphan_plans.py). Postings of chunk rows
        that no longer exist at all (an older version replaced them) name no
        document: :meth:`remove_orphans` finds those."""
        manifests = [
            str(row[0])
            for row in conn.execute(
                "SELECT manifest_id FROM manifests WHERE tenant = %s AND document_id = %s",
                (tenant, document_id),
                prepare=False,
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
                "WHERE d.tenant = %s AND d.document_id = %s AND r.state = 'READY'",
                (tenant, document_id),
                prepare=False,
            ).fetchall()
        }
        partitions = {
            int(row[0])
            for row in conn.execute(
                "SELECT partition_id FROM lexical_partitions WHERE tenant = %s",
                (tenant,),
                prepare=False,
            ).fetchall()
        }
        # Each statement looks rows up by ids through an index; the comparisons are
        # made here, so that no plan can choose to scan a table (on tables not yet
        # analyzed, a NOT EXISTS or an anti-join was planned as a scan of all chunks
        # or of all lexical rows).
        chunk_rows = {
            int(rowid): str(manifest_id)
            for rowid, manifest_id in conn.execute(
                "SELECT rowid, manifest_id FROM chunks WHERE manifest_id = ANY(%s)",
                (manifests,),
                prepare=False,
            ).fetchall()
        }
        removed = 0
        stale = [m for m in manifests if m not in current]
        if stale:
            removed += self._evict(conn, "manifest_id = ANY(%s)", (stale,), prepare=False)
        kept = [m for m in manifests if m in current]
        if kept:
            # rows of a current representation that are not one of its chunks, or lie
            # outside its tenant's partitions
            doomed = [
                int(rowid)
                for rowid, manifest_id, partition_id in conn.execute(
                    "SELECT rowid, manifest_id, partition_id FROM lexical_rows "
                    "WHERE manifest_id = ANY(%s)",
                    (kept,),
                    prepare=False,
                ).fetchall()
                if int(partition_id) not in partitions
                or chunk_rows.get(int(rowid)) != str(manifest_id)
            ]
            if doomed:
                removed += self._evict(conn, "rowid = ANY(%s)", (doomed,), prepare=False)
        # postings of the document's chunk rows that no lexical row holds
        held = {
            int(row[0])
            for row in conn.execute(
                "SELECT rowid FROM lexical_rows WHERE rowid = ANY(%s)",
                (list(chunk_rows),),
                prepare=False,
            ).fetchall()
        }
        stray = [rowid for rowid in chunk_rows if rowid not in held]
        if stray:
            gone = conn.execute(
                "DELETE FROM lexical_postings WHERE rowid = ANY(%s) RETURNING partition_id",
                (stray,),
                prepare=False,
            ).fetchall()
            self._touch({int(row[0]) for row in gone})
            removed += len(gone)
        if removed:
            self._prune(conn)
            self.bump(conn)
        return removed

    def regroup(
        self, conn: psycopg.Connection[Any], tenant: str, document_id: str, revision: str
    ) -> None:
        """Move a revision's lexical rows to the partition of its reader groups now
        (inside the transaction that changed the groups, after the change)."""
        manifests = conn.execute(
            "SELECT DISTINCT l.manifest_id, l.partition_id FROM lexical_rows l "
            "JOIN manifests m ON m.manifest_id = l.manifest_id "
            "WHERE m.tenant=%s AND m.document_id=%s AND m.revision=%s",
            (tenant, document_id, revision),
        ).fetchall()
        for manifest_id, source in manifests:
            target = self._partition(conn, tenant, self._manifest_groups(conn, str(manifest_id)))
            if target == int(source):
                continue
            moved = conn.execute(
                "UPDATE lexical_rows SET partition_id=%s WHERE manifest_id=%s AND partition_id=%s "
                "RETURNING rowid, length",
                (target, manifest_id, source),
            ).fetchall()
            conn.execute(
                "UPDATE lexical_postings SET partition_id=%s WHERE rowid = ANY(%s)",
                (target, [int(r[0]) for r in moved]),
            )
            rows, tokens = len(moved), sum(int(r[1]) for r in moved)
            self._count(int(source), -rows, -tokens)
            self._count(target, rows, tokens)
            self._touch([int(source), target])
        self._prune(conn)
        self.bump(conn)

    def write_vectors(self, embedder_key: str, rows: Sequence[tuple[str, bytes]]) -> None:
        # upserts keyed by chunk: beside other writes (a swap of embedders is exclusive)
        with self._store.shared_transaction() as conn:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO embeddings(chunk_id, embedder_key, vector) VALUES(%s,%s,%s) "
                    "ON CONFLICT(chunk_id, embedder_key) DO UPDATE SET vector=excluded.vector",
                    [
                        (chunk_id, embedder_key, np.frombuffer(blob, dtype="<f4"))
                        for chunk_id, blob in rows
                    ],
                )
            # A reader's vector matrix is keyed by its partitions' generations: the
            # partitions of the chunks whose vectors changed take new ones (a chunk
            # with no lexical row is not current: no scope reads its vector). Vectors
            # of an embedder the index does not record (a reindex before its swap)
            # are read by no search: the swap, which runs alone, touches every
            # partition.
            recorded = conn.execute(
                "SELECT value FROM settings WHERE key='embedder_key'"
            ).fetchone()
            if recorded is not None and str(recorded[0]) == embedder_key:
                self._touch(
                    int(row[0])
                    for row in conn.execute(
                        "SELECT DISTINCT l.partition_id FROM chunks c "
                        "JOIN lexical_rows l ON l.rowid = c.rowid "
                        "AND l.manifest_id = c.manifest_id WHERE c.chunk_id = ANY(%s)",
                        ([chunk_id for chunk_id, _ in rows],),
                    ).fetchall()
                )
            self.bump(conn)

    def swap_embedder(self, embedder_key: str, spec: str) -> None:
        """Record the embedder of the index and drop other embedders' vectors, at once."""
        with self._store.transaction() as conn:
            for key, value in (("embedder_key", embedder_key), ("embedder_spec", spec)):
                conn.execute(
                    "INSERT INTO settings(key, value) VALUES(%s, %s) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (key, value),
                )
            conn.execute("DELETE FROM embeddings WHERE embedder_key <> %s", (embedder_key,))
            for (name,) in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'embeddings' "
                "AND indexname LIKE 'embeddings\\_hnsw\\_%%' AND indexname <> %s",
                (ann_index_name(embedder_key),),
            ).fetchall():
                conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name)))
            # Built here, after the vectors are in (faster than row by row), in the
            # transaction of the swap: readers see the new embedder with its index.
            conn.execute(
                "SELECT set_config('maintenance_work_mem', %s, true)", (_ANN_BUILD_MEMORY,)
            )
            conn.execute(ANN_SQL)
            # Vectors of any partition may be gone, and the index's embedder is the
            # store's: every partition takes a new generation (an operator's reindex).
            self._touch(
                int(row[0])
                for row in conn.execute("SELECT partition_id FROM lexical_partitions").fetchall()
            )
            self.bump(conn)

    # -- reading -------------------------------------------------------------------

    def languages(self, scope: Scope) -> set[str | None]:
        """Languages of the current representations the scope can search.

        Kept in the database (``scope_languages``, migration 9) under the scope's
        partition generations, as SQLite keeps them (schema 32): a command's process
        finds the set its scope's last query stored instead of reading every
        representation the scope may read. The generations and the set are read by one
        statement (one snapshot), so a set is never kept under generations it was not
        read at; any write the scope can see gives one of its partitions a new
        generation, so a stored set is used only while it is still the scope's.
        """
        params = {**_params(scope), "scope_key": scope_digest(scope)}
        with self._store.read() as conn:
            if conn.info.transaction_status is not pq.TransactionStatus.IDLE:
                # inside a caller's transaction: its writes may yet be rolled back
                return _language_set(_one(conn, _SCOPE_LANGUAGES, params)[1])
            try:
                with conn.transaction():
                    # a lock on the table (a TRUNCATE left open) is not waited for
                    conn.execute(f"SET LOCAL lock_timeout = '{_LANGUAGES_LOCK_TIMEOUT}'")
                    now, generations, stored = _one(conn, _STORED_LANGUAGES, params)
            except psycopg.errors.LockNotAvailable:
                return _language_set(_one(conn, _SCOPE_LANGUAGES, params)[1])
            if generations is not None and generations == now:
                return _language_set(stored)
            generations, languages = _one(conn, _SCOPE_LANGUAGES, params)
            _remember_languages(conn, str(params["scope_key"]), generations, languages)
        return _language_set(languages)

    def lexical(self, match: str, scope: Scope, limit: int) -> list[tuple[str, float]]:
        """``(chunk_id, bm25)`` best first; bm25 here is positive, higher is better.

        One statement (one snapshot): the scope's partitions, their statistics, the
        postings of the query terms in them, BM25 per row, the permission join, and
        the top ``limit`` of what remains, so the result is exactly the top ``limit``
        of the permitted rows.
        """
        terms = _terms(match)
        if not terms:
            return []
        with self._store.read() as conn:
            # Prepared: planning this statement costs more than running it on a
            # small scope, and its plan depends on no value.
            rows = conn.execute(
                _RANKED, {**_params(scope), "terms": terms, "limit": limit}, prepare=True
            ).fetchall()
        return [(str(row[0]), float(row[1])) for row in rows]

    def term_statistics(self, scope: Scope, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """Row count and document frequency of each term over the scope's partitions."""
        with self._store.read() as conn:
            total = _one(
                conn,
                f"SELECT COALESCE(SUM(rows), 0) FROM lexical_partitions "
                f"WHERE partition_id IN ({_PARTITIONS})",
                _params(scope),
            )
            found = conn.execute(
                f"SELECT term, COUNT(*) FROM lexical_postings WHERE term = ANY(%(terms)s) "
                f"AND partition_id IN ({_PARTITIONS}) GROUP BY term",
                {**_params(scope), "terms": list(terms)},
            ).fetchall()
        frequencies: dict[str, int] = dict.fromkeys(terms, 0)
        frequencies.update({str(term): int(count) for term, count in found})
        return int(total[0]), frequencies

    def terms_in_language(self, scope: Scope, terms: Sequence[str], language: str) -> set[str]:
        """Of these terms, those that a row of the scope's partitions holds in a
        representation of ``language``."""
        with self._store.read() as conn:
            found = conn.execute(
                "SELECT DISTINCT p.term FROM lexical_postings p "
                "JOIN lexical_rows r ON r.rowid = p.rowid "
                "JOIN representations rep ON rep.manifest_id = r.manifest_id "
                f"WHERE p.term = ANY(%(terms)s) AND p.partition_id IN ({_PARTITIONS}) "
                "AND rep.language = %(language)s",
                {**_params(scope), "terms": list(terms), "language": language},
            ).fetchall()
        return {str(row[0]) for row in found}

    def permitted_vectors(self, embedder_key: str, scope: Scope) -> Iterator[tuple[str, bytes]]:
        """``(chunk_id, vector blob)`` of every current chunk the scope may read (the
        scope decided in the query; the blob is little-endian float32, as stored by
        the SQLite backend)."""
        with self._store.read() as conn:
            rows = conn.execute(
                'SELECT c.chunk_id, e.vector, d.document_id, c.start, c."end" FROM chunks c '
                "JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.embedder_key = %(key)s "
                + _PERMITTED,
                {**_params(scope), "key": embedder_key},
            ).fetchall()
        # in tie_keys order, sorted here by code point (a collation may order otherwise)
        rows.sort(key=lambda row: (str(row[2]), int(row[3]), int(row[4])))
        for chunk_id, vector, *_ in rows:
            values = vector.to_numpy() if hasattr(vector, "to_numpy") else vector
            yield str(chunk_id), np.asarray(values, dtype="<f4").tobytes()

    def tie_keys(self, chunk_ids: Sequence[str]) -> dict[str, tuple[str, int, int]]:
        """``chunk_id → (document id, start, end)``: the order of equal scores."""
        with self._store.read() as conn:
            rows = conn.execute(
                'SELECT c.chunk_id, m.document_id, c.start, c."end" FROM chunks c '
                "JOIN manifests m ON m.manifest_id = c.manifest_id "
                "WHERE c.chunk_id = ANY(%s)",
                (list(chunk_ids),),
            ).fetchall()
        return {str(row[0]): (str(row[1]), int(row[2]), int(row[3])) for row in rows}

    def nearest(
        self, embedder_key: str, scope: Scope, vector: bytes, limit: int
    ) -> list[tuple[str, float]] | None:
        """``(chunk_id, inner product)`` of the ``limit`` permitted chunks nearest to
        ``vector`` (little-endian float32), best first, through the HNSW index; None
        when the scope has fewer than :data:`ANN_MIN_ROWS` rows or the embedder no
        index (the caller then scans the permitted vectors exactly)."""
        query = np.frombuffer(vector, dtype="<f4")
        with self._store.read() as conn, conn.transaction():
            permitted = _one(
                conn,
                f"SELECT COALESCE(SUM(rows), 0) FROM lexical_partitions "
                f"WHERE partition_id IN ({_PARTITIONS})",
                _params(scope),
            )
            if int(permitted[0]) < self.ann_min_rows or not self._has_ann(conn, embedder_key):
                return None
            found = self._ann(conn, embedder_key, scope, query, limit)
            if len(found) < min(limit, int(permitted[0])):
                # The iterative scan spent its budget before it found ``limit``
                # permitted rows (a scope that reads a small share): exactly, then.
                found = self._exact(conn, embedder_key, scope, query, limit)
        return found

    @staticmethod
    def _has_ann(conn: psycopg.Connection[Any], embedder_key: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM pg_indexes WHERE tablename = 'embeddings' AND indexname = %s",
            (ann_index_name(embedder_key),),
        ).fetchone()
        return row is not None

    @staticmethod
    def ann_statement(embedder_key: str, dimension: int, exact: bool = False) -> sql.Composed:
        """The nearest-neighbour query: the HNSW index's expression (a cast to the
        embedder's dimension) or, ``exact``, one the index does not serve. The key is
        a literal: the partial index's predicate must be provable at planning, and
        the store's statements have generic plans."""
        cast = sql.SQL("vector({})").format(sql.Literal(dimension))
        distance = (
            sql.SQL("e.vector <#> %(query)s::vector")
            if exact
            else sql.SQL("(e.vector::{cast}) <#> %(query)s::{cast}").format(cast=cast)
        )
        return sql.SQL(
            'SELECT c.chunk_id, {distance}, d.document_id, c.start, c."end" FROM embeddings e '
            "JOIN chunks c ON c.chunk_id = e.chunk_id {permitted} "
            "AND e.embedder_key = {key} ORDER BY {distance}{ties} LIMIT %(limit)s"
        ).format(
            distance=distance,
            # the exact query sorts every permitted row: equal products in tie_keys
            # order there (the index serves no second key)
            ties=sql.SQL(', d.document_id COLLATE "C", c.start, c."end"' if exact else ""),
            permitted=sql.SQL(_PERMITTED),
            key=sql.Literal(embedder_key),
        )

    def _ann(
        self,
        conn: psycopg.Connection[Any],
        embedder_key: str,
        scope: Scope,
        query: np.ndarray[Any, Any],
        limit: int,
    ) -> list[tuple[str, float]]:
        """Through the HNSW index where the planner takes it, the scope inside an
        iterative scan (strict order), or the scope's rows sorted where it has few."""
        for name, value in (
            ("hnsw.iterative_scan", "strict_order"),
            ("hnsw.ef_search", str(min(1000, max(_ANN_EF_SEARCH, limit)))),
            ("hnsw.max_scan_tuples", str(_ANN_MAX_SCAN_TUPLES)),
        ):
            conn.execute("SELECT set_config(%s, %s, true)", (name, value))
        return self._ranked(conn, embedder_key, scope, query, limit, exact=False)

    def _exact(
        self,
        conn: psycopg.Connection[Any],
        embedder_key: str,
        scope: Scope,
        query: np.ndarray[Any, Any],
        limit: int,
    ) -> list[tuple[str, float]]:
        return self._ranked(conn, embedder_key, scope, query, limit, exact=True)

    def _ranked(
        self,
        conn: psycopg.Connection[Any],
        embedder_key: str,
        scope: Scope,
        query: np.ndarray[Any, Any],
        limit: int,
        exact: bool,
    ) -> list[tuple[str, float]]:
        # One row more than asked, to order a tie at the ``limit``-th place by content
        # too (an HNSW scan is approximate: rows beyond may still tie).
        rows = conn.execute(
            self.ann_statement(embedder_key, len(query), exact),
            {**_params(scope), "query": query, "limit": limit + 1},
        ).fetchall()
        ranked = sorted(
            (
                (-float(negative), (str(doc), int(start), int(end)), str(chunk_id))
                for chunk_id, negative, doc, start, end in rows
            ),
            key=lambda item: (-item[0], item[1]),
        )
        return [(chunk_id, score) for score, _, chunk_id in ranked[:limit]]

    def representation_languages(self, manifest_ids: Sequence[str]) -> dict[str, str]:
        with self._store.read() as conn:
            rows = conn.execute(
                "SELECT manifest_id, language FROM representations "
                "WHERE language IS NOT NULL AND manifest_id = ANY(%s)",
                (list(manifest_ids),),
            ).fetchall()
        return {str(row[0]): str(row[1]) for row in rows}

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str | None]:
        with self._store.read() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id, rep.language FROM chunks c "
                "JOIN representations rep ON rep.manifest_id = c.manifest_id "
                "WHERE c.chunk_id = ANY(%s)",
                (list(chunk_ids),),
            ).fetchall()
        return {str(row[0]): None if row[1] is None else str(row[1]) for row in rows}

    def vectors_of(self, embedder_key: str, chunk_ids: Sequence[str]) -> dict[str, bytes]:
        """The vector of each of these chunks that has one of this embedder (as
        little-endian float32 bytes, like :meth:`permitted_vectors`)."""
        with self._store.read() as conn:
            rows = conn.execute(
                "SELECT chunk_id, vector FROM embeddings WHERE embedder_key = %s "
                "AND chunk_id = ANY(%s)",
                (embedder_key, list(chunk_ids)),
            ).fetchall()
        found: dict[str, bytes] = {}
        for chunk_id, vector in rows:
            values = vector.to_numpy() if hasattr(vector, "to_numpy") else vector
            found[str(chunk_id)] = np.asarray(values, dtype="<f4").tobytes()
        return found

    def missing_vectors(self, manifest_id: str, embedder_key: str) -> int:
        with self._store.read() as conn:
            row = _one(
                conn,
                "SELECT COUNT(*) FROM chunks c WHERE c.manifest_id = %s AND NOT EXISTS "
                "(SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id "
                "AND e.embedder_key = %s)",
                (manifest_id, embedder_key),
            )
        return int(row[0])

    def chunks_without_vectors(self, embedder_key: str) -> list[tuple[str, str]]:
        with self._store.read() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id, c.manifest_id FROM chunks c "
                "JOIN revisions r ON r.manifest_id = c.manifest_id "
                "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "AND d.current_revision = r.revision "
                "WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id "
                "AND e.embedder_key = %s) ORDER BY c.manifest_id, c.ordinal",
                (embedder_key,),
            ).fetchall()
        return [(str(row[0]), str(row[1])) for row in rows]


def _groups_key(groups: frozenset[str]) -> str:
    return json.dumps(sorted(groups))
