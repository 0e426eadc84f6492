"""``ragox reprocess`` against a fresh ingest of the same documents, in the same run.

The corpus is one large PDF (``$RAGOX_BENCH_PDF``, e.g. the 261-page Debian
Reference from ``apt-get download debian-reference-en``; else the largest PDF under
tests/data/pdf) and 30 HTML pages. After a fresh ingest (timed), anchors are made at
evenly spaced passages of every document, and two upgrades are simulated:

- an index-stage change (the search-text cleaner's version): reprocess rebuilds
  search texts, chunks and lexical rows on the same representations;
- a cleanup change of the PDF representation: blocks joined with one line feed
  instead of two (a new parser configuration), so the PDF gets a new representation
  and each of its anchors a migration verdict.

Prints throughput (reprocess vs fresh ingest) and the migration report. Embeddings
are off (as in ``bench_ingest``); wall-clock timings, one run each, on whatever
else the machine is doing.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ragox.extract
import ragox.extract.pdf
import ragox.ingest._searchtext
from _corpus import ROOT
from bench_ingest import build_html
from ragox.access import Principal
from ragox.extract import ExtractOptions, ParserInfo
from ragox.ingest import AnchorOutcome
from ragox.service import Ragox
from ragox.store import StoredAnchor
from ragox.text import Profile

ANCHORS_PER_DOCUMENT = 200
HTML_PAGES = 30
OPERATOR = Principal.local_operator()
PDF_ID = "manual.pdf"


def _pdf() -> Path:
    chosen = os.environ.get("RAGOX_BENCH_PDF")
    if chosen:
        return Path(chosen)
    return max((ROOT / "tests" / "data" / "pdf").glob("*.pdf"), key=lambda p: p.stat().st_size)


def _anchors(app: Ragox, document_id: str, count: int) -> int:
    """Anchors of about six words at evenly spaced word starts; returns how many."""
    text = app.text(document_id, OPERATOR)
    made = 0
    for k in range(count):
        start = (len(text) * k) // count
        while start < len(text) and not (
            text[start].isalnum() and (start == 0 or text[start - 1].isspace())
        ):
            start += 1
        end = start
        for _ in range(6):
            end = text.find(" ", end + 1)
            if end < 0:
                break
        if end > start and isinstance(
            app.create_anchor(document_id, start, end, OPERATOR), StoredAnchor
        ):
            made += 1
    return made


@contextmanager
def _separator_change() -> Iterator[None]:
    """A PDF parser that joins blocks with "\\n" (a cleanup change, new configuration)."""
    module: Any = ragox.extract.pdf
    extractors: Any = ragox.extract._EXTRACTORS
    saved = (module.BLOCK_SEPARATOR, module._SEPARATOR_BOXES, extractors["application/pdf"])
    info, extract = saved[2]
    new_info = ParserInfo(info.name, info.version, {**info.config, "block_separator": "LF"})

    def extract_joined(data: bytes, profile: Profile, options: ExtractOptions | None = None) -> Any:
        return dataclasses.replace(extract(data, profile, options), parser=new_info)

    module.BLOCK_SEPARATOR, module._SEPARATOR_BOXES = "\n", module._ZERO_BOX
    extractors["application/pdf"] = (new_info, extract_joined)
    try:
        yield
    finally:
        module.BLOCK_SEPARATOR, module._SEPARATOR_BOXES, extractors["application/pdf"] = saved


@contextmanager
def _cleaner_bump() -> Iterator[None]:
    module: Any = ragox.ingest._searchtext
    saved = module.CLEANER_VERSION
    module.CLEANER_VERSION = saved + "+bench"
    try:
        yield
    finally:
        module.CLEANER_VERSION = saved


@dataclass(frozen=True, slots=True)
class Timing:
    """Wall and CPU seconds of one step (the machine is shared: wall time includes
    waiting for a core, CPU time does not)."""

    wall: float
    cpu: float

    def __add__(self, other: Timing) -> Timing:
        return Timing(self.wall + other.wall, self.cpu + other.cpu)


@contextmanager
def _clock(out: list[Timing]) -> Iterator[None]:
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    out.append(Timing(time.perf_counter() - wall, time.process_time() - cpu))


def tables() -> list[tuple[str, list[str], list[list[str]]]]:
    pdf = _pdf()
    t: list[Timing] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "html"
        folder.mkdir()
        pages = build_html(folder, HTML_PAGES)
        app = Ragox(Path(tmp) / "home")
        with _clock(t):
            assert app.ingest_path(pdf, pdf.parent, document_id=PDF_ID).ready
        with _clock(t):
            for page in pages:
                assert app.ingest_path(page, folder).ready
        fresh_pdf, fresh_html = t[0], t[1]
        page_count = app.status(PDF_ID, OPERATOR).revisions[0].notes.page_count or 0
        anchors = sum(
            _anchors(app, d.document_id, ANCHORS_PER_DOCUMENT if d.document_id == PDF_ID else 5)
            for d in app.store.list_documents("default")
        )
        with _cleaner_bump():
            with _clock(t):
                index_report = app.reprocess()
            with _separator_change():
                with _clock(t):
                    dry_report = app.reprocess(dry_run=True)
                with _clock(t):
                    report = app.reprocess()
                assert not app.reprocess().rebuilds  # nothing is left stale
        app.close()
    index_only, dry, rebuild = t[2], t[3], t[4]
    fresh = fresh_pdf + fresh_html

    def row(name: str, revisions: int, step: Timing, base: Timing | None) -> list[str]:
        ratio = "-" if base is None else f"{step.wall / base.wall:.2f} / {step.cpu / base.cpu:.2f}"
        return [name, str(revisions), f"{step.wall:.2f}", f"{step.cpu:.2f}", ratio]

    throughput = [
        row(f"fresh ingest: PDF + {len(pages)} HTML", 1 + len(pages), fresh, None),
        row("fresh ingest: the PDF", 1, fresh_pdf, None),
        row(
            "reprocess: cleaner version (index only)", len(index_report.rebuilds), index_only, fresh
        ),
        row("reprocess --dry-run: PDF separator", len(dry_report.rebuilds), dry, fresh_pdf),
        row("reprocess: PDF separator", len(report.rebuilds), rebuild, fresh_pdf),
    ]
    counts = report.by_document().get(PDF_ID, {})
    dry_counts = dry_report.by_document().get(PDF_ID, {})
    migration = [
        [outcome.value, str(dry_counts.get(outcome, 0)), str(counts.get(outcome, 0))]
        for outcome in AnchorOutcome
    ]
    return [
        (
            f"Reprocess vs fresh ingest of the same documents ({pdf.name}, {page_count} pages; "
            f"{anchors} anchors; no embeddings)",
            ["run", "revisions", "wall s", "CPU s", "÷ fresh (wall / CPU)"],
            throughput,
        ),
        (
            f"Migration report after the PDF block-separator change ({pdf.name})",
            ["outcome", "dry run", "reprocess"],
            migration,
        ),
    ]
