"""``ragox eval answers``: cited answers on SQuAD data, with held-out articles.

Every fifth article is not ingested; its questions are unanswerable. A
:class:`Split` restricts a run to the articles of one half, disjoint by
article and the same in every language (en/de/ru share article indexes): the
extractive generator's weights and thresholds are fitted on ``FIT`` only and
its goals are tested on ``TEST`` only, each half with its own corpus and its
own held-out (unanswerable) articles. Reports
``answered_with_gold_citation`` (answerable questions whose answer has a
resolved citation covering the gold answer span), ``abstained_correctly``,
``false_abstentions``, ``citations_resolved`` (share of displayed citations
that resolve RESOLVED now) and ask latency.
"""

from __future__ import annotations

import enum
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ragox.anchor import resolve
from ragox.answer import Generator
from ragox.eval._metrics import latency_summary
from ragox.eval._retrieval import EVAL_PRINCIPAL, prepare_corpus
from ragox.eval._squad import Article, Question
from ragox.search import SearchMode
from ragox.service import Ragox

__all__ = ["HOLD_OUT_EVERY", "AnswersReport", "Split", "evaluate_answers", "held_out"]

#: every n-th article (by index) is held out to make unanswerable questions
HOLD_OUT_EVERY = 5


def held_out(article: Article) -> bool:
    return article.index % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1


class Split(enum.Enum):
    """Which articles a run uses; FIT and TEST are disjoint by article."""

    #: every article (what ``ragox eval answers`` reports for any SQuAD file)
    ALL = "all"
    #: even article indexes: the extractive generator is calibrated here only
    FIT = "fit"
    #: odd article indexes: its goals are measured here only
    TEST = "test"

    def contains(self, article: Article) -> bool:
        if self is Split.ALL:
            return True
        return article.index % 2 == (0 if self is Split.FIT else 1)


@dataclass(frozen=True, slots=True)
class AnswersReport:
    answerable: int
    unanswerable: int
    answered_with_gold_citation: float
    abstained_correctly: float
    false_abstentions: float
    citations_resolved: float
    latency_ms: Mapping[str, float]

    def to_json(self) -> dict[str, object]:
        return {
            "answered_with_gold_citation": self.answered_with_gold_citation,
            "abstained_correctly": self.abstained_correctly,
            "false_abstentions": self.false_abstentions,
            "citations_resolved": self.citations_resolved,
            "answerable": self.answerable,
            "unanswerable": self.unanswerable,
            "latency_ms": dict(self.latency_ms),
        }


def _gold_range(article: Article, question: Question, paragraph_start: int) -> tuple[int, int]:
    """The gold answer's code-point range in the ingested (normalized) document."""
    context = article.paragraphs[question.paragraph]
    lead = len(context) - len(context.lstrip())
    before = unicodedata.normalize("NFC", context[lead : question.answer_start])
    answer = unicodedata.normalize("NFC", question.answer_text)
    start = paragraph_start + len(before)
    return start, start + len(answer)


def evaluate_answers(
    app: Ragox,
    articles: Sequence[Article],
    questions: Sequence[Question],
    generator: Generator | None = None,
    mode: SearchMode | None = None,
    question_texts: Mapping[str, str] | None = None,
    progress: Callable[[int], None] | None = None,
    split: Split = Split.ALL,
) -> AnswersReport:
    articles = [a for a in articles if split.contains(a)]
    kept = [a for a in articles if not held_out(a)]
    corpus = prepare_corpus(app, kept)
    by_index = {a.index: a for a in articles}
    answered_gold = abstain_ok = false_abstain = 0
    answerable = unanswerable = 0
    shown = resolved = 0
    latencies: list[float] = []
    lookup = app.lookup(EVAL_PRINCIPAL)
    for question in questions:
        if question.article not in by_index:
            continue  # the other split's question
        text = question.text if question_texts is None else question_texts.get(question.question_id)
        if text is None:
            continue
        started = time.perf_counter()
        record = app.ask(text, EVAL_PRINCIPAL, generator, mode)
        latencies.append((time.perf_counter() - started) * 1000)
        for citation in record.citations:
            shown += 1
            resolved += resolve(citation.anchor, lookup).resolved
        article = by_index[question.article]
        if held_out(article):
            unanswerable += 1
            abstain_ok += record.abstained
        else:
            answerable += 1
            if record.abstained:
                false_abstain += 1
            else:
                document_id, paragraph_start, _ = corpus.ranges[
                    (question.article, question.paragraph)
                ]
                start, end = _gold_range(article, question, paragraph_start)
                answered_gold += any(
                    c.anchor.document_id == document_id
                    and c.anchor.start <= start
                    and end <= c.anchor.end
                    for c in record.citations
                )
        if progress is not None:
            progress(1)
    return AnswersReport(
        answerable=answerable,
        unanswerable=unanswerable,
        answered_with_gold_citation=round(answered_gold / answerable, 4) if answerable else 0.0,
        abstained_correctly=round(abstain_ok / unanswerable, 4) if unanswerable else 0.0,
        false_abstentions=round(false_abstain / answerable, 4) if answerable else 0.0,
        citations_resolved=round(resolved / shown, 4) if shown else 1.0,
        latency_ms=latency_summary(latencies),
    )
