"""A cheap closed-loop HTTP/1.1 load generator: N keep-alive connections on one asyncio
loop, each sending its next request as soon as the previous answer is read.

It shares the machine's cores with the server under test, so it does as little as
it can per request (no HTTP library: a prepared request line, a header scan, a
Content-Length read); its own cost is measured by :func:`client_cost`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Load", "Request", "client_cost", "run_load"]


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class Load:
    """Latencies in milliseconds, in completion order, and the wall time of the run."""

    latencies: list[float]
    seconds: float
    bodies: list[bytes]

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.seconds

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _encode(request: Request, host: str, headers: dict[str, str]) -> bytes:
    lines = [f"{request.method} {request.path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if request.body or request.method in {"POST", "PUT"}:
        lines += ["Content-Type: application/json", f"Content-Length: {len(request.body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + request.body


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length)


async def _run(
    host: str,
    port: int,
    clients: int,
    total: int,
    make: Callable[[int], Request],
    headers: dict[str, str],
    keep: int,
) -> Load:
    prepared = [_encode(make(i), f"{host}:{port}", headers) for i in range(total)]
    latencies: list[float] = []
    bodies: list[bytes] = []
    next_index = 0

    async def client() -> None:
        nonlocal next_index
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while next_index < total:
                index = next_index
                next_index += 1
                started = time.perf_counter()
                writer.write(prepared[index])
                status, body = await _read_response(reader)
                latencies.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    raise RuntimeError(f"HTTP {status}: {body[:200]!r}")
                if len(bodies) < keep:
                    bodies.append(body)
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return Load(latencies, time.perf_counter() - started, bodies)


def run_load(
    host: str,
    port: int,
    clients: int,
    total: int,
    make: Callable[[int], Request],
    headers: dict[str, str],
    keep: int = 20,
) -> Load:
    """``total`` requests over ``clients`` concurrent keep-alive connections."""
    return asyncio.run(_run(host, port, clients, total, make, headers, keep))


def client_cost(load: Load, cpu_seconds: float) -> float:
    """The client's own CPU time per request, in milliseconds."""
    return cpu_seconds / len(load.latencies) * 1000
