"""OCR of scanned PDF pages: ragox (the tesseract command, its layout) beside the bare CLI.

The scans are ``tests/data/ocr`` (pages of public PDFs and of seed 003 rendered at
150 dpi to grayscale JPEG, rebuilt as image-only PDFs; one crooked, blurred and
speckled). Per scan, in the same run:

- ragox: ``extract_pdf`` (OCR mode ``auto``, languages eng+deu+rus, 300 dpi: MuPDF
  renders, ``tesseract`` writes TSV, ragox builds blocks and character boxes);
- peer: the page rendered by MuPDF at the same 300 dpi to PNG, then Debian's
  ``tesseract`` command (same language data, same languages), one thread each
  (``OMP_THREAD_LIMIT=1``, as ragox runs it).

Character accuracy is 1 − normalized edit distance against the page's original
text layer (``<scan>.txt``), white space collapsed, in reading order and with the
words sorted (recognition without layout). Then a scan of ``RAGOX_BENCH_OCR_PAGES``
pages (default 100; the scans repeated) is ingested by ragox (whole pipeline: OCR,
chunks, lexical index; no embedder) and read by the peer page by page (render +
``tesseract``). One run each; wall-clock seconds depend on whatever else the
machine does, CPU seconds (this process and its children) much less.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
from rapidfuzz.distance import Levenshtein

from _corpus import ROOT
from ragox.extract import ExtractOptions, OcrMode
from ragox.extract._ocr import LANGUAGES, OCR_DPI, tessdata_folder
from ragox.extract.pdf import extract_pdf
from ragox.service import Ragox
from ragox.text import BASE_PROFILE

SCANS = ROOT / "tests" / "data" / "ocr"
CASES = (
    ("English", "en-multicolumn-p1"),
    ("German", "de-geotopo-p6"),
    ("Russian", "ru-seed003"),
    ("English, noisy", "en-multicolumn-p2-noisy"),
)
PAGES = int(os.environ.get("RAGOX_BENCH_OCR_PAGES", "100"))


def _normalized(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _accuracy(reference: str, recognized: str) -> float:
    return float(Levenshtein.normalized_similarity(_normalized(reference), _normalized(recognized)))


def _any_order(reference: str, recognized: str) -> float:
    return _accuracy(
        " ".join(sorted(_normalized(reference).split())),
        " ".join(sorted(_normalized(recognized).split())),
    )


def _peer(page: Any, folder: Path, tessdata: Path) -> str:
    """The page at OCR_DPI as PNG, read by the ``tesseract`` command."""
    image = folder / "page.png"
    page.get_pixmap(dpi=OCR_DPI, colorspace=pymupdf.csGRAY).save(image)
    env = {**os.environ, "OMP_THREAD_LIMIT": "1", "TESSDATA_PREFIX": str(tessdata)}
    done = subprocess.run(
        ["tesseract", str(image), "-", "-l", "+".join(LANGUAGES), "--dpi", str(OCR_DPI)],
        capture_output=True,
        check=True,
        env=env,
    )
    return done.stdout.decode("utf-8")


class _Clock:
    """Wall seconds, and CPU seconds of this process and its children (the CPU figure
    holds on a machine shared with other work; the wall figure does not)."""

    def __enter__(self) -> _Clock:
        self.wall = time.perf_counter()
        self.cpu = self._cpu()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = self._cpu() - self.cpu

    @staticmethod
    def _cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _per_language(tessdata: Path, folder: Path) -> list[list[str]]:
    rows = []
    for label, name in CASES:
        data = (SCANS / f"{name}.pdf").read_bytes()
        reference = (SCANS / f"{name}.txt").read_text(encoding="utf-8")
        with _Clock() as ours_t:
            ours = extract_pdf(data, BASE_PROFILE, ExtractOptions(ocr=OcrMode.AUTO)).text
        with pymupdf.open(stream=data, filetype="pdf") as document, _Clock() as theirs_t:
            theirs = _peer(document[0], folder, tessdata)
        rows.append(
            [
                label,
                f"{_accuracy(reference, ours):.3f}",
                f"{_any_order(reference, ours):.3f}",
                f"{1 / ours_t.wall:.3f} / {1 / ours_t.cpu:.3f}",
                f"{_accuracy(reference, theirs):.3f}",
                f"{_any_order(reference, theirs):.3f}",
                f"{1 / theirs_t.wall:.3f} / {1 / theirs_t.cpu:.3f}",
            ]
        )
        print(f"  ocr bench: {label} done", flush=True)
    return rows


def _long_scan(path: Path, pages: int) -> None:
    """A scan of ``pages`` pages: the scans of CASES in turn."""
    sources = [pymupdf.open(SCANS / f"{name}.pdf") for _, name in CASES]
    out = pymupdf.open()
    for k in range(pages):
        out.insert_pdf(sources[k % len(sources)])
    out.save(path, garbage=3)
    for source in sources:
        source.close()


def _hundred_pages(tessdata: Path, folder: Path) -> list[list[str]]:
    scan = folder / "scan.pdf"
    _long_scan(scan, PAGES)
    size_mb = scan.stat().st_size / 1e6
    app = Ragox(folder / "home")
    try:
        with _Clock() as ours:
            item = app.ingest_path(scan, folder, document_id="scan.pdf")
        assert item.outcome is not None and item.outcome.state.value == "READY"
    finally:
        app.close()
    print("  ocr bench: ragox ingest done", flush=True)
    with pymupdf.open(scan) as document, _Clock() as theirs:
        for page in document:
            _peer(page, folder, tessdata)
    return [
        [
            "ragox ingest (OCR + chunks + index)",
            f"{PAGES} pages, {size_mb:.1f} MB",
            f"{ours.wall:.1f} / {ours.cpu:.1f}",
            f"{PAGES / ours.wall:.3f} / {PAGES / ours.cpu:.3f}",
        ],
        [
            "tesseract CLI (render + OCR only)",
            f"{PAGES} pages, {size_mb:.1f} MB",
            f"{theirs.wall:.1f} / {theirs.cpu:.1f}",
            f"{PAGES / theirs.wall:.3f} / {PAGES / theirs.cpu:.3f}",
        ],
    ]


def tables() -> Iterator[tuple[str, list[str], list[list[str]]]]:
    """The per-language table, then (minutes later) the long scan's."""
    tessdata = tessdata_folder()
    if tessdata is None or shutil.which("tesseract") is None:
        yield ("OCR: skipped (no tesseract-ocr with eng, deu, rus)", ["-"], [])
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        yield (
            f"OCR per language, one page each ({'+'.join(LANGUAGES)}, {OCR_DPI} dpi): "
            "character accuracy (reading order, words sorted) and pages/s (wall / CPU)",
            [
                "scan",
                "ragox acc",
                "ragox acc sorted",
                "ragox pages/s",
                "tesseract acc",
                "tesseract acc sorted",
                "tesseract pages/s",
            ],
            _per_language(tessdata, folder),
        )
        yield (
            f"Ingestion of a {PAGES}-page scan (wall / CPU seconds)",
            ["engine", "input", "seconds", "pages/s"],
            _hundred_pages(tessdata, folder),
        )


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
