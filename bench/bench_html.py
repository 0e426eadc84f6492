"""HTML ingestion beside selectolax's own text extraction of the same files, in the
same run (issue 15: ragox at most 5x the CPU of selectolax's text extraction).

Input: the Debian reference manual's HTML pages (``/usr/share/debian-reference``,
from the ``debian-reference-en`` package: ``apt-get download debian-reference-en &&
dpkg -x debian-reference-en_*.deb DIR``, then pass ``DIR/usr/share/debian-reference``;
``scripts/fetch_realdocs`` puts it under ``.cache/realdocs``), else the XQuAD article
pages that ``bench ingest`` builds.

Rows (CPU seconds; each pipeline in a fresh process, passes over every file, best of
three passes, imports not counted):

* selectolax: parse with Lexbor and ``body.text()`` (the peer);
* ragox ``extract_html`` (checks, nesting estimate, parse, walk, tables, blocks);
* the extractor as it was before issue 15 (``tests/html_reference.py``, the
  reference the tests hold it to, byte for byte);
* ragox ingest of every page into a fresh SQLite home (extraction, search text,
  chunks, lexical rows), imports and start-up not counted;
* ragox ingest as a whole process (with Python's start-up and imports), once.

``python bench/bench_html.py [FOLDER]``
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_ingest import build_html, run_child

HERE = Path(__file__).parent
DEBIAN_FOLDERS = [
    Path("/usr/share/debian-reference"),
    HERE.parent / ".cache" / "realdocs" / "debian-reference-en" / "usr/share/debian-reference",
]


def _passes(kind: str, paths: list[Path]) -> float:
    """Best CPU seconds of three passes over ``paths`` in one fresh process."""
    code = f"""
import json, sys, tempfile, time
from pathlib import Path
kind = {kind!r}
paths = [Path(p) for p in sys.argv[1:]]
datas = [p.read_bytes() for p in paths]
if kind == "selectolax":
    from selectolax.lexbor import LexborHTMLParser
    def one_pass():
        for data in datas:
            tree = LexborHTMLParser(data)
            (tree.body or tree.root).text()
elif kind in ("ragox", "reference"):
    if kind == "ragox":
        from ragox.extract.html import extract_html
    else:
        sys.path.insert(0, {str(HERE.parent / "tests")!r})
        from html_reference import extract_html
    from ragox.text import BASE_PROFILE
    def one_pass():
        for data in datas:
            extract_html(data, BASE_PROFILE)
else:
    from ragox.service import Ragox
    def one_pass():
        with tempfile.TemporaryDirectory() as home:
            app = Ragox(Path(home))
            for path in paths:
                item = app.ingest_path(path, path.parent)
                assert item.outcome is not None
                assert item.outcome.state.value == "READY", item
            app.close()
best = None
for _ in range(3):
    started = time.process_time()
    one_pass()
    spent = time.process_time() - started
    best = spent if best is None else min(best, spent)
print(json.dumps({{"cpu": best}}))
"""
    result = subprocess.run(
        [sys.executable, "-c", code, *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(result.stdout.strip().splitlines()[-1])["cpu"])


def main(folder: Path | None) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if folder is None:
            folder = next((f for f in DEBIAN_FOLDERS if f.is_dir()), None)
        if folder is not None:
            paths = sorted(folder.glob("*.html"))
            label = f"{folder.name}: {len(paths)} pages"
        else:
            paths = build_html(Path(tmp), 100)
            label = f"XQuAD articles: {len(paths)} pages"
        size = sum(p.stat().st_size for p in paths) / 1e6
        peer = _passes("selectolax", paths)
        extract = _passes("ragox", paths)
        before = _passes("reference", paths)
        ingest = _passes("ingest", paths)
        process = run_child("ragox", paths)
        assert process is not None
        for name, cpu in (
            ("selectolax: Lexbor parse + body.text()", peer),
            ("ragox extract_html", extract),
            ("ragox extract_html before issue 15 (tests/html_reference.py)", before),
            ("ragox ingest, every page into a fresh home (no embeddings)", ingest),
            ("ragox ingest, whole process with start-up and imports", process["cpu"]),
        ):
            rows.append((name, f"{label}, {size:.1f} MB", f"{cpu:.3f}", f"{cpu / peer:.1f}x"))
    return rows


HEADER = ("pipeline", "input", "CPU s", "CPU vs selectolax")


def tables(folder: Path | None = None) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("HTML extraction beside selectolax (issue 15)", HEADER, main(folder))]


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    from _table import print_table

    for title, header, rows in tables(Path(sys.argv[1]) if len(sys.argv) > 1 else None):
        print_table(title, header, rows)
