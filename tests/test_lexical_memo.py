"""The SQLite index's memo of match counts, posting lists and totals (issue 15) is
kept per permission scope and per partition generation (schema 27): it never hands
one scope what another's partitions hold, never serves a count from before a
write (a new revision, a deletion, a group change, made by this process or
another), and a write to a partition a reader cannot read leaves that reader's
memo as warm as it was.

Every check compares with what the same query gives with the memo empty, so a
memo that served the wrong entry differs from the store itself.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import copy_lexical_partitions, older_database
from ragox.access import Principal
from ragox.search import SearchMode, analyze_query, fts_match, scope_of
from ragox.service import Ragox
from ragox.store import SCHEMA_VERSION
from ragox.store.sqlite._memo import (
    MEMO_DEFAULT_MIB,
    MEMO_SCOPES,
    MEMO_VARIABLE,
    ScopeMemo,
    StatisticsMemo,
    memo_budget,
)

# Each reader's scope spans two partitions (its own group's and the shared one), so
# its lexical ranking goes through the cross-partition path that reads the memo.
STAFF = Principal("sam", groups=frozenset({"staff"}))
ENG = Principal("eve", groups=frozenset({"eng"}))
READERS = (STAFF, ENG)
QUESTIONS = ("valve pressure", "pump seal budget", "seal", "valve pump")
TERMS = ["valv", "pump", "seal", "pressur", "budget"]


def _ingest(app: Ragox, doc: str, text: str, groups: set[str], revision: str | None = None) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(),
        f"{doc}.txt",
        doc,
        revision=revision,
        groups=frozenset(groups),
        tenant="default",
        language="en",
    )
    assert outcome.state.value == "READY"


def _home(app: Ragox) -> None:
    """Staff-only, eng-only and shared documents with different counts of each word."""
    _ingest(app, "shared", "The valve and the pump share one seal.", {"staff", "eng"})
    _ingest(app, "staff-a", "Valve valve valve pressure. The valve is old.", {"staff"})
    _ingest(app, "staff-b", "Budget for the valve seal. Pressure rises.", {"staff"})
    _ingest(app, "eng-a", "Pump pump. The pump seal leaks under pressure.", {"eng"})
    _ingest(app, "eng-b", "Seal seal seal. A budget pump.", {"eng"})


def _observe(app: Ragox, principal: Principal) -> tuple[object, ...]:
    """Hits with scores for every question, and the term statistics, as the reader."""
    hits = [
        [
            (h.document_id, h.start, h.end, h.score)
            for h in app.search(q, principal, SearchMode.LEXICAL)
        ]
        for q in QUESTIONS
    ]
    return hits, app.store.index.term_statistics(scope_of(principal), TERMS)


def _truth(app: Ragox, principal: Principal) -> tuple[object, ...]:
    """What the store gives the reader with no memo at all (put back afterwards)."""
    kept = app.store.index.memo
    app.store.index.memo = StatisticsMemo()
    try:
        return _observe(app, principal)
    finally:
        app.store.index.memo = kept


def _check_all(app: Ragox) -> None:
    """Each reader, memo warm (asked twice), sees exactly what an empty memo gives."""
    for principal in READERS:
        _observe(app, principal)
        assert _observe(app, principal) == _truth(app, principal), principal.name


def _memo(app: Ragox, principal: Principal) -> ScopeMemo:
    return app.store.index.memo.of(scope_of(principal))


def _partition_ids(app: Ragox, principal: Principal) -> set[int]:
    rows = app.store._connection().execute("SELECT partition_id, groups FROM lexical_partitions")
    return {int(p) for p, g in rows if set(json.loads(g)) & principal.groups}


def test_each_scope_memo_holds_only_its_partitions_and_its_own_answers(app: Ragox) -> None:
    """Two readers whose scopes share a partition, asking in turns: each gets what an
    empty memo gives it (not the other's counts), and each scope's memo holds entries
    of its own partitions only."""
    _home(app)
    assert _observe(app, STAFF) != _observe(app, ENG)  # the scopes do differ
    for _ in range(2):
        _check_all(app)
    for principal in READERS:
        memo = _memo(app, principal)
        kept = {partition for partition, _, _ in memo._entries}
        assert kept and kept <= _partition_ids(app, principal), principal.name
        assert any(key[2] == ("count", '"valv"') for key in memo._entries)


def test_no_stale_counts_after_a_revision_a_deletion_or_a_group_change(app: Ragox) -> None:
    """After each kind of write, made by this process's store, each reader's warm memo
    gives what an empty memo gives."""
    _home(app)
    _check_all(app)
    _ingest(app, "staff-a", "Pump pump pump pump. No valve here.", {"staff"}, revision="v2")
    _check_all(app)
    assert app.delete("eng-b")
    _check_all(app)
    app.set_groups("staff-b", frozenset({"eng"}))  # moves from staff's partition to eng's
    _check_all(app)
    app.set_groups("shared", frozenset({"staff"}))  # the shared partition is dropped
    _check_all(app)
    app.set_groups("shared", frozenset({"staff", "eng"}))  # and made again
    _check_all(app)


def test_no_stale_counts_after_another_process_writes(app: Ragox, home: Path) -> None:
    """A write through another store on the same home (a worker, the CLI) reaches this
    process's warm memo through the partitions' generations in the database."""
    _home(app)
    _check_all(app)
    writer = Ragox(home)
    try:
        _ingest(writer, "eng-a", "Valve valve seal budget budget.", {"eng"}, revision="v2")
        _ingest(writer, "staff-c", "Valve pressure pressure pump.", {"staff"})
    finally:
        writer.close()
    _check_all(app)


@contextmanager
def _statements(app: Ragox) -> Iterator[list[str]]:
    conn = app.store._connection()
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


def test_a_write_the_reader_cannot_see_leaves_its_memo_warm(app: Ragox) -> None:
    """A document in a group the reader lacks changes no generation of its partitions:
    the index's warm lexical queries and term statistics run the same statements (no
    posting list or count read again); a write to its own partition does make it read
    again."""
    _home(app)
    scope = scope_of(STAFF)
    matches = [fts_match(analyze_query(q, ["en"])) for q in QUESTIONS]

    def ask() -> list[object]:
        found: list[object] = [app.store.index.lexical(str(m), scope, 10) for m in matches]
        return [*found, app.store.index.term_statistics(scope, TERMS)]

    ask()
    with _statements(app) as warm:
        seen = ask()
    _ingest(app, "eng-c", "Valve pump seal pressure budget valve.", {"eng"})
    with _statements(app) as after_hidden:
        assert ask() == seen
    assert after_hidden == warm
    assert not any("_instances" in s or "COUNT(*)" in s for s in warm)
    _ingest(app, "staff-c", "Valve pump seal pressure budget valve.", {"staff"})
    with _statements(app) as after_own:
        assert ask() != seen
    assert after_own != warm


def test_scope_memo_keeps_its_budget_and_forgets_older_generations() -> None:
    """A scope's memo stays within its bytes, dropping the least recently used, and a
    partition seen at a new generation loses its older entries."""
    memo = StatisticsMemo(scopes=2, budget=1000)
    one = memo.of(scope_of(STAFF))
    one.put(1, 5, "a", "A", 300)
    one.put(1, 5, "b", "B", 300)
    assert one.get(1, 5, "a") == "A"  # now the most recently used
    one.put(2, 9, "c", "C", 300)
    assert one.get(1, 5, "b") is None and one.get(1, 5, "a") == "A"
    assert one.get(2, 9, "c") == "C"
    assert one.get(1, 6, "a") is None  # partition 1 changed
    assert one.get(1, 5, "a") is None  # and its older entries are gone
    other = memo.of(scope_of(ENG))
    other.put(1, 5, "a", "theirs", 10)
    assert memo.of(scope_of(STAFF)).get(2, 9, "c") == "C"  # never evicted by ENG
    memo.of(scope_of(Principal("x", groups=frozenset({"ops"}))))
    assert memo.of(scope_of(ENG)).get(1, 5, "a") is None  # three scopes: the oldest went


def test_schema_26_home_gets_partition_generations(tmp_path: Path) -> None:
    """A home of schema 26 (partitions without generations) opens as the current
    schema: every partition has a generation, readers find what they found, and the
    next write gives the partition it touches a new, larger generation."""
    assert SCHEMA_VERSION >= 27
    build = tmp_path / "build"
    app = Ragox(build)
    _home(app)
    expected = {p.name: _observe(app, p) for p in READERS}
    app.close()
    home = tmp_path / "old"
    home.mkdir()
    with older_database(build / "ragox.db", home / "ragox.db", 26) as old:
        copy_lexical_partitions(old)
    with sqlite3.connect(home / "ragox.db") as conn:
        columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(lexical_partitions)")]
        assert "generation" not in columns
    for name in ("blobs", "keys"):
        shutil.copytree(build / name, home / name)
    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        conn = upgraded.store._connection()
        before = dict(conn.execute("SELECT groups, generation FROM lexical_partitions"))
        assert set(before.values()) == {0}
        for principal in READERS:
            assert _observe(upgraded, principal) == expected[principal.name]
        _ingest(upgraded, "staff-c", "Valve pump.", {"staff"})
        after = dict(conn.execute("SELECT groups, generation FROM lexical_partitions"))
        assert after['["staff"]'] > 0
        assert after['["eng"]'] == before['["eng"]']
        _check_all(upgraded)
    finally:
        upgraded.close()


def test_no_stale_counts_after_a_documents_own_sweep(app: Ragox) -> None:
    """Words of a document's chunks that no lexical row accounts for (what a killed run
    of an older version could leave) count until the document's own sweep
    (``remove_orphans_of``, run by delete and retry) removes them; a warm memo then
    gives what an empty memo gives (the sweep's FTS deletions change the partition's
    generation too)."""
    _home(app)
    revision = app.store.get_revision("default", "eng-a", "r1")
    assert revision is not None and revision.manifest_id is not None
    with app.store.transaction() as conn:
        conn.execute("DELETE FROM lexical_rows WHERE manifest_id = ?", (revision.manifest_id,))
    app.store.index.memo = StatisticsMemo()  # the edit above bypassed the index
    _check_all(app)  # warm, the leftover words counted
    with app.store.transaction() as conn:
        assert app.store.index.remove_orphans_of(conn, "default", "eng-a") > 0
    _check_all(app)


@pytest.mark.parametrize(("setting", "per_scope"), [("", 16 << 20), ("32", 2 << 20), ("0", 0)])
def test_memo_size_follows_its_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, per_scope: int
) -> None:
    """``RAGOX_LEXICAL_MEMO_MB`` sizes the whole memo (256 MiB unset), split equally
    among the scopes it keeps; each scope's memo stays within its share, ``0`` keeps
    nothing, and the answers are the same whatever the size."""
    monkeypatch.setenv(MEMO_VARIABLE, setting)
    app = Ragox(tmp_path / "home")
    try:
        _home(app)
        assert _memo(app, STAFF)._budget == per_scope
        for principal in READERS:
            assert _observe(app, principal) == _observe(app, principal)
            memo = _memo(app, principal)
            assert memo._bytes <= per_scope
            assert bool(memo._entries) == (per_scope > 0)
        monkeypatch.setenv(MEMO_VARIABLE, "")
        _check_all(app)
    finally:
        app.close()


def test_memo_budget_reads_the_setting_or_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole number of MiB is split among the memo's scopes; anything else (a
    negative number, a unit) leaves the default."""
    for setting, expected in (("16", 1 << 20), ("-5", 16 << 20), ("64MB", 16 << 20)):
        monkeypatch.setenv(MEMO_VARIABLE, setting)
        assert memo_budget() == expected, setting
    monkeypatch.delenv(MEMO_VARIABLE)
    assert memo_budget() == (MEMO_DEFAULT_MIB << 20) // MEMO_SCOPES
