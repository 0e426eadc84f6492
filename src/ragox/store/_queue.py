"""The job queue of both stores: queued ingestion jobs that workers claim under a
lease, as rows of the store's ``jobs`` table.

A claim is one write transaction: it reclaims a run whose lease ran out, else takes
the oldest QUEUED job. On SQLite that transaction is ``BEGIN IMMEDIATE`` (the single
writer makes it atomic across processes); on PostgreSQL the two selects add ``FOR
UPDATE SKIP LOCKED`` (:data:`POSTGRES`), so that a claim never takes a row another
open claim holds. The statements are the same otherwise; only the parameter mark
differs (:class:`Dialect`).

Times are ISO 8601 UTC strings with microseconds and ``Z`` (``utc_now``): they compare
as strings in time order.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from ragox.extract import OcrMode
from ragox.store._records import JobClaim, JobState, RevisionState

__all__ = ["POSTGRES", "SQLITE", "WORKER_LOST", "Dialect", "SqlJobQueue"]

#: error code of a run whose worker died or lost its lease (the job was taken over),
#: and of a revision whose job exhausted its attempts that way
WORKER_LOST: Final = "WORKER_LOST"

_EXTRACT_STATES: Final = (RevisionState.RECEIVED.value, RevisionState.EXTRACTING.value)
_UNFINISHED: Final = (
    RevisionState.RECEIVED.value,
    RevisionState.EXTRACTING.value,
    RevisionState.EXTRACTED.value,
    RevisionState.INDEXING.value,
)


@dataclass(frozen=True, slots=True)
class Dialect:
    """What the queue's statements need to know of a database."""

    #: the parameter mark of its driver
    mark: str
    #: what follows a claim's ``SELECT … LIMIT 1`` (row locks, where there are any)
    claim_lock: str


SQLITE: Final = Dialect("?", "")
POSTGRES: Final = Dialect("%s", " FOR UPDATE SKIP LOCKED")

#: a connection of either driver: ``execute(sql, params)`` gives a cursor with
#: ``fetchone()`` and ``rowcount``
_Connection = Any


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _new_job_id() -> str:
    return "job_" + secrets.token_hex(12)


