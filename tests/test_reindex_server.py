"""`reindex` through a real OpenAI-compatible HTTP server that is slow and fails now
and then: every chunk gets the server's vector, with requests in flight together."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import numpy as np
import pytest

from ragox.access import Principal
from ragox.search import SearchMode
from ragox.search._vectors import BATCH
from ragox.service import Ragox

DIMENSION = 8


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 + 0.01 for b in digest[:DIMENSION]]


class _Server(BaseHTTPRequestHandler):
    """Vectors from each text's SHA-256; 0.05 s per request; every third request is
    answered 503 (with Retry-After: 0) instead, but never the same batch twice: with
    four requests in flight, one batch could otherwise draw every third number on each
    of its tries and run out of retries (it did once, on a clean clone)."""

    protocol_version = "HTTP/1.1"
    lock: ClassVar[threading.Lock] = threading.Lock()
    requests: ClassVar[int] = 0
    failed: ClassVar[int] = 0
    in_flight: ClassVar[int] = 0
    most_in_flight: ClassVar[int] = 0
    texts: ClassVar[set[str]] = set()
    refused: ClassVar[set[tuple[str, ...]]] = set()

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        with _Server.lock:
            _Server.requests += 1
            batch = tuple(body["input"])
            fail = _Server.requests % 3 == 0 and batch not in _Server.refused
            if fail:
                _Server.refused.add(batch)
            _Server.in_flight += 1
            _Server.most_in_flight = max(_Server.most_in_flight, _Server.in_flight)
        time.sleep(0.05)
        with _Server.lock:
            _Server.in_flight -= 1
            if fail:
                _Server.failed += 1
            else:
                _Server.texts.update(body["input"])
        if fail:
            payload = b'{"error": {"message": "busy", "type": "overloaded"}}'
            self.send_response(503)
            self.send_header("Retry-After", "0")
        else:
            data = [
                {"object": "embedding", "index": i, "embedding": _vector(t)}
                for i, t in enumerate(body["input"])
            ]
            payload = json.dumps({"object": "list", "data": data}).encode()
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_reindex_through_a_slow_flaky_server(app: Ragox, server: str) -> None:
    """All chunks of several documents get the server's vector for their text, batches
    span documents, several requests are in flight, failed ones are sent again, the
    progress adds up to the total, and vector search finds a chunk by its own text."""
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
    ]
    for n in range(12):
        text = "\n\n".join(
            " ".join(words[(n + p + k) % len(words)] for k in range(40)) + f" doc{n} part{p}."
            for p in range(3)
        )
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"d{n}.txt", f"d{n}", groups=frozenset({"g"}), tenant="default"
        )
        assert outcome.error_code is None
    chunks = app.store._connection().execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert chunks > BATCH // 4  # several requests of 2 texts each
    done: list[int] = []
    planned: list[int] = []
    spec = f"openai:{server}#m;input_type=off;batch_size=2;concurrency=4;retries=3"
    written = app.reindex(spec, progress=done.append, total=planned.append)
    assert written == chunks == sum(done) == planned[-1]
    assert _Server.failed > 0 and _Server.most_in_flight >= 2
    key = app.store.index.setting("embedder_key")
    assert key is not None
    operator = Principal("op", groups=frozenset({"g"}), operator=True)
    stored = dict(app.store.index.permitted_vectors(key, _scope(operator)))
    assert len(stored) == chunks
    searcher = app.searcher()
    for chunk_id, blob in stored.items():
        vector = np.frombuffer(blob, dtype="<f4")
        text = _chunk_text(app, chunk_id)
        expected = np.array(_vector(text))
        np.testing.assert_allclose(vector, expected / np.linalg.norm(expected), rtol=1e-6)
        assert text in _Server.texts
    some = next(iter(stored))
    hits = searcher.search(_chunk_text(app, some), operator, SearchMode.VECTOR, limit=1)
    assert hits[0].chunk_id == some


def _scope(principal: Principal) -> object:
    from ragox.search._search import scope_of

    return scope_of(principal)


def _chunk_text(app: Ragox, chunk_id: str) -> str:
    chunk = app.store.get_chunk(chunk_id)
    assert chunk is not None
    found = app.store.search_text(chunk.manifest_id)
    assert found is not None
    return found[0][chunk.search_start : chunk.search_end]
