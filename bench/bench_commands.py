"""``ragox status``, ``search``, ``ask`` and ``resolve`` as whole processes (issue 15:
at most 0.3 s wall each on a warm machine), beside a bare ``python -c pass`` and a
bm25s process that loads its saved index of the same chunks and retrieves the top 10
(the peer's equivalent of ``ragox search``), in the same run.

``python bench/run.py commands [--homes=DIR,DIR] [--runs=N] [--quick] [--only=A,B]
[--no-peer] [--baseline=SRC] [--vectors]``

``--only`` keeps the commands whose name contains one of the words; ``--no-peer``
skips bm25s (indexing a million chunks takes minutes); ``--baseline`` times each
command also with another source tree of ragox (``git archive REV src | tar -x``),
alternating run by run with this one, on a copy of the home of its own (a newer
schema is never opened by the older code). ``--vectors`` keeps the home's vectors and
its embedder in the copy: ``status`` then counts the chunks without a vector (the
bench's embedder cannot be built by a command: use it with ``--only=status``).

Homes: the ones given (for instance the store bench's ``home-10000`` and
``home-100000``), else the scale bench's cached homes (``.cache/scale``), else, or
with ``--quick``, a small home built here from real text. Each is timed on a copy
without vectors (the homes given are never written), as a group reader whose scope
spans two lexical partitions where the home has reader groups. A warm machine:
bytecode cached (as an installed package has it; ``PYTHONDONTWRITEBYTECODE`` is
dropped for the child processes) and files in the page cache, by one untimed run of
each command first; then ``--runs`` timed runs (default 10), median and p95 of the
wall time, and the median CPU time (user + system) of the process.
"""

from __future__ import annotations

import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _realtext import ROOT, documents

HEADER = ("home", "what", "median ms", "p95 ms", "CPU ms", "vs python -c pass")
QUERY = "how do I configure the network interface"
SCALE_HOMES = (ROOT / ".cache" / "scale" / "home-10000", ROOT / ".cache" / "scale" / "home-100000")
QUICK_DOCUMENTS = 60

_BM25S = """
import sys, bm25s, Stemmer
index = bm25s.BM25.load(sys.argv[1])
query = bm25s.tokenize([sys.argv[2]], stopwords="en", stemmer=Stemmer.Stemmer("english"),
                       show_progress=False)
docs, scores = index.retrieve(query, k=10, show_progress=False)
print(docs[0].tolist())
"""


def _copy(home: Path, into: Path, vectors: bool = False) -> Path:
    """A copy of the home's database without vectors (no command can build the bench's
    embedder) unless ``vectors``, its keys copied and its originals linked: the home
    itself is only read."""
    copy = into / home.name
    shutil.copytree(home / "keys", copy / "keys")
    (copy / "blobs").symlink_to((home / "blobs").resolve())
    with sqlite3.connect(f"file:{home / 'ragox.db'}?mode=ro", uri=True) as source:
        target = sqlite3.connect(copy / "ragox.db")
        source.backup(target)
        if not vectors:
            target.execute("DELETE FROM settings WHERE key IN ('embedder_key', 'embedder_spec')")
            target.execute("DELETE FROM embeddings")
        target.commit()
        target.close()
    return copy


def _quick_home(into: Path) -> Path:
    """A small home of real text (the first documents of the scale bench's corpus), in
    two reader-group sets."""
    sys.path.insert(0, str(ROOT / "src"))
    from ragox.service import Ragox

    home = into / "home-quick"
    app = Ragox(home)
    try:
        for number, (name, text) in enumerate(documents()):
            if number >= QUICK_DOCUMENTS:
                break
            groups = frozenset({"staff"}) if number % 2 else frozenset({"eng"})
            app.ingestor.ingest_bytes(
                text.encode("utf-8"), f"{number}.txt", name, groups=groups, tenant="default"
            )
    finally:
        app.close()
    return home


def _bm25s_index(home: Path, into: Path) -> Path | None:
    """bm25s's index of the home's current chunks (their search text), saved to disk."""
    try:
        import bm25s
        import Stemmer
    except ImportError:
        return None
    with sqlite3.connect(f"file:{home / 'ragox.db'}?mode=ro", uri=True) as conn:
        texts = [
            str(row[0])
            for row in conn.execute(
                "SELECT substr(s.text, c.search_start + 1, c.search_end - c.search_start) "
                "FROM chunks c JOIN search_texts s ON s.manifest_id = c.manifest_id"
            )
        ]
    if not texts:
        return None
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever.index(tokens, show_progress=False)
    path = into / f"bm25s-{home.name}"
    retriever.save(str(path))
    return path


def _time(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float, float, int]:
    """Median and p95 wall, median CPU (ms), and the exit code of the last run."""
    return _time_alternating([(argv, env)], runs)[0]


