"""The scale-out store: PostgreSQL (with pgvector) for rows, vectors and originals.

Connections come from a psycopg 3 pool; a thread's write transaction holds one
connection, and reads outside it borrow one per statement. Reads never wait (MVCC).
A revision becomes visible whole or not at all because its rows are committed in
one transaction.

Write transactions take advisory locks first (transaction-scoped, see
:class:`_Lock`): a write of one document takes that document's lock, so writes of
one document serialize as SQLite's ``BEGIN IMMEDIATE`` serializes every write (one
revision per bytes, revision numbers without gaps or repeats, revision order), while
writes of different documents run at once (workers gain from ``SKIP LOCKED``). Rows
several documents share (partition counters and generations, the index generation)
are updated in place, so row locks order them. What spans documents (deleting a document and
sweeping the index, purges, retention, keys, settings, the embedder) takes the
global lock exclusively, and every other write takes it shared: such a transaction
runs alone, as every write did before.

Nothing correctness-relevant is cached in the process: access, keys, revisions and
currency are read at each request; only immutable texts and parsed rows are kept,
and dropped when any process deletes (the erasure counter, as in SQLite).
"""

from __future__ import annotations

import enum
import json
import os
import secrets
import socket
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

from ragox.anchor import Anchor, Manifest, forget_memos
from ragox.extract import Block
from ragox.store._answers import (
    RETENTION_SQL,
    purge_answers,
    redact_answers,
    retention_policy,
    store_retention,
)
from ragox.store._blobs import BLOBS_VARIABLE, Blobs, open_blobs
from ragox.store._errors import RevisionConflict, StoreError, utc_now
from ragox.store._files import private_folder
from ragox.store._hits import HitSource
from ragox.store._interface import COMPACT_SEGMENTS
from ragox.store._queue import POSTGRES, SqlJobQueue
from ragox.store._records import (
    OPEN_JOB_STATES,
    AnswerRedactor,
    CheckRun,
    ChunkRecord,
    DocumentRecord,
    ExtractionNotes,
    JobRecord,
    JobState,
    KeyInfo,
    KeyRecord,
    LexicalRows,
    ManifestRecord,
    ProcessingVersions,
    PurgeCounts,
    RetentionPolicy,
    RevisionFacts,
    RevisionReads,
    RevisionRecord,
    RevisionState,
    RevisionView,
    StoredAnchor,
)
from ragox.store._rows import (
    IN_PROGRESS,
    JOB_COLUMNS,
    REVISION_COLUMNS,
    anchor_from_json,
    block_from_row,
    block_ranges_json,
    block_row,
    chunk_from_row,
    forget_json_memos,
    job_record,
    manifest_from_json,
    revision_record,
)
from ragox.store._status import facts_by_joins, read_status, read_status_facts
from ragox.store._textcache import TextLru
from ragox.store.postgres._blobs import PostgresBlobs
from ragox.store.postgres._index import PostgresIndex
from ragox.store.postgres._schema import MIGRATIONS, SCHEMA_VERSION
from ragox.text import Alignment

__all__ = ["PostgresStore"]

_TEXT_CACHE_SIZE: Final = 256
_TEXT_CACHE_CODE_POINTS: Final = 16 * 1024 * 1024
_BLOCK_LENGTHS_SIZE: Final = 4096
#: the advisory lock every write transaction takes first, shared or exclusive (an
#: arbitrary constant in the one-bigint key space)
_WRITE_LOCK: Final = 0x7261676F78
#: the first key of a document's advisory lock (the two-int4 key space, which never
#: meets the bigint one); the second is a hash of tenant and document id
_DOCUMENT_LOCKS: Final = 0x72676F78
#: the advisory lock of schema migrations (another constant)
_MIGRATE_LOCK: Final = 0x7261676F79

Connection = psycopg.Connection[Any]


def _storable(*keys: str) -> bool:
    """Whether PostgreSQL can hold these key values (text holds no NUL): a key with NUL
    names no stored row, as on SQLite, instead of failing the query."""
    return not any("\x00" in key for key in keys)


def _readable(params: Any) -> bool:
    """Whether a lookup's text parameters can name stored rows: no stored text holds
    NUL, so a lookup by a key with NUL (an answer or anchor id from a request) finds
    nothing, as on SQLite, instead of failing the query (every read through
    ``_fetchone``/``_fetchall`` matches its text parameters by equality or range)."""
    if not isinstance(params, (tuple, list)):
        return True
    return _storable(*(value for value in params if isinstance(value, str)))


class _Lock(enum.IntEnum):
    """How much of the store a write transaction holds (ordered: more is larger)."""

    #: the global lock shared: writes of rows no check-then-write depends on across
    #: statements (job leases, heartbeats, answers, anchors, vectors)
    SHARED = 1
    #: shared, and the lock of each document the transaction writes
    DOCUMENT = 2
    #: the global lock alone: nothing else writes meanwhile
    EXCLUSIVE = 3


def _document_key(tenant: str, document_id: str) -> str:
    """The text whose hash names a document's lock (the tenant's length first: no two
    pairs give one text)."""
    return f"{len(tenant)}:{tenant}/{document_id}"


def _configure(conn: Connection) -> None:
    """Each pooled connection: pgvector's types, and generic plans for prepared
    statements (the ranking query takes longer to plan than to run, and none of the
    store's statements has a plan that should follow its values)."""
    register_vector(conn)
    conn.execute("SET plan_cache_mode = force_generic_plan")


def _one(conn: Connection, query: str, params: Any = None) -> Any:
    """The one row a query returns (an aggregate)."""
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row


def pool_size() -> int:
    """Connections per process (``RAGOX_PG_POOL``, default 8)."""
    try:
        return max(1, int(os.environ.get("RAGOX_PG_POOL", "8")))
    except ValueError:
        return 8


