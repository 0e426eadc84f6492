"""Job leases: telling an ingestion run that died from one that is still working.

A job records the process id and host that run it and a heartbeat the run renews
(:class:`Heartbeat`, a thread beside the pipeline). A RUNNING job is stale when its
process is gone (same host: asked of the kernel) or its lease expired (any host:
the heartbeat is older than :data:`LEASE`, or, for a job a worker claimed from the
queue, the lease end it renews has passed).
"""

from __future__ import annotations

import contextlib
import enum
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from ragox.store import JobRecord, JobState, Store

__all__ = [
    "HEARTBEAT_INTERVAL",
    "LEASE",
    "Heartbeat",
    "JobHealth",
    "Liveness",
    "job_health",
    "job_run",
]

#: how often a running job renews its lease
HEARTBEAT_INTERVAL: Final = timedelta(seconds=15)
#: a RUNNING job whose heartbeat is older than this is stale, wherever it ran
LEASE: Final = timedelta(minutes=5)


class Liveness(enum.Enum):
    """What is known about the run behind a job row."""

    #: RUNNING, and its process answers and its lease is fresh
    LIVE = "LIVE"
    #: marked RUNNING, but its process is gone or its lease expired: it will not finish
    STALE = "STALE"
    #: DONE or FAILED
    FINISHED = "FINISHED"
    #: QUEUED: waiting for a worker (``ragox worker``) to claim it
    QUEUED = "QUEUED"


@dataclass(frozen=True, slots=True)
class JobHealth:
    """A job as ``status`` shows it: its liveness and ages, in seconds."""

    job: JobRecord
    liveness: Liveness
    #: since the job started
    age_seconds: float
    #: since its last heartbeat (None: finished, or recorded before schema 9)
    heartbeat_age_seconds: float | None


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    except OSError:
        return False
    return True


def job_health(job: JobRecord, now: datetime, lease: timedelta = LEASE) -> JobHealth:
    """The liveness of ``job`` at ``now`` (a timezone-aware UTC time)."""
    age = (now - _parse(job.created_at)).total_seconds()
    if job.state is JobState.QUEUED:
        return JobHealth(job, Liveness.QUEUED, age, None)
    if job.state is not JobState.RUNNING:
        return JobHealth(job, Liveness.FINISHED, age, None)
    beat = _parse(job.heartbeat_at or job.created_at)
    beat_age = (now - beat).total_seconds()
    dead = job.host == socket.gethostname() and job.pid is not None and not _process_alive(job.pid)
    # a worker's claim has a lease end of its own, whatever ``lease`` says
    until = _parse(job.lease_until) if job.lease_until else None
    expired = now > until if until is not None else now - beat > lease
    liveness = Liveness.STALE if dead or expired else Liveness.LIVE
    return JobHealth(job, liveness, age, beat_age if job.heartbeat_at else None)


class Heartbeat:
    """Renews a job's lease from a daemon thread until stopped (a context manager).

    The thread opens its own connection (the store's connections are per thread)
    and closes it when it stops.
    """

    def __init__(self, store: Store, job_id: str, interval: timedelta = HEARTBEAT_INTERVAL) -> None:
        self._store = store
        self._job_id = job_id
        self._interval = interval.total_seconds()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="ragox-heartbeat", daemon=True)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self._interval):
                self._store.heartbeat(self._job_id)
        except Exception:  # noqa: S110 - a lost beat only ages the lease
            pass
        finally:
            self._store.close()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def job_run(store: Store, job_id: str, *, beat: bool = True) -> Iterator[None]:
    """One run of a job: its heartbeat (``beat``) renews the lease while the body
    runs, and a body that does not finish (Ctrl-C, an error no stage expected) ends
    the job FAILED with ``INTERRUPTED``. That holds too when the interrupt lands
    while the heartbeat thread starts or stops: a job is never left RUNNING by a
    run that is over (status would call it a dead run instead of an interrupted one).
    """
    finished = False
    try:
        with Heartbeat(store, job_id) if beat else contextlib.nullcontext():
            yield
            finished = True
    except BaseException:
        if not finished:
            store.finish_job(job_id, JobState.FAILED, None, "INTERRUPTED")
        raise
