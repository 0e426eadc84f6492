"""The ingestion pipeline: states, idempotent retries, atomic revisions, failures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import OPERATOR, SEED_BYTES
from ragox.anchor import Refusal, ResolutionStatus
from ragox.ingest import Ingestor
from ragox.service import Ragox
from ragox.store import RevisionState

pytestmark = pytest.mark.both_backends

MANUAL = (
    "Pump manual\n\nDisconnect power before opening the cover. Wait five minutes.\n\n"
    "Check the seal every 500 hours.\n"
)


def _ingest(app: Ragox, path: Path, doc: str = "manual", **kwargs: object):  # type: ignore[no-untyped-def]
    item = app.ingest_path(path, path.parent, document_id=doc, **kwargs)  # type: ignore[arg-type]
    assert item.outcome is not None, item
    return item.outcome


def test_three_ingests_one_revision_identical_chunks(app: Ragox, tmp_path: Path) -> None:
    """The same file three times: one revision, one manifest, identical chunk ids."""
    path = tmp_path / "manual.txt"
    path.write_text(MANUAL, encoding="utf-8")
    ids = []
    for _ in range(3):
        outcome = _ingest(app, path)
        assert outcome.state is RevisionState.READY
        record = app.store.get_revision("default", "manual", outcome.revision)
        assert record is not None and record.manifest_id is not None
        ids.append([c.chunk_id for c in app.store.chunks(record.manifest_id)])
    assert len(app.store.revisions("default", "manual")) == 1
    assert ids[0] == ids[1] == ids[2] and ids[0]
    status = app.status("manual", OPERATOR)
    assert status.revisions[0].chunks == len(ids[0])


def test_new_revision_becomes_current_old_chunks_do_not(app: Ragox, tmp_path: Path) -> None:
    """A changed file is a new current revision; the old one is kept but not current."""
    path = tmp_path / "manual.txt"
    path.write_text(MANUAL, encoding="utf-8")
    first = _ingest(app, path)
    start = MANUAL.index("Disconnect")
    old_anchor = app.create_anchor("manual", start, start + 16, OPERATOR)
    assert not isinstance(old_anchor, Refusal)
    path.write_text(MANUAL.replace("500", "250"), encoding="utf-8")
    second = _ingest(app, path)
    assert (first.revision, second.revision) == ("r1", "r2")
    document = app.store.get_document("default", "manual")
    assert document is not None and document.current_revision == "r2"
    old_record = app.store.get_revision("default", "manual", "r1")
    new_record = app.store.get_revision("default", "manual", "r2")
    assert old_record is not None and new_record is not None
    assert old_record.state is RevisionState.READY
    assert old_record.manifest_id != new_record.manifest_id
    old_chunks = {c.chunk_id for c in app.store.chunks(old_record.manifest_id or "")}
    new_chunks = {c.chunk_id for c in app.store.chunks(new_record.manifest_id or "")}
    assert old_chunks and new_chunks and not old_chunks & new_chunks
    result = app.resolve(old_anchor.anchor, OPERATOR)
    assert result.status is ResolutionStatus.RESOLVED and result.current is False
    assert "250" in app.text("manual", OPERATOR)


def test_interrupted_indexing_leaves_nothing_half_visible(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during indexing: the old revision stays current; a rerun finishes cleanly."""
    path = tmp_path / "manual.txt"
    path.write_text(MANUAL, encoding="utf-8")
    _ingest(app, path)
    path.write_text(MANUAL + "\nAppendix.\n", encoding="utf-8")

    def interrupted(
        self: Ingestor, tenant: str, document_id: str, manifest_id: str, fresh: object = None
    ) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(Ingestor, "_index", interrupted)
        with pytest.raises(KeyboardInterrupt):
            app.ingest_path(path, tmp_path, document_id="manual")
    document = app.store.get_document("default", "manual")
    assert document is not None and document.current_revision == "r1"
    half = app.store.get_revision("default", "manual", "r2")
    assert half is not None and half.state is RevisionState.INDEXING
    # The interrupted run ends its job (an interrupt is not a live run); the
    # revision stays INDEXING, never current, and status calls it stuck.
    jobs = app.store.jobs("default", "manual", "r2")
    assert [(job.state.value, job.error_code) for job in jobs] == [("FAILED", "INTERRUPTED")]
    assert [row.stuck for row in app.status("manual", OPERATOR).revisions] == [False, True]
    assert "Appendix" not in app.text("manual", OPERATOR)

    outcome = _ingest(app, path)
    assert (outcome.revision, outcome.state) == ("r2", RevisionState.READY)
    assert [job.state.value for job in app.store.jobs("default", "manual", "r2")] == [
        "FAILED",
        "DONE",
    ]
    clean = Ragox(tmp_path / "clean")
    clean_outcome = _ingest(clean, path)
    done = app.store.get_revision("default", "manual", "r2")
    other = clean.store.get_revision("default", "manual", clean_outcome.revision)
    assert done is not None and other is not None
    assert app.store.chunk_count(done.manifest_id or "") == clean.store.chunk_count(
        other.manifest_id or ""
    )
    assert len(app.store.manifests("default", "manual", "r2")) == 1