def _time_alternating(
    runs_of: list[tuple[list[str], dict[str, str]]], runs: int
) -> list[tuple[float, float, float, int]]:
    """:func:`_time` of each command, one run of each in turn (the same load for
    all), after one untimed run of each."""
    for argv, env in runs_of:
        subprocess.run(argv, env=env, capture_output=True, check=False, timeout=600)
    walls: list[list[float]] = [[] for _ in runs_of]
    cpus: list[list[float]] = [[] for _ in runs_of]
    codes = [0 for _ in runs_of]
    for _ in range(runs):
        for number, (argv, env) in enumerate(runs_of):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(argv, env=env, capture_output=True, check=False, timeout=600)
            walls[number].append((time.perf_counter() - started) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            cpus[number].append(used * 1000)
            codes[number] = done.returncode
    timed = []
    for wall, cpu, code in zip(walls, cpus, codes, strict=True):
        wall.sort()
        p95 = wall[min(len(wall) - 1, round(0.95 * (len(wall) - 1)))]
        timed.append((statistics.median(wall), p95, statistics.median(cpu), code))
    return timed


def _commands(home: Path, into: Path, peer: bool = True) -> dict[str, list[str]]:
    with sqlite3.connect(f"file:{home / 'ragox.db'}?mode=ro", uri=True) as conn:
        anchor = conn.execute("SELECT anchor_id FROM anchors ORDER BY anchor_id LIMIT 1").fetchone()
        grouped = conn.execute("SELECT 1 FROM revision_groups LIMIT 1").fetchone() is not None
    who = ["--principal", "bench", "--groups", "staff"] if grouped else []
    ragox = [sys.executable, "-m", "ragox"]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "ragox status": [*ragox, "status"],
        "ragox status --json": [*ragox, "status", "--json"],
        "ragox status --all": [*ragox, "status", "--all"],
        "ragox status --summary --json": [*ragox, "status", "--summary", "--json"],
        "ragox search": [*ragox, "search", QUERY, *who, "--json"],
        "ragox ask": [*ragox, "ask", QUERY, *who, "--json"],
    }
    if anchor is not None:  # an operator's resolve of a stored anchor
        commands["ragox resolve"] = [*ragox, "resolve", str(anchor[0]), "--json"]
    index = _bm25s_index(home, into) if peer else None
    if index is not None:
        commands["bm25s: load index + top 10"] = [sys.executable, "-c", _BM25S, str(index), QUERY]
    return commands


def main(argv: Sequence[str] = ()) -> list[tuple[str, ...]]:
    options = dict(arg.removeprefix("--").partition("=")[::2] for arg in argv)
    runs = int(options.get("runs") or (5 if "quick" in options else 10))
    given = [Path(p) for p in options.get("homes", "").split(",") if p]
    only = [word for word in options.get("only", "").split(",") if word]
    baseline = Path(options["baseline"]).resolve() if options.get("baseline") else None
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory(prefix="ragox-bench-commands-") as scratch:
        into = Path(scratch)
        if given:
            homes = [_copy(home, into, "vectors" in options) for home in given]
        elif "quick" not in options and all((h / "ragox.db").exists() for h in SCALE_HOMES):
            homes = [_copy(home, into, "vectors" in options) for home in SCALE_HOMES]
        else:
            homes = [_quick_home(into)]
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPATH"] = str(ROOT / "src")
        for home in homes:
            chunks = _chunks(home)
            trees = [("", home, str(ROOT / "src"))]
            if baseline is not None:  # a copy of its own, before this tree migrates one
                (into / "baseline").mkdir(exist_ok=True)
                old = into / "baseline" / home.name
                shutil.copytree(home, old, symlinks=True)
                trees.insert(0, ("baseline: ", old, str(baseline)))
            floor = None
            commands = _commands(home, into, peer="no-peer" not in options)
            for what, command in commands.items():
                if only and what != "python -c pass" and not any(w in what for w in only):
                    continue
                runs_of = [
                    (command, {**env, "RAGOX_HOME": str(where), "PYTHONPATH": source})
                    for _, where, source in trees
                ]
                for (label, _, _), (median, p95, cpu, code) in zip(
                    trees, _time_alternating(runs_of, runs), strict=True
                ):
                    if what == "python -c pass" and label:
                        continue
                    floor = median if floor is None else floor
                    rows.append(
                        (
                            f"{home.name} ({chunks} chunks)",
                            label + (what if code == 0 else f"{what} (exit {code})"),
                            f"{median:.0f}",
                            f"{p95:.0f}",
                            f"{cpu:.0f}",
                            f"+{median - floor:.0f} ms",
                        )
                    )
    return rows


def _chunks(home: Path) -> int:
    with sqlite3.connect(f"file:{home / 'ragox.db'}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])


def tables(argv: Sequence[str] = ()) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [
        ("Commands as processes, warm (issue 15: <= 300 ms wall)", HEADER, main(argv)),
    ]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables(sys.argv[1:]):
        print_table(title, header, rows)
