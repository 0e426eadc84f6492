"""Ingestion throughput and peak RSS: a ~250-page text PDF and 100 HTML pages.

Each pipeline runs in its own fresh process (so peak RSS is its own), in the same
benchmark run: plain PyMuPDF ``get_text("rawdict")`` (the extraction floor),
ragox end to end without embeddings (extract, normalize, blocks, search text,
chunks, FTS5 rows, all in SQLite), and a peer pipeline, LlamaIndex's
``PyMuPDFReader`` + ``SentenceSplitter``, when it is installed
(``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import html
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pymupdf

from _corpus import ROOT, xquad_file

CHILD = Path(__file__).with_name("_ingest_child.py")
PDF_SOURCES = [
    ROOT / "tests" / "data" / "pdf" / "geotopo-de.pdf",
    ROOT / "tests" / "data" / "pdf" / "geotopo-de.pdf",
    ROOT / "tests" / "data" / "pdf" / "tracemonkey.pdf",
]


def build_pdf(target: Path) -> int:
    """About 250 pages of real text: two copies of the lecture notes and a paper."""
    document = pymupdf.open()
    for source in PDF_SOURCES:
        with pymupdf.open(source) as part:
            document.insert_pdf(part)
    pages = int(document.page_count)
    document.save(target)
    document.close()
    return pages


def build_html(folder: Path, count: int = 100) -> list[Path]:
    """Article pages from XQuAD (en, de, ru): headings, paragraphs, a table, inline markup."""
    paths: list[Path] = []
    for lang in ("en", "de", "ru"):
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        for index, article in enumerate(data["data"]):
            if len(paths) >= count:
                return paths
            body = [f"<h1 id='top'>{html.escape(article['title'])}</h1>"]
            for number, paragraph in enumerate(article["paragraphs"]):
                words = html.escape(paragraph["context"]).split(" ")
                words[len(words) // 2] = f"<b>{words[len(words) // 2]}</b>"
                body.append(f"<h2>Section {number + 1}</h2><p>{' '.join(words)}</p>")
            body.append(
                "<table><tr><th>Key</th><th>Value</th></tr>"
                f"<tr><td>Language</td><td>{lang}</td></tr></table>"
            )
            page = (
                "<!doctype html><html><head><title>x</title><script>var a=1;</script>"
                f"</head><body><main>{''.join(body)}</main></body></html>"
            )
            path = folder / f"{lang}-{index:03d}.html"
            path.write_text(page, encoding="utf-8")
            paths.append(path)
    return paths


def run_child(kind: str, paths: list[Path]) -> dict[str, float] | None:
    result = subprocess.run(
        [sys.executable, str(CHILD), kind, *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        if kind == "peer":
            return None
        raise RuntimeError(f"{kind} failed: {result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pdf = folder / "manual-250.pdf"
        pages = build_pdf(pdf)
        (folder / "html").mkdir()
        html_pages = build_html(folder / "html")
        runs = [
            ("PDF", "PyMuPDF rawdict (floor)", "floor", [pdf]),
            ("PDF", "ragox ingest (no embeddings)", "ragox", [pdf]),
            ("PDF", "LlamaIndex PyMuPDFReader + SentenceSplitter", "peer", [pdf]),
            ("HTML", "ragox ingest (no embeddings)", "ragox", html_pages),
        ]
        floor_rate = None
        for fmt, name, kind, paths in runs:
            measured = run_child(kind, paths)
            if measured is None:
                rows.append((fmt, name, "not installed", "-", "-", "-"))
                continue
            rate = measured["units"] / measured["seconds"]
            if kind == "floor":
                floor_rate = rate
            versus = f"{floor_rate / rate:.2f}x" if floor_rate and fmt == "PDF" else "-"
            unit = "pages" if fmt == "PDF" else "HTML pages"
            rows.append(
                (
                    fmt,
                    name,
                    f"{int(measured['units'])} {unit}",
                    f"{rate:.1f}",
                    versus,
                    f"{measured['peak_rss_mb']:.0f}",
                )
            )
        assert pages > 200
    return rows


HEADER = ("input", "pipeline", "size", "units/s", "slower than floor", "peak RSS MB")


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Ingestion throughput (issue 3)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
