"""Queued ingestion keeps the run's OCR mode (issue 12): ``ingest --queue --ocr X``
and a queued API upload store ``X`` with the job (schema 26 / PostgreSQL 5), and the
worker that claims it (or takes it over) runs with it instead of ``auto``.
Real scans, real store on both backends, a real worker."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import ragox.extract._ocr as ocr_module
from conftest import DATA, older_database, run_ragox, serving
from ragox.access import ANY_ID, Principal
from ragox.extract import OcrMode
from ragox.ingest import WorkerConfig
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION, RevisionState

SCANS = DATA / "ocr"

needs_tesseract = pytest.mark.skipif(
    ocr_module.ocr_engine() is None, reason="needs tesseract-ocr-{eng,deu,rus}"
)


@needs_tesseract
@pytest.mark.both_backends
def test_a_queued_run_keeps_its_ocr_mode(tmp_path: Path) -> None:
    """Queued with ``off``, a scan fails NO_TEXT_LAYER in the worker (``auto`` would
    have recognized it); queued with ``force``, a PDF with its own poor OCR layer is
    recognized again (``auto`` would have kept the layer)."""
    app = Ragox(tmp_path / "home")
    try:
        off = app.ingest_path(
            SCANS / "ru-seed003.pdf", SCANS, document_id="off.pdf", queue=True, ocr=OcrMode.OFF
        )
        forced = app.ingest_path(
            SCANS / "ru-form-p2-ocr-layer.pdf",
            SCANS,
            document_id="force.pdf",
            queue=True,
            ocr=OcrMode.FORCE,
        )
        assert off.queued and forced.queued
        app.worker(WorkerConfig(poll_seconds=0.05)).run(drain=True)
        (failed,) = app.store.revisions("default", "off.pdf")
        assert failed.state is RevisionState.FAILED
        assert failed.error_code == "NO_TEXT_LAYER"
        (ready,) = app.store.revisions("default", "force.pdf")
        assert ready.state is RevisionState.READY and ready.manifest_id is not None
        found = app.store.get_manifest(ready.manifest_id)
        assert found is not None and found.manifest.parser.endswith("-all")
        assert all(b.ocr for b in app.store.blocks(ready.manifest_id))
    finally:
        app.close()


@pytest.mark.both_backends
def test_a_reclaimed_job_keeps_its_ocr_mode(tmp_path: Path) -> None:
    """A job whose lease ran out is taken over as a new run with the same mode."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.txt", "b.txt"):
        (docs / name).write_text(f"Note {name}.\n", encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        assert app.ingest_path(docs / "a.txt", docs, queue=True, ocr=OcrMode.FORCE).queued
        queue = app.store.queue
        first = queue.claim("w1", 0.0, 3)
        assert first is not None and first.ocr is OcrMode.FORCE
        time.sleep(0.01)
        second = queue.claim("w2", 60.0, 3)
        assert second is not None and second.reclaimed_from == first.job_id
        assert second.ocr is OcrMode.FORCE
        assert app.ingest_path(docs / "b.txt", docs, queue=True).queued
        plain = queue.claim("w3", 60.0, 3)
        assert plain is not None and plain.document_id == "b.txt"
        assert plain.ocr is OcrMode.AUTO
    finally:
        app.close()


@pytest.mark.both_backends
@pytest.mark.sqlite_only
def test_a_job_queued_before_schema_26_runs_auto(tmp_path: Path) -> None:
    """A home written before schema 26 (no OCR column on jobs) opens, gets the column,
    and its queued job is claimed with ``auto``."""
    home = tmp_path / "home"
    text = tmp_path / "docs" / "note.txt"
    text.parent.mkdir()
    text.write_text("A queued note.\n", encoding="utf-8")
    app = Ragox(home)
    assert app.ingest_path(text, text.parent, queue=True, ocr=OcrMode.OFF).queued
    app.close()
    old_db = tmp_path / "old.db"
    with older_database(home / "ragox.db", old_db, 23):
        pass
    with sqlite3.connect(old_db) as conn:
        assert "ocr" not in [str(r[1]) for r in conn.execute("PRAGMA table_info(jobs)")]
    old_home = tmp_path / "old-home"
    old_home.mkdir()
    for name in ("blobs", "keys"):
        shutil.copytree(home / name, old_home / name)
    old_db.rename(old_home / "ragox.db")
    app = Ragox(old_home)
    try:
        assert app.store.schema_version() == SCHEMA_VERSION
        claim = app.store.queue.claim("w", 60.0, 3)
        assert claim is not None and claim.ocr is OcrMode.AUTO
    finally:
        app.close()


def test_migrate_store_copies_a_jobs_ocr_mode(postgres_server: Any, tmp_path: Path) -> None:
    """`ragox migrate-store` copies a queued job's OCR mode into PostgreSQL."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("A queued note.\n", encoding="utf-8")
    home = tmp_path / "home"
    app = Ragox(home, store="")
    try:
        assert app.ingest_path(docs / "a.txt", docs, queue=True, ocr=OcrMode.OFF).queued
    finally:
        app.close()
    url = postgres_server.fresh()
    try:
        copied = run_ragox(home, "migrate-store", str(home), url, "--json")
        assert copied.code == 0, copied.stderr
        moved = Ragox(home, store=url)
        try:
            claim = moved.store.queue.claim("w", 60.0, 3)
            assert claim is not None and claim.ocr is OcrMode.OFF
        finally:
            moved.close()
    finally:
        postgres_server.drop(url)


def test_a_queued_api_upload_keeps_its_ocr_mode(tmp_path: Path) -> None:
    """`serve --queue`: an upload with ``ocr=off`` is queued with it; the worker then
    fails the scan NO_TEXT_LAYER instead of recognizing it."""
    home = tmp_path / "home"
    app = Ragox(home)
    key = app.create_key(Principal("olga", operator=True, write=frozenset({ANY_ID})))
    app.close()
    data = (SCANS / "ru-seed003.pdf").read_bytes()
    with serving(home, "--queue") as url:
        reply = httpx.post(
            f"{url}/v1/documents",
            headers={"Authorization": f"Bearer {key}"},
            data={"document_id": "scan.pdf", "ocr": "off"},
            files={"file": ("scan.pdf", data, "application/pdf")},
            timeout=30,
        )
        assert reply.status_code == 202, reply.text
        assert reply.json()["queued"] is True
    app = Ragox(home)
    try:
        app.worker(WorkerConfig(poll_seconds=0.05)).run(drain=True)
        (record,) = app.store.revisions("default", "scan.pdf")
        assert record.state is RevisionState.FAILED
        assert record.error_code == "NO_TEXT_LAYER"
    finally:
        app.close()
