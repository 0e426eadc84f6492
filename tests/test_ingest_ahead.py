"""Text files extracted ahead by a worker process (issue 15): what ingestion stores is
the same, byte for byte, as when the pipeline extracts each file itself, and the
pipeline extracts a file itself whenever the worker's extraction may not be its own."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from ragox.anchor import sha256_hex
from ragox.extract import ExtractOptions, detect_media_type, extractor_for
from ragox.ingest import _ahead, _pipeline
from ragox.ingest._ahead import ExtractAhead, _extract_file, _pack, _unpack
from ragox.ingest._bodies import analyzed_bodies
from ragox.ingest._chunker import planned_chunks, search_text_and_chunks
from ragox.ingest._language import document_language
from ragox.service import Ragox
from ragox.text import BASE_PROFILE, Profile

ROOT = Path(__file__).parent.parent
DATA = Path(__file__).parent / "data"

_TABLE_CRLF = (
    "# Ports\r\n\r\nThe service listens on these ports.\r\n\r\n"
    "| port | use |\r\n|---|---|\r\n| 80 | web \\| proxy |\r\n| 443 | tls |\r\n\r\n"
    "> A quote\r\n> that goes on.\r\n\r\n- item one\r\n- item two\r\n"
)
_RST = "Title\n=====\n\nA paragraph of *text*.\n\n* a list item\n\n::\n\n   literal block\n"


def _folder(target: Path) -> list[Path]:
    """Real text files of the repository (Markdown, plain text in three scripts) and
    made ones: a CRLF Markdown table, reStructuredText, NFC-changed text, and a file
    the extractor refuses (invalid UTF-8)."""
    target.mkdir()
    sources = [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        DATA / "md" / "manual.md",
        DATA / "rtl" / "mixed.txt",
        DATA / "ocr" / "ru-seed003.txt",
        DATA / "ocr" / "de-geotopo-p6.txt",
    ]
    for i, source in enumerate(sources):
        shutil.copyfile(source, target / f"{i:02d}-{source.name}")
    (target / "10-table.md").write_bytes(_TABLE_CRLF.encode())
    (target / "11-doc.rst").write_text(_RST, encoding="utf-8")
    (target / "12-decomposed.txt").write_text("Mu\u0308ller\r\nPru\u0308fung\n", encoding="utf-8")
    (target / "13-broken.txt").write_bytes(b"valid text, then \xff\xfe invalid")
    return sorted(target.iterdir())


def _stored(home: Path) -> dict[str, Any]:
    """Everything a home stores per document, except values of the creation time
    (the manifest's ``created_at`` and the ids derived from it)."""
    conn = sqlite3.connect(home / "ragox.db")
    found: dict[str, Any] = {}
    for document_id, state, error_code in conn.execute(
        "SELECT document_id, state, error_code FROM revisions"
    ):
        found[document_id] = [state, error_code]
    for manifest_id, document_id in conn.execute("SELECT manifest_id, document_id FROM manifests"):
        rows = [
            conn.execute(
                "SELECT text, alignment, char_boxes, page_count, pages_without_text, warnings, "
                "language FROM representations WHERE manifest_id=?",
                (manifest_id,),
            ).fetchall(),
            conn.execute(
                "SELECT block_index, kind, start, end, locator FROM blocks "
                "WHERE manifest_id=? ORDER BY block_index",
                (manifest_id,),
            ).fetchall(),
            conn.execute(
                "SELECT ordinal, start, end, search_start, search_end, tokens, blocks "
                "FROM chunks WHERE manifest_id=? ORDER BY ordinal",
                (manifest_id,),
            ).fetchall(),
            conn.execute(
                "SELECT text, alignment FROM search_texts WHERE manifest_id=?", (manifest_id,)
            ).fetchall(),
        ]
        for (name,) in conn.execute("SELECT name FROM lexical_partitions"):
            rows.append(
                conn.execute(
                    f"SELECT t.body FROM {name} t JOIN chunks c ON c.rowid = t.rowid "
                    "WHERE c.manifest_id=? ORDER BY c.ordinal",
                    (manifest_id,),
                ).fetchall()
            )
        found[document_id].append(rows)
    conn.close()
    return found


def _ingest(home: Path, files: list[Path], ahead: bool) -> list[str]:
    app = Ragox(home)
    try:
        if not ahead:
            return [_state(app.ingest_path(p, p.parent)) for p in files]
        with app.extracting_ahead(files):
            return [_state(app.ingest_path(p, p.parent)) for p in files]
    finally:
        app.close()


def _state(item: Any) -> str:
    assert item.outcome is not None
    return f"{item.outcome.state.value}:{item.outcome.error_code}"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The media types the pipeline extracted in this process, and each search text
    and chunk plan, language detection and analysis of lexical bodies it made itself."""
    calls: list[str] = []
    original = extractor_for

    def counting(media_type: str) -> Any:
        calls.append(media_type)
        return original(media_type)

    monkeypatch.setattr("ragox.ingest._pipeline.extractor_for", counting)
    for name in ("plan_chunks", "search_text_and_chunks", "document_language", "analyzed_bodies"):
        original_step = getattr(_pipeline, name)

        def step(*args: Any, _name: str = name, _step: Any = original_step) -> Any:
            calls.append(_name)
            return _step(*args)

        monkeypatch.setattr(_pipeline, name, step)
    monkeypatch.setattr(_ahead, "ahead_wanted", lambda: True)
    # every file waits for the worker (a file the worker has not started is otherwise
    # the pipeline's, at a time that depends on the machine)
    monkeypatch.setattr(_ahead, "SHARE", False)
    return calls


@pytest.mark.parametrize("share", [False, True], ids=["worker-only", "shared"])
def test_folder_extracted_ahead_stores_what_serial_ingestion_stores(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch, share: bool
) -> None:
    """The homes hold the same texts, alignments, blocks, chunks, search texts and
    lexical rows, and the same FAILED code for the refused file, whether the worker
    extracts every file (the pipeline none) or the pipeline takes the files the
    worker has not started."""
    monkeypatch.setattr(_ahead, "SHARE", share)
    files = _folder(tmp_path / "folder")
    serial = _ingest(tmp_path / "serial", files, ahead=False)
    assert len([c for c in counted if c.startswith("text/")]) == len(files)
    assert counted.count("plan_chunks") == len(files) - 1  # not the refused one
    assert counted.count("analyzed_bodies") == len(files) - 1
    counted.clear()
    ahead = _ingest(tmp_path / "ahead", files, ahead=True)
    if not share:
        assert counted == []
    assert ahead == serial
    assert serial[-1] == "FAILED:INVALID_UTF8"
    assert _stored(tmp_path / "ahead") == _stored(tmp_path / "serial")


def test_a_given_language_other_than_the_detected_one_is_analyzed_by_the_pipeline(
    tmp_path: Path, counted: list[str]
) -> None:
    """The worker analyzes the lexical bodies in the language it detects; a document
    whose language is given otherwise gets bodies in the given language, as serial
    ingestion stores them (stemmed as German here, not as English)."""
    files = _folder(tmp_path / "folder")[:2]  # README.md and CHANGELOG.md: English

    def ingest(home: Path, ahead: bool) -> None:
        app = Ragox(home)
        try:
            with app.extracting_ahead(files if ahead else []):
                for path in files:
                    item = app.ingest_path(path, path.parent, language="de")
                    assert item.outcome is not None and item.outcome.error_code is None
        finally:
            app.close()

    ingest(tmp_path / "serial", ahead=False)
    counted.clear()
    ingest(tmp_path / "ahead", ahead=True)
    assert counted == ["analyzed_bodies"] * len(files)  # the worker extracted both
    assert _stored(tmp_path / "ahead") == _stored(tmp_path / "serial")
    conn = sqlite3.connect(tmp_path / "ahead" / "ragox.db")
    try:
        assert {row[0] for row in conn.execute("SELECT language FROM representations")} == {"de"}
    finally:
        conn.close()


def test_a_file_changed_after_the_worker_read_it_is_extracted_again(
    tmp_path: Path, counted: list[str]
) -> None:
    """The worker's extraction is taken only for the bytes the pipeline received: a
    file rewritten in between is extracted by the pipeline, from its new bytes."""
    folder = tmp_path / "folder"
    folder.mkdir()
    first, second = folder / "a.md", folder / "b.md"
    first.write_text("# A\n\nfirst file\n", encoding="utf-8")
    second.write_text("# B\n\nold words\n", encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        with app.extracting_ahead([first, second]):
            app.ingest_path(first, folder)
            ahead = app.ingestor.ahead
            assert ahead is not None
            ahead._pending[1].result()  # the worker has read the old bytes
            second.write_text("# B\n\nnew words\n", encoding="utf-8")
            item = app.ingest_path(second, folder)
        assert counted == [
            "text/markdown",
            "plan_chunks",
            "document_language",
            "analyzed_bodies",
        ]
        assert item.outcome is not None
        record = app.store.get_revision("default", "b.md", item.outcome.revision)
        assert record is not None and record.manifest_id is not None
        assert "new words" in app.store.text(record.manifest_id)
    finally:
        app.close()


def test_a_dead_worker_leaves_the_extraction_to_the_pipeline(
    tmp_path: Path, counted: list[str]
) -> None:
    """A worker that dies (killed here, as the kernel would for memory) costs only the
    speed: the files it had extracted are taken, the others are extracted by the
    pipeline, and every file is READY."""
    files = _folder(tmp_path / "folder")[:6]
    app = Ragox(tmp_path / "home")
    try:
        with app.extracting_ahead(files):
            states = [_state(app.ingest_path(files[0], files[0].parent))]
            ahead = app.ingestor.ahead
            assert ahead is not None and ahead._pool is not None
            for future in ahead._pending.values():
                future.result()
            finished = len(ahead._pending)
            for process in list(ahead._pool._processes.values()):  # type: ignore[attr-defined]
                os.kill(process.pid, signal.SIGKILL)
                process.join()
            states += [_state(app.ingest_path(p, p.parent)) for p in files[1:]]
    finally:
        app.close()
    assert states == ["READY:None"] * 6
    # the files after those the worker had finished are the pipeline's
    assert 0 < finished < 5
    assert len([c for c in counted if c.startswith("text/")]) == 5 - finished


@pytest.mark.parametrize(
    "name", ["README.md", "CHANGELOG.md", "10-table.md", "11-doc.rst", "12-decomposed.txt"]
)
def test_packed_extraction_is_the_extraction(tmp_path: Path, name: str) -> None:
    """Blocks (table cells and source ranges included), the alignment and the parser
    identity come out of the worker's plain values equal to the extractor's."""
    path = next(p for p in _folder(tmp_path / "folder") if p.name.endswith(name))
    data = path.read_bytes()
    media_type = detect_media_type(path.name, data)
    assert media_type is not None
    expected = extractor_for(media_type)(data, BASE_PROFILE, ExtractOptions())
    packed = _pack(expected)
    assert packed is not None
    extraction, prepared = _unpack(packed)
    assert extraction == expected
    search, chunks = search_text_and_chunks("m", expected.text, expected.blocks)
    assert prepared.search == search
    assert planned_chunks("m", extraction.blocks, prepared.search, prepared.pieces) == chunks
    assert prepared.language == document_language(search.text)
    rows = analyzed_bodies(expected.text, expected.blocks, search.text, chunks, prepared.language)
    assert prepared.bodies == tuple(body for _, body in rows)
    assert len(prepared.bodies) == len(chunks) > 0
    with pytest.MonkeyPatch.context() as patch:  # a large text's bodies stay the caller's
        patch.setattr(_ahead, "MAX_AHEAD_BODIES", len(search.text) - 1)
        larger = _pack(expected)
        assert larger is not None
        assert _unpack(larger)[1] == dataclasses.replace(prepared, bodies=None)
    sha256, found_type, from_worker = _extract_file(str(path), BASE_PROFILE.id)
    assert (sha256, found_type) == (sha256_hex(data), media_type)
    assert from_worker == packed


def test_only_default_options_and_the_same_profile_take_the_worker_result(
    tmp_path: Path,
) -> None:
    """An extraction with another ``max_depth`` or another profile is the pipeline's."""
    path = tmp_path / "a.md"
    path.write_text("# A\n\ntext\n", encoding="utf-8")
    sha256 = sha256_hex(path.read_bytes())
    other = Profile.from_id("utf8-strict;crlf-to-lf;NFKC;" + BASE_PROFILE.id.split(";")[-1])
    for profile, options in [
        (BASE_PROFILE, ExtractOptions(max_depth=7)),
        (other, ExtractOptions()),
    ]:
        ahead = ExtractAhead([path], BASE_PROFILE)
        try:
            ahead.begin(path)
            assert ahead.take(sha256, "text/markdown", profile, options) is None
        finally:
            ahead.close()
    ahead = ExtractAhead([path], BASE_PROFILE)
    try:
        ahead.begin(path)
        assert ahead.take(sha256, "text/markdown", BASE_PROFILE, ExtractOptions()) is not None
    finally:
        ahead.close()


def test_a_file_the_worker_has_not_started_is_the_pipelines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the worker is behind, the pipeline does not wait for it: a file still
    queued is cancelled there and extracted by the pipeline."""
    path = tmp_path / "a.md"
    path.write_text("# A\n\ntext\n", encoding="utf-8")
    queued: Future[Any] = Future()  # never started (the worker is busy)
    late = threading.Timer(3, lambda: queued.set_result(_extract_file(str(path), BASE_PROFILE.id)))
    monkeypatch.setattr(ExtractAhead, "_executor", lambda self: _Queue(queued))
    ahead = ExtractAhead([path], BASE_PROFILE)
    late.start()
    try:
        ahead.begin(path)
        taken = ahead.take(
            sha256_hex(path.read_bytes()), "text/markdown", BASE_PROFILE, ExtractOptions()
        )
        assert taken is None and queued.cancelled()
    finally:
        late.cancel()
        ahead.close()


class _Queue:
    """An executor whose tasks wait in its queue."""

    def __init__(self, future: Future[Any]) -> None:
        self._future = future

    def submit(self, *args: Any) -> Future[Any]:
        return self._future


def _marked(mark: str) -> list[int]:
    """The ids of running processes whose environment holds ``mark``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if mark.encode() in environ:
            found.append(int(entry.name))
    return found


def test_a_killed_ingest_leaves_no_worker_behind(tmp_path: Path) -> None:
    """SIGKILL of `ragox ingest` while its extract-ahead worker runs: the worker (and
    the forkserver it came from) exit within seconds. Before, a worker waited forever on
    a pipe whose writing end it held itself (red-team find: three processes per killed
    ingest, still alive 20 minutes later)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    for number in range(400):
        (folder / f"n{number:03}.md").write_text(
            f"# Note {number}\n\n" + "The pump is checked weekly. " * 200 + "\n"
        )
    token = uuid.uuid4().hex
    mark = f"RAGOX_TEST_MARK={token}"
    env = {**os.environ, "RAGOX_TEST_MARK": token}
    process = subprocess.Popen(
        [sys.executable, "-m", "ragox", "--home", str(tmp_path / "home"), "ingest", str(folder)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 60
        while len(_marked(mark)) < 3 and process.poll() is None:  # ragox, forkserver, worker
            assert time.time() < deadline, "the extract-ahead worker never started"
            time.sleep(0.05)
        assert process.poll() is None, "the ingest ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=20)
        deadline = time.time() + 15
        while _marked(mark):
            if time.time() > deadline:
                left = _marked(mark)
                for pid in left:
                    os.kill(pid, signal.SIGKILL)
                raise AssertionError(f"{len(left)} processes outlived the killed ingest")
            time.sleep(0.2)
    finally:
        if process.poll() is None:
            process.kill()


def test_an_owner_that_died_unreaped_counts_as_gone() -> None:
    """The workers' watch reads the owner's start time from /proc: a live process has
    one, a dead one not yet reaped (a zombie, whose id still answers kill 0) has none,
    so its workers exit too (red-team find)."""
    from ragox.extract._isolated import _start_time

    assert _start_time(os.getpid()) is not None
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.time() + 20
        while _start_time(child.pid) is not None:  # until it has exited, unreaped
            assert time.time() < deadline
            time.sleep(0.05)
        os.kill(child.pid, 0)  # a zombie: its id still answers
    finally:
        child.wait()
