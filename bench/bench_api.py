"""Resolve and ask through the HTTP API on loopback, beside the same resolution made in
process (the floor): this tree, and the code before the resolve work (``BASELINE``),
each measured the same way in the same run.

Clients are a closed loop (each sends its next request when its answer arrives), so
on a saturated server latency ≈ clients / throughput (Little's law): the table gives
that bound beside the measured median, and the server's own CPU time per request,
which other processes on the machine disturb far less than latency. The client
(bench/_http_load.py, one asyncio loop) shares the cores with the server.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import httpx

from _http_load import Load, Request, run_load

ROOT = Path(__file__).resolve().parent.parent
#: The commit before the resolve work (schema 7 and the resolution fast path): "before".
BASELINE = os.environ.get("RAGOX_BENCH_BASELINE", "a67de2c")
CLIENTS = 20
LOWER = (4, 1)
RESOLVES = 3000
ASKS = 200


@dataclass(frozen=True)
class Variant:
    label: str
    src: Path
    workers: int
    #: run as `ragox serve` of that tree; else the baseline's create_app under uvicorn
    #: with h11 and asyncio, how its `ragox serve` ran before httptools/uvloop were
    #: dependencies
    serve: bool

    def server(self) -> str:
        if not self.serve:
            return "1 worker, h11 + asyncio"
        fast = all(importlib.util.find_spec(m) for m in ("httptools", "uvloop"))
        stack = "httptools + uvloop" if fast else "h11 + asyncio"
        return f"{self.workers} worker{'s' if self.workers > 1 else ''}, {stack}"


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _baseline_src(folder: Path) -> Path | None:
    """``src/`` of the baseline commit, from ``git archive`` (None without git)."""
    try:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", BASELINE, "src"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    with tarfile.open(fileobj=BytesIO(data)) as archive:
        archive.extractall(folder, filter="data")
    return folder / "src"


def _env(src: Path) -> dict[str, str]:
    paths = [str(src), str(ROOT / "bench")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process and its children (the workers), from /proc."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        total = 0
        for each in [pid, *map(int, children)]:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def _server(variant: Variant, home: Path) -> Iterator[tuple[int, int]]:
    port = _port()
    if variant.serve:
        argv = [sys.executable, "-m", "ragox", "--home", str(home), "serve", "--port", str(port)]
        argv += ["--workers", str(variant.workers)]
    else:
        code = (
            "import sys, uvicorn; from pathlib import Path; from ragox.api import create_app; "
            "uvicorn.run(create_app(Path(sys.argv[1])), host='127.0.0.1', port=int(sys.argv[2]),"
            " log_level='warning', http='h11', loop='asyncio')"
        )
        argv = [sys.executable, "-c", code, str(home), str(port)]
    process = subprocess.Popen(
        argv, env=_env(variant.src), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/openapi.json").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline or process.poll() is not None:
                raise RuntimeError(f"{variant.label}: the server did not start")
            time.sleep(0.2)
        yield port, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def _measure(
    port: int,
    pid: int,
    clients: int,
    total: int,
    make: Callable[[int], Request],
    headers: dict[str, str],
    expect: bytes,
) -> tuple[Load, float | None]:
    before = _cpu_seconds(pid)
    load = run_load("127.0.0.1", port, clients, total, make, headers)
    after = _cpu_seconds(pid)
    assert all(expect in body for body in load.bodies), load.bodies[:1]
    cpu = None if before is None or after is None else (after - before) / total * 1000
    return load, cpu


def _row(
    call: str, variant: Variant, clients: int, load: Load, cpu: float | None
) -> tuple[str, ...]:
    return (
        call,
        variant.label,
        variant.server(),
        str(clients),
        f"{load.throughput:.0f}",
        f"{load.percentile(0.5):.2f}",
        f"{load.percentile(0.95):.2f}",
        f"{clients / load.throughput * 1000:.2f}",
        "-" if cpu is None else f"{cpu:.3f}",
    )


def _run_variant(variant: Variant, folder: Path) -> list[tuple[str, ...]]:
    home = folder / f"home-{len(list(folder.iterdir()))}"
    built = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "_api_home.py"), str(home)],
        env=_env(variant.src),
        capture_output=True,
        check=True,
        timeout=600,
    )
    info = json.loads(built.stdout)
    ids, questions = info["anchor_ids"], info["questions"]
    local = sorted(info["local_ms"])
    rows: list[tuple[str, ...]] = [
        (
            "resolve",
            variant.label,
            "in process (floor)",
            "1",
            f"{1000 / statistics.mean(local):.0f}",
            f"{local[len(local) // 2]:.2f}",
            f"{local[int(0.95 * (len(local) - 1))]:.2f}",
            "-",
            "-",
        )
    ]
    headers = {"Authorization": f"Bearer {info['key']}"}

    def resolve(i: int) -> Request:
        return Request("GET", f"/v1/anchors/{ids[i % len(ids)]}")

    def ask(i: int) -> Request:
        body = json.dumps({"question": questions[i % len(questions)]}).encode()
        return Request("POST", "/v1/ask", body)

    with _server(variant, home) as (port, pid):
        _measure(port, pid, CLIENTS, 300, resolve, headers, b"RESOLVED")  # warm up
        for clients in (CLIENTS, *LOWER):
            total = RESOLVES if clients == CLIENTS else RESOLVES // 3
            load, cpu = _measure(port, pid, clients, total, resolve, headers, b"RESOLVED")
            rows.append(_row("resolve", variant, clients, load, cpu))
        load, cpu = _measure(port, pid, CLIENTS, ASKS, ask, headers, b'"citations"')
        rows.append(_row("ask", variant, CLIENTS, load, cpu))
    return rows


def main() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "baseline").mkdir()
        variants = []
        baseline = _baseline_src(folder / "baseline")
        if baseline is not None:
            variants.append(Variant(f"before ({BASELINE})", baseline, 1, serve=False))
        variants.append(Variant("after", ROOT / "src", 1, serve=True))
        if cores > 1:
            variants.append(Variant("after", ROOT / "src", cores, serve=True))
        for variant in variants:
            rows.extend(_run_variant(variant, folder))
    return rows


HEADER = (
    "call",
    "code",
    "server",
    "clients",
    "requests/s",
    "median ms",
    "p95 ms",
    "clients/throughput ms",
    "server CPU ms/request",
)


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    start = os.getloadavg()[0]
    rows = main()
    title = (
        f"API latency, closed loop on loopback ({os.cpu_count()} cores shared by client and "
        f"server; load average {start:.2f} before, {os.getloadavg()[0]:.2f} after)"
    )
    return [(title, HEADER, rows)]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
