"""PostgreSQL write locks: writes of one document serialize, writes of different
documents run at once (workers gain from ``SKIP LOCKED``), writes that span
documents run alone; and a job's heartbeat thread closing "its connection" leaves
the store's pool to the thread that opened it."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import numpy as np
import psycopg
import pytest

from conftest import PostgresServer
from ragox.ingest._jobs import Heartbeat
from ragox.service import Ragox
from ragox.store import RevisionRecord, RevisionState
from ragox.store.postgres import PostgresStore

TENANT = "default"
#: how long a write that should not wait may take; one that must wait is held longer
QUICK = 20.0
HELD = 1.5


@pytest.fixture
def url(postgres_server: PostgresServer) -> Iterator[str]:
    fresh = postgres_server.fresh()
    yield fresh
    postgres_server.drop(fresh)


@pytest.fixture
def store(url: str, tmp_path: Path) -> Iterator[PostgresStore]:
    opened = PostgresStore(url, tmp_path / "home")
    yield opened
    opened.close()


def _revision(store: PostgresStore, document_id: str, content: str) -> tuple[RevisionRecord, bool]:
    """A revision of ``document_id`` for bytes ``content`` (the store rows only)."""
    store.ensure_document(TENANT, document_id)
    sha = hashlib.sha256(content.encode()).hexdigest()
    return store.create_revision(
        TENANT, document_id, None, sha, "text/plain", "note.txt", len(content), frozenset()
    )


class _Holder:
    """A thread that opens a write transaction of ``document_id`` (in its own store:
    its own connections, as another worker process has), writes a revision in it,
    and keeps it open until released."""

    def __init__(self, url: str, home: Path, document_id: str) -> None:
        self._store = PostgresStore(url, home)
        self._document_id = document_id
        self.holding = threading.Event()
        self.release = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._hold, daemon=True)
        self._thread.start()
        assert self.holding.wait(QUICK), "the holder never opened its transaction"

    def _hold(self) -> None:
        try:
            with self._store.document_transaction(TENANT, self._document_id):
                _revision(self._store, self._document_id, "held")
                self.holding.set()
                self.release.wait(60)
        except BaseException as error:
            self.error = error
            self.holding.set()
        finally:
            self._store.close()

    def finish(self) -> None:
        self.release.set()
        self._thread.join(QUICK)
        assert not self._thread.is_alive() and self.error is None, self.error


def _timed(action: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``action`` in a thread of its own; its result lands in the list."""
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(action()), daemon=True)
    thread.start()
    return thread, done


def test_writes_of_different_documents_do_not_wait_for_each_other(
    url: str, tmp_path: Path, store: PostgresStore
) -> None:
    """One writer holds its transaction of document a open (a revision written, not
    committed); another creates a revision of document b and commits meanwhile; a
    reader sees b's revision and nothing of a's until a's transaction ends."""
    holder = _Holder(url, tmp_path / "holder", "a.txt")
    try:
        started = time.monotonic()
        thread, done = _timed(lambda: _revision(store, "b.txt", "other"))
        thread.join(QUICK)
        assert done, "a write of another document waited for the open transaction"
        print(f"\nwrite of b while a's transaction is open: {time.monotonic() - started:.3f} s")
        record, created = done[0]  # type: ignore[misc]
        assert created and record.revision == "r1"
        assert store.get_revision(TENANT, "b.txt", "r1") is not None
        assert store.get_revision(TENANT, "a.txt", "r1") is None  # not half visible
    finally:
        holder.finish()
    assert store.get_revision(TENANT, "a.txt", "r1") is not None


def test_writes_of_one_document_serialize(url: str, tmp_path: Path, store: PostgresStore) -> None:
    """While one writer holds document a's transaction, another revision of a waits
    for it; then it gets the next number (r2: none twice, no gap), and the same bytes
    again make no new revision."""
    store.ensure_document(TENANT, "a.txt")  # committed: no row of it to wait for
    holder = _Holder(url, tmp_path / "holder", "a.txt")
    try:
        thread, done = _timed(lambda: _revision(store, "a.txt", "second"))
        thread.join(HELD)
        assert not done, "a write of the same document did not wait for the open one"
    finally:
        holder.finish()
    thread.join(QUICK)
    record, created = done[0]  # type: ignore[misc]
    assert created and (record.revision, record.seq) == ("r2", 2)
    again, created = _revision(store, "a.txt", "held")
    assert not created and again.revision == "r1"


