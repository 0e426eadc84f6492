"""Issue 5's quality goals on XQuAD's test half, per language, with the extractive
generator. The halves are disjoint by article and the same in every language; the
generator's weights and thresholds were fitted on the other half only
(bench/calibrate_answers.py), and in each half every fifth article is held out, so
its questions have no answer."""

from __future__ import annotations

import pytest

from conftest import DATA
from ragox.eval import Split, evaluate_answers, load_squad
from ragox.service import Ragox

#: the least share of unanswerable test-half questions abstained on. The goal is .90;
#: measured at fitting time: en .909, de .773, ru .886 (88 questions each); after issue
#: 16's answers on manuals (answers in the question's language, continuation sentences)
#: en .909, de .784, ru .886; with German "andere" a function word (it shares the stem
#: of "ändern") de .795. German and
#: Russian fall short on unseen articles: the floors pin down where they stand, so that
#: a change that makes them worse fails, and one that meets the goal should raise them.
ABSTENTION_FLOOR = {"en": 0.90, "de": 0.79, "ru": 0.86}


def test_the_halves_are_disjoint_by_article_and_alike_across_languages() -> None:
    """No article is in both halves, and en, de and ru put the same question ids in each."""
    halves = {}
    for language in ("en", "de", "ru"):
        articles, questions = load_squad(DATA / "xquad" / f"xquad.{language}.json")
        fit = {a.index for a in articles if Split.FIT.contains(a)}
        test = {a.index for a in articles if Split.TEST.contains(a)}
        assert fit and test and not fit & test and fit | test == {a.index for a in articles}
        halves[language] = {q.question_id for q in questions if q.article in test}
    assert halves["en"] == halves["de"] == halves["ru"]


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_extractive_answers_on_the_test_half(app: Ragox, language: str) -> None:
    """Gold passage cited for ≥ 85% of answerable questions, ≤ 10% false abstentions,
    every shown citation resolves, and abstention at least at its floor."""
    articles, questions = load_squad(DATA / "xquad" / f"xquad.{language}.json")
    report = evaluate_answers(app, articles, questions, split=Split.TEST)
    assert (report.answerable, report.unanswerable) == (490, 88)
    assert report.answered_with_gold_citation >= 0.85
    assert report.abstained_correctly >= ABSTENTION_FLOOR[language]
    assert report.false_abstentions <= 0.10
    assert report.citations_resolved == 1.0
