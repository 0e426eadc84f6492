"""The extractive generator (no model): the answer is the evidence's own sentences.

Each evidence sentence is scored by how much of the question it covers:
the IDF-weighted share of the question's content terms (Snowball stems) that it
contains. The best sentences become claims, each quoting itself verbatim with
its source id. Whether the question is answerable is decided from that
coverage (calibrated on XQuAD), never from the retrieval score.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ragox.answer._model import Claim, Draft, Evidence
from ragox.ingest import split_sentences, token_count
from ragox.search import SUPPORTED_LANGUAGES, analyze_document, analyze_query, detect_language

__all__ = [
    "ExtractiveConfig",
    "ExtractiveGenerator",
    "ScoredSentence",
    "Scoring",
    "score_sentences",
]


#: shorter "sentences" (a heading, a table label) are never quoted as claims
MIN_CLAIM_TOKENS = 4


@dataclass(frozen=True, slots=True)
class ExtractiveConfig:
    """Calibrated on XQuAD en/de/ru with every fifth article held out (see the note in
    CHANGELOG.md): coverage is the IDF-weighted share of the question's terms."""

    #: a best sentence covering less of the question than this means "not answerable"
    min_coverage: float = 0.3
    #: nor is a question that no single passage covers at least this much of
    min_passage_coverage: float = 0.4
    #: further sentences are quoted when they score at least this share of the best
    second_ratio: float = 0.25
    max_sentences: int = 3


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    evidence: Evidence
    start: int  # offset in evidence.text
    end: int
    coverage: float


def _stems(text: str, languages: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for language in languages:
        found.update(analyze_document(text, language).split())
    return found


#: ``weights(terms) -> {term: idf}`` from the index the evidence came from
TermWeights = Callable[[Sequence[str]], Mapping[str, float]]


def _present(term: str, stems: set[str]) -> bool:
    """The term, or a compound containing it (German "Dichtungsprüfung" holds "prüfung")."""
    if term in stems:
        return True
    return len(term) >= 5 and any(term in stem for stem in stems if len(stem) > len(term))


@dataclass(frozen=True, slots=True)
class Scoring:
    """Sentences by coverage, and the best coverage of the question by one passage."""

    sentences: tuple[ScoredSentence, ...]
    passage_coverage: float


def score_sentences(
    question: str, evidence: Sequence[Evidence], term_weights: TermWeights | None = None
) -> Scoring:
    """Every sentence of the evidence with its IDF-weighted coverage of the question.

    IDF comes from the searched index when ``term_weights`` is given (a rare word
    of the question matters more than a common one), else from the evidence.
    """
    languages = sorted(
        {detect_language(item.text) or "en" for item in evidence} & set(SUPPORTED_LANGUAGES)
    ) or ["en"]
    terms = analyze_query(question, languages)
    sentences: list[tuple[Evidence, int, int, set[str]]] = []
    for item in evidence:
        for start, end in split_sentences(item.text):
            if token_count(item.text, start, end) < MIN_CLAIM_TOKENS:
                continue  # headings and labels are not statements to quote
            sentences.append((item, start, end, _stems(item.text[start:end], languages)))
    if not terms or not sentences:
        return Scoring((), 0.0)
    count = len(sentences)
    if term_weights is not None:
        weights = dict(term_weights(terms))
    else:
        weights = {
            term: math.log(1 + count / (1 + sum(1 for s in sentences if term in s[3])))
            for term in terms
        }
    total = sum(weights.values()) or 1.0

    def coverage(stems: set[str]) -> float:
        return sum(weights[t] for t in terms if _present(t, stems)) / total

    scored = sorted(
        (
            ScoredSentence(item, start, end, coverage(stems))
            for item, start, end, stems in sentences
        ),
        key=lambda s: -s.coverage,
    )
    passage = max(coverage(_stems(item.text, languages)) for item in evidence)
    return Scoring(tuple(scored), passage)


class ExtractiveGenerator:
    """Quotes the evidence sentences that best cover the question; abstains otherwise."""

    def __init__(
        self, config: ExtractiveConfig | None = None, term_weights: TermWeights | None = None
    ) -> None:
        self.config = config or ExtractiveConfig()
        self.term_weights = term_weights

    @property
    def name(self) -> str:
        return "extractive@1"

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft:
        scoring = score_sentences(question, evidence, self.term_weights)
        scored = scoring.sentences
        config = self.config
        if (
            not scored
            or scored[0].coverage < config.min_coverage
            or scoring.passage_coverage < config.min_passage_coverage
        ):
            return Draft(claims=(), abstained=True, missing=None)
        best = scored[0].coverage
        chosen = [scored[0]]
        for candidate in scored[1:]:
            if len(chosen) >= config.max_sentences:
                break
            if candidate.coverage >= config.second_ratio * best:
                chosen.append(candidate)
        claims = []
        for sentence in chosen:
            quote = sentence.evidence.text[sentence.start : sentence.end]
            claims.append(
                Claim(
                    text=quote,
                    source_id=sentence.evidence.source_id,
                    quote=quote,
                    quote_start=sentence.start,
                )
            )
        return Draft(claims=tuple(claims), abstained=False)
