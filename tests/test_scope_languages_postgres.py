"""A scope's languages kept in PostgreSQL between processes (issue 15; migration 9), as
SQLite keeps them (schema 32, tests/test_scope_languages.py): a `ragox search` process
finds the set its scope's last query stored instead of reading every representation the
scope may read, only while the scope's partitions keep their generations; the key names
no tenant or group, a locked row is not waited for, inside a caller's transaction
nothing is stored, and a database of schema 8 gets the table."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from conftest import PostgresServer
from ragox.access import Principal
from ragox.search import scope_of
from ragox.service import Ragox
from ragox.store._scope import Scope
from ragox.store.postgres import SCHEMA_VERSION as PG_SCHEMA_VERSION
from ragox.store.postgres import _index as postgres_index
from test_scope_languages import ENG, STAFF, _ingest, assert_stored_opaquely

OPS = Principal("olga", groups=frozenset({"ops"}))


def _stored(url: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT scope_key, generations, languages FROM scope_languages ORDER BY stored"
        ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def _set_stored(url: str, languages: list[str]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE scope_languages SET languages = %s", (json.dumps(languages),))


@pytest.fixture
def database(postgres_server: PostgresServer, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    url = postgres_server.fresh()
    home = tmp_path / "home"
    app = Ragox(home, store=url)
    try:
        _ingest(app, "staff-a", {"staff"}, "en")
        _ingest(app, "eng-a", {"eng"}, "de")
        _ingest(app, "shared", {"staff", "eng"}, "ru")
    finally:
        app.close()
    try:
        yield home, url
    finally:
        postgres_server.drop(url)


def test_a_scopes_languages_are_kept_until_what_it_reads_changes(
    database: tuple[Path, str],
) -> None:
    """The next process of the same scope reads the stored set (a marked set stored in
    its place comes back: nothing was computed), a write to a partition the scope reads
    makes it compute the set again, and a write the scope cannot see keeps another
    scope's stored set."""
    home, url = database
    app = Ragox(home, store=url)
    assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
    assert app.store.index.languages(scope_of(ENG)) == {"de", "ru"}
    app.close()
    assert len(_stored(url)) == 2
    _set_stored(url, ["xx"])
    app = Ragox(home, store=url)
    try:
        assert app.store.index.languages(scope_of(STAFF)) == {"xx"}
        _ingest(app, "staff-b", {"staff"}, "de")  # staff's partition changes, eng's not
        assert app.store.index.languages(scope_of(STAFF)) == {"en", "de", "ru"}
        assert app.store.index.languages(scope_of(ENG)) == {"xx"}
        app.set_groups("shared", frozenset({"staff"}))  # eng's partitions change
        assert app.store.index.languages(scope_of(ENG)) == {"de"}
        assert app.delete("staff-a")
        assert app.store.index.languages(scope_of(STAFF)) == {"de", "ru"}
    finally:
        app.close()


def test_searches_store_each_scopes_set_under_a_digest(database: tuple[Path, str]) -> None:
    """A reader's search stores its scope's set; the sets are apart per scope, and the
    key is a digest: no tenant or group name is written."""
    home, url = database
    app = Ragox(home, store=url)
    try:
        app.search("pump checked", STAFF)
        app.search("pump checked", ENG)
    finally:
        app.close()
    assert_stored_opaquely(_stored(url))


