"""Refit the extractive generator's weights and thresholds on XQuAD's fit split,
and score them on its test split.

``python bench/calibrate_answers.py [en de ru]``

The split is disjoint by article and the same in every language
(:class:`ragox.eval.Split`: even article indexes fit, odd ones test). For each
language and each half: ingest that half's kept articles (every fifth article
is held out, its questions unanswerable), retrieve and select context as
``ragox ask`` does, and record every quotable sentence's support features with
a label (does it contain the gold answer?). Then, on the fit half only:

1. fit the sentence weights by a listwise logistic ranker (softmax over a
   question's sentences, maximising the probability of the gold ones), pooled
   over the languages, and again leaving each language out;
2. sweep each language's threshold on the best sentence's score without the
   answer-kind bonus, keeping a margin above the abstention goal (a threshold
   that just meets it on the fit half misses it on unseen articles);
3. print the shipped configuration and the refitted one, scored on the test
   half (which nothing above has seen).
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import astuple, dataclass, fields
from pathlib import Path

import numpy as np

from _table import print_table
from ragox.answer import ExtractiveConfig, score_sentences, select_context
from ragox.answer._support import Support
from ragox.eval._answers import Split, _gold_range, held_out
from ragox.eval._retrieval import EVAL_PRINCIPAL, prepare_corpus
from ragox.eval._squad import load_squad
from ragox.service import Ragox

DATA = Path(__file__).parent.parent / "tests" / "data" / "xquad"
#: the ranker's features (``uncovered`` only lowers answerability)
FEATURES = [f.name for f in fields(Support) if f.name not in ("uncovered", "uncovered_rest")]
KIND = FEATURES.index("answer_kind")


@dataclass(frozen=True, slots=True)
class Question:
    answerable: bool
    features: np.ndarray  # sentences × features, in passage and sentence order
    gold: np.ndarray  # sentences: holds the gold answer
    uncovered: np.ndarray  # sentences: Support.uncovered
    article: int


def collect(language: str, split: Split) -> list[Question]:
    articles, questions = load_squad(DATA / f"xquad.{language}.json")
    articles = [a for a in articles if split.contains(a)]
    out: list[Question] = []
    with tempfile.TemporaryDirectory() as scratch:
        app = Ragox(Path(scratch))
        corpus = prepare_corpus(app, [a for a in articles if not held_out(a)])
        weights = app.term_weights(EVAL_PRINCIPAL)
        by_index = {a.index: a for a in articles}
        for question in questions:
            if question.article not in by_index:
                continue  # the other half's
            hits = app.search(question.text, EVAL_PRINCIPAL, None, limit=10)
            evidence = select_context(app.store, hits)
            scoring = score_sentences(question.text, evidence, weights)
            # back to passage order: the ranker breaks ties by it, as the generator does
            sentences = sorted(
                scoring.sentences,
                key=lambda s: (int(s.evidence.source_id[1:]), s.start),
            )
            article = by_index[question.article]
            answerable = not held_out(article)
            gold = np.zeros(len(sentences), bool)
            if answerable:
                document, paragraph_start, _ = corpus.ranges[(question.article, question.paragraph)]
                start, end = _gold_range(article, question, paragraph_start)
                gold = np.array(
                    [
                        s.evidence.document_id == document
                        and s.evidence.start + s.start <= start
                        and end <= s.evidence.start + s.end
                        for s in sentences
                    ],
                    bool,
                )
            features = np.array([astuple(s.support)[: len(FEATURES)] for s in sentences], float)
            uncovered = np.array([s.support.uncovered for s in sentences], float)
            out.append(
                Question(
                    answerable,
                    features.reshape(-1, len(FEATURES)),
                    gold,
                    uncovered,
                    question.article,
                )
            )
        app.close()
    return out


def fit(questions: list[Question], iterations: int = 600) -> np.ndarray:
    weights = np.zeros(len(FEATURES))
    weights[0] = 5.0
    groups = [q for q in questions if q.gold.any()]
    for _ in range(iterations):
        gradient = np.zeros_like(weights)
        for q in groups:
            scores = q.features @ weights
            p = np.exp(scores - scores.max())
            p /= p.sum()
            target = np.where(q.gold, p / p[q.gold].sum(), 0.0)
            gradient += q.features.T @ (p - target)
        weights -= 5.0 * (gradient / len(groups) + 1e-3 * weights)
    return weights


@dataclass(frozen=True, slots=True)
class Prepared:
    """Per question, what does not depend on the threshold: answerable, article, the
    evidence score and uncovered share of every sentence, whether the quoted
    sentences hold the gold answer."""

    answerable: np.ndarray
    article: np.ndarray
    evidence: list[np.ndarray]
    uncovered: list[np.ndarray]
    gold_quoted: np.ndarray

    def answerability(self, penalty: float) -> np.ndarray:
        pairs = zip(self.evidence, self.uncovered, strict=True)
        return np.array([(e - penalty * u).max() for e, u in pairs])


def prepare(questions: list[Question], weights: np.ndarray, config: ExtractiveConfig) -> Prepared:
    evidence_weights = weights.copy()
    evidence_weights[KIND] = 0.0
    evidence, uncovered, gold_quoted = [], [], []
    for q in questions:
        if not len(q.features):
            evidence.append(np.array([-1e9]))
            uncovered.append(np.array([0.0]))
            gold_quoted.append(False)
            continue
        evidence.append(q.features @ evidence_weights)
        uncovered.append(q.uncovered)
        scores = q.features @ weights
        own = q.features[:, 0] + q.features[:, 1]
        ranked = [i for i in np.argsort(-scores, kind="stable") if own[i] > 0]
        chosen = ranked[:1]
        for i in ranked[1:]:
            if (
                len(chosen) >= config.max_sentences
                or scores[i] < config.second_ratio * (scores[chosen[0]])
            ):
                break
            if own[i] >= config.own_ratio * own[chosen[0]]:
                chosen.append(i)
        gold_quoted.append(bool(chosen) and bool(q.gold[chosen].any()))
    return Prepared(
        np.array([q.answerable for q in questions]),
        np.array([q.article for q in questions]),
        evidence,
        uncovered,
        np.array(gold_quoted),
    )


def outcome(
    prepared: Prepared, answerability: np.ndarray, threshold: float, mask: np.ndarray | None = None
) -> tuple[float, float, float]:
    """gold citation, correct abstention, false abstention (of the questions in ``mask``)."""
    keep = np.ones(len(prepared.answerable), bool) if mask is None else mask
    abstain = answerability < threshold
    answerable = prepared.answerable & keep
    unanswerable = ~prepared.answerable & keep
    return (
        float((prepared.gold_quoted & ~abstain & answerable).sum() / answerable.sum()),
        float((abstain & unanswerable).sum() / unanswerable.sum()),
        float((abstain & answerable).sum() / answerable.sum()),
    )


THRESHOLDS = np.round(np.arange(2.0, 11.0, 0.1), 1)
PENALTIES = (0.0, 2.0, 4.0, 6.0, 8.0, 10.0)
TARGETS = (0.90, 0.92, 0.94, 0.96)
FALSE_LIMIT = 0.10


def best_threshold(
    prepared: Prepared, answerability: np.ndarray, target: float, mask: np.ndarray | None = None
) -> float:
    """The threshold with the most gold citations among those abstaining on ``target``
    of the unanswerable questions with at most 10% false abstentions, else the one
    closest to the target."""
    candidates = []
    for threshold in THRESHOLDS:
        gold, right, wrong = outcome(prepared, answerability, float(threshold), mask)
        feasible = right >= target and wrong <= FALSE_LIMIT
        candidates.append((feasible, gold if feasible else -abs(right - target), float(threshold)))
    return max(candidates)[2]


def choose_penalty_and_target(
    prepared: dict[str, Prepared],
) -> tuple[float, float, list[list[str]]]:
    """Two-fold cross-validation by article inside the fit half: thresholds fitted on
    one fold, scored on the other. The (penalty, abstention target) whose worst fold
    abstains most, with at most 10% false abstentions on average, wins; ties go to
    more gold citations."""
    rows, ranked = [], []
    for penalty in PENALTIES:
        for target in TARGETS:
            folds = []
            for data in prepared.values():
                answerability = data.answerability(penalty)
                first = (data.article // 2) % 2 == 0
                for train, test in ((first, ~first), (~first, first)):
                    limit = best_threshold(data, answerability, target, train)
                    folds.append(outcome(data, answerability, limit, test))
            figures = np.array(folds)
            gold, right, wrong = figures.mean(axis=0)
            worst = float(figures[:, 1].min())
            ranked.append((bool(wrong <= FALSE_LIMIT), worst, float(gold), penalty, target))
            figures_row = (gold, right, wrong, worst)
            rows.append([f"{penalty:.0f}", f"{target:.2f}", *(f"{v:.3f}" for v in figures_row)])
    best = max(ranked)
    return best[3], best[4], rows


def shipped_weights(config: ExtractiveConfig) -> np.ndarray:
    return np.array([getattr(config, name) for name in FEATURES], float)


def main(languages: list[str]) -> None:
    fit_data = {language: collect(language, Split.FIT) for language in languages}
    test_data = {language: collect(language, Split.TEST) for language in languages}
    shipped = ExtractiveConfig()
    pooled = fit([q for qs in fit_data.values() for q in qs])
    print_table(
        "Sentence weights (listwise logistic ranker, pooled over the fit half)",
        ["feature", "shipped", "refitted"],
        [
            [name, f"{a:.2f}", f"{b:.2f}"]
            for name, a, b in zip(FEATURES, shipped_weights(shipped), pooled, strict=True)
        ],
    )
    prepared_fit = {language: prepare(qs, pooled, shipped) for language, qs in fit_data.items()}
    penalty, target, cv_rows = choose_penalty_and_target(prepared_fit)
    print_table(
        "Cross-validation by article inside the fit half (mean of folds; worst fold)",
        ["uncovered penalty", "abstain target", "gold", "abstained", "false", "worst abst."],
        cv_rows,
    )
    print(f"chosen: uncovered = {penalty:.0f}, abstention target = {target:.2f}")
    rows = []
    for language in languages:
        fitted = prepared_fit[language]
        threshold = best_threshold(fitted, fitted.answerability(penalty), target)
        for label, weights, limit, unc in (
            ("shipped", shipped_weights(shipped), shipped.threshold(language), shipped.uncovered),
            ("refitted", pooled, threshold, penalty),
        ):
            for half, data in (("fit", fit_data), ("test", test_data)):
                prepared = prepare(data[language], weights, shipped)
                gold, right, wrong = outcome(prepared, prepared.answerability(unc), limit)
                shares = (f"{v:.3f}" for v in (gold, right, wrong))
                rows.append([language, label, f"{limit:.1f}", half, *shares])
    print_table(
        "XQuAD answers (goals on the test half: gold ≥ .85, abstained ≥ .90, false ≤ .10)",
        ["language", "weights", "threshold", "half", "gold citation", "abstained", "false abst."],
        rows,
    )


if __name__ == "__main__":
    main(sys.argv[1:] or ["en", "de", "ru"])
