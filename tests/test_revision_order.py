"""Revision order under concurrency and crashes: creation order decides the current
revision, the same bytes make one revision with one manifest, index rows exist only
for current revisions (none survive a crash, a re-ingest or a delete), and a run that
died is shown as stale and can be retried or failed by the operator."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import (
    OPERATOR,
    blob_class,
    index_class,
    legacy_lexical_tables,
    older_database,
    run_ragox,
    serving,
    store_class,
    store_sql,
)
from ragox.ingest import Heartbeat
from ragox.service import Ragox
from ragox.store import (
    SCHEMA_VERSION,
    RevisionState,
    SqliteStore,
    StoreError,
)

pytestmark = pytest.mark.both_backends

TENANT = "default"
DOC = "manual"


def _word(n: int) -> str:
    """A word no stemmer changes and no other content has (letters only)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters += chr(ord("a") + digit)
        if n == 0:
            return f"zq{letters}xk"


def _content(n: int, paragraphs: int = 1) -> bytes:
    """A small text whose one rare word is ``_word(n)``."""
    body = f"Pump manual {_word(n)}.\n\n" + "Disconnect power before opening the cover.\n\n" * (
        paragraphs
    )
    return body.encode()


# -- what must hold after anything ------------------------------------------------------
#
# The helpers below read the lexical index with raw SQL (each backend's own layout:
# on SQLite one FTS5 table per reader-group partition named in `lexical_partitions`,
# on PostgreSQL `lexical_rows` and `lexical_postings`; rows keyed by chunk rowid); if
# that layout changes, only they need to follow.

_CURRENT_ROWIDS = """
    SELECT c.rowid FROM chunks c
    JOIN revisions r ON r.manifest_id = c.manifest_id AND r.state = 'READY'
    JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id
        AND d.current_revision = r.revision
    WHERE r.tenant = ?
"""


def _postgres() -> bool:
    return bool(os.environ.get("RAGOX_STORE"))


def orphan_rows(home: Path) -> int:
    """Lexical rows that belong to no chunk of a current, READY revision."""
    if _postgres():
        [(rows,)] = store_sql(
            home,
            "SELECT COUNT(*) FROM lexical_rows l JOIN lexical_partitions p "
            "ON p.partition_id = l.partition_id "
            f"WHERE l.rowid NOT IN ({_CURRENT_ROWIDS.replace('?', 'p.tenant')})",
        )
        [(postings,)] = store_sql(
            home,
            "SELECT COUNT(DISTINCT rowid) FROM lexical_postings "
            "WHERE rowid NOT IN (SELECT rowid FROM lexical_rows)",
        )
        return int(rows) + int(postings)
    tables = store_sql(home, "SELECT tenant, name FROM lexical_partitions")
    return sum(
        int(
            store_sql(
                home,
                f"SELECT COUNT(*) FROM {table} WHERE rowid NOT IN ({_CURRENT_ROWIDS})",
                (tenant,),
            )[0][0]
        )
        for tenant, table in tables
    )


def lexical_rows(home: Path, manifest_id: str) -> int:
    """Lexical rows of one representation's chunks."""
    chunk_rows = "(SELECT rowid FROM chunks WHERE manifest_id=?)"
    if _postgres():
        query = f"SELECT COUNT(*) FROM lexical_rows WHERE rowid IN {chunk_rows}"
        return int(store_sql(home, query, (manifest_id,))[0][0])
    tables = store_sql(home, "SELECT name FROM lexical_partitions")
    return sum(
        int(
            store_sql(
                home, f"SELECT COUNT(*) FROM {table} WHERE rowid IN {chunk_rows}", (manifest_id,)
            )[0][0]
        )
        for (table,) in tables
    )


def matching_rows(home: Path, word: str) -> int:
    """Lexical rows (current or not) in which ``word`` matches."""
    if _postgres():  # a word of _word() is its own term
        query = "SELECT COUNT(DISTINCT rowid) FROM lexical_postings WHERE term=?"
        return int(store_sql(home, query, (word,))[0][0])
    tables = store_sql(home, "SELECT name FROM lexical_partitions")
    return sum(
        int(
            store_sql(home, f"SELECT COUNT(*) FROM {table} WHERE {table} MATCH ?", (f'"{word}"',))[
                0
            ][0]
        )
        for (table,) in tables
    )


