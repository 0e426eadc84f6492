"""Ragox at 10k, 100k (and, with ``--million``, 1M) chunks of real text, beside bm25s
and LlamaIndex in the same run (issue 15).

The corpus is a folder's worth of real documents (``_realtext``: Debian manuals,
``/usr/share/doc``, package docstrings, XQuAD), taken in a fixed order and repeated
under new document ids once every document is in, until the store holds the target
number of chunks. Documents go to three reader-group sets in turn (``staff``,
``staff+eng``, ``eng``); the reader is a ``staff`` member, so its scope spans two
lexical partitions and leaves the third out, as a company's would.

Per size: ingestion (ragox: the whole pipeline into SQLite, from a folder of files as
``ragox ingest FOLDER`` runs it, chunks per second;
LlamaIndex: ``Document`` + ``SentenceSplitter`` over the same texts, nothing stored;
bm25s: tokenizing and indexing the chunks ragox made), then per query the
group reader's lexical search, hybrid search (a deterministic hashing embedder,
whose query vector is computed before the clock starts: retrieval and fusion
only), ``ask`` with the extractive generator, and ``resolve`` of the anchors
those answers cited; bm25s retrieving the top 10 with the same Snowball terms.
Then ``ragox status``, ``search``, ``ask`` and ``resolve`` as whole processes
(interpreter start and imports included; wall time, median of three after one
untimed run that caches bytecode and files) beside a bare ``python -c pass``, on a
copy of the home without vectors.
The last column is how each figure grew from the previous size.

Built homes are kept under ``.cache/scale/`` (with their ingestion figures), so a
rerun measures queries only; ``--rebuild`` builds them again.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from _corpus import xquad_file
from _realtext import ROOT, documents
from ragox.access import Principal
from ragox.search import EmbedderIdentity, SearchMode, analyze_document, analyze_query, reindex
from ragox.service import Ragox

#: where built homes are kept; ``RAGOX_BENCH_SCALE_DIR`` moves them (``.cache`` may be a
#: link to another checkout's cache)
CACHE = Path(os.environ.get("RAGOX_BENCH_SCALE_DIR") or ROOT / ".cache" / "scale")
SIZES = (10_000, 100_000)
MILLION = 1_000_000
QUERIES = 100
#: other questions asked first (warm caches)
WARMUP = 50
GROUPS = (frozenset({"staff"}), frozenset({"staff", "eng"}), frozenset({"eng"}))
READER = Principal("bench", groups=frozenset({"staff"}))
#: the layout of a cached home; bump when the build changes
#: 2: the lexical index merged once the corpus is in; 3: a folder ingestion (files,
#: extracted and analyzed ahead by a worker process)
BUILD_VERSION = 3


class HashEmbedder:
    """Deterministic pseudo-vectors: cost-free, so latency is retrieval, not a model.
    Query vectors are prepared ahead (``prepare``) so that the clock sees none."""

    identity = EmbedderIdentity(
        name="bench-hash",
        model="sha256",
        revision="1",
        dimension=384,
        query_prefix="",
        passage_prefix="",
    )

    def __init__(self) -> None:
        self._prepared: dict[str, npt.NDArray[np.float32]] = {}

    @staticmethod
    def _vector(text: str) -> npt.NDArray[np.float32]:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def prepare(self, queries: Sequence[str]) -> None:
        self._prepared = {q: self._vector(q) for q in queries}

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        rows = [self._prepared.get(t) if kind == "query" else None for t in texts]
        rows = [r if r is not None else self._vector(t) for r, t in zip(rows, texts, strict=True)]
        return np.stack(rows) if rows else np.zeros((0, 384), dtype=np.float32)


@dataclass(frozen=True, slots=True)
class Built:
    """A cached home and what building it cost."""

    home: Path
    chunks: int
    documents: int
    chars: int
    ingest_s: float
    vectors_s: float


def _corpus_documents() -> list[tuple[str, str]]:
    """The real documents, collected once and cached (docstrings take minutes)."""
    path = CACHE / "documents.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as out:
            for name, text in documents():
                out.write(json.dumps([name, text]) + "\n")
    with path.open(encoding="utf-8") as lines:
        return [tuple(json.loads(line)) for line in lines]  # type: ignore[misc]


def _chunk_count(app: Ragox) -> int:
    row = app.store._connection().execute("SELECT COUNT(*) FROM chunks").fetchone()
    return int(row[0])


#: documents written to the folder per batch
FOLDER_BATCH = 1000


def _write_batch(folder: Path, corpus: list[tuple[str, str]], first: int, count: int) -> list[Path]:
    """Files of the corpus documents ``first`` … ``first + count - 1`` in ``folder``."""
    paths = []
    for n in range(first, first + count):
        name, text = corpus[n % len(corpus)]
        path = folder / f"{n:07d}-{name.replace('/', '_')[:120]}.txt"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def build(size: int, corpus: list[tuple[str, str]], rebuild: bool, vectors: bool) -> Built:
    """The home of ``size`` chunks, from the cache when it is there."""
    home = CACHE / f"home-{size}"
    marker = home / "bench-build.json"
    if marker.exists() and not rebuild:
        data = json.loads(marker.read_text())
        if data.get("version") == BUILD_VERSION and (data["vectors_s"] >= 0 or not vectors):
            kept = {k: v for k, v in data.items() if k in Built.__slots__}
            return Built(home, **{k: v for k, v in kept.items() if k != "home"})
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(home.parent / f"{home.name}-lexical", ignore_errors=True)  # a copy of the old
    home.mkdir(parents=True)
    app = Ragox(home)
    n = chars = 0
    ingest_s = 0.0
    with tempfile.TemporaryDirectory(prefix="ragox-scale-") as tmp:
        # The documents are files of a folder, ingested as `ragox ingest FOLDER` does
        # (text files extracted and analyzed one step ahead by a worker process). The
        # files are written in batches, off the clock; the chunk count is checked
        # every few documents (a COUNT is cheap next to ingestion).
        while n % 5 or _chunk_count(app) < size:
            batch = _write_batch(Path(tmp), corpus, n, FOLDER_BATCH)
            started = time.perf_counter()
            with app.extracting_ahead(batch):
                for path in batch:
                    if n % 5 == 0 and _chunk_count(app) >= size:
                        break
                    item = app.ingest_path(
                        path, path.parent, document_id=f"d{n:07d}", groups=GROUPS[n % len(GROUPS)]
                    )
                    # A corpus document the ingestor refuses for control characters
                    # (one of the collected docstrings) is left out: 10k and 100k never
                    # reach it, 1M did and stopped there.
                    outcome = item.outcome
                    assert outcome is not None or item.skipped is not None, item
                    if outcome is not None:
                        assert outcome.error_code in (None, "BINARY_CONTENT"), outcome
                        if outcome.error_code is None:
                            chars += len(corpus[n % len(corpus)][1])
                    n += 1
            ingest_s += time.perf_counter() - started
            for path in batch:
                path.unlink()
    started = time.perf_counter()
    app.store.compact_index()  # as `ragox ingest` does once a folder is in
    ingest_s += time.perf_counter() - started
    vectors_s = -1.0
    if vectors:
        started = time.perf_counter()
        reindex(app.store, HashEmbedder(), "bench-hash")
        vectors_s = time.perf_counter() - started
    built = Built(home, _chunk_count(app), n, chars, ingest_s, vectors_s)
    app.close()
    data = {"version": BUILD_VERSION, **{k: getattr(built, k) for k in Built.__slots__}}
    data["home"] = str(home)
    marker.write_text(json.dumps(data))
    return built


def questions(rng: random.Random, besides: Sequence[str] = (), count: int = QUERIES) -> list[str]:
    """``count`` XQuAD questions (en, de, ru), none of ``besides``."""
    found = []
    for lang in ("en", "de", "ru"):
        data = json.loads(xquad_file(lang).read_text(encoding="utf-8"))
        found += [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    if besides:
        left = set(besides)
        found = [question for question in found if question not in left]
    return rng.sample(found, count)


#: CPU milliseconds of the calls ``timed`` measured last (a shared machine's wall
#: clock also counts other processes' turns; CPU time much less so)
LAST_CPU: list[float] = []


def timed(call: Callable[[str], object], items: Sequence[str]) -> list[float]:
    """Wall milliseconds per call; CPU milliseconds in ``LAST_CPU``."""
    out = []
    LAST_CPU.clear()
    for item in items:
        started, cpu = time.perf_counter(), time.thread_time()
        call(item)
        out.append((time.perf_counter() - started) * 1000)
        LAST_CPU.append((time.thread_time() - cpu) * 1000)
    return out


def _cpu() -> str:
    return f"ms; CPU median {statistics.median(LAST_CPU):.2f} p95 {p95(LAST_CPU):.2f}"


def p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def _llamaindex_ingest(corpus: list[tuple[str, str]], count: int) -> float | None:
    try:
        from llama_index.core import Document
        from llama_index.core.node_parser import SentenceSplitter
    except ImportError:
        return None
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=40)
    started = time.perf_counter()
    for n in range(count):
        _, text = corpus[n % len(corpus)]
        splitter.get_nodes_from_documents([Document(text=text, id_=f"d{n:07d}")])
    return time.perf_counter() - started


def _peer_ingest(built: Built, corpus: list[tuple[str, str]]) -> float | None:
    """LlamaIndex's time for the documents of the home, measured once after the home
    was built (beside ragox's ingestion, on the same machine) and kept with it."""
    marker = built.home / "bench-build.json"
    data = json.loads(marker.read_text())
    if "peer_ingest_s" not in data:
        data["peer_ingest_s"] = _llamaindex_ingest(corpus, built.documents)
        marker.write_text(json.dumps(data))
    peer: float | None = data["peer_ingest_s"]
    return peer


@dataclass
class Figures:
    """Per size: the name of each figure → (median ms or seconds, p95 or None)."""

    rows: dict[str, tuple[float, float | None, str]]


def measure(
    built: Built, corpus: list[tuple[str, str]], queries: list[str], hybrid: bool
) -> Figures:
    rows: dict[str, tuple[float, float | None, str]] = {}
    rows["ingest ragox"] = (built.ingest_s, None, f"{built.chunks / built.ingest_s:,.0f} chunks/s")
    peer = _peer_ingest(built, corpus)
    if peer is not None:
        rows["ingest LlamaIndex (split only)"] = (
            peer,
            None,
            f"ragox/peer {built.ingest_s / peer:.2f}",
        )
    warmup = questions(random.Random(16), besides=queries, count=WARMUP)
    embedder = HashEmbedder()
    embedder.prepare([*queries, *warmup])
    app = Ragox(built.home)
    if hybrid:
        # The home records the bench's embedder, which no spec names: hand it over
        # as the one configured, so that `ask` may open the home at all.
        app._embedder_spec, app._embedder = "bench-hash", embedder
    searcher = app.searcher(embedder) if hybrid else app.searcher()
    modes = [SearchMode.LEXICAL] + ([SearchMode.HYBRID] if hybrid else [])
    for mode in modes:
        # warm caches (the vector matrix, SQLite's pages, common terms' posting lists)
        # with other questions, as a running service has them: the timed questions'
        # own rankings are not cached by it (the memo's effect: ``ask (memo emptied
        # first)`` below)
        for question in warmup:
            searcher.search(question, READER, mode)
        lat = timed(lambda q, m=mode: searcher.search(q, READER, m, limit=10), queries)
        rows[f"search {mode.value}"] = (statistics.median(lat), p95(lat), _cpu())
    answers = []

    def ask(q: str) -> None:
        answers.append(app.ask(q, READER, mode=SearchMode.LEXICAL))

    lat = timed(ask, queries)
    rows["ask (extractive, lexical)"] = (statistics.median(lat), p95(lat), _cpu())
    # The SQLite index's memo (match counts, posting lists) was warm from the searches
    # of these very questions; emptied, each question finds only what the questions
    # asked before it read, as new questions would.
    memo = getattr(app.store.index, "memo", None)
    if memo is not None:
        memo.clear()
        lat = timed(lambda q: app.ask(q, READER, mode=SearchMode.LEXICAL), queries)
        rows["ask (memo emptied first)"] = (statistics.median(lat), p95(lat), _cpu())
    anchors = [c.anchor for record in answers for c in record.citations]
    if anchors:
        by_id = {a.anchor_id: a for a in anchors}
        lat = timed(lambda i: app.resolve(by_id[i], READER), list(by_id))
        rows["resolve (cited anchors)"] = (
            statistics.median(lat),
            p95(lat),
            f"ms, {len(by_id)} anchors; CPU median {statistics.median(LAST_CPU):.2f}",
        )
    app.close()
    rows.update(_processes(built, queries[0], anchors[0].to_json() if anchors else None))
    # bm25s over the very chunks ragox made, with the same Snowball terms
    import bm25s

    chunk_terms = []
    app = Ragox(built.home)
    conn = app.store._connection()
    texts: dict[str, str] = {}
    for manifest_id, start, end in conn.execute(
        "SELECT manifest_id, search_start, search_end FROM chunks"
    ):
        if manifest_id not in texts:
            found = app.store.search_text(manifest_id)
            texts = {manifest_id: found[0] if found else ""}
        chunk_terms.append(analyze_document(texts[manifest_id][start:end], None).split())
    app.close()
    started = time.perf_counter()
    retriever = bm25s.BM25(k1=1.2, b=0.75)
    retriever.index(chunk_terms, show_progress=False)
    rows["index bm25s (chunks given)"] = (time.perf_counter() - started, None, "s")
    lat = timed(
        lambda q: retriever.retrieve(
            [analyze_query(q, [None]) or ["_"]], k=10, show_progress=False
        ),
        queries,
    )
    rows["search bm25s (same terms)"] = (statistics.median(lat), p95(lat), _cpu())
    return Figures(rows)


def _lexical_copy(built: Built) -> Path:
    """A copy of the home without the bench's embedder (which no command can build),
    for timing commands as processes; made once and kept beside the home."""
    home = built.home.parent / f"{built.home.name}-lexical"
    if not (home / "ragox.db").exists():
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(built.home / "keys", home / "keys")
        (home / "blobs").symlink_to(built.home / "blobs")
        with sqlite3.connect(built.home / "ragox.db") as source:
            target = sqlite3.connect(home / "ragox.db")
            source.backup(target)
            target.execute("DELETE FROM settings WHERE key IN ('embedder_key', 'embedder_spec')")
            target.execute("DELETE FROM embeddings")
            target.commit()
            target.close()
    return home


def _processes(
    built: Built, query: str, anchor: dict[str, object] | None
) -> dict[str, tuple[float, float | None, str]]:
    """Wall time of whole ``ragox`` processes (interpreter start, imports, the command),
    median of three, as a group reader of the lexical copy of the home."""
    home = _lexical_copy(built)
    who = ["--principal", "bench", "--groups", "staff"]
    anchor_file = home / "bench-anchor.json"
    if anchor is not None:
        anchor_file.write_text(json.dumps(anchor), encoding="utf-8")
    commands = {
        "process: python -c pass": [sys.executable, "-c", "pass"],
        # the summary people type, the same for scripts, and the listing of every
        # document (--json's default: its size grows with the documents)
        "process: ragox status": ["status"],
        "process: ragox status --json --summary": ["status", "--json", "--summary"],
        "process: ragox status --json": ["status", "--json"],
        "process: ragox search": ["search", query, *who, "--json"],
        "process: ragox ask": ["ask", query, *who, "--json"],
    }
    if anchor is not None:
        commands["process: ragox resolve"] = ["resolve", str(anchor_file), *who, "--json"]
    out: dict[str, tuple[float, float | None, str]] = {}
    # A warm machine: bytecode cached (as an installed package has it; an environment
    # with PYTHONDONTWRITEBYTECODE would compile every module at every start) and
    # files in the page cache, by one run of each command before the timed ones.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["RAGOX_HOME"] = str(home)
    for what, args in commands.items():
        argv = args if args[0] == sys.executable else [sys.executable, "-m", "ragox", *args]
        subprocess.run(argv, env=env, capture_output=True, check=False, timeout=600)
        walls, cpus = [], []
        for _ in range(3):
            started = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(argv, env=env, capture_output=True, check=False, timeout=600)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append(
                (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
            )
        note = f"ms wall; CPU median {statistics.median(cpus):.0f}"
        out[what] = (statistics.median(walls), None, note)
    return out


HEADER = ("chunks", "what", "median", "p95", "growth", "note")


def main(argv: Sequence[str] = ()) -> list[tuple[str, ...]]:
    rebuild = "--rebuild" in argv
    sizes = SIZES + ((MILLION,) if "--million" in argv else ())
    corpus = _corpus_documents()
    queries = questions(random.Random(15))
    out: list[tuple[str, ...]] = []
    previous: dict[str, float] = {}
    for size in sizes:
        hybrid = size < MILLION  # 1M: lexical only (vectors of 1M chunks do not fit 2 cores)
        built = build(size, corpus, rebuild, vectors=hybrid)
        figures = measure(built, corpus, queries, hybrid)
        for what, (median, tail, note) in figures.rows.items():
            growth = f"×{median / previous[what]:.2f}" if previous.get(what) else ""
            seconds = what.startswith(("ingest", "index"))
            out.append(
                (
                    f"{built.chunks:,}",
                    what,
                    f"{median:.1f} s" if seconds else f"{median:.2f}",
                    "" if tail is None else f"{tail:.2f}",
                    growth,
                    note,
                )
            )
            previous[what] = median
    return out


def tables(argv: Sequence[str] = ()) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Scale: real text at 10k / 100k (/ 1M) chunks (issue 15)", HEADER, main(argv))]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables(sys.argv[1:]):
        print_table(title, header, rows)
