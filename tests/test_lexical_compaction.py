"""The full-text index is merged where fragments cost: after a folder's ingestion (every
write leaves an FTS5 segment, and every term lookup visits each one) and after a
deletion (a deleted row's words stay in older segments, under a deletion mark, until
a merge rewrites them). Issue 15 (speed) and the erasure promise of issue 10."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import httpx

from conftest import run_ragox, serving
from ragox.access import Principal
from ragox.search import SearchMode
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))
#: A word only the secret document has (its Snowball stem is "quixot"); no other
#: word of these documents starts with "q", so FTS5's prefix compression of index
#: keys cannot hide it behind a shared prefix.
SECRET = "The quixotic merger codename stays between the board members.\n"
MANUALS = [
    f"Pump manual {n}.\n\nThe pump number {n} moves water through the valve.\n\n"
    f"Check the seal of pump {n} every month.\n"
    for n in range(12)
]


def _segments(home: Path) -> dict[str, int]:
    """How many FTS5 segments each lexical partition of the home has."""
    with sqlite3.connect(home / "ragox.db") as conn:
        names = [
            str(row[0]) for row in conn.execute("SELECT name FROM lexical_partitions").fetchall()
        ]
        return {
            name: int(conn.execute(f"SELECT COUNT(DISTINCT segid) FROM {name}_idx").fetchone()[0])
            for name in names
        }


def _files_holding(home: Path, needle: bytes) -> list[str]:
    return [p.name for p in sorted(home.rglob("*")) if p.is_file() and needle in p.read_bytes()]


def _ingest(app: Ragox, name: str, text: str) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"


def _ranking(app: Ragox, query: str) -> list[tuple[str, int, int, float]]:
    hits = app.search(query, STAFF, SearchMode.LEXICAL, limit=20)
    return [(h.document_id, h.start, h.end, round(h.score, 9)) for h in hits]


def test_a_deleted_documents_words_leave_every_file_of_the_home(app: Ragox, home: Path) -> None:
    for n, text in enumerate(MANUALS[:3]):
        _ingest(app, f"manual-{n}.txt", text)
    _ingest(app, "secret.txt", SECRET)
    app.store.truncate_log()  # type: ignore[attr-defined]
    assert _files_holding(home, b"quixot")  # the index holds the word: the check can fail
    assert app.delete("secret.txt")
    assert _files_holding(home, b"quixot") == []
    assert _files_holding(home, b"codename") == []
    # what the others find is unchanged
    assert [h.document_id for h in app.search("valve", STAFF, SearchMode.LEXICAL)]


def test_merging_keeps_every_hit_and_score(app: Ragox, home: Path) -> None:
    """Each document written in its own transaction leaves a segment; merged into one,
    the index ranks and scores the same hits."""
    for n, text in enumerate(MANUALS):
        _ingest(app, f"manual-{n}.txt", text)
    # a new revision: the old one's rows are deleted (deletion marks in the index)
    _ingest(app, "manual-4.txt", MANUALS[4] + "\nThe valve is replaced yearly.\n")
    queries = ["pump seal", "valve water", "replaced yearly", "month"]
    before = {q: _ranking(app, q) for q in queries}
    assert all(before.values())
    assert max(_segments(home).values()) >= 4
    assert app.store.compact_index() == len(_segments(home))
    assert set(_segments(home).values()) == {1}
    app.close()
    fresh = Ragox(home)  # no memo of the unmerged index
    try:
        assert {q: _ranking(fresh, q) for q in queries} == before
        assert fresh.store.compact_index() == 0  # nothing left to merge
    finally:
        fresh.close()


def test_a_folder_ingest_leaves_each_partition_merged(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    for n, text in enumerate(MANUALS):
        (folder / f"manual-{n}.txt").write_text(text, encoding="utf-8")
    result = run_ragox(home, "ingest", str(folder))
    assert result.code == 0, result.stderr
    assert set(_segments(home).values()) == {1}
    # one more file into a merged index: below the threshold, left as FTS5 leaves it
    (tmp_path / "one.txt").write_text("Pump manual extra.\n\nThe extra pump.\n")
    assert run_ragox(home, "ingest", str(tmp_path / "one.txt")).code == 0
    assert set(_segments(home).values()) == {2}


def test_a_worker_merges_once_the_queue_is_empty(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    for n, text in enumerate(MANUALS):
        (folder / f"manual-{n}.txt").write_text(text, encoding="utf-8")
    assert run_ragox(home, "ingest", "--queue", str(folder)).code == 0
    result = run_ragox(home, "worker", "--drain")
    assert result.code == 0, result.stderr
    assert set(_segments(home).values()) == {1}


def test_a_server_merges_when_its_uploads_are_in(home: Path) -> None:
    """Twelve uploads through the API, one after the other: each leaves a segment, and
    FTS5 alone would keep thirteen (it merges small segments once sixteen pile up);
    the server merges whenever no other upload is being processed, so fewer than four
    stay."""
    app = Ragox(home)
    _ingest(app, "first.txt", MANUALS[0])
    key = app.create_key(Principal("sam", groups=frozenset({"staff"}), write=frozenset({"staff/"})))
    app.close()
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        for n, text in enumerate(MANUALS):
            response = httpx.post(
                f"{url}/v1/documents",
                headers=auth,
                files={"file": (f"manual-{n}.txt", text.encode())},
            )
            assert response.status_code == 202
            name = response.json()["document_id"]
            deadline = time.time() + 30
            while time.time() < deadline:
                found = httpx.get(f"{url}/v1/documents/{name}", headers=auth).json()
                if found["revisions"][0]["state"] == "READY":
                    break
                time.sleep(0.05)
        time.sleep(0.5)  # the last merge runs after the last revision is READY
    assert max(_segments(home).values()) < 4, _segments(home)


def test_a_merge_waits_for_the_next_run_when_the_database_is_locked(app: Ragox, home: Path) -> None:
    """A merge is an optimization: a writer holding the database past the busy timeout
    makes it merge nothing now, never fail the ingestion or upload that asked."""
    for n, text in enumerate(MANUALS[:6]):
        _ingest(app, f"manual-{n}.txt", text)
    assert max(_segments(home).values()) >= 4
    app.store._connection().execute("PRAGMA busy_timeout=100")  # type: ignore[attr-defined]
    other = sqlite3.connect(home / "ragox.db", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        assert app.store.compact_index() == 0
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert app.store.compact_index() == 1
