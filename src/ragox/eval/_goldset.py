"""Gold-passage sets over real files: ``ragox eval answers|retrieval SET.json --files DIR``.

A gold set (``"format": "ragox-gold-set/1"``) names documents by id and file path
(relative to a files folder) and questions of three kinds: how-to, fact and
unanswerable. An answerable question's gold is a passage: an exact substring that
occurs exactly once in its document's representation text, so its code-point
range there is unambiguous. Where the manual answers the same question in a
second place, ``also`` lists those passages (``{"passage", "document_id"?}``, the
document defaulting to the question's); citing any of them counts.

Scoring rules (the same for answers and search hits):

- an answer is *gold-cited* when one of its citations lies in a gold passage's
  document and its range shares at least one code point with that passage's range;
- a search hit is *relevant* under the same rule (its chunk range overlaps the
  gold passage); recall@k is a relevant hit within the first k;
- an unanswerable question is *abstained correctly* when the answer abstains; an
  answerable one that abstains is a *false abstention*.

Every figure is reported per language, per question kind, and per language over
all kinds (the issue's goals are per language).
"""

from __future__ import annotations

import enum
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragox.anchor import resolve
from ragox.answer import Generator
from ragox.eval._metrics import latency_summary, ranking_metrics
from ragox.eval._retrieval import EVAL_GROUP, EVAL_PRINCIPAL, current_chunks
from ragox.search import SearchMode
from ragox.service import Ragox

__all__ = [
    "GOLD_SET_FORMAT",
    "GoldAnswersReport",
    "GoldDocument",
    "GoldGroup",
    "GoldQuestion",
    "GoldRetrievalReport",
    "GoldSet",
    "GoldSetError",
    "LocatedPassages",
    "QuestionKind",
    "evaluate_gold_answers",
    "evaluate_gold_retrieval",
    "ingest_gold_documents",
    "is_gold_set",
    "load_gold_set",
    "locate_passages",
]

GOLD_SET_FORMAT = "ragox-gold-set/1"


class GoldSetError(ValueError):
    """A gold set that cannot be read, or whose files or passages are not there."""


class QuestionKind(enum.Enum):
    HOW_TO = "how-to"
    FACT = "fact"
    #: the documents do not answer it: the right answer is an abstention
    UNANSWERABLE = "unanswerable"


@dataclass(frozen=True, slots=True)
class GoldDocument:
    document_id: str
    #: relative to the files folder given at evaluation time
    path: str
    language: str


@dataclass(frozen=True, slots=True)
class GoldQuestion:
    question_id: str
    language: str
    kind: QuestionKind
    text: str
    #: both set for answerable questions, both None for unanswerable ones
    document_id: str | None
    passage: str | None
    #: further (document id, passage) pairs that answer the question as well
    also: tuple[tuple[str, str], ...] = ()

    @property
    def answerable(self) -> bool:
        return self.kind is not QuestionKind.UNANSWERABLE

    @property
    def gold(self) -> tuple[tuple[str, str], ...]:
        """Every (document id, passage) that answers the question; empty if unanswerable."""
        if self.document_id is None or self.passage is None:
            return ()
        return ((self.document_id, self.passage), *self.also)


@dataclass(frozen=True, slots=True)
class GoldSet:
    title: str
    documents: tuple[GoldDocument, ...]
    questions: tuple[GoldQuestion, ...]


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise GoldSetError(f"cannot read {path.name}: {type(error).__name__}") from None


def is_gold_set(path: Path) -> bool:
    """True when the file is JSON that declares the gold-set format."""
    try:
        data = _read_json(path)
    except GoldSetError:
        return False
    return isinstance(data, dict) and data.get("format") == GOLD_SET_FORMAT


def _text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise GoldSetError(f"{where}: '{key}' must be a non-empty string")
    return value


def _question(item: object, documents: Mapping[str, GoldDocument], index: int) -> GoldQuestion:
    where = f"question {index}"
    if not isinstance(item, dict):
        raise GoldSetError(f"{where} is not an object")
    try:
        kind = QuestionKind(item.get("kind"))
    except ValueError:
        raise GoldSetError(f"{where}: unknown kind") from None
    answerable = kind is not QuestionKind.UNANSWERABLE
    document_id = _text(item, "document_id", where) if answerable else None
    also: list[tuple[str, str]] = []
    for other in item.get("also") or []:
        if not isinstance(other, dict):
            raise GoldSetError(f"{where}: 'also' holds objects")
        other_document = other.get("document_id", document_id)
        if not isinstance(other_document, str):
            raise GoldSetError(f"{where}: an 'also' passage needs a document")
        also.append((other_document, _text(other, "passage", where)))
    question = GoldQuestion(
        question_id=_text(item, "id", where),
        language=_text(item, "language", where),
        kind=kind,
        text=_text(item, "question", where),
        document_id=document_id,
        passage=_text(item, "passage", where) if answerable else None,
        also=tuple(also),
    )
    if not answerable and (item.get("document_id") or item.get("passage") or also):
        raise GoldSetError(f"{where}: an unanswerable question has no gold passage")
    if any(d not in documents for d, _ in question.gold):
        raise GoldSetError(f"{where}: unknown document_id")
    return question