def check_invariants(app: Ragox, doc: str, words: dict[str, str]) -> str | None:
    """The rules of revision order for ``doc``, whose contents' rare words are
    ``words`` (source SHA-256 → word). Returns the current revision.

    One revision per distinct content, one manifest per revision, the newest READY
    revision current, the current revision found by its word (and no other
    revision's word found), its index whole, and no orphan rows anywhere.
    """
    revisions = app.store.revisions(TENANT, doc)
    shas = [r.source_sha256 for r in revisions]
    assert len(shas) == len(set(shas)), "two revisions of the same bytes"
    assert set(shas) == set(words), "a revision per distinct content"
    for record in revisions:
        manifests = app.store.manifests(TENANT, doc, record.revision)
        assert len(manifests) <= 1, f"{len(manifests)} manifests for {record.revision}"
        if record.state is RevisionState.READY:
            assert len(manifests) == 1
    ready = [r for r in revisions if r.state is RevisionState.READY]
    document = app.store.get_document(TENANT, doc)
    assert document is not None
    newest = max(ready, key=lambda r: r.seq).revision if ready else None
    assert document.current_revision == newest, "the newest READY revision is current"
    for record in revisions:
        hits = app.search(words[record.source_sha256], OPERATOR)
        found = {(h.document_id, h.revision) for h in hits}
        assert found == ({(doc, record.revision)} if record.revision == newest else set())
    if newest is not None:
        record = app.store.get_revision(TENANT, doc, newest)
        assert record is not None and record.manifest_id is not None
        chunks = app.store.chunk_count(record.manifest_id)
        assert chunks > 0 and lexical_rows(app.home, record.manifest_id) == chunks
    assert orphan_rows(app.home) == 0
    return newest


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ingest(app: Ragox, data: bytes, doc: str = DOC) -> Any:
    return app.ingestor.ingest_bytes(data, "manual.txt", doc, tenant=TENANT)


# -- regressions: order ------------------------------------------------------------------


def test_an_older_revision_finishing_last_never_becomes_current(app: Ragox) -> None:
    """r1 and r2 received in that order; r2 finishes first, r1 last: r2 stays current."""
    first, second = _content(1), _content(2)
    r1 = app.ingestor.receive(first, "m.txt", DOC, tenant=TENANT)
    r2 = app.ingestor.receive(second, "m.txt", DOC, tenant=TENANT)
    assert isinstance(r1, tuple) and isinstance(r2, tuple)
    assert app.ingestor.process(r2[0], second, True).state is RevisionState.READY
    assert app.ingestor.process(r1[0], first, True).state is RevisionState.READY
    current = check_invariants(app, DOC, {_sha(first): _word(1), _sha(second): _word(2)})
    assert current == "r2"


