"""PostgreSQL's HNSW vector index (pgvector): a reader's scope is applied inside the
index scan, so a reader who may read a small share of the vectors still gets every
one of its top k, in order, equal to an exact scan of its permitted vectors; schema
migration 4 gives an older database with vectors its index."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import psycopg
import pytest

from conftest import DATA, PostgresServer, run_ragox
from ragox.access import Principal
from ragox.search import EmbedderIdentity, SearchMode, reindex, scope_of
from ragox.service import Ragox
from ragox.store.postgres import SCHEMA_VERSION, PostgresStore
from ragox.store.postgres._index import ann_index_name

DIMENSION = 16
#: the few documents the staff reader may read: each paragraph names the bird
MARKER = "kestrel"
STAFF = Principal("sam", groups=frozenset({"staff"}))
ENG = Principal("eve", groups=frozenset({"eng"}))


class SteeredEmbedder:
    """Deterministic vectors that put every chunk the staff reader may read far from
    the query and every other chunk near it: a top k taken before the scope filter
    holds none of the staff reader's chunks."""

    identity = EmbedderIdentity(
        name="test-steered",
        model="sha256",
        revision="1",
        dimension=DIMENSION,
        query_prefix="",
        passage_prefix="",
    )

    def embed(self, texts: Sequence[str], kind: str) -> npt.NDArray[np.float32]:
        rows = []
        axis = np.zeros(DIMENSION)
        axis[0] = 1.0
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
            noise = np.random.default_rng(seed).standard_normal(DIMENSION)
            if kind == "query":
                vector = axis
            elif MARKER in text.lower():
                vector = -2.0 * axis + noise
            else:
                vector = 3.0 * axis + 0.5 * noise
            rows.append(vector / np.linalg.norm(vector))
        return np.asarray(rows, dtype=np.float32)


def _paragraphs(lang: str) -> list[str]:
    data = json.loads((DATA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    return [p["context"] for article in data["data"] for p in article["paragraphs"]]


@pytest.fixture(scope="module")
def home(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, str]]:
    """Some 700 chunks the eng reader may read, 15 the staff reader may read (XQuAD
    paragraphs, CC BY-SA 4.0, numbered), with the steered embedder's vectors."""
    url = postgres_server.fresh()
    folder = tmp_path_factory.mktemp("ann")
    app = Ragox(folder, store=url)
    source = _paragraphs("en") + _paragraphs("ru")
    english = [f"Section {n}. {source[n % len(source)]}" for n in range(3 * len(source))]
    for n in range(0, len(english), 240):
        outcome = app.ingestor.ingest_bytes(
            "\n\n".join(english[n : n + 240]).encode(),
            f"eng{n}.txt",
            f"eng{n}",
            groups=frozenset({"eng"}),
            tenant="default",
            language="en",
        )
        assert outcome.error_code is None
    birds = [f"Kestrel note {n}. {text}" for n, text in enumerate(_paragraphs("de")[:15])]
    outcome = app.ingestor.ingest_bytes(
        "\n\n".join(birds).encode(),
        "birds.txt",
        "birds",
        groups=frozenset({"staff"}),
        tenant="default",
        language="de",
    )
    assert outcome.error_code is None
    reindex(app.store, SteeredEmbedder(), "test-steered")
    app.close()
    yield folder, url
    postgres_server.drop(url)


def _exact(app: Ragox, who: Principal, limit: int) -> list[str]:
    """The top ``limit`` of an exact scan over the reader's permitted vectors."""
    key = SteeredEmbedder.identity.key
    rows = list(app.store.index.permitted_vectors(key, scope_of(who)))
    vectors = np.stack([np.frombuffer(blob, dtype="<f4") for _, blob in rows])
    scores = vectors @ SteeredEmbedder().embed(["query"], "query")[0]
    return [rows[i][0] for i in np.argsort(-scores, kind="stable")[:limit]]


def _store(app: Ragox) -> PostgresStore:
    assert isinstance(app.store, PostgresStore)
    return app.store


def test_a_small_scope_gets_its_whole_top_k_from_the_index_scan(home: tuple[Path, str]) -> None:
    folder, url = home
    app = Ragox(folder, store=url)
    store = _store(app)
    key = SteeredEmbedder.identity.key
    with store.read() as conn:
        found = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s", (ann_index_name(key),)
        ).fetchone()
        assert found is not None and "hnsw" in str(found[0])
        staff_rows = len(list(store.index.permitted_vectors(key, scope_of(STAFF))))
        all_rows = conn.execute("SELECT COUNT(*) FROM embeddings").fetchone()
    assert all_rows is not None and staff_rows >= 10
    assert staff_rows * 25 < int(all_rows[0])  # the staff reader's share is small
    query = SteeredEmbedder().embed(["query"], "query")[0]
    expected = _exact(app, STAFF, 10)
    # The index scan itself (no exact fallback), made the plan even for this small
    # scope (no sort allowed): every permitted top-10 chunk, in order. A top k taken
    # from the index before the scope's filter (iterative scans off) finds none.
    statement = store.index.ann_statement(key, DIMENSION)
    params = {"operator": False, "tenant": "default", "groups": ["staff"], "limit": 10}
    with store.read() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_sort = off")
        scanned = store.index._ann(conn, key, scope_of(STAFF), query, 10)
        plan = conn.execute(b"EXPLAIN " + statement.as_bytes(conn), {**params, "query": query})
        used = " ".join(str(row[0]) for row in plan.fetchall())
    assert ann_index_name(key) in used
    assert [chunk_id for chunk_id, _ in scanned] == expected
    app.close()


