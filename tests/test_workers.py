"""Ingestion workers (`ragox worker`) as real processes sharing one store's queue:
every queued revision ends READY once with its chunks exactly once, also when
workers are killed (kill -9) mid-job or stall past their lease. Each test runs on
both backends: the workers and the CLI inherit ``RAGOX_STORE`` (the ``backend``
fixture), and the reference spans come from a separate SQLite home."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from conftest import older_database, serving
from ragox.access import Principal
from ragox.ingest import Worker, WorkerConfig, WorkNote, WorkResult
from ragox.service import ActionRefused, Ragox
from ragox.store import (
    SCHEMA_VERSION,
    WORKER_LOST,
    JobClaim,
    JobState,
    RevisionState,
    SqliteStore,
    Store,
    open_store,
)
from ragox.store.sqlite._schema import MIGRATIONS

pytestmark = pytest.mark.both_backends

TENANT = "default"
OPERATOR = Principal.local_operator(TENANT)


def _token(number: int) -> str:
    """A word only document ``number`` has (letters, ending in x: no stemmer suffix)."""
    return "kestrel" + "".join(chr(ord("a") + int(d)) for d in f"{number:03d}") + "x"


def _text(number: int, filler: int = 0) -> str:
    """Document ``number``; ``filler`` more paragraphs make its run take longer."""
    return (
        f"Maintenance note {number}.\n\n"
        f"The inspection of valve {_token(number)} happens every week. "
        "Operators record the pressure and the temperature in the log book.\n\n"
        "Before opening the housing, the line is depressurized and locked out. "
        "A second person confirms the lockout before work begins.\n"
    ) + "".join(
        f"\nStep {step}: the gauge of line {step} is read, and its value is written "
        "down with the time of reading and the name of the reader.\n"
        for step in range(filler)
    )


def _write_docs(folder: Path, count: int, filler: int = 0) -> dict[str, int]:
    """``count`` text files; returns document id → number."""
    folder.mkdir(parents=True)
    docs = {}
    for number in range(count):
        name = f"note{number:03d}.txt"
        (folder / name).write_text(_text(number, filler), encoding="utf-8")
        docs[name] = number
    return docs


def _ragox(home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragox", "--home", str(home), *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=300,
    )


def _worker(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ragox", "--home", str(home), "worker", "--json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _queue(home: Path, folder: Path, count: int) -> None:
    done = _ragox(home, "ingest", str(folder), "--queue", "--json", check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)["summary"]
    assert summary == {"ready": 0, "unchanged": 0, "skipped": 0, "failed": 0, "queued": count}


#: reference spans by (document count, filler), computed once for both backends
_REFERENCES: dict[tuple[int, int], dict[str, list[tuple]]] = {}


def _reference_spans(
    folder: Path, docs: dict[str, int], home: Path, filler: int = 0
) -> dict[str, list[tuple]]:
    """The chunk spans of each document as a synchronous `ingest` makes them (in a
    SQLite home of its own, whatever the backend under test: chunking is the same;
    the documents are a function of count and filler, so once per module run)."""
    known = _REFERENCES.get((len(docs), filler))
    if known is None:
        known = _REFERENCES[(len(docs), filler)] = _ingest_reference(folder, docs, home)
    return known


def _ingest_reference(folder: Path, docs: dict[str, int], home: Path) -> dict[str, list[tuple]]:
    app = Ragox(home, store="sqlite")
    try:
        spans = {}
        for doc_id in docs:
            out = app.ingestor.ingest_file(folder / doc_id, doc_id, tenant=TENANT)
            assert out.state is RevisionState.READY
            record = app.store.get_revision(TENANT, doc_id, out.revision)
            assert record is not None and record.manifest_id is not None
            spans[doc_id] = sorted((c.start, c.end) for c in app.store.chunks(record.manifest_id))
        return spans
    finally:
        app.close()


def _assert_whole(home: Path, docs: dict[str, int], reference: dict[str, list[tuple]]) -> Counter:
    """Every document: one revision, READY and current, one representation, its chunks
    exactly the reference's (none twice, none missing), its index whole, found by its
    own word first and once; no job left waiting or running. Returns the count
    of job rows by (state, error)."""
    store = open_store(home)
    app = Ragox(home)
    jobs: Counter = Counter()
    try:
        for doc_id, number in docs.items():
            revisions = store.revisions(TENANT, doc_id)
            assert [r.revision for r in revisions] == ["r1"], doc_id
            record = revisions[0]
            assert record.state is RevisionState.READY, (doc_id, record.state)
            document = store.get_document(TENANT, doc_id)
            assert document is not None and document.current_revision == "r1"
            manifests = store.manifests(TENANT, doc_id, "r1")
            assert [m.manifest_id for m in manifests] == [record.manifest_id], doc_id
            assert record.manifest_id is not None
            chunks = store.chunks(record.manifest_id)
            assert sorted((c.start, c.end) for c in chunks) == reference[doc_id], doc_id
            assert store.index_complete(TENANT, doc_id, "r1"), doc_id
            found = [h.document_id for h in app.search(_token(number), OPERATOR, limit=5)]
            assert found[0] == doc_id and found.count(doc_id) == 1, doc_id
            for job in store.jobs(TENANT, doc_id, "r1"):
                jobs[(job.state, job.error_code)] += 1
        # no lexical row of a revision that is not current (half-written index)
        assert store.remove_index_orphans() == 0
        assert store.queue.pending() == 0
    finally:
        app.close()
        store.close()
    assert jobs[(JobState.QUEUED, None)] == 0
    assert sum(n for (state, _), n in jobs.items() if state is JobState.RUNNING) == 0
    return jobs


def _results(process: subprocess.Popen[str]) -> list[dict[str, object]]:
    out, _ = process.communicate(timeout=300)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_four_workers_ingest_200_documents_once(tmp_path: Path, backend: str) -> None:
    """200 queued documents, 4 worker processes claiming at once: every job is held
    by exactly one worker once, every revision ends READY once, chunks exactly once."""
    docs = _write_docs(tmp_path / "docs", 200)
    reference = _reference_spans(tmp_path / "docs", docs, tmp_path / "reference")
    home = tmp_path / "home"
    _queue(home, tmp_path / "docs", 200)
    started = time.monotonic()
    workers = [_worker(home, "--drain", "--lease", "30", "--poll", "0.05") for _ in range(4)]
    results = [_results(w) for w in workers]
    elapsed = time.monotonic() - started
    assert all(w.returncode == 0 for w in workers)
    held = [r["job_id"] for rs in results for r in rs]
    assert len(held) == 200 and len(set(held)) == 200  # no job held twice
    assert {r["state"] for rs in results for r in rs} == {"READY"}
    assert all(r["attempt"] == 1 and not r["lease_lost"] for rs in results for r in rs)
    per_worker = sorted(len(rs) for rs in results)
    assert sum(1 for n in per_worker if n) >= 2, per_worker  # they did share the queue
    jobs = _assert_whole(home, docs, reference)
    assert jobs == Counter({(JobState.DONE, None): 200})
    print(f"\n{backend}: 4 workers, 200 documents: {elapsed:.1f} s, jobs per worker {per_worker}")


def _running_jobs(store: Store, docs: dict[str, int]) -> list[tuple[str, int]]:
    """``(job_id, pid)`` of the jobs workers hold now."""
    found = []
    for doc_id in docs:
        for job in store.jobs(TENANT, doc_id, "r1"):
            if job.state is JobState.RUNNING and job.pid is not None:
                found.append((job.job_id, job.pid))
    return found


def _job_state(store: Store, docs: dict[str, int], job_id: str) -> JobState | None:
    for doc_id in docs:
        for job in store.jobs(TENANT, doc_id, "r1"):
            if job.job_id == job_id:
                return job.state
    return None


def test_workers_killed_mid_job_are_taken_over(tmp_path: Path, backend: str) -> None:
    """kill -9 of workers at random moments while they hold jobs (at least 20 kills
    mid-job): each job is reclaimed after its 1 s lease and finished by another
    worker; no revision is half visible, no chunk is written twice."""
    count, wanted = 60, 20
    rng = random.Random(11)
    # runs long enough (a few hundred ms even on a fast machine) to be killed inside
    docs = _write_docs(tmp_path / "docs", count, filler=1500)
    reference = _reference_spans(tmp_path / "docs", docs, tmp_path / "reference", 1500)
    home = tmp_path / "home"
    _queue(home, tmp_path / "docs", count)
    options = ("--drain", "--lease", "1", "--poll", "0.05", "--max-attempts", "100")
    workers = [_worker(home, *options) for _ in range(4)]
    store = open_store(home)
    kills = mid_job = 0
    started = time.monotonic()
    try:
        while mid_job < wanted and time.monotonic() - started < 240:
            alive = {w.pid: w for w in workers if w.poll() is None}
            held = [(job, pid) for job, pid in _running_jobs(store, docs) if pid in alive]
            if not held:
                if not alive:
                    break
                time.sleep(0.02)
                continue
            job_id, pid = rng.choice(held)
            time.sleep(rng.uniform(0, 0.05))  # a random moment of the run
            os.kill(pid, signal.SIGKILL)
            alive[pid].wait()
            kills += 1
            # still RUNNING after its process died: it was killed holding the job
            mid_job += _job_state(store, docs, job_id) is JobState.RUNNING
            workers.remove(alive[pid])
            workers.append(_worker(home, *options))
        for worker in workers:
            # a drained queue takes seconds; jobs never reclaimed keep workers waiting
            worker.communicate(timeout=180)
            assert worker.returncode == 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
        store.close()
    elapsed = time.monotonic() - started
    assert mid_job >= wanted, (kills, mid_job)
    jobs = _assert_whole(home, docs, reference)
    lost = jobs[(JobState.FAILED, WORKER_LOST)]
    assert lost >= mid_job  # every job killed mid-run was reclaimed (taken over)
    assert jobs[(JobState.DONE, None)] >= count
    print(
        f"\n{backend}: {kills} kills ({mid_job} mid-job), {lost} runs reclaimed, "
        f"{count} documents whole, {elapsed:.1f} s"
    )


def _writable(home: Path, store: Store) -> bool:
    """No process is inside a write transaction (one stopped there would hold SQLite's
    write lock, or PostgreSQL's locks of that document, and stall the writers that
    need them; test instrumentation)."""
    if not isinstance(store, SqliteStore):
        # another session that is not idle: a worker stopped inside a statement or
        # a transaction (the test's own store reads in autocommit)
        busy = store._fetchone(  # type: ignore[attr-defined]
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
            "AND state <> 'idle'"
        )
        return int(busy[0]) == 0
    conn = sqlite3.connect(home / "ragox.db", timeout=0.5, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return True


def test_worker_stalled_past_its_lease_duplicates_nothing(tmp_path: Path) -> None:
    """A worker stopped (SIGSTOP) while it holds a job loses it when its lease runs out;
    another finishes the queue; resumed, the first learns it lost the lease and its
    late run leaves one revision, one representation, each chunk once."""
    # runs long enough to be caught outside a write transaction: with short ones the
    # worker now and then emptied the queue before the loop below caught it (seen in CI)
    docs = _write_docs(tmp_path / "docs", 8, filler=400)
    reference = _reference_spans(tmp_path / "docs", docs, tmp_path / "reference", 400)
    home = tmp_path / "home"
    _queue(home, tmp_path / "docs", 8)
    options = ("--drain", "--lease", "1", "--poll", "0.05")
    first = _worker(home, *options)
    store = open_store(home)
    try:
        deadline = time.monotonic() + 120
        while True:  # stop it while it holds a job (checked once it is stopped)
            assert time.monotonic() < deadline and first.poll() is None
            held = [job for job, pid in _running_jobs(store, docs) if pid == first.pid]
            if held:
                first.send_signal(signal.SIGSTOP)
                if _job_state(store, docs, held[0]) is JobState.RUNNING and _writable(home, store):
                    break
                first.send_signal(signal.SIGCONT)
            time.sleep(0.005)
        # the stalled job's lease (1 s) runs out before the second worker looks: a drain
        # worker leaves a job with a live lease alone, and on a fast machine it emptied
        # the rest of the queue and exited within that second (seen on a clean clone)
        time.sleep(1.5)
        second = _worker(home, *options)
        second_results = _results(second)
        first.send_signal(signal.SIGCONT)
        first_results = _results(first)
    finally:
        if first.poll() is None:
            first.send_signal(signal.SIGCONT)
            first.kill()
        store.close()
    assert any(r["lease_lost"] for r in first_results)
    assert any(r["reclaimed_from"] for r in second_results)
    _assert_whole(home, docs, reference)


def test_worker_stopped_between_claim_and_run_knows_its_lease_ran_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker stalled right after its claim, before its lease keeper started (the gap
    the SIGSTOP test above hits now and then): its lease runs from the claim. Taken over
    and finished by another meanwhile, its late end reports the lease lost and leaves
    the run taken over FAILED (WORKER_LOST), not DONE; stalled as long with nobody
    taking over, it still reports the lease lost."""
    _write_docs(tmp_path / "docs", 2)
    home = tmp_path / "home"
    _queue(home, tmp_path / "docs", 2)
    app = Ragox(home)
    stalled = open_store(home)
    config = WorkerConfig(lease_seconds=0.2, poll_seconds=0.01)
    try:
        late = Worker(stalled, app.ingestor, config)
        other = app.worker(config)
        claim = stalled.queue.claim
        taken: list[WorkResult | None] = []

        def claim_then_stall(worker: str, lease: float, attempts: int) -> JobClaim | None:
            held = claim(worker, lease, attempts)
            time.sleep(0.3)  # the lease (0.2 s) runs out before the keeper starts
            if not taken:  # the first time, another worker takes the run over
                taken.append(other.run_one())
            return held

        monkeypatch.setattr(stalled.queue, "claim", claim_then_stall)
        first = late.run_one()
        (over,) = taken
        assert first is not None and over is not None
        assert over.claim.reclaimed_from == first.claim.job_id and over.note is WorkNote.RAN
        assert (first.note, first.lease_lost) == (WorkNote.ALREADY_READY, True)
        ended = {j.job_id: j for j in app.store.jobs(TENANT, first.claim.document_id, "r1")}
        assert ended[first.claim.job_id].state is JobState.FAILED
        assert ended[first.claim.job_id].error_code == WORKER_LOST
        assert ended[over.claim.job_id].state is JobState.DONE
        # nobody takes the second over: the run completes, and the stall is reported
        second = late.run_one()
        assert second is not None and second.claim.reclaimed_from is None
        assert (second.note, second.lease_lost) == (WorkNote.RAN, True)
        done = app.store.get_revision(TENANT, second.claim.document_id, "r1")
        assert done is not None and done.state is RevisionState.READY
    finally:
        stalled.close()
        app.close()


