"""Cited answers on XQuAD (issue 5): ragox ask with the extractive generator beside a
retrieve-the-best-sentence peer, in the same run.

Every fifth article is held out, so its questions have no answer. ragox runs the
whole ask: permitted search, context, sentence scoring, validation into
anchors that resolve, and the stored answer record. The peer is bm25s over the
sentences of the same paragraphs with the same Snowball terms; it quotes its
top sentence, either always or only when the BM25 score passes the threshold
that best meets the abstention goal. That row shows what seed 001 warns of: a
retrieval score alone does not tell answerable questions from the rest.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import bm25s  # type: ignore[import-untyped]

from _corpus import xquad_file
from ragox.eval import evaluate_answers, held_out, latency_summary, load_squad
from ragox.eval._squad import Question
from ragox.ingest import split_sentences
from ragox.search import analyze_document, analyze_query
from ragox.service import Ragox

HEADER = (
    "language",
    "system",
    "gold citation",
    "abstained",
    "false abst.",
    "median ms",
    "p95 ms",
)


def _peer(language: str) -> list[tuple[str, ...]]:
    articles, questions = load_squad(xquad_file(language))
    sentences: list[tuple[int, int, int, int]] = []  # article, paragraph, start, end
    terms: list[list[str]] = []
    for article in articles:
        if held_out(article):
            continue
        for p_index, paragraph in enumerate(article.paragraphs):
            for start, end in split_sentences(paragraph):
                sentences.append((article.index, p_index, start, end))
                terms.append(analyze_document(paragraph[start:end], language).split() or ["_"])
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(terms, show_progress=False)
    by_index = {a.index: a for a in articles}
    outcomes: list[tuple[bool, bool, float]] = []  # answerable, top sentence holds gold, score
    latencies: list[float] = []

    def holds(question: Question, found: tuple[int, int, int, int]) -> bool:
        article, paragraph, start, end = found
        answer_end = question.answer_start + len(question.answer_text)
        return (
            (article, paragraph) == (question.article, question.paragraph)
            and start <= question.answer_start
            and answer_end <= end
        )

    for question in questions:
        started = time.perf_counter()
        query = analyze_query(question.text, [language]) or ["_"]
        docs, scores = retriever.retrieve([query], k=1, show_progress=False)
        latencies.append((time.perf_counter() - started) * 1000)
        answerable = not held_out(by_index[question.article])
        outcomes.append(
            (answerable, answerable and holds(question, sentences[docs[0][0]]), scores[0][0])
        )
    total = sum(a for a, _, _ in outcomes)
    unanswerable = len(outcomes) - total

    def rates(threshold: float) -> tuple[float, float, float]:
        gold = sum(a and g and s >= threshold for a, g, s in outcomes) / total
        right = sum(not a and s < threshold for a, _, s in outcomes) / unanswerable
        wrong = sum(a and s < threshold for a, _, s in outcomes) / total
        return gold, right, wrong

    # the lowest score threshold that abstains on ≥ 90% of unanswerable questions
    threshold = min(
        (float(s) for _, _, s in outcomes if rates(float(s))[1] >= 0.90),
        default=float("inf"),
    )
    summary = latency_summary(latencies)
    timing = (f"{summary['median']:.2f}", f"{summary['p95']:.2f}")
    rows: list[tuple[str, ...]] = []
    for label, limit in (("bm25s top sentence", float("-inf")), ("… above a score", threshold)):
        gold, right, wrong = rates(limit)
        rows.append((language, label, f"{gold:.3f}", f"{right:.3f}", f"{wrong:.3f}", *timing))
    return rows


def main(languages: tuple[str, ...] = ("en", "de", "ru")) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for language in languages:
        articles, questions = load_squad(xquad_file(language))
        with tempfile.TemporaryDirectory() as home:
            app = Ragox(Path(home))
            report = evaluate_answers(app, articles, questions)
            app.close()
        rows.append(
            (
                language,
                "ragox ask (extractive)",
                f"{report.answered_with_gold_citation:.3f}",
                f"{report.abstained_correctly:.3f}",
                f"{report.false_abstentions:.3f}",
                f"{report.latency_ms['median']:.2f}",
                f"{report.latency_ms['p95']:.2f}",
            )
        )
        rows.extend(_peer(language))
    return rows


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Cited answers on XQuAD, every fifth article held out (issue 5)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
