"""Resolve and ask through the HTTP API under 20 concurrent clients on loopback:
throughput and p95 latency, beside the same calls made in process (the floor)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from _corpus import numbered_text
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

CLIENTS = 20
REQUESTS = 600
READER = Principal("bench", groups=frozenset({"staff"}))


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        app = Ragox(home)
        text, starts = numbered_text(1_000_000)
        app.ingestor.ingest_bytes(
            text.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
        )
        anchor_ids = []
        for start in starts[:50]:
            created = app.create_anchor("manual.txt", start, start + 40, READER)
            if not isinstance(created, Refusal):
                anchor_ids.append(created.anchor.anchor_id)
        key = app.create_key(READER)
        local = []
        for i in range(200):
            started = time.perf_counter()
            app.resolve_id(anchor_ids[i % len(anchor_ids)], READER)
            local.append((time.perf_counter() - started) * 1000)
        app.close()
        port = _port()
        server = subprocess.Popen(
            [sys.executable, "-m", "ragox", "--home", str(home), "serve", "--port", str(port)],
            env={**os.environ},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if httpx.get(f"{url}/v1/openapi.json").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            headers = {"Authorization": f"Bearer {key}"}
            client = httpx.Client(headers=headers, timeout=60)

            def resolve(i: int) -> float:
                started = time.perf_counter()
                response = client.get(f"{url}/v1/anchors/{anchor_ids[i % len(anchor_ids)]}")
                assert response.json()["status"] == "RESOLVED"
                return (time.perf_counter() - started) * 1000

            def ask(i: int) -> float:
                question = text[starts[i % 50] : starts[i % 50] + 80]
                started = time.perf_counter()
                response = client.post(f"{url}/v1/ask", json={"question": question})
                assert response.status_code == 200
                return (time.perf_counter() - started) * 1000

            rows.append(
                (
                    "resolve",
                    "in process (floor)",
                    "1",
                    "-",
                    f"{sorted(local)[len(local) // 2]:.2f}",
                    f"{_p95(local):.2f}",
                )
            )
            for name, call, count in (("resolve", resolve, REQUESTS), ("ask", ask, 200)):
                with ThreadPoolExecutor(CLIENTS) as pool:
                    started = time.perf_counter()
                    latencies = list(pool.map(call, range(count)))
                    elapsed = time.perf_counter() - started
                rows.append(
                    (
                        name,
                        "HTTP API",
                        str(CLIENTS),
                        f"{count / elapsed:.0f}",
                        f"{sorted(latencies)[len(latencies) // 2]:.2f}",
                        f"{_p95(latencies):.2f}",
                    )
                )
            client.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    return rows


HEADER = ("call", "path", "clients", "requests/s", "median ms", "p95 ms")


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("API throughput (issue 6)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
