"""Vectors that keep up (issue 16): a running server follows a reindex made elsewhere,
chunks indexed while a reindex runs still get vectors, an embedder outage at ingestion
leaves a READY revision whose missing vectors `status` counts and `reindex` fills, and
`reindex` reports progress on a log as well as on a terminal."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from conftest import serving
from ragox.access import Principal
from ragox.search import SearchMode, embedder_from_spec
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))
DIMENSION = 8


class _Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible /v1/embeddings server: vectors from a hash of each text (the
    same text always gets the same vector), or HTTP 503 while ``down`` is set."""

    protocol_version = "HTTP/1.1"
    down: ClassVar[bool] = False
    calls: ClassVar[int] = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        _Embeddings.calls += 1
        if _Embeddings.down:
            payload, status = b'{"error": {"message": "overloaded"}}', 503
        else:
            data = []
            for index, text in enumerate(body["input"]):
                digest = hashlib.sha256(text.encode()).digest()
                data.append({"index": index, "embedding": [b / 255 for b in digest[:DIMENSION]]})
            payload, status = json.dumps({"data": data}).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def embedding_server() -> Iterator[str]:
    _Embeddings.down = False
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"openai:http://127.0.0.1:{server.server_address[1]}/v1#hash-8;timeout=5"
    finally:
        server.shutdown()
        server.server_close()


def _ingest(app: Ragox, doc: str, text: str) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"


def _missing(app: Ragox, doc: str) -> int | None:
    return app.status(doc, Principal.local_operator()).revisions[-1].vectors_missing


def test_running_server_follows_a_reindex_made_elsewhere(home: Path, embedding_server: str) -> None:
    """After `reindex` in another process, the server answers hybrid searches and embeds
    its new uploads, without a restart."""
    app = Ragox(home)
    _ingest(app, "pump", "The shaft seal of the pump is replaced every 2,000 hours.")
    key = app.create_key(STAFF)
    writer = app.create_key(
        Principal("wendy", groups=frozenset({"staff"}), write=frozenset({"staff/"}))
    )
    app.close()
    with serving(home) as url:
        headers = {"Authorization": f"Bearer {key}"}
        before = httpx.get(
            f"{url}/v1/search", params={"q": "seal", "mode": "hybrid"}, headers=headers
        )
        assert before.status_code == 400  # no vectors yet: a clear refusal
        other = Ragox(home)
        other.reindex(embedding_server)
        other.close()
        after = httpx.get(
            f"{url}/v1/search", params={"q": "seal", "mode": "hybrid"}, headers=headers
        )
        assert after.status_code == 200, after.text
        assert after.json()["hits"][0]["document_id"] == "pump"
        uploaded = httpx.post(
            f"{url}/v1/documents",
            headers={"Authorization": f"Bearer {writer}"},
            files={"file": ("valve.txt", b"The valve is checked weekly.")},
            data={"document_id": "staff/valve.txt"},
        )
        assert uploaded.status_code == 202, uploaded.text
        deadline = time.time() + 30
        while time.time() < deadline:
            state = httpx.get(f"{url}/v1/documents/staff/valve.txt", headers=headers).json()
            if state["revisions"][-1]["state"] == "READY":
                break
            time.sleep(0.2)
        assert state["revisions"][-1]["vectors_missing"] == 0


def test_chunks_indexed_during_a_reindex_get_vectors(home: Path, embedding_server: str) -> None:
    """A document another process ingests while the reindex embeds is embedded before
    the reindex returns (it looks again after the swap)."""
    app = Ragox(home)
    _ingest(app, "first", "Pumps are inspected every spring.")
    real = embedder_from_spec(embedding_server)
    writer = Ragox(home)
    arrived: list[str] = []

    class Meanwhile:
        """The real embedder; its first call lets another process ingest a document."""

        identity = real.identity

        def embed(self, texts, kind):  # type: ignore[no-untyped-def]
            if not arrived:
                arrived.append("late")
                _ingest(writer, "late", "Valves are greased every autumn.")
            return real.embed(texts, kind)

    from ragox.search import reindex

    written = reindex(app.store, Meanwhile(), embedding_server)  # type: ignore[arg-type]
    writer.close()
    assert arrived and written == 2
    assert _missing(app, "first") == 0
    assert _missing(app, "late") == 0
    hits = app.search("valves greased", STAFF, SearchMode.VECTOR, limit=2)
    assert "late" in {hit.document_id for hit in hits}
    app.close()


def test_embedder_outage_at_ingestion_is_counted_and_filled(
    home: Path, embedding_server: str, ragox_cli
) -> None:
    """With the embedding server down, an upload is still READY (lexical search works),
    `status` counts its chunks without vectors, and a plain `reindex` fills them."""
    app = Ragox(home)
    _ingest(app, "first", "Pumps are inspected every spring.")
    app.reindex(embedding_server)
    _Embeddings.down = True
    _ingest(app, "second", "Filters are changed every month.")
    assert _missing(app, "second") == 1
    assert [h.document_id for h in app.search("filters", STAFF, SearchMode.LEXICAL)] == ["second"]
    app.close()
    shown = ragox_cli("status", "second")
    assert "1 chunks without vectors" in shown.stdout
    _Embeddings.down = False
    filled = ragox_cli("reindex", "--json")
    assert filled.code == 0, filled.stderr
    assert json.loads(filled.stdout)["vectors_written"] == 1
    status = json.loads(ragox_cli("status", "second", "--json").stdout)
    assert status["revisions"][-1]["vectors_missing"] == 0


def test_reindex_progress_on_a_log(
    ragox_cli, home: Path, embedding_server: str, monkeypatch
) -> None:
    """Without a terminal, `reindex` writes plain progress lines (count, share, elapsed);
    with --json, none."""
    import ragox.cli._main as cli_main

    app = Ragox(home)
    for number in range(3):
        _ingest(app, f"d{number}", f"Document number {number} about pumps and seals.")
    app.close()
    monkeypatch.setattr(cli_main, "_LOG_EVERY", 0.0)
    shown = ragox_cli("reindex", "--embedder", embedding_server)
    assert shown.code == 0, shown.stderr
    lines = [line for line in shown.stderr.splitlines() if "chunks" in line]
    assert lines and lines[-1].startswith("3/3 chunks (100%)") and "elapsed" in lines[-1]
    quiet = ragox_cli("reindex", "--embedder", embedding_server, "--json")
    assert quiet.stderr == ""


def test_reindex_without_an_embedder_is_a_usage_error(ragox_cli, seed_file: Path) -> None:
    """A plain `reindex` on an index that never had vectors says what to give."""
    assert ragox_cli("ingest", str(seed_file)).code == 0
    refused = ragox_cli("reindex")
    assert refused.code == 2 and "--embedder" in refused.stderr
