"""A scope's languages kept in the home between processes (issue 15; SQLite schema 32):
a `ragox search` process finds the set its scope's last query stored instead of
reading every representation the scope may read, only while the scope's partitions
keep their generations; the key names no tenant or group, a busy home is not waited
for, and a home of schema 31 gets the table."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import drop_to_schema
from ragox.access import Principal
from ragox.search import scope_of
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION, Scope
from ragox.store.sqlite import _index as sqlite_index

STAFF = Principal("sam", groups=frozenset({"staff"}))
ENG = Principal("eve", groups=frozenset({"eng"}))


def _ingest(app: Ragox, doc: str, groups: set[str], language: str) -> None:
    text = "\n\n".join(f"Paragraph {n} of {doc}: the pump {n} is checked." for n in range(5))
    outcome = app.ingestor.ingest_bytes(
        text.encode(),
        f"{doc}.txt",
        doc,
        groups=frozenset(groups),
        tenant="default",
        language=language,
    )
    assert outcome.state.value == "READY"


def _stored(home: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(home / "ragox.db") as conn:
        return [tuple(row) for row in conn.execute("SELECT * FROM scope_languages ORDER BY 1")]


def _set_stored(home: Path, languages: list[str]) -> None:
    with sqlite3.connect(home / "ragox.db") as conn:
        conn.execute("UPDATE scope_languages SET languages = ?", (json.dumps(languages),))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    app = Ragox(home)
    _ingest(app, "staff-a", {"staff"}, "en")
    _ingest(app, "eng-a", {"eng"}, "de")
    _ingest(app, "shared", {"staff", "eng"}, "ru")
    app.close()
    return home


def test_a_scopes_languages_are_kept_until_what_it_reads_changes(home: Path) -> None:
    """The next process of the same scope reads the stored set (a marked set stored in
    its place comes back: nothing was computed), a write to a partition the scope reads
    makes it compute the set again, and a write the scope cannot see keeps another
    scope's stored set."""
    app = Ragox(home)
    assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
    assert app.store.index.languages(scope_of(ENG)) == {"de", "ru"}
    app.close()
    assert len(_stored(home)) == 2
    _set_stored(home, ["xx"])
    app = Ragox(home)
    try:
        assert app.store.index.languages(scope_of(STAFF)) == {"xx"}
        # a Russian document for staff only: staff's partition changes, eng's does not
        _ingest(app, "staff-b", {"staff"}, "de")
        assert app.store.index.languages(scope_of(STAFF)) == {"en", "de", "ru"}
        assert app.store.index.languages(scope_of(ENG)) == {"xx"}
        # a document of eng's made staff's only: eng's partitions change
        app.set_groups("shared", frozenset({"staff"}))
        assert app.store.index.languages(scope_of(ENG)) == {"de"}
        assert app.delete("staff-a")
        assert app.store.index.languages(scope_of(STAFF)) == {"de", "ru"}
    finally:
        app.close()


def test_searches_use_the_stored_set_and_never_another_scopes(home: Path) -> None:
    """A reader's search stores its scope's set; the sets are apart per scope (a reader
    of staff never gets eng's German), and the key is a digest: no tenant or group name
    is written."""
    app = Ragox(home)
    try:
        app.search("pump checked", STAFF)
        app.search("pump checked", ENG)
    finally:
        app.close()
    assert_stored_opaquely(_stored(home))


def assert_stored_opaquely(rows: list[tuple[str, str, str]]) -> None:
    """The two readers' sets (STAFF: de, ru; ENG: en, ru), each under a SHA-256 digest
    of its scope: no group, tenant or principal name stored."""
    assert sorted(sorted(json.loads(languages)) for _, _, languages in rows) == [
        ["de", "ru"],
        ["en", "ru"],
    ]
    for key, _, _ in rows:
        assert len(key) == 64 and all(c in "0123456789abcdef" for c in key)
    dump = "\n".join(map(str, rows))
    assert "staff" not in dump and "eng" not in dump and "default" not in dump


