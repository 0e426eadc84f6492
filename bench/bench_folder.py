"""A folder of real text files (``/usr/share/doc``: READMEs, change logs, Markdown),
ingested by ragox and read and split by LlamaIndex (SimpleDirectoryReader +
SentenceSplitter), each in a fresh process, in the same run (issue 15: ragox at most
0.6x LlamaIndex's time).

ragox runs as ``ragox ingest FOLDER`` does (text files extracted one step ahead by a
worker process) and with that worker turned off (``RAGOX_EXTRACT_AHEAD=0``). CPU is
the whole process tree's (this process is the tree's subreaper, so the worker's and
its forkserver's CPU is collected); "main CPU" is the ingesting process's own. The
rounds alternate the pipelines; each figure is the median. On a loaded machine wall
time depends on the load: a pipeline with two processes gets two shares of it.

``python bench/bench_folder.py [FILES] [ROUNDS]`` (default 300 files, 3 rounds).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_ingest import CHILD
from bench_pdf import _PR_SET_CHILD_SUBREAPER, _reap

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


PIPELINES = (
    ("ragox ingest (no embeddings)", "ragox", None),
    ("ragox ingest, no extraction worker", "ragox", "0"),
    ("LlamaIndex SimpleDirectoryReader + SentenceSplitter", "peer-text", None),
)


def measure(kind: str, files: list[Path], ahead: str | None) -> dict[str, float]:
    """One run in a fresh process: wall, the process tree's CPU, the main process's
    own CPU and peak RSS."""
    env = dict(os.environ)
    if ahead is not None:
        env["RAGOX_EXTRACT_AHEAD"] = ahead
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(CHILD), kind, *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    wall = time.perf_counter() - started
    _reap()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{kind} failed: {result.stderr[-2000:]}")
    found: dict[str, float] = json.loads(result.stdout.strip().splitlines()[-1])
    found["wall"] = wall
    found["tree_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return found


def main(count: int, rounds: int = 3) -> list[tuple[str, ...]]:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        files = build_folder(Path(tmp), count)
        size = sum(p.stat().st_size for p in files) / 1e6
        runs: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in PIPELINES}
        for _ in range(rounds):
            for name, kind, ahead in PIPELINES:
                runs[name].append(measure(kind, files, ahead))
        medians = {
            name: {key: statistics.median(r[key] for r in found) for key in found[0]}
            for name, found in runs.items()
        }
        peer = medians[PIPELINES[-1][0]]
        for name, _, _ in PIPELINES:
            m = medians[name]
            rows.append(
                (
                    name,
                    f"{len(files)} files, {size:.1f} MB",
                    f"{m['wall']:.1f}",
                    f"{m['tree_cpu']:.1f}",
                    f"{m['cpu']:.1f}",
                    f"{m['wall'] / peer['wall']:.2f}",
                    f"{m['tree_cpu'] / peer['tree_cpu']:.2f}",
                    f"{m['peak_rss_mb']:.0f}",
                )
            )
    return rows


HEADER = (
    "pipeline",
    "input",
    "wall s",
    "CPU s (tree)",
    "main CPU s",
    "wall vs LlamaIndex",
    "CPU vs LlamaIndex",
    "peak RSS MB (main)",
)


def tables(
    count: int = 300, rounds: int = 3
) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Folder of real text files (issue 15), medians", HEADER, main(count, rounds))]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _table import print_table

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    for title, header, rows in tables(count, int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        print_table(title, header, rows)