def test_revision_numbers_have_no_gaps_under_concurrent_writers(url: str, tmp_path: Path) -> None:
    """Eight writers (each its own store) add revisions of one document at once, and
    of another document beside: each document's numbers are 1..n, once each."""
    writers = [PostgresStore(url, tmp_path / f"w{n}") for n in range(8)]
    errors: list[BaseException] = []

    def write(number: int) -> None:
        try:
            for turn in range(4):
                _revision(writers[number], "shared.txt", f"{number}-{turn}")
                _revision(writers[number], f"own{number % 2}.txt", f"{number}-{turn}")
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        assert not errors, errors
        for document_id, count in (("shared.txt", 32), ("own0.txt", 16), ("own1.txt", 16)):
            records = writers[0].revisions(TENANT, document_id)
            assert [r.seq for r in records] == list(range(1, count + 1)), document_id
            assert sorted(r.revision for r in records) == sorted(
                f"r{n}" for n in range(1, count + 1)
            )
    finally:
        for writer in writers:
            writer.close()


def test_a_write_that_spans_documents_runs_alone(
    url: str, tmp_path: Path, store: PostgresStore
) -> None:
    """Deleting a document (it sweeps the tenant's index and redacts answers) waits
    for an open write of any other document (it runs alone)."""
    _revision(store, "gone.txt", "gone")
    holder = _Holder(url, tmp_path / "holder", "a.txt")
    try:
        thread, done = _timed(lambda: store.delete_document(TENANT, "gone.txt"))
        thread.join(HELD)
        assert not done, "a delete ran beside an open write"
    finally:
        holder.finish()
    thread.join(QUICK)
    assert done == [True]


def test_a_heartbeat_thread_leaves_the_pool_open(store: PostgresStore) -> None:
    """A job's heartbeat renews from its own thread and closes "its connection" when
    it stops: the store's pool stays open for the thread that opened the store
    (which is in the middle of the job); that thread's close() closes it."""
    _revision(store, "a.txt", "beat")
    job = store.start_job(TENANT, "a.txt", "r1")
    pool = store._pool
    with Heartbeat(store, job, timedelta(milliseconds=20)):
        time.sleep(0.2)
    (record,) = store.jobs(TENANT, "a.txt", "r1")
    assert record.heartbeat_at is not None and record.heartbeat_at > record.created_at
    assert store._opened is pool and not pool.closed
    # the owner's work goes on on the same pool
    with store.document_transaction(TENANT, "a.txt"):
        store.set_state(TENANT, "a.txt", "r1", RevisionState.EXTRACTING)
    assert store._opened is pool
    store.close()
    assert pool.closed


def _generation(store: PostgresStore, partition_id: int) -> int:
    with store.read() as conn:
        row = conn.execute(
            "SELECT generation FROM lexical_generations WHERE partition_id = %s", (partition_id,)
        ).fetchone()
    return 0 if row is None else int(row[0])