def test_the_stored_sets_are_bounded_by_the_newest(
    database: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most SCOPE_LANGUAGES_KEPT sets stay, the newest stored; a scope stored again
    is the newest and evicts the oldest, not another scope that was stored since."""
    home, url = database
    monkeypatch.setattr(postgres_index, "SCOPE_LANGUAGES_KEPT", 2)
    app = Ragox(home, store=url)
    try:
        index = app.store.index
        index.languages(scope_of(STAFF))
        index.languages(scope_of(ENG))
        index.languages(scope_of(OPS))  # staff's, the oldest, goes
        assert len(_stored(url)) == 2
        _ingest(app, "ops-a", {"ops"}, "en")  # ops' set is stored again, the newest
        assert index.languages(scope_of(OPS)) == {"en"}
        index.languages(scope_of(STAFF))  # eng's is the oldest now
        stored = {json.dumps(sorted(json.loads(row[2]))) for row in _stored(url)}
        assert stored == {'["en"]', '["en", "ru"]'}
    finally:
        app.close()


def test_a_locked_row_is_not_waited_for(database: tuple[Path, str]) -> None:
    """Another transaction holding the scope's row: the search computes its set and goes
    on at once, storing nothing."""
    home, url = database
    app = Ragox(home, store=url)
    try:
        app.store.index.languages(scope_of(STAFF))
        _ingest(app, "staff-b", {"staff"}, "de")  # the stored set is stale now
        before = _stored(url)
        found: list[set[str | None]] = []
        with psycopg.connect(url) as other:
            other.execute("SELECT * FROM scope_languages FOR UPDATE").fetchall()
            started = time.perf_counter()
            asking = threading.Thread(
                target=lambda: found.append(app.store.index.languages(scope_of(STAFF))),
                daemon=True,
            )
            asking.start()
            asking.join(timeout=10)  # waiting for the lock would hang here
            waited = time.perf_counter() - started
            other.rollback()
        asking.join(timeout=10)
        assert found == [{"en", "de", "ru"}] and waited < 5.0
        assert _stored(url) == before
    finally:
        app.close()


def test_a_locked_table_is_not_waited_for(database: tuple[Path, str]) -> None:
    """Another session holding the whole table (a TRUNCATE or LOCK TABLE left open,
    red-team): the search computes its set and goes on at once instead of waiting for
    it (storing waited at most 50 ms, reading the stored set without a bound)."""
    home, url = database
    app = Ragox(home, store=url)
    found: list[set[str | None]] = []
    try:
        with psycopg.connect(url) as other:
            other.execute("LOCK TABLE scope_languages IN ACCESS EXCLUSIVE MODE")
            started = time.perf_counter()
            asking = threading.Thread(
                target=lambda: found.append(app.store.index.languages(scope_of(STAFF))),
                daemon=True,
            )
            asking.start()
            asking.join(timeout=5)
            waited = time.perf_counter() - started
            other.rollback()
        asking.join(timeout=10)
        assert found == [{"en", "ru"}] and waited < 3.0
    finally:
        app.close()


def test_two_storers_at_once_keep_the_bound(
    database: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process stores a set (up to its commit) while this one stores its own
    (red-team): each trimmed the row the other's insert made the oldest, and one row
    more than the bound stayed. Storers take turns now: exactly the bound stays."""
    home, url = database
    kept = 4
    monkeypatch.setattr(postgres_index, "SCOPE_LANGUAGES_KEPT", kept)
    # long enough that the second storer waits for the first instead of giving up
    monkeypatch.setattr(postgres_index, "_LANGUAGES_LOCK_TIMEOUT", "10s")
    app = Ragox(home, store=url)
    try:
        index = app.store.index
        for n in range(kept):
            index.languages(Scope(operator=False, tenant="default", groups=(f"g{n}",)))
        assert len(_stored(url)) == kept
        with psycopg.connect(url) as other, psycopg.connect(url, autocommit=True) as watch:
            # the other process's _remember_languages, up to its commit
            other.execute(
                "SELECT pg_advisory_xact_lock(%s::bigint)", (postgres_index._LANGUAGES_LOCK,)
            )
            other.execute(
                "INSERT INTO scope_languages(scope_key, generations, languages) "
                "VALUES ('x', '', '[]') ON CONFLICT (scope_key) DO UPDATE SET "
                "stored = nextval('scope_languages_stored')"
            )
            other.execute(
                "DELETE FROM scope_languages WHERE stored < (SELECT stored FROM "
                "scope_languages ORDER BY stored DESC OFFSET %s LIMIT 1)",
                (kept - 1,),
            )
            late = threading.Thread(
                target=index.languages,
                args=(Scope(operator=False, tenant="default", groups=("late",)),),
            )
            late.start()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # until this process waits for the other
                row = watch.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                ).fetchone()
                if row and row[0]:
                    break
                time.sleep(0.005)
            other.commit()
            late.join(timeout=20)
        assert len(_stored(url)) == kept
    finally:
        app.close()


def test_inside_a_transaction_nothing_is_stored(database: tuple[Path, str]) -> None:
    """A caller's open transaction may yet be rolled back: the set is computed from what
    it sees and not stored."""
    home, url = database
    app = Ragox(home, store=url)
    try:
        with app.store.transaction():
            assert app.store.index.languages(scope_of(STAFF)) == {"en", "ru"}
        assert _stored(url) == []
    finally:
        app.close()


def test_concurrent_readers_agree(database: tuple[Path, str]) -> None:
    """Threads of one server asking for the languages of two scopes at once all get the
    right set, and one row per scope is stored."""
    home, url = database
    app = Ragox(home, store=url)
    found: list[set[str | None]] = []
    failures: list[BaseException] = []

    def ask(principal: Principal) -> None:
        try:
            for _ in range(5):
                found.append(app.store.index.languages(scope_of(principal)))
        except BaseException as error:
            failures.append(error)

    try:
        threads = [threading.Thread(target=ask, args=(p,)) for p in (STAFF, ENG) * 3]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        app.close()
    assert not failures
    assert all(one in ({"en", "ru"}, {"de", "ru"}) for one in found) and len(found) == 30
    assert len(_stored(url)) == 2


def test_a_schema_8_database_gets_the_table(database: tuple[Path, str]) -> None:
    """A database of schema 8 (no table) opens as the current schema, and stores sets."""
    home, url = database
    assert PG_SCHEMA_VERSION >= 9
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP TABLE scope_languages")
        conn.execute("DROP SEQUENCE scope_languages_stored")
        conn.execute("UPDATE ragox_schema SET value='8' WHERE key='schema_version'")
    app = Ragox(home, store=url)
    try:
        assert app.store.schema_version() == PG_SCHEMA_VERSION
        assert app.store.index.languages(scope_of(ENG)) == {"de", "ru"}
    finally:
        app.close()
    assert len(_stored(url)) == 1
