"""Why dev questions fail (issue 16): for every development question that is not
gold-cited (answerable) or not abstained on (unanswerable), the gold passage, the
top hits (gold or not), the evidence, the scored sentences and the answer.

Development set only (tests/data/realdocs-dev); the held-out set is never read.
Each failure is classed: ``retrieval`` (gold in no hit), ``not-in-evidence``,
``abstained`` (gold in the evidence, answerability under the threshold),
``other-passage`` (a sentence elsewhere chosen), ``answered`` (unanswerable).
``python bench/diagnose_realdocs.py dev-en-05`` shows the questions whose id holds
that text, ``passed`` ones too.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

from _corpus import ROOT
from ragox.answer import score_sentences
from ragox.answer._extractive import ExtractiveConfig
from ragox.answer._support import answer_kind
from ragox.eval import ingest_gold_documents, load_gold_set, locate_passages
from ragox.eval._retrieval import EVAL_PRINCIPAL
from ragox.service import Ragox

DEV_SET = ROOT / "tests" / "data" / "realdocs-dev" / "questions.json"
DEV_CACHE = ROOT / ".cache" / "realdocs-dev"


def _short(text: str, size: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def main(only: str | None = None) -> None:
    gold = load_gold_set(DEV_SET)
    classes: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        ingest_gold_documents(app, gold, DEV_CACHE)
        located = locate_passages(app, gold)
        weights = app.term_weights(EVAL_PRINCIPAL)
        config = ExtractiveConfig()
        for question in gold.questions:
            if only and only not in question.question_id:
                continue
            target = located.ranges.get(question.question_id, ())

            def is_gold(doc: str, start: int, end: int, target=target) -> bool:
                return any(d == doc and start < e and s < end for d, s, e in target)

            record = app.ask(question.text, EVAL_PRINCIPAL)
            cited = any(
                is_gold(c.anchor.document_id, c.anchor.start, c.anchor.end)
                for c in record.citations
            )
            passed = (cited and not record.abstained) if question.answerable else record.abstained
            if passed and not only:
                continue  # a question asked for by name is shown though it passes
            hits = app.search(question.text, EVAL_PRINCIPAL, limit=10)
            ranks = [i + 1 for i, h in enumerate(hits) if is_gold(h.document_id, h.start, h.end)]
            in_evidence = [
                e.source_id for e in record.evidence if is_gold(e.document_id, e.start, e.end)
            ]
            scoring = score_sentences(question.text, record.evidence, weights, config)
            kind = answer_kind(question.text)
            if passed:
                label = "passed"
            elif not question.answerable:
                label = "answered"
            elif not ranks:
                label = "retrieval"
            elif not in_evidence:
                label = "not-in-evidence"
            elif record.abstained:
                label = "abstained"
            else:
                label = "other-passage"
            classes[f"{question.language}/{question.kind.value}/{label}"] += 1
            print("=" * 100)
            print(f"{question.question_id} [{question.kind.value}] {label}: {question.text}")
            if question.passage:
                print(f"  gold ({question.document_id}): {_short(question.passage, 200)}")
            print(f"  gold ranks in top10: {ranks}; gold evidence: {in_evidence}")
            for i, hit in enumerate(hits[:6]):
                mark = "*" if is_gold(hit.document_id, hit.start, hit.end) else " "
                text = app.store.text(hit.manifest_id)[hit.start : hit.end]
                print(f"   {mark}{i + 1} {hit.document_id} {hit.score:.2f} {_short(text, 130)}")
            print(
                f"  answerability {scoring.answerability:.2f} vs "
                f"{config.threshold(scoring.language)} ({scoring.language}); "
                f"abstained={record.abstained}"
            )
            for place, sentence in enumerate(scoring.sentences):
                e = sentence.evidence
                gold_here = is_gold(e.document_id, e.start + sentence.start, e.start + sentence.end)
                if place >= 5 and not gold_here:
                    continue
                mark = f"*{place + 1}" if gold_here else f" {place + 1}"
                s = sentence.support
                features = (
                    f"ans={config.answerability(s, kind):5.2f} m={s.matched:.2f} "
                    f"p={s.partial:.2f} pr={s.previous:.2f} f={s.following:.2f} "
                    f"h={s.heading:.2f} u={s.uncovered:.2f} rest={s.uncovered_rest:.2f} "
                    f"k={int(s.answer_kind)}"
                )
                quote = _short(e.text[sentence.start : sentence.end], 110)
                print(f"   {mark}{e.source_id} {sentence.score:5.2f} {features} {quote}")
            for claim in record.claims:
                print(f"  claim [{claim.source_id}]: {_short(claim.text, 200)}")
        app.close()
    print()
    for name, count in sorted(classes.items()):
        print(f"{count:3d} {name}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
