"""A folder of real text files (``/usr/share/doc``: READMEs, change logs, Markdown),
ingested by ragox and read and split by LlamaIndex (SimpleDirectoryReader +
SentenceSplitter), each in a fresh process, in the same run (issue 15: ragox at most
0.6x LlamaIndex's time). On a loaded machine compare CPU seconds; wall follows.

``python bench/bench_folder.py [FILES]`` (default 300 files).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

from bench_ingest import run_child

SOURCES = Path("/usr/share/doc")
SUFFIXES = (".txt", ".md", ".rst")


def build_folder(target: Path, count: int) -> list[Path]:
    """Up to ``count`` distinct text files between 2 and 200 kB, in a fixed order."""
    found: list[Path] = []
    seen: set[str] = set()
    for path in sorted(SOURCES.rglob("*")):
        if len(found) >= count:
            break
        if path.is_symlink() or not path.is_file():
            continue
        if not (path.suffix in SUFFIXES or path.name.startswith("README")):
            continue
        if path.suffix == ".gz" or not 2_000 <= path.stat().st_size <= 200_000:
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest in seen or b"\0" in data:
            continue
        seen.add(digest)
        name = f"{len(found):04d}-{path.name}"
        if not name.endswith(SUFFIXES):
            name += ".txt"
        copy = target / name
        shutil.copyfile(path, copy)
        found.append(copy)
    return found


def main(count: int) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        files = build_folder(Path(tmp), count)
        size = sum(p.stat().st_size for p in files) / 1e6
        measured = {kind: run_child(kind, files) for kind in ("ragox", "peer-text")}
        peer = measured["peer-text"]
        for kind, name in (
            ("ragox", "ragox ingest (no embeddings)"),
            ("peer-text", "LlamaIndex SimpleDirectoryReader + SentenceSplitter"),
        ):
            found = measured[kind]
            if found is None:
                rows.append((name, f"{len(files)} files", "not installed", "-", "-", "-"))
                continue
            ratio = f"{found['cpu'] / peer['cpu']:.2f}" if peer else "-"
            rows.append(
                (
                    name,
                    f"{len(files)} files, {size:.1f} MB",
                    f"{found['seconds']:.1f}",
                    f"{found['cpu']:.1f}",
                    ratio,
                    f"{found['peak_rss_mb']:.0f}",
                )
            )
    return rows


HEADER = ("pipeline", "input", "wall s", "CPU s", "CPU vs LlamaIndex", "peak RSS MB")


def tables(count: int = 300) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Folder of real text files (issue 15)", HEADER, main(count))]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _table import print_table

    for title, header, rows in tables(int(sys.argv[1]) if len(sys.argv) > 1 else 300):
        print_table(title, header, rows)
