"""Peak memory of ingestion: a large text file and the ~250-page PDF, each in a fresh
process (VmHWM, see ``_ingest_child.py``), beside the goals of issue 10: peak RSS under
4x the file size plus 300 MB for text, under 500 MB for the PDF.

``python bench/bench_memory.py [MiB]`` (default 64; the run takes minutes on two cores).
Also ``python bench/run.py memory`` (with a 16 MiB text, to stay short).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _corpus import xquad_file
from bench_ingest import build_pdf

CHILD = Path(__file__).with_name("_ingest_child.py")
MB = 1024 * 1024


def build_text(target: Path, size: int) -> int:
    """XQuAD paragraphs (en, de, ru) repeated up to ``size`` bytes, blank-line separated."""
    paragraphs = []
    for lang in ("en", "de", "ru"):
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        paragraphs += [p["context"] for a in data["data"] for p in a["paragraphs"]]
    written = 0
    with target.open("w", encoding="utf-8") as handle:
        index = 0
        while written < size:
            piece = paragraphs[index % len(paragraphs)] + "\n\n"
            handle.write(piece)
            written += len(piece.encode("utf-8"))
            index += 1
    return written


def measure(path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(CHILD), "ragox", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def tables(text_mib: int = 16) -> list[tuple[str, list[str], list[list[str]]]]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        text = Path(scratch) / "large.txt"
        size = build_text(text, text_mib * MB)
        found = measure(text)
        goal = 4 * size / MB + 300
        rows.append(_row(f"text, {size / MB:.0f} MiB", found, goal))
        pdf = Path(scratch) / "large.pdf"
        pages = build_pdf(pdf)
        rows.append(_row(f"PDF, {pages} pages", measure(pdf), 500.0))
    header = ["input", "peak RSS MB", "goal MB", "seconds", "within goal"]
    return [("Ingestion peak memory (fresh process each)", header, rows)]


def _row(name: str, found: dict[str, float], goal: float) -> list[str]:
    peak = found["peak_rss_mb"]
    return [name, f"{peak:.0f}", f"{goal:.0f}", f"{found['seconds']:.1f}", str(peak <= goal)]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _table import print_table

    for title, header, rows in tables(int(sys.argv[1]) if len(sys.argv) > 1 else 64):
        print_table(title, header, rows)
