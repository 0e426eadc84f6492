"""The embedded default store: one SQLite file (WAL) plus a blob folder.

All SQL of ragox lives in this package. Connections are per thread; writes run
in ``BEGIN IMMEDIATE`` transactions so that a revision becomes visible whole or
not at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from ragox.anchor import Anchor, Manifest, forget_memos
from ragox.extract import Block
from ragox.store._answers import (
    RETENTION_SQL,
    purge_answers,
    redact_answers,
    retention_policy,
    store_retention,
)
from ragox.store._blobs import Blobs, open_blobs
from ragox.store._errors import RevisionConflict, StoreError, utc_now
from ragox.store._files import private_file, private_folder
from ragox.store._hits import HitSource, hit_sources
from ragox.store._interface import COMPACT_SEGMENTS
from ragox.store._queue import SQLITE, SqlJobQueue
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
from ragox.store._status import read_status, read_status_facts
from ragox.store._textcache import TextLru
from ragox.store.sqlite._index import SqliteIndex, upgrade_lexical
from ragox.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION
from ragox.text import Alignment

__all__ = ["SqliteStore"]

_TEXT_CACHE_SIZE: Final = 256
#: At most this many code points of texts in the cache (up to 4 bytes each).
_TEXT_CACHE_CODE_POINTS: Final = 16 * 1024 * 1024
_BLOCK_LENGTHS_SIZE: Final = 4096
#: the schema from which on lexical rows are written only by ``make_current``
_ROWS_WITH_STATE: Final = 9


class SqliteStore:
    """SQLite implementation of the store interface."""

    def __init__(self, home: Path) -> None:
        private_folder(home)
        self.home = home
        self.path = home / "ragox.db"
        # SQLite gives the WAL and shared-memory files the database file's mode.
        for name in ("ragox.db", "ragox.db-wal", "ragox.db-shm"):
            if name == "ragox.db" or (home / name).exists():
                private_file(home / name)
        self.blobs: Blobs = open_blobs(home)
        self._local = threading.local()
        self._texts = TextLru()
        self._block_lengths: dict[str, int] = {}
        self._texts_lock = threading.Lock()
        # The index first: a migration may sweep its rows (schema 9).
        self.index = SqliteIndex(self)
        self.queue = SqlJobQueue(
            self.transaction, lambda: contextlib.nullcontext(self._connection()), SQLITE
        )
        self._migrate()
        self._erasures_seen = self._erasures()

    # -- connections and transactions -------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            # Deleted rows are overwritten, not left in free pages: deleting a document
            # or purging answers must not leave their text readable in the file (some
            # builds default to this, others do not).
            conn.execute("PRAGMA secure_delete=ON")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested use joins the outer one."""
        conn = self._connection()
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _migrate(self) -> None:
        conn = self._connection()
        # Rebuilding a table (SQLite's way to change a primary key) drops the old one,
        # and with foreign keys on that drop would cascade into its children. Keys are
        # off while migrations run (the pragma is a no-op inside a transaction) and
        # checked as a whole before the transaction commits.
        conn.execute("PRAGMA foreign_keys=OFF")
        try:
            self._migrate_in_transaction(conn)
        finally:
            conn.execute("PRAGMA foreign_keys=ON")

    def _migrate_in_transaction(self, conn: sqlite3.Connection) -> None:
        with self.transaction():
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
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
                        "INSERT INTO meta(key, value) VALUES('schema_version', ?) "
                        "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                        (str(number),),
                    )
            if version < SCHEMA_VERSION:
                upgrade_lexical(conn)  # per-tenant lexical tables become partitions
            if version < SCHEMA_VERSION and conn.execute("PRAGMA foreign_key_check").fetchone():
                raise StoreError("a schema migration left rows without their parent rows")
            if 0 < version < _ROWS_WITH_STATE:
                # Older versions could leave lexical rows of revisions that never became
                # current (a crash between the index write and make-current, or two runs
                # rewriting one revision's chunks). From schema 9 on rows are written in
                # make-current's transaction, so one sweep on upgrade suffices.
                self.index.remove_orphans(conn)

    def schema_version(self) -> int:
        row = (
            self._connection()
            .execute("SELECT value FROM meta WHERE key='schema_version'")
            .fetchone()
        )
        return int(row[0])

    # -- erasure ------------------------------------------------------------------
    #
    # Deleting a document or purging records bumps a counter in the database. Every
    # store (in this process or another: `ragox serve` while the CLI deletes) compares
    # it before it reads text and, when it moved, drops everything it remembers of
    # texts and quotes: the text cache, parsed rows, the resolver's verdicts.

    def _erasures(self) -> int:
        row = (
            self._connection()
            .execute("SELECT value FROM settings WHERE key='erasure_generation'")
            .fetchone()
        )
        return 0 if row is None else int(row[0])

    def _bump_erasures(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO settings(key, value) VALUES('erasure_generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
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
        self._erasures_seen = seen

    def truncate_log(self) -> None:
        """Copy the write-ahead log into the database and empty it: its older frames
        still hold the pages as they were before a deletion. Best effort: while another
        process reads, SQLite leaves the log for that reader's next checkpoint. Run
        after a document deletion and the operator's purge, not after every write."""
        self._connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    # -- documents ----------------------------------------------------------------
    #
    # A document is keyed by (tenant, document_id): ids are per tenant, and nothing
    # here ever looks a document up by its id alone.

    _DOCUMENT_COLUMNS: Final = "document_id, tenant, current_revision, created_at, language"

    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        row = (
            self._connection()
            .execute(
                f"SELECT {self._DOCUMENT_COLUMNS} FROM documents WHERE tenant=? AND document_id=?",
                (tenant, document_id),
            )
            .fetchone()
        )
        return DocumentRecord(*row) if row else None

    def tenants(self) -> list[str]:
        """Every tenant with at least one document (for operators' whole-home checks)."""
        rows = self._connection().execute("SELECT DISTINCT tenant FROM documents ORDER BY 1")
        return [str(row[0]) for row in rows]

    def manifest_ids(self) -> list[str]:
        """Every stored manifest of every tenant (for ``ragox verify``'s scrub)."""
        rows = self._connection().execute("SELECT manifest_id FROM manifests ORDER BY 1")
        return [str(row[0]) for row in rows]

    def source_hashes(self) -> list[str]:
        """The SHA-256 of every stored original (for ``ragox verify``'s scrub)."""
        rows = self._connection().execute("SELECT DISTINCT source_sha256 FROM revisions ORDER BY 1")
        return [str(row[0]) for row in rows]

    def save_check_run(self, run: CheckRun) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO check_runs(run_id, tenant, document_id, revision, manifest_id, "
                "parser, created_at, chunks, fragments, mismatches) VALUES(?,?,?,?,?,?,?,?,?,?)",
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
            "chunks, fragments, mismatches FROM check_runs WHERE tenant=?"
        )
        params: tuple[str, ...] = (tenant,)
        if document_id is not None:
            query += " AND document_id=?"
            params = (tenant, document_id)
        rows = self._connection().execute(query + " ORDER BY created_at, run_id", params)
        return [CheckRun(*row) for row in rows]

    def list_documents(self, tenant: str) -> list[DocumentRecord]:
        rows = (
            self._connection()
            .execute(
                f"SELECT {self._DOCUMENT_COLUMNS} FROM documents WHERE tenant=? "
                "ORDER BY document_id",
                (tenant,),
            )
            .fetchall()
        )
        return [DocumentRecord(*row) for row in rows]

    def ensure_document(
        self, tenant: str, document_id: str, language: str | None = None
    ) -> DocumentRecord:
        """The document, created if new; ``language`` (ISO 639-1) is recorded when given."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO documents(tenant, document_id, created_at) VALUES(?, ?, ?) "
                "ON CONFLICT(tenant, document_id) DO NOTHING",
                (tenant, document_id, utc_now()),
            )
            if language is not None:
                conn.execute(
                    "UPDATE documents SET language=? WHERE tenant=? AND document_id=?",
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
        key = (tenant, document_id)
        with self.transaction() as conn:
            found = conn.execute(
                "SELECT 1 FROM documents WHERE tenant=? AND document_id=?", key
            ).fetchone()
            if not found:
                return False
            redact_answers(conn, "?", [(tenant, document_id)], redact)
            self._bump_erasures(conn)
            before = self.index.partition_generations(conn, tenant)
            shas = [
                row[0]
                for row in conn.execute(
                    "SELECT source_sha256 FROM revisions WHERE tenant=? AND document_id=?", key
                )
            ]
            for (manifest_id,) in conn.execute(
                "SELECT manifest_id FROM manifests WHERE tenant=? AND document_id=?", key
            ).fetchall():
                self.index.drop_manifest(conn, tenant, str(manifest_id))
                conn.execute(
                    "DELETE FROM embeddings WHERE chunk_id IN "
                    "(SELECT chunk_id FROM chunks WHERE manifest_id=?)",
                    (manifest_id,),
                )
            # Rows a crashed run of an older version left behind are attached to no
            # chunk any drop can find: a deleted document's words must not stay
            # matchable, so deleting also sweeps what the document can have left in
            # the lexical tables (found by its ids, while its chunks are still there).
            self.index.remove_orphans_of(conn, tenant, document_id)
            # The partitions its rows were deleted from still hold its words in older
            # segments of their full-text index: rewritten, they hold them no more.
            after = self.index.partition_generations(conn, tenant)
            self.index.compact(conn, [p for p, g in after.items() if before.get(p) != g])
            conn.execute("DELETE FROM documents WHERE tenant=? AND document_id=?", key)
            # Blobs are content-addressed and shared: bytes another document (of any
            # tenant) still has stay.
            still_used = (
                {
                    row[0]
                    for row in conn.execute(
                        "SELECT source_sha256 FROM revisions WHERE source_sha256 IN "
                        f"({','.join('?' * len(shas))})",
                        shas,
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
        row = (
            self._connection()
            .execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions "
                "WHERE tenant=? AND document_id=? AND revision=?",
                (tenant, document_id, revision),
            )
            .fetchone()
        )
        return self._revision(row) if row else None

    def revisions(self, tenant: str, document_id: str) -> list[RevisionRecord]:
        rows = (
            self._connection()
            .execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions "
                "WHERE tenant=? AND document_id=? ORDER BY seq",
                (tenant, document_id),
            )
            .fetchall()
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
        conn = self._connection()
        return read_status(
            lambda sql, params: conn.execute(sql, tuple(params)).fetchall(),
            "?",
            tenant,
            document_id,
            embedder_key,
            # the small columns whole in an index: the table's rows would be read
            # through their text's overflow pages (schema 28)
            (" INDEXED BY representations_facts", " INDEXED BY search_texts_versions"),
            after=after,
            limit=limit,
        )

    def status_facts(
        self, tenant: str, embedder_key: str | None = None, with_groups: bool = True
    ) -> tuple[list[RevisionFacts], list[JobRecord]]:
        conn = self._connection()
        return read_status_facts(
            lambda sql, params: conn.execute(sql, tuple(params)).fetchall(),
            "?",
            tenant,
            embedder_key,
            with_groups,
            "revision_facts",  # kept by triggers (schema 30)
        )

    def revision_by_source(
        self, tenant: str, document_id: str, source_sha256: str
    ) -> RevisionRecord | None:
        row = (
            self._connection()
            .execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions "
                "WHERE tenant=? AND document_id=? AND source_sha256=? ORDER BY seq DESC LIMIT 1",
                (tenant, document_id, source_sha256),
            )
            .fetchone()
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
        with self.transaction() as conn:
            row = conn.execute(
                f"SELECT {REVISION_COLUMNS} FROM revisions "
                "WHERE tenant=? AND document_id=? AND source_sha256=? ORDER BY seq DESC LIMIT 1",
                (tenant, document_id, source_sha256),
            ).fetchone()
            if row is not None:
                return self._revision(row), False
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM revisions WHERE tenant=? AND document_id=?",
                (tenant, document_id),
            ).fetchone()
            label = (
                revision
                if revision is not None
                else self._free_label(conn, tenant, document_id, seq)
            )
            exists = conn.execute(
                "SELECT 1 FROM revisions WHERE tenant=? AND document_id=? AND revision=?",
                (tenant, document_id, label),
            ).fetchone()
            if exists:
                raise RevisionConflict("revision exists with other bytes; revisions are immutable")
            conn.execute(
                "INSERT INTO revisions(tenant, document_id, revision, seq, source_sha256, "
                "media_type, filename, size, state, created_at, updated_at, supplied_by) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
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
            conn.executemany(
                "INSERT INTO revision_groups(tenant, document_id, revision, group_name) "
                "VALUES(?,?,?,?)",
                [(tenant, document_id, label, group) for group in sorted(groups)],
            )
        record = self.get_revision(tenant, document_id, label)
        assert record is not None
        return record, True

    @staticmethod
    def _free_label(conn: sqlite3.Connection, tenant: str, document_id: str, seq: int) -> str:
        """``r<seq>``, or the first ``r<n>`` above it that no revision of the document has."""
        number = seq
        while conn.execute(
            "SELECT 1 FROM revisions WHERE tenant=? AND document_id=? AND revision=?",
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
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE revisions SET state=?, failed_stage=?, error_code=?, error_message=?, "
                "updated_at=? WHERE tenant=? AND document_id=? AND revision=? AND state<>?",
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
        with self.transaction() as conn:
            mine = conn.execute(
                "SELECT seq FROM revisions WHERE tenant=? AND document_id=? AND revision=?",
                (*key, revision),
            ).fetchone()
            if mine is None:
                raise StoreError("no such revision")
            current = conn.execute(
                "SELECT r.seq FROM documents d JOIN revisions r ON r.tenant = d.tenant "
                "AND r.document_id = d.document_id AND r.revision = d.current_revision "
                "WHERE d.tenant=? AND d.document_id=?",
                key,
            ).fetchone()
            conn.execute(
                "UPDATE revisions SET state=?, failed_stage=NULL, error_code=NULL, "
                "error_message=NULL, manifest_id=?, updated_at=? "
                "WHERE tenant=? AND document_id=? AND revision=?",
                (RevisionState.READY.value, lexical.manifest_id, utc_now(), *key, revision),
            )
            if current is not None and int(current[0]) > int(mine[0]):
                self.index.bump(conn)
                return False
            others = conn.execute(
                "SELECT manifest_id FROM manifests "
                "WHERE tenant=? AND document_id=? AND manifest_id <> ?",
                (*key, lexical.manifest_id),
            ).fetchall()
            for (manifest_id,) in others:
                self.index.drop_manifest(conn, tenant, str(manifest_id))
            self.index.write_lexical_rows(
                conn, tenant, lexical.manifest_id, lexical.language, lexical.rows
            )
            self.index.bump(conn)
            conn.execute(
                "UPDATE documents SET current_revision=? WHERE tenant=? AND document_id=?",
                (revision, *key),
            )
            return True

    def index_complete(self, tenant: str, document_id: str, revision: str) -> bool:
        """A READY revision's index is whole: when current, one lexical row per chunk
        of its representation (not current: no rows are expected)."""
        conn = self._connection()
        row = conn.execute(
            "SELECT r.manifest_id, d.current_revision IS r.revision, r.state FROM revisions r "
            "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
            "WHERE r.tenant=? AND r.document_id=? AND r.revision=?",
            (tenant, document_id, revision),
        ).fetchone()
        if row is None or row[0] is None or row[2] != RevisionState.READY.value:
            return False
        if not row[1]:
            return True
        manifest_id = str(row[0])
        return self.index.lexical_row_count(conn, tenant, manifest_id) == self.chunk_count(
            manifest_id
        )

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
        """Merge the full-text index of each lexical partition that a run of writes
        left in ``least_segments`` segments or more into one (see
        :meth:`SqliteIndex.compact`); returns how many partitions were merged. A merge
        is an optimization: with the database locked past the busy timeout, none now
        (0), and the next run of writes merges."""
        try:
            with self.transaction() as conn:
                return self.index.compact(conn, least=least_segments)
        except sqlite3.OperationalError:
            return 0

    # -- jobs ------------------------------------------------------------------------
    #
    # A job is one ingestion run over one revision. It records the process and host
    # that run it and a heartbeat the run renews, so that `status` can tell a run
    # that died (its process is gone, or its lease expired) from one still working.

    def start_job(self, tenant: str, document_id: str, revision: str) -> str:
        job_id = "job_" + secrets.token_hex(12)
        now = utc_now()
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO jobs(job_id, tenant, document_id, revision, state, created_at, "
                "pid, host, heartbeat_at) VALUES(?,?,?,?,?,?,?,?,?)",
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
        with self.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET heartbeat_at=?, stage=COALESCE(?, stage) "
                "WHERE job_id=? AND state=?",
                (utc_now(), stage, job_id, JobState.RUNNING.value),
            )

    def finish_job(
        self,
        job_id: str,
        state: JobState,
        stage: str | None = None,
        error_code: str | None = None,
    ) -> bool:
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state=?, stage=?, error_code=?, finished_at=? "
                "WHERE job_id=? AND state IN (?,?)",
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
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE jobs SET state=?, error_code=?, finished_at=? "
                "WHERE tenant=? AND document_id=? AND revision=? AND state=? "
                f"AND job_id IN ({','.join('?' * len(job_ids))})",
                (
                    JobState.FAILED.value,
                    error_code,
                    utc_now(),
                    tenant,
                    document_id,
                    revision,
                    JobState.RUNNING.value,
                    *job_ids,
                ),
            )
            return cursor.rowcount

    def fail_revision(
        self, tenant: str, document_id: str, revision: str, error_code: str, error_message: str
    ) -> RevisionRecord | None:
        """Mark a revision that is not READY as FAILED at the stage it stopped in, and
        its running jobs with it, in one transaction (a READY one is left as it is)."""
        key = (tenant, document_id, revision)
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT state, failed_stage FROM revisions "
                "WHERE tenant=? AND document_id=? AND revision=?",
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
                    "UPDATE revisions SET state=?, failed_stage=?, error_code=?, "
                    "error_message=?, updated_at=? "
                    "WHERE tenant=? AND document_id=? AND revision=?",
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
                "UPDATE jobs SET state=?, error_code=?, finished_at=? "
                "WHERE tenant=? AND document_id=? AND revision=? AND state IN (?,?)",
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
        rows = (
            self._connection()
            .execute(
                f"SELECT {JOB_COLUMNS} FROM jobs "
                "WHERE tenant=? AND document_id=? AND revision=? ORDER BY created_at",
                (tenant, document_id, revision),
            )
            .fetchall()
        )
        return [job_record(r) for r in rows]

    # -- access groups --------------------------------------------------------------

    def groups(self, tenant: str, document_id: str, revision: str) -> frozenset[str]:
        rows = (
            self._connection()
            .execute(
                "SELECT group_name FROM revision_groups "
                "WHERE tenant=? AND document_id=? AND revision=?",
                (tenant, document_id, revision),
            )
            .fetchall()
        )
        return frozenset(str(row[0]) for row in rows)

    def set_groups(
        self, tenant: str, document_id: str, revision: str | None, groups: frozenset[str]
    ) -> int:
        """Replace reader groups of one revision, or of all when ``revision`` is None."""
        key = (tenant, document_id)
        with self.transaction() as conn:
            if revision is None:
                targets = [
                    str(row[0])
                    for row in conn.execute(
                        "SELECT revision FROM revisions WHERE tenant=? AND document_id=?", key
                    )
                ]
            else:
                targets = (
                    [revision]
                    if conn.execute(
                        "SELECT 1 FROM revisions WHERE tenant=? AND document_id=? AND revision=?",
                        (*key, revision),
                    ).fetchone()
                    else []
                )
            self.index.bump(conn)
            for target in targets:
                conn.execute(
                    "DELETE FROM revision_groups WHERE tenant=? AND document_id=? AND revision=?",
                    (*key, target),
                )
                conn.executemany(
                    "INSERT INTO revision_groups(tenant, document_id, revision, group_name) "
                    "VALUES(?,?,?,?)",
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
        with self.transaction() as conn:
            for row in conn.execute(
                "SELECT m.manifest_id, m.json FROM manifests m "
                "JOIN representations p ON p.manifest_id = m.manifest_id "
                "WHERE m.tenant=? AND m.document_id=? AND m.revision=? AND m.manifest_id<>?",
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
                "UPDATE revisions SET manifest_id=?, updated_at=?, "
                "state=CASE WHEN ? THEN ? ELSE state END, "
                "failed_stage=CASE WHEN ? THEN NULL ELSE failed_stage END, "
                "error_code=CASE WHEN ? THEN NULL ELSE error_code END, "
                "error_message=CASE WHEN ? THEN NULL ELSE error_message END "
                "WHERE tenant=? AND document_id=? AND revision=? AND state<>?",
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
        conn: sqlite3.Connection,
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
            "SELECT tenant FROM manifests WHERE manifest_id=?", (manifest_id,)
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
                "created_at) VALUES(?,?,?,?,?,?,?)",
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
                "VALUES(?,CAST(? AS TEXT),?,?,?,?,?,?)",
                (
                    manifest_id,
                    _utf8(text),
                    None if alignment is None else alignment.to_bytes(),
                    char_boxes,
                    notes.page_count,
                    json.dumps(list(notes.pages_without_text)),
                    json.dumps(list(notes.warnings)),
                    language,
                ),
            )
            conn.executemany(
                "INSERT INTO blocks(manifest_id, block_index, kind, start, end, locator, "
                "page, x0, y0, x1, y1, source_start, source_end, ocr, cell) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
        conn = self._connection()
        key = (tenant, document_id, revision)
        current = conn.execute(
            "SELECT manifest_id FROM revisions WHERE tenant=? AND document_id=? AND revision=?",
            key,
        ).fetchone()
        current_id = current[0] if current else None
        rows = conn.execute(
            "SELECT m.manifest_id, m.json, m.mac FROM manifests m "
            "JOIN representations r ON r.manifest_id = m.manifest_id "
            "WHERE m.tenant=? AND m.document_id=? AND m.revision=? ORDER BY m.created_at DESC",
            key,
        ).fetchall()
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
        row = (
            self._connection()
            .execute(
                "SELECT m.json, m.mac, r.manifest_id = m.manifest_id FROM manifests m "
                "LEFT JOIN revisions r ON r.tenant = m.tenant AND r.document_id = m.document_id "
                "AND r.revision = m.revision AND r.manifest_id = m.manifest_id "
                "WHERE m.manifest_id=?",
                (manifest_id,),
            )
            .fetchone()
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
        rows = (
            self._connection()
            .execute(
                "SELECT d.current_revision IS r.revision, "
                "(SELECT json_group_array(g.group_name) FROM revision_groups g "
                "WHERE g.tenant = r.tenant AND g.document_id = r.document_id "
                "AND g.revision = r.revision), "
                "m.manifest_id, m.json, m.mac, m.manifest_id IS r.manifest_id "
                "FROM revisions r "
                "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
                "LEFT JOIN manifests m ON m.tenant = r.tenant AND m.document_id = r.document_id "
                "AND m.revision = r.revision AND EXISTS "
                "(SELECT 1 FROM representations p WHERE p.manifest_id = m.manifest_id) "
                "WHERE r.tenant=? AND r.document_id=? AND r.revision=? "
                "ORDER BY m.manifest_id IS r.manifest_id DESC, m.created_at DESC",
                (tenant, document_id, revision),
            )
            .fetchall()
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
            groups=frozenset(json.loads(rows[0][1])),
            current_revision=bool(rows[0][0]),
            manifests=manifests,
        )

    def drop_representation(self, manifest_id: str) -> None:
        """Stop retaining an old representation: its anchors no longer resolve."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM blocks WHERE manifest_id=?", (manifest_id,))
            conn.execute("DELETE FROM representations WHERE manifest_id=?", (manifest_id,))
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
        row = (
            self._connection()
            .execute("SELECT text FROM representations WHERE manifest_id=?", (manifest_id,))
            .fetchone()
        )
        if row is None:
            raise StoreError("no such representation")
        text = str(row[0])
        self._remember_text(manifest_id, text)
        return text

    def _remember_text(self, manifest_id: str, text: str) -> None:
        """Keep ``text`` in the cache, bounded in entries and in code points (a few
        huge texts must not pin gigabytes in a long-running server); a text over the
        bound is not kept at all (it would stay in memory through the indexing of a
        large file, issue 10)."""
        if len(text) > _TEXT_CACHE_CODE_POINTS:
            return
        with self._texts_lock:
            self._texts.put(manifest_id, text, _TEXT_CACHE_SIZE, _TEXT_CACHE_CODE_POINTS)

    def alignment(self, manifest_id: str) -> Alignment | None:
        row = (
            self._connection()
            .execute("SELECT alignment FROM representations WHERE manifest_id=?", (manifest_id,))
            .fetchone()
        )
        if row is None or row[0] is None:
            return None
        return Alignment.from_bytes(bytes(row[0]))

    def notes(self, manifest_id: str) -> ExtractionNotes:
        row = (
            self._connection()
            .execute(
                "SELECT page_count, pages_without_text, warnings FROM representations "
                "WHERE manifest_id=?",
                (manifest_id,),
            )
            .fetchone()
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
        *,
        versions: ProcessingVersions | None = None,
    ) -> None:
        """Replace a representation's search text and chunks in one transaction.

        Chunk ids derive from the manifest and the range, so a rerun computes the
        same chunks: those rows are then left as they are. Rewriting them would give
        them new rowids under the lexical rows a concurrent or earlier run made
        current (rows no drop would find again, and a READY revision that no search
        finds). Only chunks that differ are replaced, their lexical rows with them.
        New chunk rows carry ``versions`` (when given) as they are written.
        """
        chunker = None if versions is None else versions.chunker
        splitter = None if versions is None else versions.splitter
        with self.transaction() as conn:
            stored = [
                str(row[0])
                for row in conn.execute(
                    "SELECT chunk_id FROM chunks WHERE manifest_id=? ORDER BY ordinal",
                    (manifest_id,),
                )
            ]
            # A new row carries ``versions`` as it is written: a row holds the whole
            # search text, and SQLite writes a row again whole to change a column.
            conn.execute(
                "INSERT INTO search_texts(manifest_id, text, alignment, cleaner, splitter, "
                "chunker, analyzer) VALUES(?,CAST(? AS TEXT),?,?,?,?,?) "
                "ON CONFLICT(manifest_id) DO UPDATE SET text=excluded.text, "
                "alignment=excluded.alignment",
                (
                    manifest_id,
                    _utf8(search_text),
                    search_alignment.to_bytes(),
                    None if versions is None else versions.cleaner,
                    splitter,
                    chunker,
                    None if versions is None else versions.analyzer,
                ),
            )
            if stored == [c.chunk_id for c in chunks]:
                return
            tenant = conn.execute(
                "SELECT tenant FROM manifests WHERE manifest_id=?", (manifest_id,)
            ).fetchone()
            if tenant is not None and stored:
                self.index.drop_manifest(conn, str(tenant[0]), manifest_id)
            conn.execute("DELETE FROM chunks WHERE manifest_id=?", (manifest_id,))
            conn.executemany(
                "INSERT INTO chunks(chunk_id, manifest_id, ordinal, start, end, search_start, "
                "search_end, tokens, blocks, chunker, splitter) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                (
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
                        chunker,
                        splitter,
                    )
                    for c in chunks
                ),
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
        with self.transaction() as conn:
            self.save_index(manifest_id, search_text, search_alignment, chunks, versions=versions)
            # A row written just now carries them already (a kept row may not); they
            # are compared in the index that holds them (schema 28), not behind the text.
            conn.execute(
                "UPDATE search_texts SET cleaner=?, splitter=?, chunker=?, analyzer=? "
                "WHERE manifest_id=(SELECT manifest_id FROM search_texts "
                "INDEXED BY search_texts_versions WHERE manifest_id=? AND (cleaner IS NOT ? "
                "OR splitter IS NOT ? OR chunker IS NOT ? OR analyzer IS NOT ?))",
                (
                    versions.cleaner,
                    versions.splitter,
                    versions.chunker,
                    versions.analyzer,
                    manifest_id,
                    versions.cleaner,
                    versions.splitter,
                    versions.chunker,
                    versions.analyzer,
                ),
            )
            # Rows written just now carry the versions already; kept rows (a rerun's
            # same chunks) get them here, and a row is rewritten only when they differ.
            conn.execute(
                "UPDATE chunks SET chunker=?, splitter=? "
                "WHERE manifest_id=? AND (chunker IS NOT ? OR splitter IS NOT ?)",
                (
                    versions.chunker,
                    versions.splitter,
                    manifest_id,
                    versions.chunker,
                    versions.splitter,
                ),
            )
            current = self.make_current(tenant, document_id, revision, lexical)
            if job is not None:
                conn.execute(
                    "UPDATE jobs SET state=?, stage=?, error_code=NULL, finished_at=? "
                    "WHERE job_id=? AND state IN (?,?)",
                    (JobState.DONE.value, "index", utc_now(), job, *OPEN_JOB_STATES),
                )
            return current

    def index_versions(self, manifest_id: str) -> ProcessingVersions | None:
        """The stage versions recorded with a representation's search text (None: none
        was built)."""
        row = (
            self._connection()
            .execute(
                "SELECT cleaner, splitter, chunker, analyzer FROM search_texts WHERE manifest_id=?",
                (manifest_id,),
            )
            .fetchone()
        )
        if row is None:
            return None
        return ProcessingVersions(*(None if v is None else str(v) for v in row))

    def anchors_on(self, tenant: str, manifest_id: str) -> list[StoredAnchor]:
        """The stored anchors made on one representation, oldest first."""
        rows = (
            self._connection()
            .execute(
                "SELECT json, manifest_id, created_at, created_by FROM anchors "
                "WHERE tenant=? AND manifest_id=? ORDER BY created_at, anchor_id",
                (tenant, manifest_id),
            )
            .fetchall()
        )
        return [
            StoredAnchor(anchor_from_json(str(r[0])), str(r[1]), str(r[2]), str(r[3])) for r in rows
        ]

    def save_reprocess_report(
        self, tenant: str, report_id: str, created_at: str, payload: dict[str, object]
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO reprocess_reports(report_id, tenant, created_at, json) "
                "VALUES(?,?,?,?) "
                "ON CONFLICT(report_id) DO UPDATE SET json=excluded.json "
                "WHERE reprocess_reports.tenant=excluded.tenant",
                (report_id, tenant, created_at, json.dumps(payload, ensure_ascii=False)),
            )

    def reprocess_reports(self, tenant: str, limit: int = 20) -> list[dict[str, object]]:
        """The tenant's stored migration reports, newest first."""
        rows = (
            self._connection()
            .execute(
                "SELECT json FROM reprocess_reports WHERE tenant=? "
                "ORDER BY created_at DESC, report_id LIMIT ?",
                (tenant, limit),
            )
            .fetchall()
        )
        return [json.loads(str(row[0])) for row in rows]

    def search_text(self, manifest_id: str) -> tuple[str, Alignment] | None:
        row = (
            self._connection()
            .execute("SELECT text, alignment FROM search_texts WHERE manifest_id=?", (manifest_id,))
            .fetchone()
        )
        if row is None:
            return None
        return str(row[0]), Alignment.from_bytes(bytes(row[1]))

    _CHUNK_COLUMNS: Final = (
        "chunk_id, manifest_id, ordinal, start, end, search_start, search_end, tokens, blocks"
    )

    def chunks(self, manifest_id: str) -> list[ChunkRecord]:
        rows = (
            self._connection()
            .execute(
                f"SELECT {self._CHUNK_COLUMNS} FROM chunks WHERE manifest_id=? ORDER BY ordinal",
                (manifest_id,),
            )
            .fetchall()
        )
        return [chunk_from_row(row) for row in rows]

    def get_chunk(self, chunk_id: str) -> ChunkRecord | None:
        row = (
            self._connection()
            .execute(f"SELECT {self._CHUNK_COLUMNS} FROM chunks WHERE chunk_id=?", (chunk_id,))
            .fetchone()
        )
        return None if row is None else chunk_from_row(row)

    def hit_sources(self, chunk_ids: Sequence[str]) -> dict[str, HitSource]:
        return hit_sources(self._connection(), chunk_ids, self)

    def cached_texts(self, manifest_ids: Collection[str]) -> dict[str, str]:
        """The cached texts of these representations. Called after the chunk rows were
        read: a deletion committed since the cache was last checked empties it first,
        so that no text of a document deleted before those rows is handed out."""
        self._forget_if_erased()
        with self._texts_lock:
            return self._texts.found(manifest_ids)

    def remember_texts(self, texts: Mapping[str, str]) -> None:
        for manifest_id, text in texts.items():
            self._remember_text(manifest_id, text)

    def chunk_count(self, manifest_id: str) -> int:
        row = (
            self._connection()
            .execute("SELECT COUNT(*) FROM chunks WHERE manifest_id=?", (manifest_id,))
            .fetchone()
        )
        return int(row[0])

    def char_boxes(
        self, manifest_id: str, start: int | None = None, end: int | None = None
    ) -> bytes | None:
        """Per-code-point boxes (16 bytes each), all of them or those of ``[start, end)``
        (read as a slice of the BLOB, not the whole column)."""
        conn = self._connection()
        if start is None or end is None:
            row = conn.execute(
                "SELECT char_boxes FROM representations WHERE manifest_id=?", (manifest_id,)
            ).fetchone()
        else:
            row = conn.execute(
                "SELECT substr(char_boxes, ?, ?) FROM representations WHERE manifest_id=?",
                (start * 16 + 1, max(0, end - start) * 16, manifest_id),
            ).fetchone()
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
            "SELECT block_index, kind, start, end, locator, page, x0, y0, x1, y1, "
            "source_start, source_end, ocr, cell FROM blocks WHERE manifest_id=?"
        )
        params: list[object] = [manifest_id]
        if tables is not None:
            listed = ",".join(str(int(table)) for table in sorted(set(tables))) or "NULL"
            sql += f" AND cell IS NOT NULL AND json_extract(cell, '$.table') IN ({listed})"
        if start is not None and end is not None:
            # A block that reaches past `start` begins less than the longest block's
            # length before it: that lower bound turns the scan of every earlier block
            # into a short index range (resolution asks this on every request).
            sql += " AND start < ? AND start > ? AND end > ?"
            params += [max(end, start + 1), start - self._longest_block(manifest_id), start]
        rows = self._connection().execute(sql + " ORDER BY block_index", params).fetchall()
        return [block_from_row(row) for row in rows]

    def heading_before(self, manifest_id: str, at: int, since: int) -> tuple[int, int] | None:
        row = (
            self._connection()
            .execute(
                "SELECT start, end FROM blocks WHERE manifest_id=? AND start < ? "
                "AND start >= ? AND kind='heading' ORDER BY start DESC LIMIT 1",
                (manifest_id, at, since),
            )
            .fetchone()
        )
        return None if row is None else (int(row[0]), int(row[1]))

    def block_paths(self, manifest_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """``(start, end, locator)`` of the blocks overlapping a range that are located
        by an element's path, or are list items located by their id, in reading order
        (the bound as in :meth:`blocks`)."""
        rows = (
            self._connection()
            .execute(
                "SELECT start, end, locator FROM blocks WHERE manifest_id=? "
                "AND start < ? AND start > ? AND end > ? AND (locator LIKE '/%' "
                "OR (locator LIKE '#%' AND kind='list-item')) "
                "ORDER BY block_index",
                (manifest_id, max(end, start + 1), start - self._longest_block(manifest_id), start),
            )
            .fetchall()
        )
        return [(int(row[0]), int(row[1]), str(row[2])) for row in rows]

    def navigation_start(self, manifest_id: str, start: int, end: int) -> int | None:
        row = (
            self._connection()
            .execute(
                "SELECT MIN(start) FROM blocks WHERE manifest_id=? AND start >= ? "
                "AND start < ? AND kind='navigation'",
                (manifest_id, start, end),
            )
            .fetchone()
        )
        return None if row is None or row[0] is None else int(row[0])

    def _longest_block(self, manifest_id: str) -> int:
        """The greatest block length of a representation (remembered: immutable)."""
        with self._texts_lock:
            known = self._block_lengths.get(manifest_id)
        if known is None:
            row = (
                self._connection()
                .execute(
                    "SELECT COALESCE(MAX(end - start), 0) FROM blocks WHERE manifest_id=?",
                    (manifest_id,),
                )
                .fetchone()
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
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT tenant FROM manifests WHERE manifest_id=?", (manifest_id,)
            ).fetchone()
            if row is None:
                raise StoreError("no such manifest")
            tenant = str(row[0])
            conn.execute(
                "INSERT INTO anchors(tenant, anchor_id, document_id, revision, manifest_id, json, "
                "created_at, created_by) VALUES(?,?,?,?,?,?,?,?) "
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
        row = (
            self._connection()
            .execute(
                "SELECT json, manifest_id, created_at, created_by FROM anchors "
                "WHERE tenant=? AND anchor_id=?",
                (tenant, anchor_id),
            )
            .fetchone()
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
        rows = (
            self._connection()
            .execute(
                "SELECT anchor_id FROM anchors WHERE tenant=? AND anchor_id >= ? "
                "AND anchor_id < ? ORDER BY anchor_id LIMIT ?",
                # every hex digit sorts below "g": prefix + "g" bounds the range
                (tenant, prefix, prefix + "g", limit),
            )
            .fetchall()
        )
        return [str(row[0]) for row in rows]

    def link_anchors(
        self, tenant: str, old_id: str, new_id: str, method: str, authorized_by: str
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO anchor_links(tenant, old_anchor_id, new_anchor_id, method, "
                "authorized_by, created_at) VALUES(?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                (tenant, old_id, new_id, method, authorized_by, utc_now()),
            )

    # -- API keys --------------------------------------------------------------------

    def add_key(self, key_hash: str, grant: KeyRecord) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO api_keys(key_hash, principal, tenant, groups, created_at, "
                "write_prefixes, operate) VALUES(?,?,?,?,?,?,?)",
                (
                    key_hash,
                    grant.principal,
                    grant.tenant,
                    json.dumps(sorted(grant.groups)),
                    utc_now(),
                    json.dumps(sorted(grant.write)),
                    int(grant.operate),
                ),
            )

    def write_prefixes(self, tenant: str) -> frozenset[str]:
        """Write prefixes of the tenant's unrevoked keys that do not operate."""
        rows = (
            self._connection()
            .execute(
                "SELECT write_prefixes FROM api_keys WHERE tenant=? AND revoked_at IS NULL "
                "AND operate=0 AND write_prefixes <> '[]'",
                (tenant,),
            )
            .fetchall()
        )
        return frozenset(prefix for (value,) in rows for prefix in json.loads(value))

    def revoke_key(self, key_hash: str) -> bool:
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE api_keys SET revoked_at=? WHERE key_hash=? AND revoked_at IS NULL",
                (utc_now(), key_hash),
            )
            return cursor.rowcount > 0

    #: hex digits of a key's SHA-256 shown as its id (and the least a revoke by id takes)
    KEY_ID_DIGITS: Final = 12

    def list_keys(self, tenant: str, include_revoked: bool = False) -> list[KeyInfo]:
        """The tenant's keys, oldest first: ids, grants and dates, never a key."""
        query = (
            "SELECT key_hash, principal, tenant, groups, write_prefixes, operate, created_at, "
            "revoked_at FROM api_keys WHERE tenant=?"
        )
        if not include_revoked:
            query += " AND revoked_at IS NULL"
        rows = self._connection().execute(query + " ORDER BY created_at, key_hash", (tenant,))
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
                "SELECT key_hash FROM api_keys WHERE tenant=? AND revoked_at IS NULL "
                "AND key_hash >= ? AND key_hash < ? LIMIT 2",
                (tenant, key_id, key_id + "g"),
            ).fetchall()
            if len(rows) == 1:
                conn.execute(
                    "UPDATE api_keys SET revoked_at=? WHERE key_hash=?", (utc_now(), rows[0][0])
                )
            return len(rows)

    def key_principal(self, key_hash: str) -> KeyRecord | None:
        """What a key that is not revoked may do, read now."""
        row = (
            self._connection()
            .execute(
                "SELECT principal, tenant, groups, write_prefixes, operate FROM api_keys "
                "WHERE key_hash=? AND revoked_at IS NULL",
                (key_hash,),
            )
            .fetchone()
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
        with self.transaction() as conn:
            wanted = sorted(documents)
            present = (
                {
                    str(row[0])
                    for row in conn.execute(
                        "SELECT document_id FROM documents WHERE tenant=? AND document_id IN "
                        f"({','.join('?' * len(wanted))})",
                        (tenant, *wanted),
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
                "VALUES(?,?,?,?,?)",
                (answer_id, tenant, principal, created_at, json.dumps(payload, ensure_ascii=False)),
            )
            if trace is not None:
                conn.execute(
                    "INSERT INTO answer_traces(answer_id, created_at, json) VALUES(?,?,?)",
                    (answer_id, created_at, json.dumps(trace, ensure_ascii=False)),
                )
            conn.executemany(
                "INSERT INTO answer_documents(tenant, document_id, answer_id) VALUES(?,?,?)",
                [(tenant, document_id, answer_id) for document_id in sorted(present)],
            )

    def answer_owner(self, answer_id: str) -> tuple[str, str] | None:
        """``(tenant, principal)`` of a stored answer, without reading the record."""
        row = (
            self._connection()
            .execute("SELECT tenant, principal FROM answers WHERE answer_id=?", (answer_id,))
            .fetchone()
        )
        return None if row is None else (str(row[0]), str(row[1]))

    def get_answer(self, answer_id: str) -> dict[str, object] | None:
        return self._json_object("SELECT json FROM answers WHERE answer_id=?", answer_id)

    def get_answer_trace(self, answer_id: str) -> dict[str, object] | None:
        """The trace of an answer (the operator's diagnostics), None when purged."""
        return self._json_object("SELECT json FROM answer_traces WHERE answer_id=?", answer_id)

    def _json_object(self, query: str, key: str) -> dict[str, object] | None:
        row = self._connection().execute(query, (key,)).fetchone()
        if row is None:
            return None
        value = json.loads(row[0])
        assert isinstance(value, dict)
        return value

    def retention(self) -> RetentionPolicy:
        """The stored retention periods (``ragox retention``), read now."""
        return retention_policy(self._connection().execute(RETENTION_SQL).fetchall())

    def set_retention(self, policy: RetentionPolicy) -> None:
        with self.transaction() as conn:
            store_retention(conn, "?", policy)

    def purge(
        self,
        answers_before: str | None,
        traces_before: str | None,
        redact: AnswerRedactor | None = None,
    ) -> PurgeCounts:
        """See ``purge_answers``."""
        with self.transaction() as conn:
            counts = purge_answers(conn, "?", answers_before, traces_before, redact)
        # No erasure bump: answers and traces are not what any process caches (texts and
        # verdicts belong to documents that still exist), and a purge after every answer
        # must not empty every server's caches.
        return counts

    def anchor_successors(self, tenant: str, anchor_id: str) -> list[str]:
        rows = (
            self._connection()
            .execute(
                "SELECT new_anchor_id FROM anchor_links WHERE tenant=? AND old_anchor_id=? "
                "ORDER BY created_at",
                (tenant, anchor_id),
            )
            .fetchall()
        )
        return [str(row[0]) for row in rows]


def _utf8(text: str) -> bytes:
    """A large text's UTF-8 bytes, bound as a BLOB and stored ``CAST(? AS TEXT)``: the
    same stored text, but sqlite3 binding the ``str`` itself would cache a UTF-8 copy
    inside it for as long as the text lives (the whole of an ingestion, issue 10)."""
    return text.encode("utf-8")


def _renew_job(conn: sqlite3.Connection, job_id: str, stage: str | None) -> None:
    """``heartbeat`` inside the caller's transaction."""
    conn.execute(
        "UPDATE jobs SET heartbeat_at=?, stage=COALESCE(?, stage) WHERE job_id=? AND state=?",
        (utc_now(), stage, job_id, JobState.RUNNING.value),
    )