def test_queued_upload_is_received_then_ready_after_a_worker(tmp_path: Path) -> None:
    """`ragox serve --queue`: an upload answers 202 with the revision RECEIVED and its job
    QUEUED, nothing runs in the server; after `ragox worker --once` it is READY and
    searchable."""
    home = tmp_path / "home"
    app = Ragox(home)
    key = app.create_key(Principal("up", groups=frozenset({"staff"}), write=frozenset({"staff/"})))
    app.close()
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home, "--queue") as url:
        sent = httpx.post(
            f"{url}/v1/documents",
            headers=auth,
            files={"file": ("pump.txt", _text(7).encode(), "text/plain")},
            data={"document_id": "staff/pump.txt"},
        )
        assert sent.status_code == 202
        assert sent.json() == {
            "document_id": "staff/pump.txt",
            "revision": "r1",
            "state": "RECEIVED",
            "queued": True,
        }
        time.sleep(1.0)  # a server that ran the pipeline itself would be done by now
        listed = httpx.get(f"{url}/v1/documents", headers=auth).json()["documents"]
        (revision,) = listed[0]["revisions"]
        assert revision["state"] == "RECEIVED"
        assert revision["job"]["state"] == "QUEUED" and not revision["stuck"]
        status = json.loads(_ragox(home, "status", "staff/pump.txt", "--json").stdout)
        assert status["revisions"][0]["job"]["liveness"] == "QUEUED"
        ran = _ragox(home, "worker", "--once", "--json", "--poll", "0.05")
        assert json.loads(ran.stdout)["state"] == "READY"
        listed = httpx.get(f"{url}/v1/documents", headers=auth).json()["documents"]
        (revision,) = listed[0]["revisions"]
        assert revision["state"] == "READY" and revision["job"]["state"] == "DONE"
        found = httpx.get(f"{url}/v1/search", headers=auth, params={"q": _token(7)}).json()
        assert [h["document_id"] for h in found["hits"]] == ["staff/pump.txt"]


