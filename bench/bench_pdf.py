"""PDF ingestion as whole processes: ragox with 1, 2 (and all) page workers beside
LlamaIndex and the PyMuPDF floor, in the same run (issue 15).

Input: the 261-page Debian Reference (``$RAGOX_BENCH_PDF``, else
``/usr/share/debian-reference/debian-reference.en.pdf`` from the
``debian-reference-en`` package, else the copy ``scripts/fetch_realdocs`` puts under
``.cache/realdocs``); without it, bench_ingest's 250-page PDF built from tests/data.

Each pipeline runs ``bench/_ingest_child.py`` in a fresh process (imports counted):
``floor`` is plain PyMuPDF ``get_text("rawdict")`` over every page, ``peer``
LlamaIndex's ``PyMuPDFReader`` + ``SentenceSplitter`` (``pip install -e '.[bench]'``),
``ragox`` a full ingest without embeddings (extract, normalize, tables, blocks,
search text, chunks, FTS rows in SQLite) with ``RAGOX_PDF_WORKERS`` set. Figures of
the whole process tree (page workers and their forkserver included): wall time, CPU
time (this process is the tree's subreaper, so every descendant's CPU is collected),
and memory sampled every 50 ms: the largest sum of the tree's resident sets (pages
shared between the forkserver and its workers count once per process, so this
overstates), the same for proportional set sizes, and the sum of every process's own
peak (VmHWM), an upper bound. The rounds alternate the pipelines (``--rounds=N``, default 3);
each figure is the median.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from _corpus import ROOT
from bench_ingest import CHILD, build_pdf

_DEBIAN_PDF = "usr/share/debian-reference/debian-reference.en.pdf"
#: the installed package, then ``scripts/fetch_realdocs``'s copy
DEBIAN_PDFS = (
    Path("/") / _DEBIAN_PDF,
    ROOT / ".cache" / "realdocs" / "debian-reference-en" / _DEBIAN_PDF,
)
_PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Run:
    pages: int
    wall: float
    cpu: float
    #: the largest sampled sum of the tree's resident sets (shared pages once per process)
    peak_rss_mb: float
    #: the same for proportional set sizes (shared pages divided among their processes)
    peak_pss_mb: float
    #: the sum of each process's own peak (VmHWM): an upper bound of the tree's peak
    hwm_sum_mb: float


def _tree_memory(root: psutil.Process, peaks: dict[int, int]) -> tuple[int, int]:
    """The tree's summed RSS and PSS now; ``peaks`` keeps each process's VmHWM."""
    rss = pss = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            with open(f"/proc/{process.pid}/smaps_rollup", encoding="ascii") as rollup:
                for line in rollup:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1]) * 1024
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
            with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peaks[process.pid] = int(line.split()[1]) * 1024
        except (OSError, ValueError, psutil.Error):
            continue
    return rss, pss


def _reap() -> None:
    """Wait for every orphaned descendant (the forkserver outlives its parent a moment)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def measure(kind: str, pdf: Path, workers: int | None = None) -> Run | None:
    env = dict(os.environ)
    if workers is not None:
        env["RAGOX_PDF_WORKERS"] = str(workers)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, str(CHILD), kind, str(pdf)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    peak_rss = peak_pss = 0
    peaks: dict[int, int] = {}
    done = threading.Event()

    def sample() -> None:
        nonlocal peak_rss, peak_pss
        root = psutil.Process(child.pid)
        while not done.is_set():
            try:
                rss, pss = _tree_memory(root, peaks)
            except psutil.Error:
                return
            peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = child.communicate()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    _reap()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode != 0:
        if kind == "peer":
            return None
        raise RuntimeError(f"{kind} failed: {err[-2000:]}")
    measured = json.loads(out.strip().splitlines()[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # the sum of every process's own peak bounds the tree's peak from above
    bound = max(sum(peaks.values()) / 2**20, float(measured["peak_rss_mb"]))
    return Run(int(measured["units"]), wall, cpu, peak_rss / 2**20, peak_pss / 2**20, bound)


def _pdf(folder: Path) -> tuple[Path, str]:
    chosen = os.environ.get("RAGOX_BENCH_PDF")
    if chosen:
        return Path(chosen), Path(chosen).name
    for found in DEBIAN_PDFS:
        if found.exists():
            return found, "Debian Reference (en)"
    built = folder / "manual-250.pdf"
    build_pdf(built)
    return built, "bench_ingest's PDF (no Debian Reference found)"


def main(rounds: int) -> tuple[str, list[tuple[str, ...]]]:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    cores = len(os.sched_getaffinity(0))
    pipelines: list[tuple[str, str, int | None]] = [
        ("PyMuPDF rawdict (floor)", "floor", None),
        ("LlamaIndex PyMuPDFReader + SentenceSplitter", "peer", None),
        ("ragox ingest, 1 page worker (serial)", "ragox", 1),
        ("ragox ingest, 2 page workers", "ragox", 2),
    ]
    if cores > 2:
        pipelines.append((f"ragox ingest, {cores} page workers", "ragox", cores))
    with tempfile.TemporaryDirectory() as tmp:
        pdf, label = _pdf(Path(tmp))
        runs: dict[str, list[Run]] = {name: [] for name, _, _ in pipelines}
        for _ in range(rounds):
            for name, kind, workers in pipelines:
                run = measure(kind, pdf, workers)
                if run is not None:
                    runs[name].append(run)
    medians = {
        name: (
            measured[0].pages,
            statistics.median(r.wall for r in measured),
            statistics.median(r.cpu for r in measured),
            max(r.peak_rss_mb for r in measured),
            max(r.peak_pss_mb for r in measured),
            max(r.hwm_sum_mb for r in measured),
        )
        for name, measured in runs.items()
        if measured
    }
    peer = medians.get("LlamaIndex PyMuPDFReader + SentenceSplitter")
    floor = medians["PyMuPDF rawdict (floor)"]
    rows: list[tuple[str, ...]] = []
    for name, _, _ in pipelines:
        if name not in medians:
            rows.append((name, "not installed", *["-"] * (len(HEADER) - 2)))
            continue
        pages, wall, cpu, rss, pss, bound = medians[name]
        rate = pages / wall
        rows.append(
            (
                name,
                str(pages),
                f"{wall:.2f}",
                f"{rate:.1f}",
                f"{pages / cpu:.1f}",
                f"{rate / (peer[0] / peer[1]):.2f}x" if peer else "-",
                f"{wall / floor[1]:.1f}x",
                f"{rss:.0f}",
                f"{pss:.0f}",
                f"{bound:.0f}",
            )
        )
    title = (
        f"PDF ingestion, whole process tree: {label}, {cores} cores, "
        f"median of {rounds} alternating rounds (issue 15)"
    )
    return title, rows


HEADER = (
    "pipeline",
    "pages",
    "wall s",
    "pages/s (wall)",
    "pages/CPU-s",
    "vs LlamaIndex (wall)",
    "wall vs floor",
    "peak tree RSS MB",
    "peak tree PSS MB",
    "sum of peaks MB",
)


Table = tuple[str, tuple[str, ...], list[tuple[str, ...]]]


def tables(options: list[str] | None = None) -> list[Table]:
    rounds = 3
    for option in options or []:
        if option.startswith("--rounds="):
            rounds = int(option.split("=", 1)[1])
    title, rows = main(rounds)
    return [(title, HEADER, rows)]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables(sys.argv[1:]):
        print_table(title, header, rows)