class PostgresStore:
    """PostgreSQL implementation of the store interface.

    ``home`` stays the folder of this process's local files (the manifest key,
    the page-render cache); everything shared lives in the database at ``url``.
    """

    def __init__(self, url: str, home: Path) -> None:
        private_folder(home)
        self.home = home
        self.url = url
        self._local = threading.local()
        self._texts = TextLru()
        self._block_lengths: dict[str, int] = {}
        self._texts_lock = threading.Lock()
        self._pool_lock = threading.Lock()
        #: the thread that opened the store: only its close() closes the pool
        self._owner = threading.get_ident()
        self._opened: ConnectionPool[Any] | None = None
        try:
            self._migrate()
            self._pool.check()
        except psycopg.Error as error:
            raise StoreError(f"cannot open the PostgreSQL store: {type(error).__name__}") from None
        # originals in the database, or where RAGOX_BLOBS says (an object store)
        self.blobs: Blobs = (
            open_blobs(home)
            if os.environ.get(BLOBS_VARIABLE, "").strip()
            else PostgresBlobs(self, home / "blob-cache")
        )
        self.queue = SqlJobQueue(
            self.transaction,
            self.read,
            POSTGRES,
            document_transaction=self.document_transaction,
            row_transaction=self.shared_transaction,
        )
        self.index = PostgresIndex(self)
        self._erasures_seen = self._erasures()

    # -- connections and transactions -------------------------------------------

    @property
    def _pool(self) -> ConnectionPool[Any]:
        """The connection pool, opened on first use (again after :meth:`close`, as the
        SQLite store reconnects a closed thread's connection)."""
        with self._pool_lock:
            if self._opened is None:
                self._opened = ConnectionPool(
                    self.url,
                    min_size=1,
                    max_size=pool_size(),
                    kwargs={"autocommit": True},
                    configure=_configure,
                    open=True,
                )
            return self._opened

    def close(self) -> None:
        """Close the pool, when called by the thread that opened the store. Another
        thread (a job's heartbeat or lease keeper, which closes "its connection" as
        it ends, as the SQLite store wants) holds no connection of its own here: its
        statements borrowed and returned pooled ones, so nothing is closed for it,
        and the owner's work goes on."""
        if threading.get_ident() != self._owner:
            return
        with self._pool_lock:
            pool, self._opened = self._opened, None
        if pool is not None:
            pool.close()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction that runs alone (the global lock, exclusive); nested
        use joins the outer one, which must hold as much."""
        with self._write(_Lock.EXCLUSIVE) as conn:
            yield conn

    @contextmanager
    def shared_transaction(self) -> Iterator[Connection]:
        """One write transaction beside others (the global lock, shared): for writes
        that row locks order (no check in one statement and write in another)."""
        with self._write(_Lock.SHARED) as conn:
            yield conn

    @contextmanager
    def document_transaction(self, tenant: str, document_id: str) -> Iterator[Connection]:
        """One write transaction holding the document's lock until it ends: another
        write of that document waits, writes of other documents do not. Nested use
        joins the outer one and adds this document's lock."""
        with self._write(_Lock.DOCUMENT, (tenant, document_id)) as conn:
            yield conn

    @contextmanager
    def _manifest_transaction(self, manifest_id: str) -> Iterator[Connection]:
        """:meth:`document_transaction` of the document a manifest belongs to (a
        manifest row never changes its document), or an exclusive one for an unknown
        manifest."""
        row = self._fetchone(
            "SELECT tenant, document_id FROM manifests WHERE manifest_id=%s", (manifest_id,)
        )
        if row is None:
            with self.transaction() as conn:
                yield conn
            return
        with self.document_transaction(str(row[0]), str(row[1])) as conn:
            yield conn

    @contextmanager
    def _write(self, lock: _Lock, document: tuple[str, str] | None = None) -> Iterator[Connection]:
        current: Connection | None = getattr(self._local, "conn", None)
        if current is not None:
            held: _Lock = self._local.lock
            if lock is _Lock.EXCLUSIVE and held is not _Lock.EXCLUSIVE:
                # a shared lock never becomes exclusive inside a transaction: two such
                # upgrades at once would wait for each other
                raise StoreError("an exclusive write nested in a shared transaction")
            if document is not None and held is not _Lock.EXCLUSIVE:
                self._lock_document(current, document)
                self._local.lock = max(held, _Lock.DOCUMENT)
            yield current
            return
        index: PostgresIndex | None = getattr(self, "index", None)
        with self._pool.connection() as conn:
            try:
                with conn.transaction():
                    if lock is _Lock.EXCLUSIVE:
                        conn.execute("SELECT pg_advisory_xact_lock(%s::bigint)", (_WRITE_LOCK,))
                    else:
                        conn.execute(
                            "SELECT pg_advisory_xact_lock_shared(%s::bigint)", (_WRITE_LOCK,)
                        )
                    if document is not None:
                        self._lock_document(conn, document)
                    self._local.conn, self._local.lock = conn, lock
                    yield conn
                    if index is not None:
                        index.flush_bump(conn)
            finally:
                self._local.conn = None
                if index is not None:
                    index.discard_bump()

    @staticmethod
    def _lock_document(conn: Connection, document: tuple[str, str]) -> None:
        conn.execute(
            "SELECT pg_advisory_xact_lock(%s::int4, hashtext(%s))",
            (_DOCUMENT_LOCKS, _document_key(*document)),
        )

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """The thread's open transaction, or a pooled connection (autocommit)."""
        current: Connection | None = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._pool.connection() as conn:
            yield conn

    def _fetchone(self, query: str, params: Any = None) -> Any:
        if not _readable(params):
            return None
        with self.read() as conn:
            return conn.execute(query, params).fetchone()

    def _fetchall(self, query: str, params: Any = None) -> list[Any]:
        if not _readable(params):
            return []
        with self.read() as conn:
            return conn.execute(query, params).fetchall()

    @staticmethod
    def _many(conn: Connection, query: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            with conn.cursor() as cursor:
                cursor.executemany(query, rows)

    def _migrate(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS ragox_schema "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            row = conn.execute(
                "SELECT value FROM ragox_schema WHERE key='schema_version'"
            ).fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"database schema {version} is newer than this ragox ({SCHEMA_VERSION})"
                )
            for number, script in MIGRATIONS:
                if number > version:
                    for statement in script:
                        conn.execute(statement)
                    conn.execute(
                        "INSERT INTO ragox_schema(key, value) VALUES('schema_version', %s) "
                        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                        (str(number),),
                    )

    def schema_version(self) -> int:
        row = self._fetchone("SELECT value FROM ragox_schema WHERE key='schema_version'")
        return int(row[0])

    # -- erasure ------------------------------------------------------------------
    #
    # Deleting a document or purging records bumps a counter in the database. Every
    # store (any process, any machine) compares it before it reads text and, when it
    # moved, drops everything it remembers of texts and quotes.

    def _erasures(self) -> int:
        row = self._fetchone("SELECT value FROM settings WHERE key='erasure_generation'")
        return 0 if row is None else int(row[0])

    def _bump_erasures(self, conn: Connection) -> None:
        conn.execute(
            "INSERT INTO settings(key, value) VALUES('erasure_generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = (settings.value::bigint + 1)::text"
        )

    def _forget_if_erased(self) -> None:
        seen = self._erasures()
        if seen == self._erasures_seen:
            return
        with self._texts_lock:
            self._texts.clear()
            self._block_lengths.clear()
        forget_json_memos()
        forget_memos()
        if isinstance(self.blobs, PostgresBlobs):
            self.blobs.forget()  # cached copies of deleted originals (S3 checks each use)
        self._erasures_seen = seen

    def truncate_log(self) -> None:
        """Nothing to do: PostgreSQL's WAL is the server operator's (archiving,
        retention); deleted rows are gone from every query at commit."""

    # -- documents ----------------------------------------------------------------
    #
    # A document is keyed by (tenant, document_id): ids are per tenant, and nothing
    # here ever looks a document up by its id alone.

    _DOCUMENT_COLUMNS: Final = "document_id, tenant, current_revision, created_at, language"

    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        if not _storable(tenant, document_id):
            return None
        row = self._fetchone(
            f"SELECT {self._DOCUMENT_COLUMNS} FROM documents WHERE tenant=%s AND document_id=%s",
            (tenant, document_id),
        )
        return DocumentRecord(*row) if row else None

    def tenants(self) -> list[str]:
        """Every tenant with at least one document (for operators' whole-home checks)."""
        rows = self._fetchall("SELECT DISTINCT tenant FROM documents ORDER BY 1")
        return [str(row[0]) for row in rows]

    def manifest_ids(self) -> list[str]:
        """Every stored manifest of every tenant (for ``ragox verify``'s scrub)."""
        rows = self._fetchall("SELECT manifest_id FROM manifests ORDER BY 1")
        return [str(row[0]) for row in rows]

    def source_hashes(self) -> list[str]:
        """The SHA-256 of every stored original (for ``ragox verify``'s scrub)."""
        rows = self._fetchall("SELECT DISTINCT source_sha256 FROM revisions ORDER BY 1")
        return [str(row[0]) for row in rows]

    def save_check_run(self, run: CheckRun) -> None:
        with self.document_transaction(run.tenant, run.document_id) as conn:
            conn.execute(
                "INSERT INTO check_runs(run_id, tenant, document_id, revision, manifest_id, "
                "parser, created_at, chunks, fragments, mismatches) "
                "VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    run.run_id,
                    run.tenant,
                    run.document_id,
                    run.revision,
                    run.manifest_id,
                    run.parser,
                    run.created_at,
                    run.chunks,
                    run.fragments,
                    run.mismatches,
                ),
            )

    def check_runs(self, tenant: str, document_id: str | None = None) -> list[CheckRun]:
        """Recorded check runs of a tenant (or of one document), oldest first."""
        query = (
            "SELECT run_id, tenant, document_id, revision, manifest_id, parser, created_at, "
            "chunks, fragments, mismatches FROM check_runs WHERE tenant=%s"
        )
        params: tuple[str, ...] = (tenant,)
        if document_id is not None:
            query += " AND document_id=%s"
            params = (tenant, document_id)
        rows = self._fetchall(query + " ORDER BY created_at, run_id", params)
        return [CheckRun(*row) for row in rows]

    def list_documents(self, tenant: str) -> list[DocumentRecord]:
        rows = self._fetchall(
            f"SELECT {self._DOCUMENT_COLUMNS} FROM documents WHERE tenant=%s ORDER BY document_id",
            (tenant,),
        )
        return [DocumentRecord(*row) for row in rows]

    def ensure_document(
        self, tenant: str, document_id: str, language: str | None = None
    ) -> DocumentRecord:
        """The document, created if new; ``language`` (ISO 639-1) is recorded when given."""
        with self.document_transaction(tenant, document_id) as conn:
            conn.execute(
                "INSERT INTO documents(tenant, document_id, created_at) VALUES(%s, %s, %s) "
                "ON CONFLICT(tenant, document_id) DO NOTHING",
                (tenant, document_id, utc_now()),
            )
            if language is not None:
                conn.execute(
                    "UPDATE documents SET language=%s WHERE tenant=%s AND document_id=%s",
                    (language, tenant, document_id),
                )
        record = self.get_document(tenant, document_id)
        assert record is not None
        return record

    def delete_document(
        self, tenant: str, document_id: str, redact: AnswerRedactor | None = None
    ) -> bool:
        """Remove a document, its revisions, representations and anchors; answers that
        drew on it are redacted by ``redact`` and lose their traces, in the same
        transaction, and every process drops what it remembers of the text."""
        if not _storable(tenant, document_id):
            return False
        key = (tenant, document_id)
        with self.transaction() as conn:
            found = conn.execute(
                "SELECT 1 FROM documents WHERE tenant=%s AND document_id=%s", key
            ).fetchone()
            if not found:
                return False
            redact_answers(conn, "%s", [(tenant, document_id)], redact)
            self._bump_erasures(conn)
            shas = [
                row[0]
                for row in conn.execute(
                    "SELECT source_sha256 FROM revisions WHERE tenant=%s AND document_id=%s", key
                )
            ]
            for (manifest_id,) in conn.execute(
                "SELECT manifest_id FROM manifests WHERE tenant=%s AND document_id=%s", key
            ).fetchall():
                self.index.drop_manifest(conn, tenant, str(manifest_id))
                conn.execute(
                    "DELETE FROM embeddings WHERE chunk_id IN "
                    "(SELECT chunk_id FROM chunks WHERE manifest_id=%s)",
                    (manifest_id,),
                )
            # Rows a crashed run of an older version left behind are attached to no
            # chunk any drop can find: a deleted document's words must not stay
            # matchable, so deleting also sweeps what the document can have left in
            # the lexical tables (found by its ids, while its chunks are still there).
            self.index.remove_orphans_of(conn, tenant, document_id)
            conn.execute("DELETE FROM documents WHERE tenant=%s AND document_id=%s", key)
            # Blobs are content-addressed and shared: bytes another document (of any
            # tenant) still has stay.
            still_used = (
                {
                    row[0]
                    for row in conn.execute(
                        "SELECT source_sha256 FROM revisions WHERE source_sha256 = ANY(%s)",
                        (shas,),
                    )
                }
                if shas
                else set()
            )
        self._forget_if_erased()
        self.truncate_log()
        for sha in set(shas) - still_used:
            self.blobs.delete(sha)
        return True

    # -- revisions ----------------------------------------------------------------

    def _revision(self, row: Sequence[object]) -> RevisionRecord:
        return revision_record(row, self.groups(str(row[0]), str(row[1]), str(row[2])))

    def get_revision(self, tenant: str, document_id: str, revision: str) -> RevisionRecord | None:
        if not _storable(tenant, document_id, revision):
            return None
        row = self._fetchone(
            f"SELECT {REVISION_COLUMNS} FROM revisions "
            "WHERE tenant=%s AND document_id=%s AND revision=%s",
            (tenant, document_id, revision),
        )
        return self._revision(row) if row else None

    def revisions(self, tenant: str, document_id: str) -> list[RevisionRecord]:
        if not _storable(tenant, document_id):
            return []
        rows = self._fetchall(
            f"SELECT {REVISION_COLUMNS} FROM revisions "
            "WHERE tenant=%s AND document_id=%s ORDER BY seq",
            (tenant, document_id),
        )
        return [self._revision(row) for row in rows]

    def status_reads(
        self,
        tenant: str,
        document_id: str | None = None,
        embedder_key: str | None = None,
        *,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[tuple[DocumentRecord, tuple[RevisionReads, ...]]]:
        return read_status(
            self._fetchall,
            "%s",
            tenant,
            document_id,
            embedder_key,
            after=after,
            limit=limit,
            collate=' COLLATE "C"',  # the byte order SQLite compares ids in
        )

    def status_facts(
        self, tenant: str, embedder_key: str | None = None, with_groups: bool = True
    ) -> tuple[list[RevisionFacts], list[JobRecord]]:
        source = facts_by_joins("(m.json::json ->> '{f}')")
        return read_status_facts(self._fetchall, "%s", tenant, embedder_key, with_groups, source)

    def revision_by_source(
        self, tenant: str, document_id: str, source_sha256: str
    ) -> RevisionRecord | None:
        row = self._fetchone(
            f"SELECT {REVISION_COLUMNS} FROM revisions "
            "WHERE tenant=%s AND document_id=%s AND source_sha256=%s ORDER BY seq DESC LIMIT 1",
            (tenant, document_id, source_sha256),
        )
        return self._revision(row) if row else None

    def create_revision(
        self,
        tenant: str,
        document_id: str,
        revision: str | None,
        source_sha256: str,
        media_type: str,
        filename: str,
        size: int,
        groups: frozenset[str],
        supplied_by: str | None = None,
    ) -> tuple[RevisionRecord, bool]:
        """Add a revision in state RECEIVED; ``revision=None`` numbers it ``r<seq>``, or
        the next free ``r<n>`` when a caller chose that label before (an automatic label
        never collides with a chosen one, so a chosen ``r3`` blocks no later upload).

        The same bytes never make a second revision of a document: when a revision of
        these bytes exists (made by an earlier or a concurrent ingest), it is returned
        with ``False`` instead. The check, the sequence number and the insert share one
        write transaction, so two ingests at once cannot both create one.
        """
        now = utc_now()
        with self.document_transaction(tenant, document_id) as conn:
            row = conn.execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions "
                "WHERE tenant=%s AND document_id=%s AND source_sha256=%s ORDER BY seq DESC LIMIT 1",
                (tenant, document_id, source_sha256),
            ).fetchone()
            if row is not None:
                return self._revision(row), False
            (seq,) = _one(
                conn,
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM revisions "
                "WHERE tenant=%s AND document_id=%s",
                (tenant, document_id),
            )
            label = (
                revision
                if revision is not None
                else self._free_label(conn, tenant, document_id, seq)
            )
            exists = conn.execute(
                "SELECT 1 FROM revisions WHERE tenant=%s AND document_id=%s AND revision=%s",
                (tenant, document_id, label),
            ).fetchone()
            if exists:
                raise RevisionConflict("revision exists with other bytes; revisions are immutable")
            conn.execute(
                "INSERT INTO revisions(tenant, document_id, revision, seq, source_sha256, "
                "media_type, filename, size, state, created_at, updated_at, supplied_by) "
                "VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    tenant,
                    document_id,
                    label,
                    seq,
                    source_sha256,
                    media_type,
                    filename,
                    size,
                    RevisionState.RECEIVED.value,
                    now,
                    now,
                    supplied_by,
                ),
            )
            self._many(
                conn,
                "INSERT INTO revision_groups(tenant, document_id, revision, group_name) "
                "VALUES(%s,%s,%s,%s)",
                [(tenant, document_id, label, group) for group in sorted(groups)],
            )
        record = self.get_revision(tenant, document_id, label)
        assert record is not None
        return record, True

    @staticmethod
    def _free_label(conn: Connection, tenant: str, document_id: str, seq: int) -> str:
        """``r<seq>``, or the first ``r<n>`` above it that no revision of the document has."""
        number = seq
        while conn.execute(
            "SELECT 1 FROM revisions WHERE tenant=%s AND document_id=%s AND revision=%s",
            (tenant, document_id, f"r{number}"),
        ).fetchone():
            number += 1
        return f"r{number}"

    def set_state(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        state: RevisionState,
        *,
        failed_stage: str | None = None,
        error_code: str | None = None,
        error_message: str | None = None,
        job: str | None = None,
        stage: str | None = None,
    ) -> bool:
        """Record a revision's stage; False (and nothing written) for a READY revision.
        ``job``: the running job of this run, whose lease is renewed (with ``stage``)
        in the same transaction (one write instead of two).

        READY is left only by deletion: a rerun that repairs or re-parses a READY
        revision must not take it out of search while it works, nor mark it FAILED
        when the re-parse fails (its stored representation is still valid). Only
        ``make_current`` sets READY.
        """
        with self.document_transaction(tenant, document_id) as conn:
            cursor = conn.execute(
                "UPDATE revisions SET state=%s, failed_stage=%s, error_code=%s, error_message=%s, "
                "updated_at=%s WHERE tenant=%s AND document_id=%s AND revision=%s AND state<>%s",
                (
                    state.value,
                    failed_stage,
                    error_code,
                    error_message,
                    utc_now(),
                    tenant,
                    document_id,
                    revision,
                    RevisionState.READY.value,
                ),
            )
            if job is not None:
                _renew_job(conn, job, stage)
            return cursor.rowcount > 0

    def make_current(
        self, tenant: str, document_id: str, revision: str, lexical: LexicalRows
    ) -> bool:
        """READY, and current if newer than the current revision, in one transaction.

        Order is the order of creation (``seq``), decided inside this transaction:
        whatever finishes first, an older revision never replaces a newer current one
        (it becomes READY and not current, with no index rows). A revision that does
        become current gets its representation's lexical rows here, and the
        document's other representations lose theirs, in the same transaction:
        readers see the old revision or the new one whole, and rows never exist for
        a revision that is not current. Returns whether the revision is current.
        """
        key = (tenant, document_id)
        with self.document_transaction(tenant, document_id) as conn:
            mine = conn.execute(
                "SELECT seq FROM revisions WHERE tenant=%s AND document_id=%s AND revision=%s",
                (*key, revision),
            ).fetchone()
            if mine is None:
                raise StoreError("no such revision")
            current = conn.execute(
                "SELECT r.seq FROM documents d JOIN revisions r ON r.tenant = d.tenant "
                "AND r.document_id = d.document_id AND r.revision = d.current_revision "
                "WHERE d.tenant=%s AND d.document_id=%s",
                key,
            ).fetchone()
            conn.execute(
                "UPDATE revisions SET state=%s, failed_stage=NULL, error_code=NULL, "
                "error_message=NULL, manifest_id=%s, updated_at=%s "
                "WHERE tenant=%s AND document_id=%s AND revision=%s",
                (RevisionState.READY.value, lexical.manifest_id, utc_now(), *key, revision),
            )
            if current is not None and int(current[0]) > int(mine[0]):
                self.index.bump(conn)
                return False
            others = conn.execute(
                "SELECT manifest_id FROM manifests "
                "WHERE tenant=%s AND document_id=%s AND manifest_id <> %s",
                (*key, lexical.manifest_id),
            ).fetchall()
            for (manifest_id,) in others:
                self.index.drop_manifest(conn, tenant, str(manifest_id))
            self.index.write_lexical_rows(
                conn, tenant, lexical.manifest_id, lexical.language, lexical.rows
            )
            self.index.bump(conn)
            conn.execute(
                "UPDATE documents SET current_revision=%s WHERE tenant=%s AND document_id=%s",
                (revision, *key),
            )
            return True

    def index_complete(self, tenant: str, document_id: str, revision: str) -> bool:
        """A READY revision's index is whole: when current, one lexical row per chunk
        of its representation (not current: no rows are expected)."""
        with self.read() as conn:
            row = conn.execute(
                "SELECT r.manifest_id, d.current_revision IS NOT DISTINCT FROM r.revision, "
                "r.state FROM revisions r "
                "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "WHERE r.tenant=%s AND r.document_id=%s AND r.revision=%s",
                (tenant, document_id, revision),
            ).fetchone()
            if row is None or row[0] is None or row[2] != RevisionState.READY.value:
                return False
            if not row[1]:
                return True
            manifest_id = str(row[0])
            rows = self.index.lexical_row_count(conn, tenant, manifest_id)
        return rows == self.chunk_count(manifest_id)

    def remove_index_orphans(
        self, tenant: str | None = None, document_id: str | None = None
    ) -> int:
        """Delete lexical rows of revisions that are not current (crash leftovers of
        older versions), in the whole store or only what one document can have left;
        returns how many."""
        with self.transaction() as conn:
            if tenant is not None and document_id is not None:
                return self.index.remove_orphans_of(conn, tenant, document_id)
            return self.index.remove_orphans(conn)

    def compact_index(self, least_segments: int = COMPACT_SEGMENTS) -> int:
        """PostgreSQL's indexes need no merging after a run of writes: 0."""
        return 0

    # -- jobs ------------------------------------------------------------------------
    #
    # A job is one ingestion run over one revision. It records the process and host
    # that run it and a heartbeat the run renews, so that `status` can tell a run
    # that died (its process is gone, or its lease expired) from one still working.

    def start_job(self, tenant: str, document_id: str, revision: str) -> str:
        job_id = "job_" + secrets.token_hex(12)
        now = utc_now()
        with self.document_transaction(tenant, document_id) as conn:
            conn.execute(
                "INSERT INTO jobs(job_id, tenant, document_id, revision, state, created_at, "
                "pid, host, heartbeat_at) VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    job_id,
                    tenant,
                    document_id,
                    revision,
                    JobState.RUNNING.value,
                    now,
                    os.getpid(),
                    socket.gethostname(),
                    now,
                ),
            )
        return job_id

    def heartbeat(self, job_id: str, stage: str | None = None) -> None:
        """Renew a running job's lease (and record the stage it is in)."""
        with self.shared_transaction() as conn:
            conn.execute(
                "UPDATE jobs SET heartbeat_at=%s, stage=COALESCE(%s, stage) "
                "WHERE job_id=%s AND state=%s",
                (utc_now(), stage, job_id, JobState.RUNNING.value),
            )

    def finish_job(
        self,
        job_id: str,
        state: JobState,
        stage: str | None = None,
        error_code: str | None = None,
    ) -> bool:
        with self.shared_transaction() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state=%s, stage=%s, error_code=%s, finished_at=%s "
                "WHERE job_id=%s AND state IN (%s,%s)",
                (state.value, stage, error_code, utc_now(), job_id, *OPEN_JOB_STATES),
            )
            return bool(cursor.rowcount == 1)

    def end_jobs(
        self, tenant: str, document_id: str, revision: str, job_ids: Sequence[str], error_code: str
    ) -> int:
        """Mark the given jobs of a revision FAILED if they are still RUNNING (an
        operator ends runs that died); returns how many changed."""
        if not job_ids:
            return 0
        with self.document_transaction(tenant, document_id) as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state=%s, error_code=%s, finished_at=%s "
                "WHERE tenant=%s AND document_id=%s AND revision=%s AND state=%s "
                "AND job_id = ANY(%s)",
                (
                    JobState.FAILED.value,
                    error_code,
                    utc_now(),
                    tenant,
                    document_id,
                    revision,
                    JobState.RUNNING.value,
                    list(job_ids),
                ),
            )
            return cursor.rowcount

    def fail_revision(
        self, tenant: str, document_id: str, revision: str, error_code: str, error_message: str
    ) -> RevisionRecord | None:
        """Mark a revision that is not READY as FAILED at the stage it stopped in, and
        its running jobs with it, in one transaction (a READY one is left as it is)."""
        key = (tenant, document_id, revision)
        with self.document_transaction(tenant, document_id) as conn:
            row = conn.execute(
                "SELECT state, failed_stage FROM revisions "
                "WHERE tenant=%s AND document_id=%s AND revision=%s",
                key,
            ).fetchone()
            if row is None:
                return None
            state = RevisionState(row[0])
            if state in IN_PROGRESS:
                stage = (
                    "extract"
                    if state in (RevisionState.RECEIVED, RevisionState.EXTRACTING)
                    else "index"
                )
                conn.execute(
                    "UPDATE revisions SET state=%s, failed_stage=%s, error_code=%s, "
                    "error_message=%s, updated_at=%s "
                    "WHERE tenant=%s AND document_id=%s AND revision=%s",
                    (
                        RevisionState.FAILED.value,
                        stage,
                        error_code,
                        error_message,
                        utc_now(),
                        *key,
                    ),
                )
            conn.execute(
                "UPDATE jobs SET state=%s, error_code=%s, finished_at=%s "
                "WHERE tenant=%s AND document_id=%s AND revision=%s AND state IN (%s,%s)",
                (
                    JobState.FAILED.value,
                    error_code,
                    utc_now(),
                    *key,
                    JobState.RUNNING.value,
                    JobState.QUEUED.value,  # a queued job of it is cancelled
                ),
            )
        return self.get_revision(tenant, document_id, revision)

    def jobs(self, tenant: str, document_id: str, revision: str) -> list[JobRecord]:
        rows = self._fetchall(
            f"SELECT {JOB_COLUMNS} FROM jobs "
            "WHERE tenant=%s AND document_id=%s AND revision=%s ORDER BY created_at",
            (tenant, document_id, revision),
        )
        return [job_record(r) for r in rows]

    # -- access groups --------------------------------------------------------------

    def groups(self, tenant: str, document_id: str, revision: str) -> frozenset[str]:
        rows = self._fetchall(
            "SELECT group_name FROM revision_groups "
            "WHERE tenant=%s AND document_id=%s AND revision=%s",
            (tenant, document_id, revision),
        )
        return frozenset(str(row[0]) for row in rows)

    def set_groups(
        self, tenant: str, document_id: str, revision: str | None, groups: frozenset[str]
    ) -> int:
        """Replace reader groups of one revision, or of all when ``revision`` is None."""
        key = (tenant, document_id)
        with self.document_transaction(tenant, document_id) as conn:
            if revision is None:
                targets = [
                    str(row[0])
                    for row in conn.execute(
                        "SELECT revision FROM revisions WHERE tenant=%s AND document_id=%s", key
                    )
                ]
            else:
                targets = (
                    [revision]
                    if conn.execute(
                        "SELECT 1 FROM revisions "
                        "WHERE tenant=%s AND document_id=%s AND revision=%s",
                        (*key, revision),
                    ).fetchone()
                    else []
                )
            self.index.bump(conn)
            for target in targets:
                conn.execute(
                    "DELETE FROM revision_groups "
                    "WHERE tenant=%s AND document_id=%s AND revision=%s",
                    (*key, target),
                )
                self._many(
                    conn,
                    "INSERT INTO revision_groups(tenant, document_id, revision, group_name) "
                    "VALUES(%s,%s,%s,%s)",
                    [(*key, target, group) for group in sorted(groups)],
                )
                # Lexical rows follow their revision to the partition of its new groups.
                self.index.regroup(conn, tenant, document_id, target)
        return len(targets)

    # -- manifests and representations ---------------------------------------------

    def save_representation(
        self,
        tenant: str,
        manifest: Manifest,
        mac: str,
        text: str,
        alignment: Alignment | None,
        blocks: Sequence[Block],
        char_boxes: bytes | None = None,
        notes: ExtractionNotes | None = None,
        *,
        extracted: bool = False,
        language: str | None = None,
    ) -> str:
        """Store an immutable representation; idempotent by manifest content.
        ``extracted``: the revision (unless READY) becomes EXTRACTED in the same
        transaction.

        One manifest per revision, parser and profile: when two runs extract one
        revision at once, the second to commit gets the first one's manifest id back
        and its own copy is not stored.
        """
        notes = notes or ExtractionNotes(None, (), ())
        manifest_id = manifest.manifest_id
        with self.document_transaction(tenant, manifest.document_id) as conn:
            for row in conn.execute(
                "SELECT m.manifest_id, m.json FROM manifests m "
                "JOIN representations p ON p.manifest_id = m.manifest_id "
                "WHERE m.tenant=%s AND m.document_id=%s AND m.revision=%s AND m.manifest_id<>%s",
                (tenant, manifest.document_id, manifest.revision, manifest_id),
            ).fetchall():
                other = manifest_from_json(str(row[1]))
                if (other.parser, other.parser_config_sha256, other.profile) == (
                    manifest.parser,
                    manifest.parser_config_sha256,
                    manifest.profile,
                ):
                    manifest_id = str(row[0])
                    break
            else:
                self._insert_representation(
                    conn,
                    tenant,
                    manifest,
                    mac,
                    text,
                    alignment,
                    blocks,
                    char_boxes,
                    notes,
                    language,
                )
            # A READY revision keeps serving its current representation until
            # make_current switches to the new one with its index rows.
            conn.execute(
                "UPDATE revisions SET manifest_id=%s, updated_at=%s, "
                "state=CASE WHEN %s THEN %s ELSE state END, "
                "failed_stage=CASE WHEN %s THEN NULL ELSE failed_stage END, "
                "error_code=CASE WHEN %s THEN NULL ELSE error_code END, "
                "error_message=CASE WHEN %s THEN NULL ELSE error_message END "
                "WHERE tenant=%s AND document_id=%s AND revision=%s AND state<>%s",
                (
                    manifest_id,
                    utc_now(),
                    extracted,
                    RevisionState.EXTRACTED.value,
                    extracted,
                    extracted,
                    extracted,
                    tenant,
                    manifest.document_id,
                    manifest.revision,
                    RevisionState.READY.value,
                ),
            )
        if manifest_id == manifest.manifest_id:
            # Indexing reads the text next: hand it the same object instead of a copy.
            self._remember_text(manifest_id, text)
        return manifest_id

    def _insert_representation(
        self,
        conn: Connection,
        tenant: str,
        manifest: Manifest,
        mac: str,
        text: str,
        alignment: Alignment | None,
        blocks: Sequence[Block],
        char_boxes: bytes | None,
        notes: ExtractionNotes,
        language: str | None,
    ) -> None:
        manifest_id = manifest.manifest_id
        exists = conn.execute(
            "SELECT tenant FROM manifests WHERE manifest_id=%s", (manifest_id,)
        ).fetchone()
        if exists and exists[0] != tenant:
            # The manifest names no tenant, so the same document id, revision label,
            # bytes and creation time (to the microsecond) in two tenants would give
            # the same id. Never share the row: this run fails and a retry gets
            # another created_at.
            raise StoreError("manifest id is in use in another tenant")
        if not exists:
            conn.execute(
                "INSERT INTO manifests(manifest_id, tenant, document_id, revision, json, mac, "
                "created_at) VALUES(%s,%s,%s,%s,%s,%s,%s)",
                (
                    manifest_id,
                    tenant,
                    manifest.document_id,
                    manifest.revision,
                    json.dumps(manifest.to_json(), ensure_ascii=False, sort_keys=True),
                    mac,
                    manifest.created_at,
                ),
            )
            conn.execute(
                "INSERT INTO representations(manifest_id, text, alignment, char_boxes, "
                "page_count, pages_without_text, warnings, language) "
                "VALUES(%s,%s,%s,%s,%s,%s,%s,%s)",
                (
                    manifest_id,
                    text,
                    None if alignment is None else alignment.to_bytes(),
                    char_boxes,
                    notes.page_count,
                    json.dumps(list(notes.pages_without_text)),
                    json.dumps(list(notes.warnings)),
                    language,
                ),
            )
            self._many(
                conn,
                'INSERT INTO blocks(manifest_id, block_index, kind, start, "end", locator, '
                "page, x0, y0, x1, y1, source_start, source_end, ocr, cell) "
                "VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                [block_row(manifest_id, block) for block in blocks],
            )

    def find_manifest(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        parser: str,
        parser_config: str,
        profile: str,
    ) -> ManifestRecord | None:
        """An existing representation of these bytes by this parser and profile."""
        for record in self.manifests(tenant, document_id, revision):
            m = record.manifest
            if (m.parser, m.parser_config_sha256, m.profile) == (parser, parser_config, profile):
                return record
        return None

    def manifests(self, tenant: str, document_id: str, revision: str) -> list[ManifestRecord]:
        """Retained representations of a revision, the current one first."""
        key = (tenant, document_id, revision)
        current = self._fetchone(
            "SELECT manifest_id FROM revisions WHERE tenant=%s AND document_id=%s AND revision=%s",
            key,
        )
        current_id = current[0] if current else None
        rows = self._fetchall(
            "SELECT m.manifest_id, m.json, m.mac FROM manifests m "
            "JOIN representations r ON r.manifest_id = m.manifest_id "
            "WHERE m.tenant=%s AND m.document_id=%s AND m.revision=%s ORDER BY m.created_at DESC",
            key,
        )
        records = [
            ManifestRecord(
                manifest=manifest_from_json(str(row[1])),
                manifest_id=str(row[0]),
                mac=str(row[2]),
                current_representation=row[0] == current_id,
            )
            for row in rows
        ]
        records.sort(key=lambda r: not r.current_representation)
        return records

    def get_manifest(self, manifest_id: str) -> ManifestRecord | None:
        row = self._fetchone(
            "SELECT m.json, m.mac, r.manifest_id = m.manifest_id FROM manifests m "
            "LEFT JOIN revisions r ON r.tenant = m.tenant AND r.document_id = m.document_id "
            "AND r.revision = m.revision AND r.manifest_id = m.manifest_id "
            "WHERE m.manifest_id=%s",
            (manifest_id,),
        )
        if not row:
            return None
        return ManifestRecord(
            manifest=manifest_from_json(str(row[0])),
            manifest_id=manifest_id,
            mac=str(row[1]),
            current_representation=bool(row[2]),
        )

    def revision_view(self, tenant: str, document_id: str, revision: str) -> RevisionView | None:
        """Reader groups, currency and retained manifests of a revision, in one read.

        Resolution asks this on every request: one indexed query instead of one each
        for the document, the revision, its groups and its manifests.
        """
        self._forget_if_erased()
        rows = self._fetchall(
            "SELECT d.current_revision IS NOT DISTINCT FROM r.revision, "
            "ARRAY(SELECT g.group_name FROM revision_groups g "
            "WHERE g.tenant = r.tenant AND g.document_id = r.document_id "
            "AND g.revision = r.revision), "
            "m.manifest_id, m.json, m.mac, m.manifest_id IS NOT DISTINCT FROM r.manifest_id "
            "FROM revisions r "
            "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
            "LEFT JOIN manifests m ON m.tenant = r.tenant AND m.document_id = r.document_id "
            "AND m.revision = r.revision AND EXISTS "
            "(SELECT 1 FROM representations p WHERE p.manifest_id = m.manifest_id) "
            "WHERE r.tenant=%s AND r.document_id=%s AND r.revision=%s "
            "ORDER BY m.manifest_id IS NOT DISTINCT FROM r.manifest_id DESC, m.created_at DESC",
            (tenant, document_id, revision),
        )
        if not rows:
            return None
        manifests = tuple(
            ManifestRecord(
                manifest=manifest_from_json(str(row[3])),
                manifest_id=str(row[2]),
                mac=str(row[4]),
                current_representation=bool(row[5]),
            )
            for row in rows
            if row[2] is not None
        )
        return RevisionView(
            tenant=tenant,
            document_id=document_id,
            revision=revision,
            groups=frozenset(rows[0][1]),
            current_revision=bool(rows[0][0]),
            manifests=manifests,
        )

    def drop_representation(self, manifest_id: str) -> None:
        """Stop retaining an old representation: its anchors no longer resolve."""
        with self._manifest_transaction(manifest_id) as conn:
            conn.execute("DELETE FROM blocks WHERE manifest_id=%s", (manifest_id,))
            conn.execute("DELETE FROM representations WHERE manifest_id=%s", (manifest_id,))
        with self._texts_lock:
            self._texts.pop(manifest_id)
            self._block_lengths.pop(manifest_id, None)

    def text(self, manifest_id: str) -> str:
        """The representation text (cached: representations are immutable, and the cache
        is dropped as soon as any process deletes or purges)."""
        self._forget_if_erased()
        with self._texts_lock:
            cached = self._texts.get(manifest_id)
            if cached is not None:
                return cached
        row = self._fetchone(
            "SELECT text FROM representations WHERE manifest_id=%s", (manifest_id,)
        )
        if row is None:
            raise StoreError("no such representation")
        text = str(row[0])
        self._remember_text(manifest_id, text)
        return text

    def _remember_text(self, manifest_id: str, text: str) -> None:
        """Keep ``text`` in the cache, bounded in entries and in code points (a few
        huge texts must not pin gigabytes in a long-running server); the newest
        entry is always kept."""
        with self._texts_lock:
            self._texts.put(manifest_id, text, _TEXT_CACHE_SIZE, _TEXT_CACHE_CODE_POINTS)

    def alignment(self, manifest_id: str) -> Alignment | None:
        row = self._fetchone(
            "SELECT alignment FROM representations WHERE manifest_id=%s", (manifest_id,)
        )
        if row is None or row[0] is None:
            return None
        return Alignment.from_bytes(bytes(row[0]))

    def notes(self, manifest_id: str) -> ExtractionNotes:
        row = self._fetchone(
            "SELECT page_count, pages_without_text, warnings FROM representations "
            "WHERE manifest_id=%s",
            (manifest_id,),
        )
        if row is None:
            return ExtractionNotes(None, (), ())
        return ExtractionNotes(
            page_count=None if row[0] is None else int(row[0]),
            pages_without_text=tuple(int(p) for p in json.loads(row[1])),
            warnings=tuple(str(w) for w in json.loads(row[2])),
        )

    # -- search text and chunks ---------------------------------------------------------

    def save_index(
        self,
        manifest_id: str,
        search_text: str,
        search_alignment: Alignment,
        chunks: Sequence[ChunkRecord],
    ) -> None:
        """Replace a representation's search text and chunks in one transaction.

        Chunk ids derive from the manifest and the range, so a rerun computes the
        same chunks: those rows are then left as they are. Rewriting them would give
        them new rowids under the lexical rows a concurrent or earlier run made
        current (rows no drop would find again, and a READY revision that no search
        finds). Only chunks that differ are replaced, their lexical rows with them.
        """
        with self._manifest_transaction(manifest_id) as conn:
            stored = [
                str(row[0])
                for row in conn.execute(
                    "SELECT chunk_id FROM chunks WHERE manifest_id=%s ORDER BY ordinal",
                    (manifest_id,),
                )
            ]
            conn.execute(
                "INSERT INTO search_texts(manifest_id, text, alignment) VALUES(%s,%s,%s) "
                "ON CONFLICT(manifest_id) DO UPDATE SET text=excluded.text, "
                "alignment=excluded.alignment",
                (manifest_id, search_text, search_alignment.to_bytes()),
            )
            if stored == [c.chunk_id for c in chunks]:
                return
            tenant = conn.execute(
                "SELECT tenant FROM manifests WHERE manifest_id=%s", (manifest_id,)
            ).fetchone()
            if tenant is not None and stored:
                self.index.drop_manifest(conn, str(tenant[0]), manifest_id)
            conn.execute("DELETE FROM chunks WHERE manifest_id=%s", (manifest_id,))
            self._many(
                conn,
                'INSERT INTO chunks(chunk_id, manifest_id, ordinal, start, "end", search_start, '
                "search_end, tokens, blocks) VALUES(%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                [
                    (
                        c.chunk_id,
                        c.manifest_id,
                        c.ordinal,
                        c.start,
                        c.end,
                        c.search_start,
                        c.search_end,
                        c.tokens,
                        block_ranges_json(c.blocks),
                    )
                    for c in chunks
                ],
            )

    def commit_index(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        search_text: str,
        search_alignment: Alignment,
        chunks: Sequence[ChunkRecord],
        versions: ProcessingVersions,
        lexical: LexicalRows,
        *,
        job: str | None = None,
    ) -> bool:
        """``save_index`` (with the versions that made it) and ``make_current`` in one
        transaction: rebuilding the chunks of the representation a READY revision
        serves never shows readers a representation without its lexical rows. With
        ``job``: that job ends DONE (stage ``index``) in the same transaction."""
        manifest_id = lexical.manifest_id
        with self.document_transaction(tenant, document_id) as conn:
            self.save_index(manifest_id, search_text, search_alignment, chunks)
            conn.execute(
                "UPDATE search_texts SET cleaner=%s, splitter=%s, chunker=%s, analyzer=%s "
                "WHERE manifest_id=%s",
                (
                    versions.cleaner,
                    versions.splitter,
                    versions.chunker,
                    versions.analyzer,
                    manifest_id,
                ),
            )
            conn.execute(
                "UPDATE chunks SET chunker=%s, splitter=%s WHERE manifest_id=%s",
                (versions.chunker, versions.splitter, manifest_id),
            )
            current = self.make_current(tenant, document_id, revision, lexical)
            if job is not None:
                conn.execute(
                    "UPDATE jobs SET state=%s, stage=%s, error_code=NULL, finished_at=%s "
                    "WHERE job_id=%s AND state IN (%s,%s)",
                    (JobState.DONE.value, "index", utc_now(), job, *OPEN_JOB_STATES),
                )
            return current

    def index_versions(self, manifest_id: str) -> ProcessingVersions | None:
        """The stage versions recorded with a representation's search text (None: none
        was built)."""
        row = self._fetchone(
            "SELECT cleaner, splitter, chunker, analyzer FROM search_texts WHERE manifest_id=%s",
            (manifest_id,),
        )
        if row is None:
            return None
        return ProcessingVersions(*(None if v is None else str(v) for v in row))

    def anchors_on(self, tenant: str, manifest_id: str) -> list[StoredAnchor]:
        """The stored anchors made on one representation, oldest first."""
        rows = self._fetchall(
            "SELECT json, manifest_id, created_at, created_by FROM anchors "
            "WHERE tenant=%s AND manifest_id=%s ORDER BY created_at, anchor_id",
            (tenant, manifest_id),
        )
        return [
            StoredAnchor(anchor_from_json(str(r[0])), str(r[1]), str(r[2]), str(r[3])) for r in rows
        ]

    def save_reprocess_report(
        self, tenant: str, report_id: str, created_at: str, payload: dict[str, object]
    ) -> None:
        with self.shared_transaction() as conn:
            conn.execute(
                "INSERT INTO reprocess_reports(report_id, tenant, created_at, json) "
                "VALUES(%s,%s,%s,%s) "
                "ON CONFLICT(report_id) DO UPDATE SET json=excluded.json "
                "WHERE reprocess_reports.tenant=excluded.tenant",
                (report_id, tenant, created_at, json.dumps(payload, ensure_ascii=False)),
            )

    def reprocess_reports(self, tenant: str, limit: int = 20) -> list[dict[str, object]]:
        """The tenant's stored migration reports, newest first."""
        rows = self._fetchall(
            "SELECT json FROM reprocess_reports WHERE tenant=%s "
            "ORDER BY created_at DESC, report_id LIMIT %s",
            (tenant, limit),
        )
        return [json.loads(str(row[0])) for row in rows]

    def search_text(self, manifest_id: str) -> tuple[str, Alignment] | None:
        row = self._fetchone(
            "SELECT text, alignment FROM search_texts WHERE manifest_id=%s", (manifest_id,)
        )
        if row is None:
            return None
        return str(row[0]), Alignment.from_bytes(bytes(row[1]))

    _CHUNK_COLUMNS: Final = (
        'chunk_id, manifest_id, ordinal, start, "end", search_start, search_end, tokens, blocks'
    )

    def chunks(self, manifest_id: str) -> list[ChunkRecord]:
        rows = self._fetchall(
            f"SELECT {self._CHUNK_COLUMNS} FROM chunks WHERE manifest_id=%s ORDER BY ordinal",
            (manifest_id,),
        )
        return [chunk_from_row(row) for row in rows]

    def hit_sources(self, chunk_ids: Sequence[str]) -> dict[str, HitSource]:
        """The chunks of ``chunk_ids`` that exist, in one read: each with its own span of
        the representation (``substr`` counts code points, as the offsets do) and the
        PDF pages of its blocks (a chunk deleted meanwhile is absent)."""
        rows = self._fetchall(
            'SELECT c.chunk_id, c.manifest_id, c.ordinal, c.start, c."end", c.search_start, '
            "c.search_end, c.tokens, c.blocks, m.document_id, m.revision, "
            'substr(rep.text, c.start + 1, c."end" - c.start), '
            # each block by its whole key, as on SQLite (see ragox.store._hits)
            "(SELECT array_agg(DISTINCT b.page ORDER BY b.page) "
            " FROM json_array_elements(c.blocks::json) r "
            " JOIN blocks b ON b.manifest_id = c.manifest_id "
            "   AND b.block_index = (r.value ->> 0)::int "
            " WHERE b.page IS NOT NULL) "
            "FROM chunks c JOIN manifests m ON m.manifest_id = c.manifest_id "
            "JOIN representations rep ON rep.manifest_id = c.manifest_id "
            "WHERE c.chunk_id = ANY(%s)",
            (list(chunk_ids),),
        )
        found: dict[str, HitSource] = {}
        for row in rows:
            chunk = chunk_from_row(row[:9])
            pages = tuple(int(page) for page in row[12] or ())
            found[chunk.chunk_id] = HitSource(chunk, str(row[9]), str(row[10]), str(row[11]), pages)
        return found

    def get_chunk(self, chunk_id: str) -> ChunkRecord | None:
        row = self._fetchone(
            f"SELECT {self._CHUNK_COLUMNS} FROM chunks WHERE chunk_id=%s", (chunk_id,)
        )
        return None if row is None else chunk_from_row(row)

    def chunk_count(self, manifest_id: str) -> int:
        row = self._fetchone("SELECT COUNT(*) FROM chunks WHERE manifest_id=%s", (manifest_id,))
        return int(row[0])

    def char_boxes(
        self, manifest_id: str, start: int | None = None, end: int | None = None
    ) -> bytes | None:
        """Per-code-point boxes (16 bytes each), all of them or those of ``[start, end)``
        (read as a slice of the BLOB, not the whole column)."""
        if start is None or end is None:
            row = self._fetchone(
                "SELECT char_boxes FROM representations WHERE manifest_id=%s", (manifest_id,)
            )
        else:
            row = self._fetchone(
                "SELECT substring(char_boxes FROM %s FOR %s) FROM representations "
                "WHERE manifest_id=%s",
                (start * 16 + 1, max(0, end - start) * 16, manifest_id),
            )
        return None if row is None or row[0] is None else bytes(row[0])

    def blocks(
        self,
        manifest_id: str,
        start: int | None = None,
        end: int | None = None,
        tables: Collection[int] | None = None,
    ) -> list[Block]:
        """Blocks of a representation in reading order, or those overlapping a range;
        ``tables``: only the cells of these tables (by their ordinal)."""
        sql = (
            'SELECT block_index, kind, start, "end", locator, page, x0, y0, x1, y1, '
            "source_start, source_end, ocr, cell FROM blocks WHERE manifest_id=%s"
        )
        params: list[object] = [manifest_id]
        if tables is not None:
            sql += " AND cell IS NOT NULL AND (cell::jsonb->>'table')::int = ANY(%s)"
            params.append(sorted({int(table) for table in tables}))
        if start is not None and end is not None:
            # A block that reaches past `start` begins less than the longest block's
            # length before it: that lower bound turns the scan of every earlier block
            # into a short index range (resolution asks this on every request).
            sql += ' AND start < %s AND start > %s AND "end" > %s'
            params += [max(end, start + 1), start - self._longest_block(manifest_id), start]
        rows = self._fetchall(sql + " ORDER BY block_index", params)
        return [block_from_row(row) for row in rows]

    def heading_before(self, manifest_id: str, at: int, since: int) -> tuple[int, int] | None:
        row = self._fetchone(
            'SELECT start, "end" FROM blocks WHERE manifest_id=%s AND start < %s '
            "AND start >= %s AND kind='heading' ORDER BY start DESC LIMIT 1",
            (manifest_id, at, since),
        )
        return None if row is None else (int(row[0]), int(row[1]))

    def block_paths(self, manifest_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """``(start, end, locator)`` of the blocks overlapping a range that are located
        by an element's path, or are list items located by their id, in reading order
        (the bound as in :meth:`blocks`)."""
        rows = self._fetchall(
            'SELECT start, "end", locator FROM blocks WHERE manifest_id=%s '
            "AND start < %s AND start > %s AND \"end\" > %s AND (starts_with(locator, '/') "
            "OR (starts_with(locator, '#') AND kind='list-item')) "
            "ORDER BY block_index",
            [manifest_id, max(end, start + 1), start - self._longest_block(manifest_id), start],
        )
        return [(int(row[0]), int(row[1]), str(row[2])) for row in rows]

    def navigation_start(self, manifest_id: str, start: int, end: int) -> int | None:
        rows = self._fetchall(
            "SELECT MIN(start) FROM blocks WHERE manifest_id=%s AND start >= %s "
            "AND start < %s AND kind='navigation'",
            [manifest_id, start, end],
        )
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def _longest_block(self, manifest_id: str) -> int:
        """The greatest block length of a representation (remembered: immutable)."""
        with self._texts_lock:
            known = self._block_lengths.get(manifest_id)
        if known is None:
            row = self._fetchone(
                'SELECT COALESCE(MAX("end" - start), 0) FROM blocks WHERE manifest_id=%s',
                (manifest_id,),
            )
            known = int(row[0])
            with self._texts_lock:
                if len(self._block_lengths) >= _BLOCK_LENGTHS_SIZE:
                    self._block_lengths.clear()
                self._block_lengths[manifest_id] = known
        return known

    # -- anchors ---------------------------------------------------------------------

    def save_anchor(self, anchor: Anchor, manifest_id: str, created_by: str) -> StoredAnchor:
        """Store an anchor under the tenant of the manifest it was made on."""
        now = utc_now()
        with self.shared_transaction() as conn:
            row = conn.execute(
                "SELECT tenant FROM manifests WHERE manifest_id=%s", (manifest_id,)
            ).fetchone()
            if row is None:
                raise StoreError("no such manifest")
            tenant = str(row[0])
            conn.execute(
                "INSERT INTO anchors(tenant, anchor_id, document_id, revision, manifest_id, json, "
                "created_at, created_by) VALUES(%s,%s,%s,%s,%s,%s,%s,%s) "
                "ON CONFLICT(tenant, anchor_id) DO NOTHING",
                (
                    tenant,
                    anchor.anchor_id,
                    anchor.document_id,
                    anchor.revision,
                    manifest_id,
                    json.dumps(anchor.to_json(), ensure_ascii=False),
                    now,
                    created_by,
                ),
            )
        stored = self.get_anchor(tenant, anchor.anchor_id)
        assert stored is not None
        return stored

    def get_anchor(self, tenant: str, anchor_id: str) -> StoredAnchor | None:
        row = self._fetchone(
            "SELECT json, manifest_id, created_at, created_by FROM anchors "
            "WHERE tenant=%s AND anchor_id=%s",
            (tenant, anchor_id),
        )
        if row is None:
            return None
        return StoredAnchor(
            anchor=anchor_from_json(str(row[0])),
            manifest_id=str(row[1]),
            created_at=str(row[2]),
            created_by=str(row[3]),
        )

    def anchor_ids(self, tenant: str, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` stored anchor ids of the tenant that start with ``prefix``
        (lowercase hex), in order: a range scan of the (tenant, anchor_id) key."""
        rows = self._fetchall(
            "SELECT anchor_id FROM anchors WHERE tenant=%s AND anchor_id >= %s "
            "AND anchor_id < %s ORDER BY anchor_id LIMIT %s",
            # every hex digit sorts below "g": prefix + "g" bounds the range
            (tenant, prefix, prefix + "g", limit),
        )
        return [str(row[0]) for row in rows]

    def link_anchors(
        self, tenant: str, old_id: str, new_id: str, method: str, authorized_by: str
    ) -> None:
        with self.shared_transaction() as conn:
            conn.execute(
                "INSERT INTO anchor_links(tenant, old_anchor_id, new_anchor_id, method, "
                "authorized_by, created_at) VALUES(%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                (tenant, old_id, new_id, method, authorized_by, utc_now()),
            )

    # -- API keys --------------------------------------------------------------------

    def add_key(self, key_hash: str, grant: KeyRecord) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO api_keys(key_hash, principal, tenant, groups, created_at, "
                "write_prefixes, operate) VALUES(%s,%s,%s,%s,%s,%s,%s)",
                (
                    key_hash,
                    grant.principal,
                    grant.tenant,
                    json.dumps(sorted(grant.groups)),
                    utc_now(),
                    json.dumps(sorted(grant.write)),
                    bool(grant.operate),
                ),
            )

    def write_prefixes(self, tenant: str) -> frozenset[str]:
        """Write prefixes of the tenant's unrevoked keys that do not operate."""
        rows = self._fetchall(
            "SELECT write_prefixes FROM api_keys WHERE tenant=%s AND revoked_at IS NULL "
            "AND NOT operate AND write_prefixes <> '[]'",
            (tenant,),
        )
        return frozenset(prefix for (value,) in rows for prefix in json.loads(value))

    def revoke_key(self, key_hash: str) -> bool:
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE api_keys SET revoked_at=%s WHERE key_hash=%s AND revoked_at IS NULL",
                (utc_now(), key_hash),
            )
            return cursor.rowcount > 0

    #: hex digits of a key's SHA-256 shown as its id (and the least a revoke by id takes)
    KEY_ID_DIGITS: Final = 12

    def list_keys(self, tenant: str, include_revoked: bool = False) -> list[KeyInfo]:
        """The tenant's keys, oldest first: ids, grants and dates, never a key."""
        query = (
            "SELECT key_hash, principal, tenant, groups, write_prefixes, operate, created_at, "
            "revoked_at FROM api_keys WHERE tenant=%s"
        )
        if not include_revoked:
            query += " AND revoked_at IS NULL"
        rows = self._fetchall(query + " ORDER BY created_at, key_hash", (tenant,))
        return [
            KeyInfo(
                key_id=str(row[0])[: self.KEY_ID_DIGITS],
                principal=str(row[1]),
                tenant=str(row[2]),
                groups=frozenset(json.loads(row[3])),
                write=frozenset(json.loads(row[4])),
                operate=bool(row[5]),
                created_at=str(row[6]),
                revoked_at=None if row[7] is None else str(row[7]),
            )
            for row in rows
        ]

    def revoke_key_id(self, tenant: str, key_id: str) -> int:
        """Revoke the one unrevoked key of the tenant whose SHA-256 starts with ``key_id``
        (for a key whose secret is lost); returns how many matched (only 1 revokes)."""
        if len(key_id) < self.KEY_ID_DIGITS or not all(c in "0123456789abcdef" for c in key_id):
            return 0
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT key_hash FROM api_keys WHERE tenant=%s AND revoked_at IS NULL "
                "AND key_hash >= %s AND key_hash < %s LIMIT 2",
                (tenant, key_id, key_id + "g"),
            ).fetchall()
            if len(rows) == 1:
                conn.execute(
                    "UPDATE api_keys SET revoked_at=%s WHERE key_hash=%s", (utc_now(), rows[0][0])
                )
            return len(rows)

    def key_principal(self, key_hash: str) -> KeyRecord | None:
        """What a key that is not revoked may do, read now."""
        row = self._fetchone(
            "SELECT principal, tenant, groups, write_prefixes, operate FROM api_keys "
            "WHERE key_hash=%s AND revoked_at IS NULL",
            (key_hash,),
        )
        if row is None:
            return None
        return KeyRecord(
            principal=str(row[0]),
            tenant=str(row[1]),
            groups=frozenset(json.loads(row[2])),
            write=frozenset(json.loads(row[3])),
            operate=bool(row[4]),
        )

    # -- answers ---------------------------------------------------------------------

    def save_answer(
        self,
        answer_id: str,
        tenant: str,
        principal: str,
        created_at: str,
        payload: dict[str, object],
        *,
        trace: dict[str, object] | None = None,
        documents: frozenset[str] = frozenset(),
        redact: AnswerRedactor | None = None,
    ) -> None:
        """Store an answer record, its trace apart, and the documents it drew on.

        A document deleted while the answer was being made is found missing here, in
        the same transaction as the insert: the record is then stored redacted and
        without its trace, exactly as if the deletion had come just after.
        """
        with self.shared_transaction() as conn:
            wanted = sorted(documents)
            present = (
                {
                    str(row[0])
                    for row in conn.execute(
                        "SELECT document_id FROM documents WHERE tenant=%s "
                        "AND document_id = ANY(%s)",
                        (tenant, wanted),
                    )
                }
                if wanted
                else set()
            )
            gone = frozenset(wanted) - present
            if gone and redact is not None:
                payload, trace = redact(dict(payload), gone), None
            conn.execute(
                "INSERT INTO answers(answer_id, tenant, principal, created_at, json) "
                "VALUES(%s,%s,%s,%s,%s)",
                (answer_id, tenant, principal, created_at, json.dumps(payload, ensure_ascii=False)),
            )
            if trace is not None:
                conn.execute(
                    "INSERT INTO answer_traces(answer_id, created_at, json) VALUES(%s,%s,%s)",
                    (answer_id, created_at, json.dumps(trace, ensure_ascii=False)),
                )
            self._many(
                conn,
                "INSERT INTO answer_documents(tenant, document_id, answer_id) VALUES(%s,%s,%s)",
                [(tenant, document_id, answer_id) for document_id in sorted(present)],
            )

    def answer_owner(self, answer_id: str) -> tuple[str, str] | None:
        """``(tenant, principal)`` of a stored answer, without reading the record."""
        row = self._fetchone(
            "SELECT tenant, principal FROM answers WHERE answer_id=%s", (answer_id,)
        )
        return None if row is None else (str(row[0]), str(row[1]))

    def get_answer(self, answer_id: str) -> dict[str, object] | None:
        return self._json_object("SELECT json FROM answers WHERE answer_id=%s", answer_id)

    def get_answer_trace(self, answer_id: str) -> dict[str, object] | None:
        """The trace of an answer (the operator's diagnostics), None when purged."""
        return self._json_object("SELECT json FROM answer_traces WHERE answer_id=%s", answer_id)

    def _json_object(self, query: str, key: str) -> dict[str, object] | None:
        row = self._fetchone(query, (key,))
        if row is None:
            return None
        value = json.loads(row[0])
        assert isinstance(value, dict)
        return value

    def retention(self) -> RetentionPolicy:
        """The stored retention periods (``ragox retention``), read now."""
        return retention_policy(self._fetchall(RETENTION_SQL))

    def set_retention(self, policy: RetentionPolicy) -> None:
        with self.transaction() as conn:
            store_retention(conn, "%s", policy)

    def purge(
        self,
        answers_before: str | None,
        traces_before: str | None,
        redact: AnswerRedactor | None = None,
    ) -> PurgeCounts:
        """See ``purge_answers``."""
        with self.transaction() as conn:
            counts = purge_answers(conn, "%s", answers_before, traces_before, redact)
        # No erasure bump: answers and traces are not what any process caches (texts and
        # verdicts belong to documents that still exist), and a purge after every answer
        # must not empty every server's caches.
        return counts

    def anchor_successors(self, tenant: str, anchor_id: str) -> list[str]:
        rows = self._fetchall(
            "SELECT new_anchor_id FROM anchor_links WHERE tenant=%s AND old_anchor_id=%s "
            "ORDER BY created_at",
            (tenant, anchor_id),
        )
        return [str(row[0]) for row in rows]


def _renew_job(conn: Connection, job_id: str, stage: str | None) -> None:
    """``heartbeat`` inside the caller's transaction."""
    conn.execute(
        "UPDATE jobs SET heartbeat_at=%s, stage=COALESCE(%s, stage) WHERE job_id=%s AND state=%s",
        (utc_now(), stage, job_id, JobState.RUNNING.value),
    )
