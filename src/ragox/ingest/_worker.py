"""Ingestion workers: processes that claim queued jobs and run them (``ragox worker``).

An upload in queue mode (``ragox serve --queue``) stores the original and a QUEUED
job; any number of workers, on one machine or several over one store, claim jobs
under a lease (:meth:`ragox.store.JobQueue.claim`) and renew it from a thread while
the pipeline runs. A worker killed mid-job (``kill -9``, a lost machine) stops
renewing; once its lease has run out the next claim by any worker takes the job over
as a new run. The pipeline is safe to run twice over one revision (one representation
per revision and profile, content-derived chunk ids, and READY with the index rows in
one transaction), so a run taken over, or one that resumes after its lease ran out,
never duplicates chunks or shows half a revision.
"""

from __future__ import annotations

import enum
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ragox.ingest._pipeline import Ingestor, IngestOutcome
from ragox.store import JobClaim, JobState, RevisionState, Store

__all__ = ["DEFAULT_LEASE_SECONDS", "WorkNote", "WorkResult", "Worker", "WorkerConfig"]

#: how long a claim holds without renewal (renewed every third of it)
DEFAULT_LEASE_SECONDS: Final = 60.0


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    #: a claim's lease; a worker that stops renewing loses its job this long after
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    #: how long an idle worker waits before it asks the queue again
    poll_seconds: float = 1.0
    #: claims of one job by workers that died before its revision fails (WORKER_LOST)
    max_attempts: int = 3


class WorkNote(enum.Enum):
    """What a worker did with a job besides running the pipeline."""

    #: the pipeline ran (the outcome says how it ended)
    RAN = "RAN"
    #: the revision was READY and up to date already (another run finished it)
    ALREADY_READY = "ALREADY_READY"
    #: the revision was deleted after it was queued
    GONE = "GONE"
    #: the revision's original is not in the blob store
    BYTES_MISSING = "BYTES_MISSING"
    #: the pipeline raised an error no stage expected; the job ended FAILED and the
    #: revision stays in its stage (``ragox retry`` or ``ragox fail``)
    CRASHED = "CRASHED"


@dataclass(frozen=True, slots=True)
class WorkResult:
    """One job a worker held."""

    claim: JobClaim
    note: WorkNote
    outcome: IngestOutcome | None
    #: the lease ran out while the job ran (another worker may have taken it over)
    lease_lost: bool
    #: the exception's type name for CRASHED (never its message: it may quote text)
    error: str | None = None


class _LeaseKeeper:
    """Renews a claim's lease from a daemon thread every third of the lease, until
    stopped or the lease is lost (a context manager). ``lost`` tells afterwards
    whether the lease ran out at some point: a renewal was refused, or more than a
    lease passed without one (the process stalled: swapped out, stopped, paused)."""

    def __init__(
        self, store: Store, claim: JobClaim, worker: str, lease_seconds: float, claimed: float
    ) -> None:
        self._store = store
        self._claim = claim
        self._worker = worker
        self._lease = lease_seconds
        self._stop = threading.Event()
        self.lost = False
        # the lease runs from the moment the claim was asked for (``time.monotonic()``),
        # not from this keeper's start: a process stopped in between held it unrenewed
        self._renewed = claimed
        self._thread = threading.Thread(target=self._renew, name="ragox-lease", daemon=True)

    def _renew(self) -> None:
        try:
            while not self._stop.wait(self._lease / 3):
                self.lost |= time.monotonic() - self._renewed > self._lease
                if not self._store.queue.renew(self._claim.job_id, self._worker, self._lease):
                    self.lost = True
                    return
                self._renewed = time.monotonic()
        except Exception:  # noqa: S110 - a missed renewal only ages the lease
            pass
        finally:
            self._store.close()  # this thread's connection

    def __enter__(self) -> _LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.lost |= time.monotonic() - self._renewed > self._lease


def new_worker_id() -> str:
    """``host:pid:random``: unique per worker process, readable in ``ragox status``."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class Worker:
    """Claims queued jobs from a store and runs them through an :class:`Ingestor`."""

    def __init__(
        self,
        store: Store,
        ingestor: Ingestor,
        config: WorkerConfig = WorkerConfig(),
        worker_id: str | None = None,
    ) -> None:
        self.store = store
        self.ingestor = ingestor
        self.config = config
        self.worker_id = worker_id or new_worker_id()

    def run_one(self) -> WorkResult | None:
        """Claim one job and run it; None when nothing waits."""
        config = self.config
        claimed = time.monotonic()
        claim = self.store.queue.claim(self.worker_id, config.lease_seconds, config.max_attempts)
        if claim is None:
            return None
        lease = config.lease_seconds
        with _LeaseKeeper(self.store, claim, self.worker_id, lease, claimed) as keeper:
            note, outcome, error, ended = self._work(claim)
        return WorkResult(claim, note, outcome, keeper.lost or not ended, error)

    def _work(self, claim: JobClaim) -> tuple[WorkNote, IngestOutcome | None, str | None, bool]:
        """What became of the job, and whether this worker still held it when it ended
        it (False: its run had been taken over)."""
        store = self.store
        record = store.get_revision(claim.tenant, claim.document_id, claim.revision)
        if record is None:
            return WorkNote.GONE, None, None, True
        if self.ingestor.finished(record, claim.ocr):
            ended = store.finish_job(claim.job_id, JobState.DONE, None)
            return WorkNote.ALREADY_READY, None, None, ended
        if not store.blobs.exists(record.source_sha256):
            ended = store.finish_job(
                claim.job_id, JobState.FAILED, "receive", WorkNote.BYTES_MISSING.value
            )
            store.set_state(
                claim.tenant,
                claim.document_id,
                claim.revision,
                RevisionState.FAILED,
                failed_stage="receive",
                error_code=WorkNote.BYTES_MISSING.value,
                error_message="the original is not in the blob store",
            )
            return WorkNote.BYTES_MISSING, None, None, ended
        try:
            data = store.blobs.get(record.source_sha256)
            outcome = self.ingestor.process(
                record, data, created=True, job=claim.job_id, ocr=claim.ocr
            )
        except Exception as error:  # the pipeline marked the job FAILED (INTERRUPTED)
            return WorkNote.CRASHED, None, type(error).__name__, True
        return WorkNote.RAN, outcome, None, True

    def run(
        self,
        *,
        max_jobs: int | None = None,
        drain: bool = False,
        stop: threading.Event | None = None,
        report: Callable[[WorkResult], None] | None = None,
    ) -> int:
        """Work until ``stop`` is set, ``max_jobs`` jobs were held, or (``drain``) the
        queue owes nothing: no job waits and no claimed run is unfinished (a run whose
        worker died is waited for until its lease runs out, then taken over). Returns
        how many jobs this worker held."""
        stop = stop or threading.Event()
        held = unmerged = 0
        while not stop.is_set() and (max_jobs is None or held < max_jobs):
            try:
                result = self.run_one()
                if result is None and unmerged:
                    # the queue is empty for now: merge the index the jobs since the
                    # last pause left fragmented (as a folder's ingestion ends)
                    self.store.compact_index()
                    unmerged = 0
                empty = result is None and drain and self.store.queue.pending() == 0
            except Exception:  # the store busy or unreachable for a moment: ask again
                result, empty = None, False
            if empty:
                break
            if result is None:
                stop.wait(self.config.poll_seconds)
                continue
            held += 1
            unmerged += result.note is WorkNote.RAN
            if report is not None:
                report(result)
        return held