def test_search_through_the_index_equals_the_exact_scan(home: tuple[Path, str]) -> None:
    folder, url = home
    app = Ragox(folder, store=url)
    store = _store(app)
    store.index.ann_min_rows = 0  # this small store goes through the index too
    searcher = app.searcher(SteeredEmbedder())
    for who in (STAFF, ENG):
        expected = _exact(app, who, 10)
        hits = searcher.search("query", who, SearchMode.VECTOR, limit=10)
        assert [hit.chunk_id for hit in hits] == expected
        near = store.index.nearest(
            SteeredEmbedder.identity.key,
            scope_of(who),
            SteeredEmbedder().embed(["query"], "query")[0].tobytes(),
            10,
        )
        assert near is not None and [chunk_id for chunk_id, _ in near] == expected
    # below the threshold the store leaves the scope to the exact scan
    store.index.ann_min_rows = 10**9
    assert store.index.nearest(SteeredEmbedder.identity.key, scope_of(STAFF), b"\0" * 64, 5) is None
    app.close()


def test_migration_4_indexes_the_vectors_of_an_older_database(home: tuple[Path, str]) -> None:
    folder, url = home
    key = SteeredEmbedder.identity.key
    # The shape of a version-2 database with vectors: the same rows, no vector index,
    # and none of what later versions added (version 5: jobs.ocr).
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP INDEX {ann_index_name(key)}")
        conn.execute("ALTER TABLE jobs DROP COLUMN ocr")
        conn.execute("UPDATE ragox_schema SET value='2' WHERE key='schema_version'")
    store = PostgresStore(url, folder)
    assert store.schema_version() == SCHEMA_VERSION >= 4
    with store.read() as conn:
        found = conn.execute(
            "SELECT 1 FROM pg_indexes WHERE indexname = %s", (ann_index_name(key),)
        ).fetchone()
    assert found is not None
    store.close()
    app = Ragox(folder, store=url)
    _store(app).index.ann_min_rows = 0
    hits = app.searcher(SteeredEmbedder()).search("query", STAFF, SearchMode.VECTOR, limit=10)
    assert [hit.chunk_id for hit in hits] == _exact(app, STAFF, 10)
    app.close()


def test_migrate_store_indexes_the_copied_vectors(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """A SQLite home with vectors copied by ``migrate-store`` has its vector index."""
    home = tmp_path / "home"
    app = Ragox(home)
    for n, text in enumerate(_paragraphs("en")[:6]):
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"p{n}.txt", f"p{n}", groups=frozenset({"eng"}), tenant="default"
        )
        assert outcome.error_code is None
    reindex(app.store, SteeredEmbedder(), "test-steered")
    app.close()
    url = postgres_server.fresh()
    try:
        done = run_ragox(home, "migrate-store", str(home), url, "--json")
        assert done.code == 0, done.stderr
        with psycopg.connect(url) as conn:
            found = conn.execute(
                "SELECT 1 FROM pg_indexes WHERE indexname = %s",
                (ann_index_name(SteeredEmbedder.identity.key),),
            ).fetchone()
        assert found is not None
    finally:
        postgres_server.drop(url)
