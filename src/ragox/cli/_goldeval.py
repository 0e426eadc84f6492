"""``ragox eval answers|retrieval`` on a gold-passage set over files (``--files DIR``)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragox._lazy import lazy_module
from ragox.answer import Generator
from ragox.cli._render import print_json
from ragox.cli._scratch import scratch_store
from ragox.eval import (
    GoldAnswersReport,
    GoldRetrievalReport,
    GoldSet,
    GoldSetError,
    LocatedPassages,
    evaluate_gold_answers,
    evaluate_gold_retrieval,
    ingest_gold_documents,
    load_gold_set,
    locate_passages,
)
from ragox.search import SearchMode
from ragox.service import Ragox

if TYPE_CHECKING:
    import tqdm as _tqdm
    from tqdm import tqdm
else:
    # progress bars only for the commands that show them (tqdm loads rich, colorama…)
    _tqdm = lazy_module("tqdm")


__all__ = ["gold_answers", "gold_retrieval", "print_gold_answers", "print_gold_retrieval"]


def _ticker(bar: tqdm[Any]) -> Callable[[int], None]:
    def tick(count: int) -> None:
        bar.update(count)

    return tick


def _prepare(app: Ragox, gold: GoldSet, files: Path, quiet: bool) -> LocatedPassages:
    with _tqdm.tqdm(
        gold.documents, desc="ingest", unit="doc", disable=quiet, file=sys.stderr
    ) as bar:
        ingest_gold_documents(app, gold, files, progress=_ticker(bar))
    located = locate_passages(app, gold)
    if located.problems:
        # ids and counts only: the passages are document text
        shown = ", ".join(f"{qid} ({n}x)" for qid, n in sorted(located.problems.items()))
        raise GoldSetError(f"gold passages not found exactly once: {shown}")
    return located


def gold_answers(
    path: Path, files: Path | None, generator: Generator | None, quiet: bool
) -> GoldAnswersReport:
    gold = load_gold_set(path)
    with tempfile.TemporaryDirectory(prefix="ragox-eval-") as scratch:
        app = Ragox(Path(scratch), store=scratch_store())
        try:
            located = _prepare(app, gold, files or path.parent, quiet)
            with _tqdm.tqdm(
                gold.questions, desc="ask", unit="q", disable=quiet, file=sys.stderr
            ) as bar:
                return evaluate_gold_answers(app, gold, located, generator, progress=_ticker(bar))
        finally:
            app.close()


def gold_retrieval(
    path: Path,
    files: Path | None,
    mode: SearchMode | None,
    spec: str | None,
    index_home: Path | None,
    quiet: bool,
) -> GoldRetrievalReport:
    gold = load_gold_set(path)
    with tempfile.TemporaryDirectory(prefix="ragox-eval-") as scratch:
        app = Ragox(index_home or Path(scratch), store=scratch_store())
        try:
            located = _prepare(app, gold, files or path.parent, quiet)
            if spec is not None:
                with _tqdm.tqdm(desc="embed", unit="chunk", disable=quiet, file=sys.stderr) as bar:
                    app.reindex(spec, progress=_ticker(bar), total=lambda n: bar.reset(total=n))
            with _tqdm.tqdm(
                located.ranges, desc="search", unit="q", disable=quiet, file=sys.stderr
            ) as bar:
                return evaluate_gold_retrieval(app, gold, located, mode, progress=_ticker(bar))
        finally:
            app.close()


def _cell(value: object) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(rows: list[Mapping[str, Any]], columns: tuple[str, ...]) -> None:
    header = ("language", "kind", *columns)
    cells = [[str(r["language"]), str(r["kind"]), *(_cell(r[c]) for c in columns)] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    click.echo("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in cells:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))


def print_gold_answers(report: GoldAnswersReport, as_json: bool) -> None:
    data = report.to_json()
    if as_json:
        print_json(data)
        return
    groups: list[Mapping[str, Any]] = data["groups"]  # type: ignore[assignment]
    _table(
        groups,
        (
            "answerable",
            "unanswerable",
            "answered_with_gold_citation",
            "abstained_correctly",
            "false_abstentions",
            "citations_on_gold",
        ),
    )
    click.echo(f"citations resolved {report.citations_resolved_share:.3f}")
    click.echo(
        f"latency median {report.latency_ms['median']:.1f} ms, "
        f"p95 {report.latency_ms['p95']:.1f} ms"
    )


def print_gold_retrieval(report: GoldRetrievalReport, as_json: bool) -> None:
    data = report.to_json()
    if as_json:
        print_json(data)
        return
    groups: list[Mapping[str, Any]] = [g for g in data["groups"] if g["queries"]]  # type: ignore[attr-defined]
    click.echo(f"mode {report.mode}")
    _table(groups, ("queries", "recall@1", "recall@5", "recall@10", "mrr@10"))
    click.echo(
        f"latency median {report.latency_ms['median']:.1f} ms, "
        f"p95 {report.latency_ms['p95']:.1f} ms"
    )
