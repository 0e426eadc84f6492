"""Originals in an S3-compatible object store (`RAGOX_BLOBS=s3://bucket/prefix`),
against a real S3 HTTP server (moto's server, started in this process; boto3 talks
to it over HTTP like to any S3 endpoint)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from moto.server import ThreadedMotoServer

from conftest import DATA, _free_port, serving
from ragox.access import Principal
from ragox.service import Ragox
from ragox.store import BLOBS_VARIABLE, open_store
from ragox.store._s3blobs import BlobCorrupt, S3BlobStore

BUCKET = "ragox-test"
PDF = DATA / "pdf" / "multicolumn.pdf"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fresh S3 server with an empty bucket; boto3's variables point at it."""
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    settings = {
        "AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{port}",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3")
    client.create_bucket(Bucket=BUCKET)
    try:
        yield client
    finally:
        server.stop()


def _objects(client: Any, prefix: str) -> list[str]:
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def test_blobs_are_content_addressed_and_verified_on_read(s3: Any, tmp_path: Path) -> None:
    """put stores once under prefix/ab/<sha256>; get and path refuse an object whose
    bytes were changed behind ragox's back; digest reports what is there; delete
    removes the object and the local copy."""
    blobs = S3BlobStore.from_url(f"s3://{BUCKET}/originals", cache=tmp_path / "cache")
    data = b"The seal is checked every 500 hours.\n"
    sha = hashlib.sha256(data).hexdigest()
    assert not blobs.exists(sha) and blobs.digest(sha) is None
    assert blobs.put(data) == sha and blobs.put(data) == sha
    assert _objects(s3, "originals/") == [f"originals/{sha[:2]}/{sha}"]
    assert blobs.get(sha) == data and blobs.digest(sha) == sha
    local = blobs.path(sha)
    assert local.read_bytes() == data and local.stat().st_mode & 0o077 == 0
    with pytest.raises(ValueError, match="SHA-256"):
        blobs.get("../../etc/passwd")

    s3.put_object(Bucket=BUCKET, Key=f"originals/{sha[:2]}/{sha}", Body=b"tampered")
    with pytest.raises(BlobCorrupt):
        blobs.get(sha)
    assert blobs.digest(sha) == hashlib.sha256(b"tampered").hexdigest()

    blobs.delete(sha)
    assert not blobs.exists(sha) and not local.exists()
    with pytest.raises(FileNotFoundError):
        blobs.get(sha)


def test_a_copy_cached_by_one_process_goes_when_another_deletes(s3: Any, tmp_path: Path) -> None:
    """Two stores (two replicas) over one bucket: a blob deleted through one is not
    served from the other's local copy, and that copy is removed on its next use."""
    one = S3BlobStore.from_url(f"s3://{BUCKET}/o", cache=tmp_path / "one")
    two = S3BlobStore.from_url(f"s3://{BUCKET}/o", cache=tmp_path / "two")
    sha = one.put(b"%PDF-1.4 pretend")
    copy = two.path(sha)
    assert copy.exists()
    one.delete(sha)
    with pytest.raises(FileNotFoundError):
        two.path(sha)
    assert not copy.exists()


def _ragox(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragox", "--home", str(home), *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=os.environ.copy(),
    )


@pytest.mark.both_backends
def test_queue_workers_and_api_read_originals_from_s3(
    s3: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With RAGOX_BLOBS set, `ingest --queue` puts the originals in the bucket and none in
    the home; a worker process reads them from there; the API serves the original and
    renders a PDF page from it; deleting the document deletes its object."""
    monkeypatch.setenv(BLOBS_VARIABLE, f"s3://{BUCKET}/tenant-blobs")
    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("The pump is inspected monthly.\n", encoding="utf-8")
    (docs / "paper.pdf").write_bytes(PDF.read_bytes())
    queued = json.loads(_ragox(home, "ingest", str(docs), "--queue", "--json").stdout)
    assert queued["summary"]["queued"] == 2
    hashes = {hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in (docs / "note.txt", PDF)}
    assert _objects(s3, "tenant-blobs/") == sorted(f"tenant-blobs/{h[:2]}/{h}" for h in hashes)
    assert not any((home / "blobs").rglob("*")) if (home / "blobs").exists() else True
    ran = _ragox(home, "worker", "--drain", "--json", "--poll", "0.05").stdout.splitlines()
    assert sorted(json.loads(line)["state"] for line in ran) == ["READY", "READY"]

    app = Ragox(home)
    key = app.create_key(Principal("ops", operator=True))
    app.close()
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        original = httpx.get(f"{url}/v1/documents/paper.pdf/revisions/r1/original", headers=auth)
        assert original.status_code == 200 and original.content == PDF.read_bytes()
        page = httpx.get(f"{url}/v1/documents/paper.pdf/revisions/r1/pages/1", headers=auth)
        assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
    _ragox(home, "delete", "paper.pdf")
    pdf_sha = hashlib.sha256(PDF.read_bytes()).hexdigest()
    assert f"tenant-blobs/{pdf_sha[:2]}/{pdf_sha}" not in _objects(s3, "tenant-blobs/")
    store = open_store(home)
    try:
        assert not store.blobs.exists(pdf_sha)
        assert store.blobs.digest(hashlib.sha256(b"The pump is inspected monthly.\n").hexdigest())
    finally:
        store.close()