def _interrupt_make_current(patch: pytest.MonkeyPatch) -> None:
    """Every run stops right before the revision would become current (a crash)."""

    def crash(self: SqliteStore, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    patch.setattr(store_class(), "make_current", crash)


def test_a_crash_recovered_older_revision_never_replaces_a_ready_newer_one(
    app: Ragox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """r1 crashes before make-current, r2 becomes READY; recovering r1 keeps r2 current."""
    first, second = _content(1), _content(2)
    with monkeypatch.context() as patch:
        _interrupt_make_current(patch)
        with pytest.raises(KeyboardInterrupt):
            _ingest(app, first)
    assert _ingest(app, second).revision == "r2"
    recovered = _ingest(app, first)
    assert (recovered.revision, recovered.state) == ("r1", RevisionState.READY)
    assert check_invariants(app, DOC, {_sha(first): _word(1), _sha(second): _word(2)}) == "r2"


# -- regressions: one revision, one manifest, a whole index -------------------------------


def test_same_bytes_racing_make_one_revision(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second ingest of the same bytes that wins the race between the first one's
    duplicate check and its insert: the first joins the winner's revision."""
    data = _content(1)
    first, second = Ragox(home), Ragox(home)
    blobs = blob_class()
    original = blobs.put
    raced: list[object] = []

    def put(self: Any, blob: bytes) -> str:
        if not raced:
            raced.append(blob)
            _ingest(second, data)  # the other ingest, start to finish
        return original(self, blob)

    monkeypatch.setattr(blobs, "put", put)
    outcome = _ingest(first, data)
    assert outcome.state is RevisionState.READY and outcome.revision == "r1"
    assert not outcome.created
    check_invariants(first, DOC, {_sha(data): _word(1)})
    first.close()
    second.close()


def test_two_runs_of_one_revision_make_one_manifest(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs extract one revision at once (the second finishes while the first is
    between extraction and saving): one manifest, READY, searchable, no orphans."""
    data = _content(1, paragraphs=3)
    first, second = Ragox(home), Ragox(home)
    received = first.ingestor.receive(data, "m.txt", DOC, tenant=TENANT)
    assert isinstance(received, tuple)
    record = received[0]
    store = store_class()
    original = store.save_representation
    raced: list[object] = []

    def save(self: Any, *args: Any, **kwargs: Any) -> str:
        if not raced:
            raced.append(args)
            second.ingestor.process(record, data, False)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(store, "save_representation", save)
    assert first.ingestor.process(record, data, True).state is RevisionState.READY
    check_invariants(first, DOC, {_sha(data): _word(1)})
    first.close()
    second.close()


def test_reingest_repairs_a_ready_revision_whose_index_rows_are_missing(app: Ragox) -> None:
    """A READY current revision without lexical rows (left so by older versions) is
    re-indexed by ingesting its bytes again, instead of answering 'unchanged'."""
    data = _content(1)
    _ingest(app, data)
    if _postgres():
        store_sql(app.home, "DELETE FROM lexical_postings")
        store_sql(app.home, "DELETE FROM lexical_rows")
        store_sql(app.home, "UPDATE lexical_partitions SET rows=0, tokens=0")
    else:
        for (table,) in store_sql(app.home, "SELECT name FROM lexical_partitions"):
            store_sql(app.home, f"DELETE FROM {table}")
        store_sql(app.home, "DELETE FROM lexical_rows")
    assert app.search(_word(1), OPERATOR) == []
    outcome = _ingest(app, data)
    assert outcome.state is RevisionState.READY and not outcome.created
    check_invariants(app, DOC, {_sha(data): _word(1)})


def test_a_failed_rerun_of_a_ready_revision_keeps_it_ready_and_searchable(
    app: Ragox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rerun (`retry`) of a READY current revision that fails before make-current
    leaves it READY, current and searchable all along: a rerun neither takes it out of
    search (state, chunks and rows untouched) nor marks it FAILED."""
    data = _content(1, paragraphs=5)
    _ingest(app, data)

    def broken(self: SqliteStore, *args: object, **kwargs: object) -> None:
        raise StoreError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(store_class(), "make_current", broken)
        outcome = app.retry(DOC, "r1")
    assert getattr(outcome, "error_code", None) == "INTERNAL"
    assert getattr(outcome, "state", None) is RevisionState.READY
    record = app.store.get_revision(TENANT, DOC, "r1")
    assert record is not None and record.state is RevisionState.READY
    check_invariants(app, DOC, {_sha(data): _word(1)})


# -- regressions: crash leftovers ------------------------------------------------------------


@pytest.mark.sqlite_only  # rows an older SQLite version left in its FTS5 tables
def test_delete_sweeps_rows_an_older_version_left_behind(app: Ragox) -> None:
    """Lexical rows attached to no chunk (a crashed run of an older version) do not
    survive `ragox delete`: the deleted document's words match nothing afterwards."""
    _ingest(app, _content(1))
    with closing(sqlite3.connect(app.home / "ragox.db")) as conn, conn:
        (table,) = conn.execute("SELECT name FROM lexical_partitions").fetchone()
        conn.execute(f"INSERT INTO {table}(rowid, body) VALUES(424242, ?)", (_word(1),))
    assert matching_rows(app.home, _word(1)) == 2
    assert run_ragox(app.home, "delete", DOC).code == 0
    assert matching_rows(app.home, _word(1)) == 0 and orphan_rows(app.home) == 0


def test_a_crash_before_make_current_leaves_no_rows_that_survive_reingest_or_delete(
    app: Ragox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that dies after indexing, before its revision becomes current, leaves no
    lexical rows; after another document, a re-ingest and a delete, the deleted
    document's words match nothing."""
    data, other = _content(1), _content(2)
    with monkeypatch.context() as patch:
        _interrupt_make_current(patch)
        with pytest.raises(KeyboardInterrupt):
            _ingest(app, data)
    assert orphan_rows(app.home) == 0
    assert matching_rows(app.home, _word(1)) == 0
    _ingest(app, other, "other")  # its chunks take the rowids above the crashed run's
    assert _ingest(app, data).state is RevisionState.READY
    check_invariants(app, DOC, {_sha(data): _word(1)})
    assert app.delete(DOC)
    assert matching_rows(app.home, _word(1)) == 0
    assert orphan_rows(app.home) == 0
    assert [h.document_id for h in app.search(_word(2), OPERATOR)] == ["other"]


def _copy_as_schema7(new_home: Path, old_home: Path) -> None:
    """``new_home``'s rows in a database made by the migrations up to 7 only (the shape
    the previous release wrote), with its blobs and manifest key."""
    old_home.mkdir()
    with older_database(new_home / "ragox.db", old_home / "ragox.db", 7) as old:
        legacy_lexical_tables(old)  # the per-tenant FTS5 tables of schemas 3 to 9
    for name in ("blobs", "keys"):
        shutil.copytree(new_home / name, old_home / name)


@pytest.mark.sqlite_only  # an older SQLite home
def test_schema7_home_upgrades_sweeps_orphans_and_shows_old_jobs_stale(tmp_path: Path) -> None:
    """A schema-7 home with the leftovers of a crashed run (orphan lexical rows, a job
    RUNNING since long ago) opens: schema 9+, orphans gone, the job shown stale."""
    build = tmp_path / "build"
    app = Ragox(build)
    _ingest(app, _content(1))
    app.close()
    old_home = tmp_path / "old"
    _copy_as_schema7(build, old_home)
    with closing(sqlite3.connect(old_home / "ragox.db")) as conn, conn:
        (table,) = conn.execute("SELECT name FROM lexical_tables").fetchone()
        conn.execute(f"INSERT INTO {table}(rowid, body) VALUES(9999, 'zqleftoverxk')")
        conn.execute(
            "UPDATE jobs SET state='RUNNING', finished_at=NULL, created_at='2020-01-01T00:00:00Z'"
        )
    upgraded = Ragox(old_home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        assert orphan_rows(old_home) == 0 and matching_rows(old_home, "zqleftoverxk") == 0
        row = upgraded.status(DOC, OPERATOR).revisions[0]
        assert row.job is not None and row.job.liveness.value == "STALE"
        assert row.job.job.pid is None and row.job.age_seconds > 3600
        check_invariants(upgraded, DOC, {_sha(_content(1)): _word(1)})
    finally:
        upgraded.close()


# -- a crash at each stage boundary, in a real process ------------------------------------------


def _after(cls: type, name: str, when: Callable[..., bool] = lambda *a, **k: True) -> None:
    original = getattr(cls, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if when(*args, **kwargs):
            os._exit(17)
        return result

    setattr(cls, name, wrapper)


def _before(cls: type, name: str) -> None:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        os._exit(17)

    setattr(cls, name, wrapper)


def _state_is(state: RevisionState) -> Callable[..., bool]:
    return lambda *args, **kwargs: len(args) > 4 and args[4] is state


def _lexical_write() -> tuple[type, str]:
    # In this version the rows are written inside make_current's transaction (a crash
    # right after the write leaves them uncommitted); older versions had write_lexical.
    index = index_class()
    name = "write_lexical_rows" if hasattr(index, "write_lexical_rows") else "write_lexical"
    return index, name


#: Where the child process dies, in pipeline order.
BOUNDARIES: dict[str, Callable[[], None]] = {
    "blob-stored": lambda: _after(blob_class(), "put"),
    "RECEIVED": lambda: _after(store_class(), "create_revision"),
    "job-started": lambda: _after(store_class(), "start_job"),
    "EXTRACTING": lambda: _after(store_class(), "set_state", _state_is(RevisionState.EXTRACTING)),
    # The representation is stored with the revision EXTRACTED, in one transaction.
    "manifest-saved-EXTRACTED": lambda: _after(store_class(), "save_representation"),
    "INDEXING": lambda: _after(store_class(), "set_state", _state_is(RevisionState.INDEXING)),
    "chunks-saved": lambda: _after(store_class(), "save_index"),
    "before-make-current": lambda: _before(store_class(), "make_current"),
    "lexical-rows-written": lambda: _after(*_lexical_write()),
    # From schema 17 on the pipeline calls make_current inside commit_index's
    # transaction (chunks, versions and rows at once): committed means after that.
    "made-current": lambda: _after(
        store_class(),
        "commit_index" if hasattr(store_class(), "commit_index") else "make_current",
    ),
}


def _child(home: str, boundary: str, data: bytes) -> None:
    BOUNDARIES[boundary]()
    app = Ragox(Path(home))
    _ingest(app, data)
    os._exit(0)  # the boundary was never reached


def _crash_at(home: Path, boundary: str, data: bytes) -> None:
    process = multiprocessing.get_context("fork").Process(
        target=_child, args=(str(home), boundary, data)
    )
    process.start()
    process.join(60)
    assert process.exitcode == 17, f"{boundary}: exit {process.exitcode}"


@pytest.mark.parametrize("boundary", list(BOUNDARIES))
def test_a_run_killed_at_each_stage_boundary_recovers(
    tmp_path: Path, boundary: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """r1 is READY; a process ingesting r2 dies at ``boundary``. Then r1 (or, once r2
    committed, r2) is current and whole, no orphan rows exist, the dead run is shown
    stale; re-ingest, retry, reopen, a newer r3, and delete each restore the rules."""
    home = tmp_path / "home"
    old, new, newer = _content(1), _content(2), _content(3)
    app = Ragox(home)
    _ingest(app, old)
    app.close()
    _crash_at(home, boundary, new)

    app = Ragox(home)  # reopen: the store's recovery runs
    words = {_sha(old): _word(1)}
    if app.store.revision_by_source(TENANT, DOC, _sha(new)) is not None:
        words[_sha(new)] = _word(2)
    current = check_invariants(app, DOC, words)
    assert current == ("r2" if boundary == "made-current" else "r1")
    crashed = next((r for r in app.status(DOC, OPERATOR).revisions if r.revision.seq == 2), None)
    if crashed is not None:
        job = crashed.job
        if job is not None:
            assert job.liveness.value == ("STALE" if job.job.finished_at is None else "FINISHED")
        if boundary == "made-current":
            # the job ends DONE in the transaction that makes the revision READY
            assert job is not None and job.job.state.value == "DONE"
        # Without a job row (it died before starting one) the revision counts as stuck
        # once the lease has passed since it was received (an upload's run may still
        # be queued); with one, at once.
        in_progress = crashed.revision.state is not RevisionState.READY
        assert crashed.stuck == (in_progress and job is not None)
    app.close()

    original = os.environ.get("RAGOX_STORE")

    def copy(name: str) -> Ragox:
        target = tmp_path / name
        shutil.copytree(home, target)
        if original:  # a copy of the database too, which the copy's checks then read
            server = request.getfixturevalue("postgres_server")
            monkeypatch.setenv("RAGOX_STORE", server.copy(original))
        return Ragox(target)

    # 1. Ingesting the same bytes again finishes the revision.
    again = copy("reingest")
    outcome = _ingest(again, new)
    assert (outcome.revision, outcome.state) == ("r2", RevisionState.READY)
    assert check_invariants(again, DOC, {_sha(old): _word(1), _sha(new): _word(2)}) == "r2"
    again.close()

    # 2. The operator retries r2 from its stored bytes (no file at hand), if it exists.
    retried = copy("retry")
    if crashed is not None:
        result = retried.retry(DOC, "r2")
        assert not isinstance(result, type(None))
        assert getattr(result, "state", None) is RevisionState.READY
        assert check_invariants(retried, DOC, {_sha(old): _word(1), _sha(new): _word(2)}) == "r2"
        assert all(j.state.value != "RUNNING" for j in retried.store.jobs(TENANT, DOC, "r2"))
    retried.close()

    # 3. A newer r3 ingested before r2 is recovered stays current.
    later = copy("later")
    assert _ingest(later, newer).state is RevisionState.READY
    assert _ingest(later, new).state is RevisionState.READY
    labels = {r.source_sha256: r.revision for r in later.store.revisions(TENANT, DOC)}
    # (A run that died before creating r2 left nothing: the later ingest creates it last.)
    expected = labels[_sha(newer)] if crashed is not None else labels[_sha(new)]
    assert (
        check_invariants(
            later, DOC, {_sha(old): _word(1), _sha(new): _word(2), _sha(newer): _word(3)}
        )
        == expected
    )
    later.close()

    # 4. Deleting the document leaves no word of it matchable.
    gone = copy("delete")
    assert gone.delete(DOC)
    for n in (1, 2):
        assert matching_rows(gone.home, _word(n)) == 0
        assert gone.search(_word(n), OPERATOR) == []
    assert orphan_rows(gone.home) == 0
    gone.close()


# -- stale jobs through the CLI ------------------------------------------------------------------


def test_cli_status_shows_a_dead_run_stale_and_retry_and_fail_handle_it(tmp_path: Path) -> None:
    """After a run died in INDEXING: `status --json` shows its job STALE with an age,
    `fail` marks it FAILED (exit 0) and refuses a READY revision (exit 1), `retry`
    brings it to READY from the stored bytes, and unknown revisions are exit 1."""
    home = tmp_path / "home"
    app = Ragox(home)
    _ingest(app, _content(1))
    app.close()
    _crash_at(home, "INDEXING", _content(2))
    shutil.copytree(home, tmp_path / "second")

    status = run_ragox(home, "status", DOC, "--json")
    assert status.code == 0
    rows = {row["revision"]: row for row in json.loads(status.stdout)["revisions"]}
    assert rows["r2"]["state"] == "INDEXING" and rows["r2"]["stuck"] is True
    job = rows["r2"]["job"]
    assert job["state"] == "RUNNING" and job["stale"] is True and job["liveness"] == "STALE"
    assert job["age_seconds"] >= 0 and job["started_at"] and job["heartbeat_at"]
    assert rows["r1"]["stuck"] is False and rows["r1"]["job"]["liveness"] == "FINISHED"
    people = run_ragox(home, "status", DOC)
    assert "STALE job" in people.stdout and "retry or fail" in people.stdout

    failed = run_ragox(home, "fail", DOC, "--revision", "r2", "--json")
    assert failed.code == 0, failed.stderr
    assert json.loads(failed.stdout)["state"] == "FAILED"
    assert json.loads(failed.stdout)["error"] == "OPERATOR_FAILED"
    after = json.loads(run_ragox(home, "status", DOC, "--json").stdout)["revisions"]
    assert [(r["state"], r["stuck"], r["job"]["state"]) for r in after] == [
        ("READY", False, "DONE"),
        ("FAILED", False, "FAILED"),
    ]
    assert run_ragox(home, "fail", DOC, "--revision", "r1").code == 1  # READY
    assert run_ragox(home, "fail", DOC, "--revision", "r9").code == 1  # no such revision
    assert run_ragox(home, "retry", "nothing", "--revision", "r1").code == 1
    assert run_ragox(home, "retry", DOC).code == 2  # --revision is required

    retried = run_ragox(home, "retry", DOC, "--revision", "r2", "--json")
    assert retried.code == 0, retried.stderr
    assert json.loads(retried.stdout)["state"] == "READY"
    with _opened(home) as reopened:
        words = {_sha(_content(1)): _word(1), _sha(_content(2)): _word(2)}
        assert check_invariants(reopened, DOC, words) == "r2"

    # Retrying the stuck copy directly (never failed) works the same way.
    second = tmp_path / "second"
    assert run_ragox(second, "retry", DOC, "--revision", "r2").code == 0
    with _opened(second) as reopened:
        assert reopened.status(DOC, OPERATOR).document.current_revision == "r2"


def test_a_live_run_is_neither_failed_nor_retried(app: Ragox) -> None:
    """A RUNNING job whose process is alive and whose lease is fresh is LIVE: `fail`
    and `retry` refuse it rather than race it."""
    received = app.ingestor.receive(_content(1), "m.txt", DOC, tenant=TENANT)
    assert isinstance(received, tuple)
    app.store.start_job(TENANT, DOC, "r1")  # this process: alive
    row = app.status(DOC, OPERATOR).revisions[0]
    assert row.job is not None and row.job.liveness.value == "LIVE" and not row.stuck
    assert app.fail(DOC, "r1").value == "LIVE_JOB"  # type: ignore[union-attr]
    assert app.retry(DOC, "r1").value == "LIVE_JOB"  # type: ignore[union-attr]
    # The same job row from another host, beating last an hour ago: its lease expired.
    store_sql(app.home, "UPDATE jobs SET host='elsewhere', heartbeat_at='2020-01-01T00:00:00Z'")
    row = app.status(DOC, OPERATOR).revisions[0]
    assert row.job is not None and row.job.liveness.value == "STALE" and row.stuck
    outcome = app.retry(DOC, "r1")
    assert getattr(outcome, "state", None) is RevisionState.READY


def test_a_running_job_renews_its_lease(app: Ragox) -> None:
    """The heartbeat thread of a run moves the job's heartbeat forward while it works,
    and stops (closing its own connection) when the run ends."""
    received = app.ingestor.receive(_content(1), "m.txt", DOC, tenant=TENANT)
    assert isinstance(received, tuple)
    job = app.store.start_job(TENANT, DOC, "r1")
    (before,) = app.store.jobs(TENANT, DOC, "r1")
    with Heartbeat(app.store, job, interval=timedelta(milliseconds=20)):
        deadline = time.time() + 10
        while app.store.jobs(TENANT, DOC, "r1")[0].heartbeat_at == before.heartbeat_at:
            assert time.time() < deadline, "no heartbeat"
            time.sleep(0.02)
    assert all(t.name != "ragox-heartbeat" for t in threading.enumerate())


def test_the_same_bytes_under_another_label_join_the_existing_revision(app: Ragox) -> None:
    """Bytes a revision already has, ingested with another --revision label, are that
    revision (not a second one with the same bytes)."""
    first = app.ingestor.ingest_bytes(_content(1), "m.txt", DOC, revision="v1", tenant=TENANT)
    again = app.ingestor.ingest_bytes(_content(1), "m.txt", DOC, revision="v2", tenant=TENANT)
    assert (first.revision, first.created) == ("v1", True)
    assert (again.revision, again.created, again.state) == ("v1", False, RevisionState.READY)
    check_invariants(app, DOC, {_sha(_content(1)): _word(1)})


# -- concurrency ------------------------------------------------------------------------------


class _Opened:
    def __init__(self, home: Path) -> None:
        self.app = Ragox(home)

    def __enter__(self) -> Ragox:
        return self.app

    def __exit__(self, *exc: object) -> None:
        self.app.close()


def _opened(home: Path) -> _Opened:
    return _Opened(home)


def test_fifty_rounds_of_simultaneous_ingests(home: Path) -> None:
    """50 rounds; in each, three threads (each with its own Ragox, so its own SQLite
    connections) ingest two copies of one content and one other content of a new
    document at once: one revision per content, the newer current, all rules hold."""
    workers = 3
    apps = [Ragox(home) for _ in range(workers)]
    barrier = threading.Barrier(workers)
    rng = random.Random(7)

    def run(index: int, doc: str, data: bytes) -> Any:
        barrier.wait()
        return _ingest(apps[index], data, doc)

    with ThreadPoolExecutor(workers) as pool:
        for round_number in range(50):
            doc = f"doc-{round_number}"
            same = _content(2 * round_number, paragraphs=rng.randint(1, 40))
            other = _content(2 * round_number + 1, paragraphs=rng.randint(1, 40))
            inputs = [same, same, other]
            rng.shuffle(inputs)
            outcomes = list(pool.map(run, range(workers), [doc] * workers, inputs))
            assert all(o.state is RevisionState.READY for o in outcomes)
            words = {_sha(same): _word(2 * round_number), _sha(other): _word(2 * round_number + 1)}
            check_invariants(apps[0], doc, words)
    for instance in apps:
        instance.close()


def upload(url: str, key: str, document_id: str, data: bytes) -> httpx.Response:
    """One API upload of ``data`` as a revision of ``document_id`` (kept in one place:
    the upload's authorization may change)."""
    return httpx.post(
        f"{url}/v1/documents",
        headers={"Authorization": f"Bearer {key}"},
        files={"file": ("manual.txt", data, "text/plain")},
        data={"document_id": document_id},
        timeout=60,
    )


def test_thirty_parallel_api_uploads(home: Path) -> None:
    """30 simultaneous uploads to one document through a real `ragox serve` (20
    distinct contents, 10 repeated): 20 revisions, every one READY, the last created
    current and searchable, the others not, no orphan rows."""
    created = run_ragox(
        home,
        "keys",
        "create",
        "--principal",
        "up",
        "--groups",
        "staff",
        "--write",
        "staff/",
        "--json",
    )
    doc = "staff/" + DOC  # inside the key's write prefix
    assert created.code == 0, created.stderr
    key = json.loads(created.stdout)["key"]
    contents = [_content(n, paragraphs=1 + (n * 37) % 300) for n in range(20)]
    rng = random.Random(11)
    batch = contents + [rng.choice(contents) for _ in range(10)]
    rng.shuffle(batch)
    with serving(home) as url, ThreadPoolExecutor(30) as pool:
        responses = list(pool.map(lambda data: upload(url, key, doc, data), batch))
        assert [r.status_code for r in responses] == [202] * 30, [r.text for r in responses]
        headers = {"Authorization": f"Bearer {key}"}
        deadline = time.time() + 90
        while True:
            state = httpx.get(f"{url}/v1/documents/{doc}", headers=headers, timeout=30).json()
            busy = [r for r in state["revisions"] if r["state"] not in ("READY", "FAILED")]
            if not busy or time.time() > deadline:
                break
            time.sleep(0.2)
        revisions = state["revisions"]
        assert len(revisions) == 20 and all(r["state"] == "READY" for r in revisions)
        newest = max(revisions, key=lambda r: int(r["revision"][1:]))
        assert state["current_revision"] == newest["revision"]
        words = {_sha(data): _word(n) for n, data in enumerate(contents)}
        for revision in revisions:
            hits = httpx.get(
                f"{url}/v1/search",
                params={"q": words[revision["source_sha256"]]},
                headers=headers,
                timeout=30,
            ).json()["hits"]
            expected = [revision["revision"]] if revision is newest else []
            assert [h["revision"] for h in hits] == expected
        assert orphan_rows(home) == 0
    with _opened(home) as app:
        check_invariants(app, doc, words)


@pytest.fixture(autouse=True)
def _no_stray_children() -> Iterator[None]:
    yield
    for child in multiprocessing.active_children():
        child.join(5)