def load_gold_set(path: Path) -> GoldSet:
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("format") != GOLD_SET_FORMAT:
        raise GoldSetError(f"{path.name} is not a gold set (format {GOLD_SET_FORMAT})")
    documents: dict[str, GoldDocument] = {}
    for index, item in enumerate(data.get("documents") or []):
        where = f"document {index}"
        if not isinstance(item, dict):
            raise GoldSetError(f"{where} is not an object")
        document = GoldDocument(
            _text(item, "document_id", where),
            _text(item, "path", where),
            _text(item, "language", where),
        )
        if document.document_id in documents:
            raise GoldSetError(f"{where}: duplicate document_id")
        documents[document.document_id] = document
    questions = tuple(
        _question(item, documents, index) for index, item in enumerate(data.get("questions") or [])
    )
    if len({q.question_id for q in questions}) != len(questions):
        raise GoldSetError(f"{path.name}: duplicate question ids")
    return GoldSet(str(data.get("title", "")), tuple(documents.values()), questions)


def ingest_gold_documents(
    app: Ragox,
    gold: GoldSet,
    files: Path,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Ingest each document's file under its id, readable by the eval principal."""
    for document in gold.documents:
        path = files / document.path
        if not path.is_file():
            raise GoldSetError(f"{document.document_id}: file not found under {files}")
        outcome = app.ingestor.ingest_file(
            path,
            document.document_id,
            groups=frozenset({EVAL_GROUP}),
            tenant=EVAL_PRINCIPAL.tenant,
        )
        if outcome.error_code is not None:
            raise GoldSetError(f"{document.document_id} failed: {outcome.error_code}")
        if progress is not None:
            progress(1)


#: (document id, start, end) of a gold passage, in representation code points
GoldRange = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class LocatedPassages:
    """Each answerable question's gold ranges; passages that are not there exactly once."""

    #: question id → the ranges of its passage and of its ``also`` passages
    ranges: Mapping[str, tuple[GoldRange, ...]]
    #: question id → how often a passage of it occurs (0 or ≥ 2), for those not located
    problems: Mapping[str, int]


def locate_passages(app: Ragox, gold: GoldSet) -> LocatedPassages:
    """Find every gold passage in its document's current representation text."""
    texts: dict[str, str] = {}
    ranges: dict[str, tuple[GoldRange, ...]] = {}
    problems: dict[str, int] = {}
    for question in gold.questions:
        found: list[GoldRange] = []
        for document_id, passage in question.gold:
            if document_id not in texts:
                texts[document_id] = app.text(document_id, EVAL_PRINCIPAL)
            count = texts[document_id].count(passage)
            if count != 1:
                problems[question.question_id] = count
                break
            start = texts[document_id].index(passage)
            found.append((document_id, start, start + len(passage)))
        else:
            if found:
                ranges[question.question_id] = tuple(found)
    return LocatedPassages(ranges, problems)


def _overlaps(start: int, end: int, document_id: str, gold: Sequence[GoldRange]) -> bool:
    """The range shares at least one code point with one of the gold ranges."""
    return any(
        document_id == gold_document and start < gold_end and gold_start < end
        for gold_document, gold_start, gold_end in gold
    )


@dataclass(frozen=True, slots=True)
class GoldGroup:
    """Which questions a row covers: one language, one kind, or both (None: all)."""

    language: str | None
    kind: QuestionKind | None

    def covers(self, question: GoldQuestion) -> bool:
        return (self.language is None or question.language == self.language) and (
            self.kind is None or question.kind is self.kind
        )

    def to_json(self) -> dict[str, object]:
        return {
            "language": self.language or "all",
            "kind": self.kind.value if self.kind else "all",
        }


def _groups(questions: Sequence[GoldQuestion]) -> list[GoldGroup]:
    """Per language and kind, then per language, then everything."""
    languages = sorted({q.language for q in questions})
    kinds = [k for k in QuestionKind if any(q.kind is k for q in questions)]
    rows = [GoldGroup(lang, kind) for lang in languages for kind in kinds]
    rows += [GoldGroup(lang, None) for lang in languages]
    rows.append(GoldGroup(None, None))
    return [g for g in rows if any(g.covers(q) for q in questions)]


@dataclass(frozen=True, slots=True)
class _Asked:
    question: GoldQuestion
    abstained: bool
    gold_cited: bool
    #: the answer's citations (distinct quotes, copies in other documents not counted)
    citations: int = 0
    #: those of them that overlap the gold passage
    on_gold: int = 0


def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


@dataclass(frozen=True, slots=True)
class GoldAnswersReport:
    """Answer figures per group; shares are None where a group has no such question."""

    outcomes: tuple[_Asked, ...]
    citations_shown: int
    citations_resolved: int
    latency_ms: Mapping[str, float]

    def figures(self, group: GoldGroup) -> dict[str, Any]:
        asked = [o for o in self.outcomes if group.covers(o.question)]
        answerable = [o for o in asked if o.question.answerable]
        unanswerable = [o for o in asked if not o.question.answerable]
        return {
            "answerable": len(answerable),
            "unanswerable": len(unanswerable),
            "answered_with_gold_citation": _share(
                sum(o.gold_cited for o in answerable), len(answerable)
            ),
            "abstained_correctly": _share(
                sum(o.abstained for o in unanswerable), len(unanswerable)
            ),
            "false_abstentions": _share(sum(o.abstained for o in answerable), len(answerable)),
            # precision over recall: of the citations of answers that cite the gold
            # passage, the share on it (the others quote sentences beside the answer)
            "citations_on_gold": _share(
                sum(o.on_gold for o in answerable if o.gold_cited),
                sum(o.citations for o in answerable if o.gold_cited),
            ),
        }

    def groups(self) -> list[GoldGroup]:
        return _groups([o.question for o in self.outcomes])

    @property
    def citations_resolved_share(self) -> float:
        shown = self.citations_shown
        return round(self.citations_resolved / shown, 4) if shown else 1.0

    def to_json(self) -> dict[str, object]:
        return {
            **self.figures(GoldGroup(None, None)),
            "citations_resolved": self.citations_resolved_share,
            "latency_ms": dict(self.latency_ms),
            "groups": [{**g.to_json(), **self.figures(g)} for g in self.groups()],
        }


def evaluate_gold_answers(
    app: Ragox,
    gold: GoldSet,
    located: LocatedPassages,
    generator: Generator | None = None,
    mode: SearchMode | None = None,
    progress: Callable[[int], None] | None = None,
) -> GoldAnswersReport:
    """Ask every question as the eval principal and score its citations."""
    outcomes: list[_Asked] = []
    shown = resolved = 0
    latencies: list[float] = []
    lookup = app.lookup(EVAL_PRINCIPAL)
    for question in gold.questions:
        started = time.perf_counter()
        record = app.ask(question.text, EVAL_PRINCIPAL, generator, mode)
        latencies.append((time.perf_counter() - started) * 1000)
        for citation in record.citations:
            shown += 1
            resolved += resolve(citation.anchor, lookup).resolved
        target = located.ranges.get(question.question_id, ())
        on_gold = sum(
            _overlaps(c.anchor.start, c.anchor.end, c.anchor.document_id, target)
            for c in record.citations
        )
        outcomes.append(
            _Asked(
                question,
                record.abstained,
                bool(on_gold) and not record.abstained,
                len(record.citations),
                on_gold,
            )
        )
        if progress is not None:
            progress(1)
    return GoldAnswersReport(tuple(outcomes), shown, resolved, latency_summary(latencies))


@dataclass(frozen=True, slots=True)
class _Searched:
    question: GoldQuestion
    relevance: tuple[bool, ...]
    relevant_total: int


@dataclass(frozen=True, slots=True)
class GoldRetrievalReport:
    """Ranking figures over the answerable questions, per group."""

    mode: str
    outcomes: tuple[_Searched, ...]
    latency_ms: Mapping[str, float]

    def figures(self, group: GoldGroup) -> dict[str, Any]:
        runs = [(o.relevance, o.relevant_total) for o in self.outcomes if group.covers(o.question)]
        return {"queries": len(runs), **ranking_metrics(runs)}

    def groups(self) -> list[GoldGroup]:
        return _groups([o.question for o in self.outcomes])

    def to_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            **self.figures(GoldGroup(None, None)),
            "latency_ms": dict(self.latency_ms),
            "groups": [{**g.to_json(), **self.figures(g)} for g in self.groups()],
        }


def evaluate_gold_retrieval(
    app: Ragox,
    gold: GoldSet,
    located: LocatedPassages,
    mode: SearchMode | None = None,
    progress: Callable[[int], None] | None = None,
    k: int = 10,
) -> GoldRetrievalReport:
    """Search every answerable question; a hit is relevant when it overlaps the gold."""
    chunks_of = current_chunks(app)

    used_mode = mode or app.default_mode()
    outcomes: list[_Searched] = []
    latencies: list[float] = []
    for question in gold.questions:
        target = located.ranges.get(question.question_id)
        if target is None:
            continue
        started = time.perf_counter()
        hits = app.search(question.text, EVAL_PRINCIPAL, used_mode, limit=k)
        latencies.append((time.perf_counter() - started) * 1000)
        relevance = tuple(_overlaps(h.start, h.end, h.document_id, target) for h in hits)
        total = sum(
            1
            for document_id in sorted({d for d, _, _ in target})
            for c in chunks_of(document_id)
            if _overlaps(c.start, c.end, document_id, target)
        )
        outcomes.append(_Searched(question, relevance, max(total, 1)))
        if progress is not None:
            progress(1)
    return GoldRetrievalReport(used_mode.value, tuple(outcomes), latency_summary(latencies))