def test_worker_fails_a_job_that_keeps_killing_workers(tmp_path: Path) -> None:
    """A job whose workers died ``max_attempts`` times ends its revision FAILED
    (WORKER_LOST) instead of being claimed for ever; a revision is queued once;
    `ragox fail` cancels a queued job; a worker takes over a run whose lease ran out."""
    _write_docs(tmp_path / "docs", 3)
    home = tmp_path / "home"
    _queue(home, tmp_path / "docs", 3)
    store = open_store(home)
    app = Ragox(home)
    try:
        queue = store.queue
        first = queue.claim("w1", 0.2, max_attempts=2)
        assert first is not None and first.attempt == 1
        assert first.document_id == "note000.txt"  # the oldest first
        time.sleep(0.3)
        second = queue.claim("w2", 0.2, max_attempts=2)
        assert second is not None and second.reclaimed_from == first.job_id
        assert second.attempt == 2 and not queue.renew(first.job_id, "w1", 1.0)
        assert queue.renew(second.job_id, "w2", 0.2)
        time.sleep(0.3)
        third = queue.claim("w3", 0.2, max_attempts=2)  # gives note000 up, takes note001
        assert third is not None and third.document_id == "note001.txt"
        gone = store.get_revision(TENANT, "note000.txt", "r1")
        assert gone is not None and gone.state is RevisionState.FAILED
        assert (gone.failed_stage, gone.error_code) == ("extract", WORKER_LOST)
        # a revision waiting or held is queued once
        assert queue.enqueue(TENANT, "note001.txt", "r1") == third.job_id
        (waiting,) = [j for j in store.jobs(TENANT, "note002.txt", "r1")]
        assert queue.enqueue(TENANT, "note002.txt", "r1") == waiting.job_id
        failed = app.fail("note002.txt", "r1")  # cancels its queued job
        assert not isinstance(failed, ActionRefused) and failed.state is RevisionState.FAILED
        (cancelled,) = store.jobs(TENANT, "note002.txt", "r1")
        assert cancelled.state is JobState.FAILED
        time.sleep(0.3)  # note001's lease runs out: a worker takes it over
        assert app.worker(WorkerConfig(poll_seconds=0.01)).run(drain=True) == 1
        done = store.get_revision(TENANT, "note001.txt", "r1")
        assert done is not None and done.state is RevisionState.READY
        assert queue.pending() == 0
        # queued again once READY and up to date: the worker has nothing to do
        again = queue.enqueue(TENANT, "note001.txt", "r1")
        held: list[WorkResult] = []
        app.worker(WorkerConfig(poll_seconds=0.01)).run(drain=True, report=held.append)
        assert [(r.claim.job_id, r.note) for r in held] == [(again, WorkNote.ALREADY_READY)]
    finally:
        app.close()
        store.close()