def test_a_busy_home_is_not_waited_for(home: Path) -> None:
    """While another process writes, a search computes the set and stores nothing
    (it does not wait out the store's 30-second busy timeout); the next one stores it."""
    app = Ragox(home)  # (opening a home writes to it)
    holder = sqlite3.connect(home / "ragox.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
        assert time.monotonic() - started < 10
        conn = app.store._connection()  # type: ignore[attr-defined]
        assert int(conn.execute("PRAGMA busy_timeout").fetchone()[0]) == 30000
        holder.execute("ROLLBACK")
        assert _stored(home) == []
        assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
        assert len(_stored(home)) == 1
    finally:
        holder.close()
        app.close()


def test_the_stored_sets_are_bounded(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The home keeps the most recently stored sets only."""
    monkeypatch.setattr(sqlite_index, "SCOPE_LANGUAGES_KEPT", 2)
    app = Ragox(home)
    try:
        for n in range(5):
            reader = Principal(f"r{n}", groups=frozenset({"staff", f"team{n}"}))
            assert app.store.index.languages(scope_of(reader)) == {"en", "ru"}
    finally:
        app.close()
    assert len(_stored(home)) == 2


def test_a_restored_scope_evicts_no_other(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound counts rows, not rowids: one scope's set stored again and again (a
    write it can see before each search) leaves the other scope's set in place."""
    monkeypatch.setattr(sqlite_index, "SCOPE_LANGUAGES_KEPT", 2)
    app = Ragox(home)
    try:
        assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
        for n in range(4):
            _ingest(app, f"eng-{n}", {"eng"}, "de")
            assert app.store.index.languages(scope_of(ENG)) == {"de", "ru"}
    finally:
        app.close()
    assert sorted(json.loads(languages) for _, _, languages in _stored(home)) == [
        ["de", "ru"],
        ["en", "ru"],
    ]


def _write_after_first_generation_read(
    monkeypatch: pytest.MonkeyPatch, write: Callable[[], None]
) -> None:
    """Run ``write`` (another connection's commit) right after the next read of a
    scope's generations, once."""
    original = sqlite_index.SqliteIndex.scope_generation
    fired: list[bool] = []

    def generation_then_write(
        self: sqlite_index.SqliteIndex, scope: Scope
    ) -> tuple[tuple[int, int], ...]:
        found = original(self, scope)
        if not fired:
            fired.append(True)
            write()
        return found

    monkeypatch.setattr(sqlite_index.SqliteIndex, "scope_generation", generation_then_write)


def test_a_write_between_the_reads_never_leaves_a_stored_set_that_comes_back(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's German document for a new partition of staff's commits just
    after a search read staff's generations, and is deleted later (its partition is
    pruned, staff's generations are again those read): a later process must not find
    German in the home's stored set (red-team, 9e13c17)."""
    writer = Ragox(home)
    app = Ragox(home)
    try:
        _write_after_first_generation_read(
            monkeypatch, lambda: _ingest(writer, "de-doc", {"staff", "de"}, "de")
        )
        assert app.store.index.languages(scope_of(STAFF)) in ({"en", "ru"}, {"en", "de", "ru"})
        monkeypatch.undo()
        assert writer.delete("de-doc")
    finally:
        writer.close()
        app.close()
    later = Ragox(home)
    try:
        assert later.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
    finally:
        later.close()


def test_a_write_between_the_reads_never_leaves_a_cached_set_that_comes_back(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same interleaving in a searcher's own cache of the set."""
    writer = Ragox(home)
    app = Ragox(home)
    try:
        _write_after_first_generation_read(
            monkeypatch, lambda: _ingest(writer, "de-doc", {"staff", "de"}, "de")
        )
        assert app.searcher().languages(STAFF) in ({"en", "ru"}, {"en", "de", "ru"})
        monkeypatch.undo()
        assert writer.delete("de-doc")
        assert app.searcher().languages(STAFF) == {"en", "ru"}
    finally:
        writer.close()
        app.close()


def test_inside_a_write_transaction_nothing_is_stored(home: Path) -> None:
    """Inside a caller's transaction (writes that may be rolled back) the set is read,
    never stored."""
    app = Ragox(home)
    try:
        with app.store.transaction():  # type: ignore[attr-defined]
            assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
        assert _stored(home) == []
    finally:
        app.close()


def test_schema_31_home_gets_the_table(home: Path, tmp_path: Path) -> None:
    """A home of schema 31 opens as the current schema with an empty table, then keeps
    the sets like a new home; migration 32 run again keeps them."""
    assert SCHEMA_VERSION >= 32
    old = tmp_path / "old"
    shutil.copytree(home, old)
    drop_to_schema(old / "ragox.db", "scope_languages", 31)
    app = Ragox(old)
    try:
        assert app.store.schema_version() == SCHEMA_VERSION
        assert _stored(old) == []
        assert app.store.index.languages(scope_of(ENG)) == {"de", "ru"}
    finally:
        app.close()
    kept = _stored(old)
    assert len(kept) == 1
    with sqlite3.connect(old / "ragox.db") as conn:
        conn.execute("UPDATE meta SET value = '31' WHERE key = 'schema_version'")
    Ragox(old).close()
    assert _stored(old) == kept


def test_concurrent_readers_agree(home: Path) -> None:
    """Readers of several threads, storing at once, all get their scope's set."""
    app = Ragox(home)
    found: list[set[str | None]] = []
    lock = threading.Lock()

    def read(principal: Principal) -> None:
        for _ in range(10):
            languages = app.store.index.languages(scope_of(principal))
            with lock:
                found.append(languages)

    threads = [threading.Thread(target=read, args=(p,)) for p in (STAFF, ENG, STAFF, ENG)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        app.close()
    assert len(found) == 40
    assert all(languages in ({"en", "ru"}, {"de", "ru"}) for languages in found)
