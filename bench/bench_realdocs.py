"""Cited answers and search on real Debian manuals in English, German and Russian
(issue 16's real-document set, tests/data/realdocs): per language and question kind.

The manuals are fetched by scripts/fetch_realdocs into .cache/realdocs (run here
when they are missing). ragox runs as a user would run it: the HTML chapters the
questions use are ingested as files, each question is asked with the extractive
generator and searched in the default (lexical) mode.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from _corpus import ROOT
from ragox.eval import (
    evaluate_gold_answers,
    evaluate_gold_retrieval,
    ingest_gold_documents,
    load_gold_set,
    locate_passages,
)
from ragox.service import Ragox

SET = ROOT / "tests" / "data" / "realdocs" / "questions.json"
CACHE = ROOT / ".cache" / "realdocs"

HEADER = (
    "language",
    "kind",
    "questions",
    "gold-cited",
    "abstained",
    "false abst.",
    "recall@1",
    "recall@5",
)


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}"


def main() -> tuple[list[tuple[str, ...]], str]:
    subprocess.run([str(ROOT / "scripts" / "fetch_realdocs")], check=True)
    gold = load_gold_set(SET)
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        started = time.perf_counter()
        ingest_gold_documents(app, gold, CACHE)
        ingested = time.perf_counter() - started
        located = locate_passages(app, gold)
        if located.problems:
            raise SystemExit(f"gold passages not found exactly once: {located.problems}")
        answers = evaluate_gold_answers(app, gold, located)
        retrieval = evaluate_gold_retrieval(app, gold, located)
        app.close()
    rows: list[tuple[str, ...]] = []
    for group in answers.groups():
        a, r = answers.figures(group), retrieval.figures(group)
        label = group.to_json()
        searched = r["queries"] > 0
        rows.append(
            (
                str(label["language"]),
                str(label["kind"]),
                str(a["answerable"] + a["unanswerable"]),
                _cell(a["answered_with_gold_citation"]),
                _cell(a["abstained_correctly"]),
                _cell(a["false_abstentions"]),
                _cell(r["recall@1"] if searched else None),
                _cell(r["recall@5"] if searched else None),
            )
        )
    note = (
        f"{len(gold.documents)} documents ingested in {ingested:.1f} s; "
        f"ask median {answers.latency_ms['median']:.0f} ms; "
        f"citations resolved {answers.citations_resolved_share:.3f}"
    )
    return rows, note


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    rows, note = main()
    title = f"Real Debian manuals en/de/ru, extractive ask and lexical search ({note})"
    return [(title, HEADER, rows)]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