class SqlJobQueue:
    """Queued ingestion jobs, rows of a store's ``jobs`` table.

    ``transaction`` opens the store's write transaction; ``read`` a connection for a
    count (either store's own). A store whose writes do not all serialize (PostgreSQL)
    also gives ``document_transaction`` (a write holding one document's lock: a
    revision is queued once) and ``row_transaction`` (a write that row locks order:
    claims skip each other's rows, a renewal updates its own); by default both are
    ``transaction``.
    """

    def __init__(
        self,
        transaction: Callable[[], AbstractContextManager[_Connection]],
        read: Callable[[], AbstractContextManager[_Connection]],
        dialect: Dialect,
        document_transaction: Callable[[str, str], AbstractContextManager[_Connection]]
        | None = None,
        row_transaction: Callable[[], AbstractContextManager[_Connection]] | None = None,
    ) -> None:
        self._transaction = transaction
        self._read = read
        self._dialect = dialect
        self._document_transaction = document_transaction or (lambda _t, _d: transaction())
        self._row_transaction = row_transaction or transaction

    def _execute(self, conn: _Connection, statement: str, params: tuple[object, ...]) -> Any:
        return conn.execute(statement.replace("?", self._dialect.mark), params)

    def enqueue(
        self, tenant: str, document_id: str, revision: str, ocr: OcrMode = OcrMode.AUTO
    ) -> str:
        """A QUEUED job for the revision, which the worker runs with OCR mode ``ocr``;
        the job already waiting for it, or running under a lease, when there is one (a
        revision is never queued twice; that job keeps its own mode).

        PostgreSQL: the same check and insert in one transaction, serialized per
        revision with ``SELECT … FROM revisions WHERE (tenant, document_id, revision)
        = (%s, %s, %s) FOR UPDATE`` first.
        """
        now = _stamp(datetime.now(UTC))
        with self._document_transaction(tenant, document_id) as conn:
            row = self._execute(
                conn,
                "SELECT job_id FROM jobs WHERE tenant=? AND document_id=? AND revision=? "
                "AND (state=? OR (state=? AND lease_until IS NOT NULL)) "
                "ORDER BY created_at DESC LIMIT 1",
                (tenant, document_id, revision, JobState.QUEUED.value, JobState.RUNNING.value),
            ).fetchone()
            if row is not None:
                return str(row[0])
            job_id = _new_job_id()
            self._execute(
                conn,
                "INSERT INTO jobs(job_id, tenant, document_id, revision, state, created_at, ocr) "
                "VALUES(?,?,?,?,?,?,?)",
                (job_id, tenant, document_id, revision, JobState.QUEUED.value, now, ocr.value),
            )
        return job_id

    def claim(self, worker: str, lease_seconds: float, max_attempts: int) -> JobClaim | None:
        """The next job for ``worker``, held until ``lease_seconds`` from now unless
        renewed; None when nothing is waiting.

        First a RUNNING job whose lease ran out (its worker died or stalled): that run
        ends FAILED (``WORKER_LOST``) and a new run of the same revision starts for
        this worker, unless the job was claimed ``max_attempts`` times already: then
        its revision ends FAILED (``WORKER_LOST``) instead, unless it is READY. Else the
        oldest QUEUED job.

        The same on PostgreSQL, where concurrent claims skip each other's rows instead
        of waiting (one transaction; ``now()`` is the database's clock, so workers on
        several machines agree on expiry)::

            SELECT job_id, tenant, document_id, revision, attempts FROM jobs
            WHERE state = 'RUNNING' AND lease_until < now()
            ORDER BY lease_until LIMIT 1
            FOR UPDATE SKIP LOCKED;
            -- found: UPDATE jobs SET state = 'FAILED', error_code = 'WORKER_LOST',
            --        finished_at = now() WHERE job_id = %(old)s;
            --        INSERT INTO jobs (…, state, attempts, …) VALUES (…, 'RUNNING', %(n)s, …);
            SELECT job_id, tenant, document_id, revision, attempts FROM jobs
            WHERE state = 'QUEUED'
            ORDER BY created_at LIMIT 1
            FOR UPDATE SKIP LOCKED;
            UPDATE jobs SET state = 'RUNNING', worker = %(worker)s, pid = %(pid)s,
                host = %(host)s, heartbeat_at = now(), lease_seconds = %(lease)s,
                lease_until = now() + make_interval(secs => %(lease)s),
                attempts = attempts + 1
            WHERE job_id = %(job_id)s;

        (Under Citus, where ``jobs`` is distributed by tenant, the two SELECTs carry
        ``AND tenant = %(tenant)s`` so that each is a single-shard query, and a worker
        takes the tenants with waiting jobs in turn.)
        """
        moment = datetime.now(UTC)
        now = _stamp(moment)
        until = _stamp(moment + timedelta(seconds=lease_seconds))
        # Giving a revision up is one conditional UPDATE of its row (row locks order
        # it after a concurrent make_current): no document lock is needed.
        with self._row_transaction() as conn:
            while True:
                row = self._execute(
                    conn,
                    "SELECT job_id, tenant, document_id, revision, attempts, ocr FROM jobs "
                    "WHERE state=? AND lease_until IS NOT NULL AND lease_until < ? "
                    "ORDER BY lease_until LIMIT 1" + self._dialect.claim_lock,
                    (JobState.RUNNING.value, now),
                ).fetchone()
                if row is None:
                    break
                old, tenant, document_id, revision = (str(v) for v in row[:4])
                attempts = int(row[4])
                ocr = _ocr_mode(row[5])
                self._execute(
                    conn,
                    "UPDATE jobs SET state=?, error_code=?, finished_at=? WHERE job_id=?",
                    (JobState.FAILED.value, WORKER_LOST, now, old),
                )
                if attempts >= max_attempts:
                    self._give_up(conn, tenant, document_id, revision, attempts, now)
                    continue
                job_id = _new_job_id()
                self._execute(
                    conn,
                    "INSERT INTO jobs(job_id, tenant, document_id, revision, state, stage, "
                    "created_at, pid, host, heartbeat_at, worker, lease_seconds, lease_until, "
                    "attempts, ocr) VALUES(?,?,?,?,?,NULL,?,?,?,?,?,?,?,?,?)",
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
                        worker,
                        lease_seconds,
                        until,
                        attempts + 1,
                        ocr.value,
                    ),
                )
                return JobClaim(
                    job_id, tenant, document_id, revision, attempts + 1, until, old, ocr
                )
            row = self._execute(
                conn,
                "SELECT job_id, tenant, document_id, revision, attempts, ocr FROM jobs "
                "WHERE state=? ORDER BY created_at LIMIT 1" + self._dialect.claim_lock,
                (JobState.QUEUED.value,),
            ).fetchone()
            if row is None:
                return None
            job_id, tenant, document_id, revision = (str(v) for v in row[:4])
            self._execute(
                conn,
                "UPDATE jobs SET state=?, worker=?, pid=?, host=?, heartbeat_at=?, "
                "lease_seconds=?, lease_until=?, attempts=attempts+1 WHERE job_id=?",
                (
                    JobState.RUNNING.value,
                    worker,
                    os.getpid(),
                    socket.gethostname(),
                    now,
                    lease_seconds,
                    until,
                    job_id,
                ),
            )
            return JobClaim(
                job_id, tenant, document_id, revision, int(row[4]) + 1, until, ocr=_ocr_mode(row[5])
            )

    def _give_up(
        self,
        conn: _Connection,
        tenant: str,
        document_id: str,
        revision: str,
        attempts: int,
        now: str,
    ) -> None:
        """The revision of a job that killed its workers ``attempts`` times ends FAILED
        at the stage it stopped in (a READY or FAILED one is left as it is)."""
        self._execute(
            conn,
            "UPDATE revisions SET state=?, "
            "failed_stage=CASE WHEN state IN (?,?) THEN 'extract' ELSE 'index' END, "
            "error_code=?, error_message=?, updated_at=? "
            f"WHERE tenant=? AND document_id=? AND revision=? AND state IN ({_marks(_UNFINISHED)})",
            (
                RevisionState.FAILED.value,
                *_EXTRACT_STATES,
                WORKER_LOST,
                f"its worker died or lost its lease {attempts} times",
                now,
                tenant,
                document_id,
                revision,
                *_UNFINISHED,
            ),
        )

    def renew(self, job_id: str, worker: str, lease_seconds: float) -> bool:
        """Extend the lease of a job ``worker`` holds to ``lease_seconds`` from now;
        False when it no longer holds it (finished, or reclaimed after it ran out).

        PostgreSQL: ``UPDATE jobs SET heartbeat_at = now(), lease_until = now() +
        make_interval(secs => %s) WHERE job_id = %s AND worker = %s AND state =
        'RUNNING'`` (a row count of 0 means the lease is lost).
        """
        moment = datetime.now(UTC)
        with self._row_transaction() as conn:
            cursor = self._execute(
                conn,
                "UPDATE jobs SET heartbeat_at=?, lease_until=? "
                "WHERE job_id=? AND worker=? AND state=?",
                (
                    _stamp(moment),
                    _stamp(moment + timedelta(seconds=lease_seconds)),
                    job_id,
                    worker,
                    JobState.RUNNING.value,
                ),
            )
            return bool(cursor.rowcount == 1)

    def pending(self) -> int:
        """Jobs the workers still owe: QUEUED ones and runs under a lease (RUNNING,
        whether their worker is alive or will be reclaimed)."""
        with self._read() as conn:
            row = self._execute(
                conn,
                "SELECT count(*) FROM jobs WHERE state=? OR (state=? AND lease_until IS NOT NULL)",
                (JobState.QUEUED.value, JobState.RUNNING.value),
            ).fetchone()
        return int(row[0])


def _ocr_mode(value: object) -> OcrMode:
    """A job's stored OCR mode; NULL (a job queued before the column) or a value this
    version does not know runs ``auto``."""
    try:
        return OcrMode(value)
    except ValueError:
        return OcrMode.AUTO


def _marks(values: tuple[str, ...]) -> str:
    return ",".join("?" * len(values))