@pytest.mark.sqlite_only
def test_home_from_before_the_queue_upgrades(tmp_path: Path) -> None:
    """A home written before schema 20 opens with its jobs intact (no worker, lease end
    or claims); a run `ragox ingest` left RUNNING there is never taken by a worker; its
    revision can be queued and a worker then finishes it."""
    home = tmp_path / "home"
    app = Ragox(home)
    received = app.ingestor.receive(_text(1).encode(), "one.txt", "one.txt", tenant=TENANT)
    assert isinstance(received, tuple)
    legacy = app.store.start_job(TENANT, "one.txt", "r1")
    app.close()
    before = max(number for number, _ in MIGRATIONS if number < 20)
    old_db = tmp_path / "old.db"
    with older_database(home / "ragox.db", old_db, before) as old:
        assert "lease_until" not in {r[1] for r in old.execute("PRAGMA main.table_info(jobs)")}
    for suffix in ("", "-wal", "-shm"):
        (home / f"ragox.db{suffix}").unlink(missing_ok=True)
    old_db.rename(home / "ragox.db")

    store = SqliteStore(home)
    try:
        assert store.schema_version() == SCHEMA_VERSION
        (job,) = store.jobs(TENANT, "one.txt", "r1")
        assert (job.job_id, job.state, job.worker, job.lease_until, job.attempts) == (
            legacy,
            JobState.RUNNING,
            None,
            None,
            0,
        )
        assert store.queue.pending() == 0
        assert store.queue.claim("w", 0.2, 3) is None  # a run of `ingest` is never claimed
        queued = store.queue.enqueue(TENANT, "one.txt", "r1")
        assert queued != legacy
    finally:
        store.close()
    ran = json.loads(_ragox(home, "worker", "--once", "--json").stdout)
    assert (ran["job_id"], ran["state"]) == (queued, "READY")
