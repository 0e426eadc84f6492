"""Issue 16's real-document set: Debian manuals in English, German and Russian, fetched
by scripts/fetch_realdocs into .cache/realdocs (see tests/data/realdocs/README.md).

The structure of the set is asserted strictly; the quality figures are printed (run
with ``-s``) and recorded, not yet asserted: the lead decides on the goals once the
answer work of issue 16 is merged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import DATA
from ragox.eval import (
    GoldAnswersReport,
    GoldGroup,
    GoldRetrievalReport,
    GoldSet,
    LocatedPassages,
    QuestionKind,
    evaluate_gold_answers,
    evaluate_gold_retrieval,
    ingest_gold_documents,
    load_gold_set,
    locate_passages,
)
from ragox.service import Ragox

SET = DATA / "realdocs" / "questions.json"
PACKAGES = DATA / "realdocs" / "packages.txt"
CACHE = Path(__file__).parent.parent / ".cache" / "realdocs"


def _pinned() -> dict[str, str]:
    lines = PACKAGES.read_text(encoding="utf-8").splitlines()
    return dict(line.split() for line in lines if line.strip() and not line.startswith("#"))


def _fetched() -> dict[str, str]:
    """Package → unpacked version, for the packages the fetch script has unpacked."""
    versions = {}
    for package in _pinned():
        marker = CACHE / package / ".version"
        if marker.is_file():
            versions[package] = marker.read_text(encoding="utf-8").strip()
    return versions


@pytest.fixture(scope="session")
def gold() -> GoldSet:
    return load_gold_set(SET)


@pytest.fixture(scope="session")
def realdocs(
    gold: GoldSet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Ragox, LocatedPassages]]:
    """One home with the documents the questions use, ingested from the fetched manuals."""
    missing = sorted(set(_pinned()) - set(_fetched()))
    if missing:
        pytest.skip(f"manuals not fetched ({', '.join(missing)}): run scripts/fetch_realdocs")
    app = Ragox(tmp_path_factory.mktemp("realdocs-home"))
    ingest_gold_documents(app, gold, CACHE)
    yield app, locate_passages(app, gold)
    app.close()


@pytest.fixture(scope="session")
def reports(
    gold: GoldSet, realdocs: tuple[Ragox, LocatedPassages]
) -> tuple[GoldAnswersReport, GoldRetrievalReport]:
    app, located = realdocs
    return evaluate_gold_answers(app, gold, located), evaluate_gold_retrieval(app, gold, located)


def test_the_set_has_the_shape_the_issue_asks_for(gold: GoldSet) -> None:
    """≥ 80 questions, ≥ 1/3 how-to, ≥ 1/5 unanswerable, ≥ 25 per language, unique ids."""
    questions = gold.questions
    assert len(questions) >= 80
    assert sum(q.kind is QuestionKind.HOW_TO for q in questions) * 3 >= len(questions)
    assert sum(q.kind is QuestionKind.UNANSWERABLE for q in questions) * 5 >= len(questions)
    for language in ("en", "de", "ru"):
        assert sum(q.language == language for q in questions) >= 25
    used = {q.document_id for q in questions if q.answerable}
    assert used == {d.document_id for d in gold.documents}
    assert all(d.path.startswith(tuple(_pinned())) for d in gold.documents)


def test_every_gold_passage_occurs_exactly_once(
    gold: GoldSet, realdocs: tuple[Ragox, LocatedPassages]
) -> None:
    """Each answerable question's passage is found exactly once in its document's text."""
    _, located = realdocs
    pinned, fetched = _pinned(), _fetched()
    changed = {p: (pinned[p], v) for p, v in fetched.items() if v != pinned[p]}
    assert not located.problems, (
        f"gold passages not found exactly once (question id: count): {located.problems}; "
        f"packages at another version than the set was written on: {changed or 'none'}"
    )
    assert len(located.ranges) == sum(q.answerable for q in gold.questions)


def test_real_documents_table(
    gold: GoldSet, reports: tuple[GoldAnswersReport, GoldRetrievalReport]
) -> None:
    """Every question is asked, every shown citation resolves; the table is printed."""
    answers, retrieval = reports
    print(f"\n{gold.title}")
    print(
        f"{'language':<9}{'kind':<14}{'n':>4}{'gold-cited':>12}{'abstained':>11}"
        f"{'false abst.':>13}{'on gold':>9}{'recall@1':>10}{'recall@5':>10}"
    )
    for group in answers.groups():
        a = answers.figures(group)
        r = retrieval.figures(group)

        def cell(value: float | None) -> str:
            return "-" if value is None else f"{value:.3f}"

        recall = (cell(r["recall@1"]), cell(r["recall@5"])) if r["queries"] else ("-", "-")
        label = group.to_json()
        print(
            f"{label['language']!s:<9}{label['kind']!s:<14}"
            f"{a['answerable'] + a['unanswerable']:>4}"
            f"{cell(a['answered_with_gold_citation']):>12}{cell(a['abstained_correctly']):>11}"
            f"{cell(a['false_abstentions']):>13}{cell(a['citations_on_gold']):>9}"
            f"{recall[0]:>10}{recall[1]:>10}"
        )
    overall = answers.figures(GoldGroup(None, None))
    assert overall["answerable"] + overall["unanswerable"] == len(gold.questions)
    assert retrieval.figures(GoldGroup(None, None))["queries"] == overall["answerable"]
    assert answers.citations_shown > 0
    assert answers.citations_resolved_share == 1.0
