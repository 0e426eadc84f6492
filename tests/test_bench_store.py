"""Smoke run of ``bench/run.py store --quick``: both backends side by side, every row
measured (search, queued ingestion with 1 and 2 workers, resolve through 1 and 2 API
replicas). Figures are not asserted (speed claims live in bench/), only that the
benchmark runs and fills its table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import PostgresServer

ROOT = Path(__file__).resolve().parent.parent


def _number(cell: str) -> float:
    return float(cell.split(" ", maxsplit=1)[0].replace(",", ""))


def test_store_bench_quick_fills_its_table(postgres_server: PostgresServer, tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "RAGOX_BENCH_CACHE": str(tmp_path / "cache"),
        "RAGOX_BENCH_PG": str(postgres_server._server.get_uri()),
    }
    env.pop("RAGOX_STORE", None)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "store", "--quick"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = {}
    for line in done.stdout.splitlines():
        cells = [cell.strip() for cell in line.split("  ") if cell.strip()]
        if len(cells) >= 5 and cells[0].replace(",", "").isdigit():
            rows[cells[1]] = cells
    expected = [
        "search lexical ms",
        "search vector ms",
        "search hybrid ms",
        "ingest, 1 worker: chunks/s",
        "ingest, 2 workers: chunks/s",
        "resolve via API, 1 replica, 20 clients: p95 ms",
        "resolve via API, 2 replicas, 20 clients: p95 ms",
    ]
    for what in expected:
        assert what in rows, (what, done.stdout)
        sqlite, postgres = rows[what][2], rows[what][3]
        assert _number(sqlite) > 0 and _number(postgres) > 0, rows[what]
    assert _number(rows["search lexical ms"][0]) >= 300  # the store holds its size