def test_interrupt_while_the_heartbeat_starts_or_stops_ends_the_job(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C that lands while a run's heartbeat thread starts (after its job row
    was written, before any stage ran) ends the job INTERRUPTED, as one during a
    stage does: the job is not left RUNNING for status to call a dead run. One that
    lands while the heartbeat stops, after the run finished, keeps the job DONE."""
    from ragox.ingest._jobs import Heartbeat

    path = tmp_path / "manual.txt"
    path.write_text(MANUAL, encoding="utf-8")

    def interrupted(self: Heartbeat) -> Heartbeat:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(Heartbeat, "__enter__", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _ingest(app, path)
    jobs = app.store.jobs("default", "manual", "r1")
    assert [(job.state.value, job.error_code) for job in jobs] == [("FAILED", "INTERRUPTED")]
    record = app.store.get_revision("default", "manual", "r1")
    assert record is not None and record.state is RevisionState.RECEIVED

    stop = Heartbeat.__exit__

    def interrupted_after(self: Heartbeat, *exc: object) -> None:
        stop(self, *exc)
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(Heartbeat, "__exit__", interrupted_after)
        with pytest.raises(KeyboardInterrupt):
            _ingest(app, path)
    assert [job.state.value for job in app.store.jobs("default", "manual", "r1")] == [
        "FAILED",
        "DONE",
    ]
    record = app.store.get_revision("default", "manual", "r1")
    assert record is not None and record.state is RevisionState.READY


def test_delete_removes_from_resolution_and_keeps_others(app: Ragox, tmp_path: Path) -> None:
    """After delete the document's anchors are ACCESS_DENIED; other documents are intact."""
    (tmp_path / "a.txt").write_bytes(SEED_BYTES)
    (tmp_path / "b.txt").write_text(MANUAL, encoding="utf-8")
    _ingest(app, tmp_path / "a.txt", "a")
    _ingest(app, tmp_path / "b.txt", "b")
    anchor_a = app.create_anchor("a", 9, 16, OPERATOR)
    anchor_b = app.create_anchor("b", 0, 4, OPERATOR)
    assert not isinstance(anchor_a, Refusal) and not isinstance(anchor_b, Refusal)
    sha = app.store.revisions("default", "a")[0].source_sha256
    assert app.delete("a")
    assert app.resolve(anchor_a.anchor, OPERATOR).status is ResolutionStatus.ACCESS_DENIED
    assert app.resolve(anchor_b.anchor, OPERATOR).status is ResolutionStatus.RESOLVED
    assert not app.store.blobs.exists(sha)
    assert app.store.get_anchor("default", anchor_a.anchor.anchor_id) is None
    assert not app.delete("a")


