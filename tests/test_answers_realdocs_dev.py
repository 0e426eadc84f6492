"""Issue 16's real-document DEVELOPMENT set: the Debian FAQ and the Debian Developer's
Reference in English, German and Russian, fetched by scripts/fetch_realdocs into
.cache/realdocs-dev (see tests/data/realdocs-dev/README.md).

This is the set failures are diagnosed and improvements designed on; the 97 questions
of tests/data/realdocs stay held out. Its structure is asserted; its figures are printed
(``-s``) and must not fall below what the heading-aware index and answers reached
(a regression check on data they were designed on, not a quality claim).
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

SET = DATA / "realdocs-dev" / "questions.json"
PACKAGES = DATA / "realdocs-dev" / "packages.txt"
TEST_SET = DATA / "realdocs" / "questions.json"
CACHE = Path(__file__).parent.parent / ".cache" / "realdocs-dev"


def _pinned() -> dict[str, str]:
    lines = PACKAGES.read_text(encoding="utf-8").splitlines()
    return dict(line.split() for line in lines if line.strip() and not line.startswith("#"))


@pytest.fixture(scope="session")
def dev() -> GoldSet:
    return load_gold_set(SET)


@pytest.fixture(scope="session")
def dev_home(
    dev: GoldSet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Ragox, LocatedPassages]]:
    missing = [p for p in _pinned() if not (CACHE / p / ".version").is_file()]
    if missing:
        pytest.skip(f"manuals not fetched ({', '.join(missing)}): run scripts/fetch_realdocs")
    app = Ragox(tmp_path_factory.mktemp("realdocs-dev-home"))
    ingest_gold_documents(app, dev, CACHE)
    yield app, locate_passages(app, dev)
    app.close()


def test_the_dev_set_is_apart_from_the_test_set(dev: GoldSet) -> None:
    """Other manuals, other packages, other questions; the same shape rules."""
    test = load_gold_set(TEST_SET)
    assert not {d.path.split("/")[0] for d in dev.documents} & {
        d.path.split("/")[0] for d in test.documents
    }
    assert not {q.text for q in dev.questions} & {q.text for q in test.questions}
    questions = dev.questions
    assert len(questions) >= 45
    assert sum(q.kind is QuestionKind.HOW_TO for q in questions) * 3 >= len(questions)
    assert sum(q.kind is QuestionKind.UNANSWERABLE for q in questions) * 5 >= len(questions)
    for language in ("en", "de", "ru"):
        assert sum(q.language == language for q in questions) >= 15


def test_every_dev_passage_occurs_exactly_once(
    dev: GoldSet, dev_home: tuple[Ragox, LocatedPassages]
) -> None:
    _, located = dev_home
    assert not located.problems, f"gold passages not found exactly once: {located.problems}"
    assert len(located.ranges) == sum(q.answerable for q in dev.questions)


@pytest.fixture(scope="session")
def dev_reports(
    dev: GoldSet, dev_home: tuple[Ragox, LocatedPassages]
) -> tuple[GoldAnswersReport, GoldRetrievalReport]:
    app, located = dev_home
    return evaluate_gold_answers(app, dev, located), evaluate_gold_retrieval(app, dev, located)


def test_dev_table(
    dev: GoldSet, dev_reports: tuple[GoldAnswersReport, GoldRetrievalReport]
) -> None:
    """The table is printed; the figures the work on this set reached hold."""
    answers, retrieval = dev_reports
    print(f"\n{dev.title}")
    for group in answers.groups():
        a, r = answers.figures(group), retrieval.figures(group)
        label = group.to_json()
        print(
            f"{label['language']!s:<5}{label['kind']!s:<14}"
            f"{a['answerable'] + a['unanswerable']:>4} gold {a['answered_with_gold_citation']}"
            f" abst {a['abstained_correctly']} false {a['false_abstentions']}"
            f" on gold {a['citations_on_gold']}"
            f" r@5 {r['recall@5'] if r['queries'] else '-'}"
        )
    overall = answers.figures(GoldGroup(None, None))
    assert answers.citations_resolved_share == 1.0
    # measured on the 100 questions after the fourth round of work on this set (how-to
    # answers that only share a word or two with the question abstained on; the section
    # titled with the question answers it): gold .736 / abstained .929 / false
    # abstentions .042 / recall@5 .764 (after the third round: .708 / .821 / .069 /
    # .764; before it .653 / .714 / .056 / .764; the second round's 71: .727 / .938 /
    # .055); with analyzer 4 (Russian derivations) merged beside it: .764 / .893 / .042 /
    # .778 (one Russian unanswerable question is now answered).
    # Widened to 145 questions by 45 on the Debian Developer's Reference (a handbook:
    # long chapters, commands, lists), written before anything was measured on them;
    # the floors are the widened set's measured figures, rounded down (the ceiling on
    # false abstentions rounded up): gold .593 / abstained .892 / false abstentions
    # .111 / recall@5 .759 (the FAQ's 100 in the same home: .764 / .964 / .028 / .778;
    # the Reference's 45: .250 / .667 / .278 / .722).
    # After the Reference's first round ("how often" asks for a frequency, an elliptical
    # sentence is quoted with the one before it, the list announced after the best
    # sentence is quoted with it): gold .639 / abstained .892 / false abstentions .139
    # / recall@5 .759 (the Reference's 45: .389 / .667 / .361; three answers from the
    # wrong passage became abstentions, hence the higher ceiling; the FAQ's unchanged)
    # After the how-to round (search puts instructions first for a how-to question,
    # stricter instruction tests, a list of bare lines quoted whole): gold .648 /
    # abstained .892 / false abstentions .130 / recall@1 .583 / recall@5 .778; how-to
    # questions recall@1 .481, recall@5 .611 (before: .370 / .574)
    # After the answers' sixth round (quantity and reason answer kinds, the evidence cap
    # per section, three bug fixes): gold .657 / abstained .973 / false abstentions .130
    # / recall@1 .583 / recall@5 .778 (floors left where they were: other branches of
    # the same session change retrieval)
    # With the round's retrieval change merged beside it (a chunk's own headings weigh
    # twice in its index row, analyzer 5): gold .667 / abstained .973 / false
    # abstentions .130 / recall@1 .611 / recall@5 .806; how-to recall@1 .481, recall@5
    # .667
    # With synonyms (ragox.search._synonyms: in lexical search, long Russian ones in
    # their index form, and, at 0.8, in the answer scorer) and a step of a sequence as
    # an instruction: gold .722 / abstained .973 / false abstentions .120 / recall@1
    # .648 / recall@5 .852; how-to recall@1 .556, recall@5 .759 (the held-out set did
    # not confirm the gain: see CHANGELOG)
    # Precision over recall (citations on the gold passage, of those in answers that
    # cite it): .394 before a further sentence from another document had to score 0.7
    # of the best, .417 after
    # Analyzer 6 (a dotted name is searched as the name, a hyphenated one also joined):
    # gold .713 (dev-de-03 quotes "apt upgrade" from the next section instead of
    # "apt-get dist-upgrade"), false abstentions .120, recall@1 and @5 unchanged or
    # better; the held-out set: German false abstentions .160 → .120, the rest unchanged
    # With a passage scored under the title of the section it starts in, a further
    # sentence that refers back quoted with its antecedent or not at all, and charts no
    # sentence: gold .722 / abstained .973 / false abstentions .111 / citations on
    # gold .452 (was .437); .442 once German "Sie", "es", "das", "er" no longer count
    # as referring back (a red team's finding: "Sie können …" pulled in an unrelated
    # sentence as its antecedent)
    assert overall["answered_with_gold_citation"] >= 0.72
    assert overall["citations_on_gold"] >= 0.44
    assert overall["abstained_correctly"] >= 0.97
    assert overall["false_abstentions"] <= 0.13
    assert retrieval.figures(GoldGroup(None, None))["recall@1"] >= 0.64
    assert retrieval.figures(GoldGroup(None, None))["recall@5"] >= 0.85
    how_to = retrieval.figures(GoldGroup(None, QuestionKind.HOW_TO))
    assert how_to["recall@1"] >= 0.55
    assert how_to["recall@5"] >= 0.75
