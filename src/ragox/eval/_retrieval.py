"""``ragox eval retrieval``: does search find the paragraph a question belongs to?

One document per article, one block per paragraph; a hit is a chunk that lies
(mostly) inside the question's paragraph. Questions may come from another file
by shared id, which is how cross-lingual pairs (German questions, English
contexts) are measured. Articles without questions are distractors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ragox.access import Principal
from ragox.eval._metrics import latency_summary, ranking_metrics
from ragox.eval._squad import Article, Question
from ragox.search import SearchMode
from ragox.service import Ragox
from ragox.store import ChunkRecord
from ragox.text import BASE_PROFILE

__all__ = ["EVAL_GROUP", "Corpus", "RetrievalReport", "evaluate_retrieval", "prepare_corpus"]

EVAL_GROUP = "eval"
EVAL_PRINCIPAL = Principal("eval", groups=frozenset({EVAL_GROUP}))


@dataclass(frozen=True, slots=True)
class Corpus:
    """Where each paragraph landed: document id and representation range."""

    ranges: Mapping[tuple[int, int], tuple[str, int, int]]


@dataclass(frozen=True, slots=True)
class RetrievalReport:
    mode: str
    queries: int
    metrics: Mapping[str, float]
    latency_ms: Mapping[str, float]

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            **self.metrics,
            "queries": self.queries,
            "latency_ms": dict(self.latency_ms),
        }


def prepare_corpus(
    app: Ragox, articles: Sequence[Article], progress: Callable[[int], None] | None = None
) -> Corpus:
    """Ingest each article as a plain-text document whose blocks are its paragraphs."""
    ranges: dict[tuple[int, int], tuple[str, int, int]] = {}
    for article in articles:
        parts: list[str] = []
        position = 0
        for p_index, paragraph in enumerate(article.paragraphs):
            normalized = BASE_PROFILE.normalize_text(paragraph.strip()).text
            ranges[(article.index, p_index)] = (
                article.document_id,
                position,
                position + len(normalized),
            )
            parts.append(normalized)
            position += len(normalized) + 2
        text = "\n\n".join(parts)
        outcome = app.ingestor.ingest_bytes(
            text.encode("utf-8"),
            f"{article.document_id}.txt",
            article.document_id,
            groups=frozenset({EVAL_GROUP}),
            tenant=EVAL_PRINCIPAL.tenant,
            media_type="text/plain",
        )
        if outcome.error_code is not None:
            raise RuntimeError(f"{article.document_id} failed: {outcome.error_code}")
        if app.text(article.document_id, EVAL_PRINCIPAL) != text:
            raise RuntimeError(f"{article.document_id}: representation differs from input")
        if progress is not None:
            progress(1)
    return Corpus(ranges)


def _inside(chunk_start: int, chunk_end: int, start: int, end: int) -> bool:
    """The chunk lies mostly inside the paragraph, or holds all of it."""
    overlap = min(chunk_end, end) - max(chunk_start, start)
    whole = chunk_start <= start and end <= chunk_end
    return overlap > 0 and (whole or overlap * 2 > (chunk_end - chunk_start))


def current_chunks(app: Ragox) -> Callable[[str], list[ChunkRecord]]:
    """The chunks of a document's current revision in the eval tenant, remembered."""
    cache: dict[str, list[ChunkRecord]] = {}

    def chunks_of(document_id: str) -> list[ChunkRecord]:
        if document_id not in cache:
            tenant = EVAL_PRINCIPAL.tenant
            document = app.store.get_document(tenant, document_id)
            revision = document and app.store.get_revision(
                tenant, document_id, document.current_revision or ""
            )
            cache[document_id] = (
                app.store.chunks(revision.manifest_id) if revision and revision.manifest_id else []
            )
        return cache[document_id]

    return chunks_of


def evaluate_retrieval(
    app: Ragox,
    corpus: Corpus,
    questions: Sequence[Question],
    mode: SearchMode | None,
    question_texts: Mapping[str, str] | None = None,
    progress: Callable[[int], None] | None = None,
    k: int = 10,
) -> RetrievalReport:
    """Run every question as the eval principal and score the ranked chunks."""
    chunks_of = current_chunks(app)

    runs: list[tuple[list[bool], int]] = []
    latencies: list[float] = []
    used_mode = mode or app.default_mode()
    for question in questions:
        text = question.text if question_texts is None else question_texts.get(question.question_id)
        if text is None:
            continue
        document_id, start, end = corpus.ranges[(question.article, question.paragraph)]
        started = time.perf_counter()
        hits = app.search(text, EVAL_PRINCIPAL, used_mode, limit=k)
        latencies.append((time.perf_counter() - started) * 1000)
        relevance = [
            hit.document_id == document_id and _inside(hit.start, hit.end, start, end)
            for hit in hits
        ]
        total = sum(1 for c in chunks_of(document_id) if _inside(c.start, c.end, start, end))
        runs.append((relevance, max(total, 1)))
        if progress is not None:
            progress(1)
    return RetrievalReport(
        mode=used_mode.value,
        queries=len(runs),
        metrics=ranking_metrics(runs),
        latency_ms=latency_summary(latencies),
    )