BAD_INPUTS = [
    ("empty.txt", b"", "EMPTY_FILE"),
    ("blank.txt", b"   \n\n  ", "EMPTY_FILE"),
    # a byte order mark alone was READY with nothing to find or cite (red-team)
    ("bom.txt", b"\xef\xbb\xbf", "EMPTY_FILE"),
    ("bom-blank.txt", b"\xef\xbb\xbf \n\xef\xbb\xbf", "EMPTY_FILE"),
    ("latin1.txt", "Grüße".encode("latin-1"), "INVALID_UTF8"),
    ("binary.txt", bytes(range(256)) * 4, "INVALID_UTF8"),
    ("nul.txt", b"abc\x00\x01\x02def" * 50, "BINARY_CONTENT"),
    # a NUL past the first 64 Ki characters was stored (red-team): PostgreSQL cannot
    # hold it, SQLite's substr stops at it
    ("late-nul.txt", b"word " * 20_000 + b"\x00 tail\n", "BINARY_CONTENT"),
    ("late-nul.md", b"# Title\n\n" + b"word " * 20_000 + b"\x00 tail\n", "BINARY_CONTENT"),
]


@pytest.mark.parametrize(("name", "data", "code"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_fails_with_a_code_and_keeps_stored_documents(
    app: Ragox, tmp_path: Path, name: str, data: bytes, code: str
) -> None:
    """Each bad file is FAILED with its code; a document stored before still resolves."""
    (tmp_path / "good.txt").write_bytes(SEED_BYTES)
    _ingest(app, tmp_path / "good.txt", "good")
    anchor = app.create_anchor("good", 9, 16, OPERATOR)
    assert not isinstance(anchor, Refusal)
    (tmp_path / name).write_bytes(data)
    outcome = _ingest(app, tmp_path / name, "bad")
    assert outcome.state is RevisionState.FAILED
    assert outcome.error_code == code
    status = app.status("bad", OPERATOR)
    assert status.revisions[0].revision.failed_stage == "extract"
    assert status.document.current_revision is None
    assert app.resolve(anchor.anchor, OPERATOR).status is ResolutionStatus.RESOLVED


def test_oversize_file_is_refused_unread(tmp_path: Path) -> None:
    """A file over the configured limit is FAILED with TOO_LARGE at the receive stage."""
    app = Ragox(tmp_path / "home", max_bytes=1000)
    path = tmp_path / "big.txt"
    path.write_text("x" * 5000, encoding="utf-8")
    outcome = _ingest(app, path, "big")
    assert (outcome.state, outcome.error_code) == (RevisionState.FAILED, "TOO_LARGE")
    record = app.store.get_revision("default", "big", outcome.revision)
    assert record is not None and record.failed_stage == "receive"
    assert not app.store.blobs.exists(record.source_sha256)


def _unprivileged(*command: str) -> list[str]:
    """``command`` without root's right to read any file: the test command runs as root,
    and root reads a file of mode 0 unless the process lacks CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH (dropped from the bounding set, so the new program never
    gets them)."""
    if os.geteuid() != 0:
        return list(command)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without util-linux setpriv to drop file capabilities")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", *command]


def test_folder_ingest_recurses_and_skips_with_reasons(home: Path, tmp_path: Path) -> None:
    """A folder is walked recursively; unsupported and unreadable files are skipped
    (checked without root's capabilities, so it also holds when tests run as root)."""
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text(MANUAL, encoding="utf-8")
    (root / "sub" / "b.txt").write_bytes(SEED_BYTES)
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    secret = root / "secret.txt"
    secret.write_text("no access", encoding="utf-8")
    os.chmod(secret, 0)
    command = _unprivileged(sys.executable, "-m", "ragox", "--home", str(home), "ingest")
    proc = subprocess.run(
        [*command, str(root), "--json"],
        capture_output=True,
        timeout=120,
        check=False,
    )
    data = json.loads(proc.stdout)
    rows = {row["path"].split("docs/")[1]: row for row in data["results"]}
    assert rows["a.txt"]["document_id"] == "a.txt" and rows["a.txt"]["state"] == "READY"
    assert rows["sub/b.txt"]["document_id"] == "sub/b.txt"
    assert rows["image.png"] == {
        "path": rows["image.png"]["path"],
        "state": "SKIPPED",
        "reason": "UNSUPPORTED_TYPE",
        "failed": False,
    }
    assert rows["secret.txt"]["state"] == "SKIPPED"
    assert rows["secret.txt"]["reason"] == "UNREADABLE" and rows["secret.txt"]["failed"]
    assert proc.returncode == 1  # an unreadable file is a failure, not only a skip


@pytest.mark.parametrize(
    ("document_id", "revision"),
    [
        ("bad\x00id", None),
        ("", None),
        ("a/../b", None),
        ("line\nbreak", None),
        ("x" * 1025, None),
        ("good", "r\x001"),
        ("good", "a/b"),
    ],
)
def test_the_ingestor_refuses_ids_that_break_the_id_rule(
    app: Ragox, tmp_path: Path, document_id: str, revision: str | None
) -> None:
    """Ids and labels that the CLI and API refuse (a NUL id: a DataError on PostgreSQL)
    are refused by the ingestor itself with INVALID_NAME, bytes or file, small or over
    the size limit, and nothing is stored."""
    path = tmp_path / "manual.txt"
    path.write_text(MANUAL, encoding="utf-8")
    tiny = Ingestor(app.store, app.ingestor.signer, app.ingestor.profile, max_bytes=4)
    outcomes = [
        app.ingestor.ingest_bytes(
            MANUAL.encode(), "manual.txt", document_id, revision=revision, tenant="default"
        ),
        app.ingestor.ingest_file(path, document_id, revision=revision, tenant="default"),
        tiny.ingest_file(path, document_id, revision=revision, tenant="default"),
        app.ingestor.receive(
            MANUAL.encode(), "manual.txt", document_id, revision=revision, tenant="default"
        ),
    ]
    for outcome in outcomes:
        assert not isinstance(outcome, tuple)
        assert (outcome.state, outcome.created) == (RevisionState.FAILED, False)
        assert outcome.error_code == "INVALID_NAME"
        assert outcome.error_message is not None
        assert not document_id or document_id not in outcome.error_message
    assert app.store.list_documents("default") == []
    assert app.store.source_hashes() == []
    # a good id still goes through
    assert _ingest(app, path, "good").state is RevisionState.READY


@pytest.mark.both_backends
def test_a_document_deleted_while_it_is_ingested_fails_that_file_alone(app: Ragox) -> None:
    """A delete that lands while a run extracts the document (its rows are gone before
    the representation is written) gives that file a FAILED outcome (DELETED), and the
    next file of the same run is ingested; before, the foreign key's IntegrityError
    ended a whole folder's ingest with an internal error (red-team find)."""
    data = b"The gone pump is checked weekly.\n"
    for started in (False, True):  # deleted before the run's job began, or after
        received = app.ingestor.receive(data, "gone.txt", "gone.txt", tenant="default")
        assert isinstance(received, tuple)
        record, created = received
        job = app.store.start_job("default", "gone.txt", record.revision) if started else None
        assert app.delete("gone.txt")
        outcome = app.ingestor.process(record, data, created, job=job)
        assert (outcome.state, outcome.error_code) == (RevisionState.FAILED, "DELETED")
        assert app.store.get_revision("default", "gone.txt", record.revision) is None
    # a run that fails (a broken PDF) after its document was deleted says DELETED too,
    # not READY (red-team find)
    broken = b"%PDF-1.7\n" + b"\x00garbage" * 50
    received = app.ingestor.receive(broken, "gone.pdf", "gone.pdf", tenant="default")
    assert isinstance(received, tuple)
    record, created = received
    job = app.store.start_job("default", "gone.pdf", record.revision)
    assert app.delete("gone.pdf")
    outcome = app.ingestor.process(record, broken, created, job=job)
    assert (outcome.state, outcome.error_code) == (RevisionState.FAILED, "DELETED")
    kept = app.ingestor.ingest_bytes(
        b"The kept pump is checked daily.\n", "kept.txt", "kept.txt", tenant="default"
    )
    assert kept.state is RevisionState.READY
    assert app.store.get_document("default", "gone.txt") is None