def test_two_writers_of_one_partition_lose_no_generation(url: str, tmp_path: Path) -> None:
    """Two vector writes of two chunks of one partition, in two stores (two workers), that
    meet on no row but the partition's generation: while
    the first holds its raised generation uncommitted, the second waits for it rather
    than raising the value it read before; both raises count (no lost increment), so
    a reader's key after both differs from its key after either alone."""
    app = Ragox(tmp_path / "home", store=url)
    try:
        for doc in ("pump", "valve"):
            outcome = app.ingestor.ingest_bytes(
                f"The {doc} seal is replaced yearly.".encode(), f"{doc}.txt", doc,
                groups=frozenset({"staff"}), tenant=TENANT, language="en",
            )  # fmt: skip
            assert outcome.state.value == "READY"
        app.store.index.set_setting("embedder_key", "test-embedder")
        with app.store.read() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id, l.partition_id FROM chunks c "
                "JOIN lexical_rows l ON l.rowid = c.rowid ORDER BY c.chunk_id"
            ).fetchall()
        assert len(rows) == 2 and rows[0][1] == rows[1][1]
        (first_chunk, partition_id), (second_chunk, _) = rows
        before = _generation(app.store, partition_id)
        vector = np.ones(3, dtype="<f4").tobytes()
        holding, release = threading.Event(), threading.Event()
        errors: list[BaseException] = []

        def hold() -> None:
            first = PostgresStore(url, tmp_path / "first")
            try:
                with first.shared_transaction() as conn:
                    first.index.write_vectors("test-embedder", [(first_chunk, vector)])
                    first.index.flush_bump(conn)  # the raise is made, not committed
                    holding.set()
                    release.wait(60)
            except BaseException as error:
                errors.append(error)
                holding.set()
            finally:
                first.close()

        holder = threading.Thread(target=hold, daemon=True)
        holder.start()
        assert holding.wait(QUICK) and not errors, errors
        second = PostgresStore(url, tmp_path / "second")
        try:
            thread, done = _timed(
                lambda: second.index.write_vectors("test-embedder", [(second_chunk, vector)])
            )
            thread.join(HELD)
            assert not done, "the second raise did not wait for the first writer's row"
            release.set()
            holder.join(QUICK)
            thread.join(QUICK)
            assert done and not errors, errors
        finally:
            release.set()
            second.close()
        assert _generation(app.store, partition_id) == before + 2
    finally:
        app.close()


def _partition_of(store: PostgresStore, document_id: str) -> int:
    with store.read() as conn:
        row = conn.execute(
            "SELECT DISTINCT l.partition_id FROM lexical_rows l "
            "JOIN manifests m ON m.manifest_id = l.manifest_id WHERE m.document_id = %s",
            (document_id,),
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_regroups_lock_partition_counters_in_id_order(url: str, tmp_path: Path) -> None:
    """Two regroups in opposite directions (a document from partition 1 to 2, another
    from 2 to 1) must not each hold one partition's counters while waiting for the
    other's: PostgreSQL would abort one as a deadlock. Every write locks its counters
    at its end, lowest id first. Here another transaction holds the low partition's
    counter row while a regroup from the high partition to the low one runs: the
    regroup waits for it holding nothing, so the high partition's counter can still
    be locked (NOWAIT) — the step a second regroup, from low to high, would take.
    Updated where the rows moved, the regroup held the high counter first."""
    app = Ragox(tmp_path / "home", store=url)
    try:
        for doc, group in (("pump", "staff"), ("valve", "board")):
            outcome = app.ingestor.ingest_bytes(
                f"The {doc} seal is replaced yearly.".encode(), f"{doc}.txt", doc,
                groups=frozenset({group}), tenant=TENANT, language="en",
            )  # fmt: skip
            assert outcome.state.value == "READY"
        low, high = _partition_of(app.store, "pump"), _partition_of(app.store, "valve")
        assert low < high
        second = PostgresStore(url, tmp_path / "second")
        other = psycopg.connect(url, autocommit=False)
        try:
            other.execute(
                "SELECT 1 FROM lexical_partitions WHERE partition_id = %s FOR NO KEY UPDATE",
                (low,),
            )
            thread, done = _timed(
                lambda: second.set_groups(TENANT, "valve", None, frozenset({"staff"}))
            )
            thread.join(HELD)
            assert not done, "the regroup did not wait for the low partition's counter"
            try:
                other.execute(
                    "SELECT 1 FROM lexical_partitions WHERE partition_id = %s "
                    "FOR NO KEY UPDATE NOWAIT",
                    (high,),
                )
            except psycopg.errors.LockNotAvailable:
                pytest.fail("the regroup held the high partition's counter while it waited")
            other.commit()
            thread.join(QUICK)
            assert done == [1]
        finally:
            other.close()
            second.close()
        assert _partition_of(app.store, "valve") == low
        with app.store.read() as conn:
            counters = conn.execute(
                "SELECT partition_id, rows FROM lexical_partitions ORDER BY partition_id"
            ).fetchall()
        assert [(int(p), int(r)) for p, r in counters] == [(low, 2)]  # high: pruned
    finally:
        app.close()
