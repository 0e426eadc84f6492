"""Versioned processing and ``ragox reprocess`` (issue 13, items 2-4).

A parser upgrade is simulated by registering a "plain-text@2" extractor that joins
hyphenated line ends before it decodes (a changed cleanup rule of the
representation); an index-stage upgrade by changing a stage's version constant.
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

import ragox.extract
import ragox.search
from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import OPERATOR, index_class, run_ragox, serving, store_class, store_sql
from ragox.access import Principal
from ragox.anchor import ResolutionStatus
from ragox.extract import Extraction, ExtractOptions, ParserInfo
from ragox.extract.plain import extract_plain_text
from ragox.ingest import ChunkingConfig, Reprocessor, SearchText, _pipeline, _searchtext
from ragox.service import Ragox
from ragox.store import ChunkRecord, StoredAnchor, StoreError
from ragox.store.sqlite._schema import MIGRATIONS
from ragox.text import Profile

pytestmark = pytest.mark.both_backends

TENANT = "default"
DOC = "manual.txt"
STAFF = Principal("sam", groups=frozenset({"staff"}))

MANUAL = (
    "Zeta calibration stands alone in this manual.\n"
    "\n"
    "The gam-\nma ray is measured here.\n"
    "\n"
    "The gamma ray is measured here.\n"
)
LONG = "\n\n".join(
    f"Paragraph {n} tells of widget number {n} and its careful assembly in many words "
    f"so that a chunk holds more than a handful of tokens, number {n}."
    for n in range(12)
)
UPGRADED = ParserInfo(
    "plain-text", "2", {"blocks": "blank-line-paragraphs", "join": "hyphenated-line-ends"}
)


def _upgraded_plain_text(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """The simulated new parser: hyphenated line ends are joined ("gam-\\nma" → "gamma")."""
    extraction = extract_plain_text(data.replace(b"-\n", b""), profile, options)
    return dataclasses.replace(extraction, parser=UPGRADED)


@pytest.fixture
def upgrade(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Calling it installs the upgraded plain-text parser."""

    def install() -> None:
        monkeypatch.setitem(
            ragox.extract._EXTRACTORS, "text/plain", (UPGRADED, _upgraded_plain_text)
        )

    return install


def _ingest(app: Ragox, tmp_path: Path) -> None:
    path = tmp_path / DOC
    path.write_text(MANUAL, encoding="utf-8")
    item = app.ingest_path(path, tmp_path, groups=frozenset({"staff"}))
    assert item.ready


def _anchor(app: Ragox, needle: str, occurrence: int = 0) -> StoredAnchor:
    text = app.text(DOC, OPERATOR)
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    made = app.create_anchor(DOC, start, start + len(needle), OPERATOR)
    assert isinstance(made, StoredAnchor)
    return made


def _anchors(app: Ragox) -> dict[str, StoredAnchor]:
    """One anchor per expected outcome of the upgrade."""
    return {
        # occurs once, with its context, in the new text as in the old
        "MIGRATED": _anchor(app, "Zeta calibration"),
        # the hyphenated word is gone from the new text
        "NOT_FOUND": _anchor(app, "gam-\nma"),
        # "ray" is found, but not after "\nma " (its context)
        "CONTEXT_CHANGED": _anchor(app, "ray", 0),
        # the second paragraph: once the first is joined, both read the same
        "AMBIGUOUS": _anchor(app, "measured", 1),
    }


def _counts(home: Path) -> dict[str, int]:
    return {
        table: int(store_sql(home, f"SELECT COUNT(*) FROM {table}")[0][0])
        for table in ("manifests", "anchors", "anchor_links", "chunks", "search_texts")
    }


def test_fresh_ingest_records_versions_and_is_not_stale(app: Ragox, tmp_path: Path) -> None:
    """A fresh ingest records every stage version on its rows; status lists no stale stage."""
    _ingest(app, tmp_path)
    record = app.store.get_revision(TENANT, DOC, "r1")
    assert record is not None and record.manifest_id is not None
    versions = app.store.index_versions(record.manifest_id)
    assert versions is not None
    assert versions.cleaner == _searchtext.CLEANER_VERSION
    assert versions.analyzer == ragox.search.ANALYZER_VERSION
    assert versions.chunker and versions.splitter
    chunk_versions = set(store_sql(app.home, "SELECT chunker, splitter FROM chunks"))
    assert chunk_versions == {(versions.chunker, versions.splitter)}
    assert [r.stale for r in app.status(DOC, OPERATOR).revisions] == [()]


@pytest.mark.parametrize(
    ("constant", "stage"),
    [
        ("ragox.ingest._searchtext.CLEANER_VERSION", "CLEANER"),
        ("ragox.ingest._sentences.SPLITTER_VERSION", "SPLITTER"),
        ("ragox.ingest._chunker.CHUNKER_VERSION", "CHUNKER"),
        ("ragox.search.ANALYZER_VERSION", "ANALYZER"),
    ],
)
def test_a_changed_stage_version_makes_the_revision_stale_until_reprocessed(
    app: Ragox,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    constant: str,
    stage: str,
) -> None:
    """Bumping one stage's version shows that stage stale in status (and --json);
    reprocess rebuilds the index on the same representation, anchors untouched."""
    _ingest(app, tmp_path)
    kept = _anchor(app, "Zeta calibration")
    before = _counts(home)
    monkeypatch.setattr(constant, "v-next")
    assert [s.value for s in app.status(DOC, OPERATOR).revisions[0].stale] == [stage]
    shown = json.loads(run_ragox(home, "status", DOC, "--json").stdout)
    assert shown["revisions"][0]["stale_stages"] == [stage]
    assert f"stale: {stage}" in run_ragox(home, "status", DOC).stdout

    result = run_ragox(home, "reprocess", "--json")
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    [rebuilt] = report["revisions"]
    assert rebuilt["state"] == "REBUILT" and rebuilt["stale_stages"] == [stage]
    assert rebuilt["new_manifest_id"] == rebuilt["old_manifest_id"]
    assert rebuilt["anchors"] == []
    assert app.status(DOC, OPERATOR).revisions[0].stale == ()
    assert _counts(home) == before  # nothing duplicated
    resolved = app.resolve(kept.anchor, OPERATOR)
    assert resolved.status is ResolutionStatus.RESOLVED and resolved.current
    assert app.search("calibration", OPERATOR)
    assert json.loads(run_ragox(home, "reprocess", "--json").stdout)["revisions"] == []


def test_parser_upgrade_dry_run_then_reprocess_migrates_exactly_the_unique_quotes(
    app: Ragox, home: Path, tmp_path: Path, upgrade, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parser upgrade: --dry-run reports the split and writes nothing; reprocess migrates
    exactly those anchors (linked, old kept and still resolving, not current), and
    search sees the old index whole until the switch and only new chunks after it."""
    _ingest(app, tmp_path)
    anchors = _anchors(app)
    record = app.store.get_revision(TENANT, DOC, "r1")
    assert record is not None and record.manifest_id is not None
    old_manifest = record.manifest_id
    old_chunks = {c.chunk_id for c in app.store.chunks(old_manifest)}
    before = _counts(home)
    upgrade()
    assert [s.value for s in app.status(DOC, OPERATOR).revisions[0].stale] == ["PARSER"]

    dry = run_ragox(home, "reprocess", "--dry-run", "--json")
    assert dry.code == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["dry_run"] is True
    outcomes = {a["anchor_id"]: a["outcome"] for a in report["revisions"][0]["anchors"]}
    assert outcomes == {stored.anchor.anchor_id: name for name, stored in anchors.items()}
    expected = {"MIGRATED": 1, "NOT_FOUND": 1, "CONTEXT_CHANGED": 1, "AMBIGUOUS": 1}
    assert report["documents"] == {DOC: expected}
    assert _counts(home) == before
    again = app.store.get_revision(TENANT, DOC, "r1")
    assert again is not None and again.manifest_id == old_manifest
    text = run_ragox(home, "reprocess", "--dry-run").stdout
    assert "review: 3" in text and "MIGRATED 1" in text

    # A reader during the switching transaction sees the old index, whole.
    seen: list[set[str]] = []
    index = index_class()
    original = index.write_lexical_rows

    def write_while_reading(self: Any, *args: object, **kwargs: object) -> None:
        def read() -> None:  # its own connection (they are per thread)
            seen.append({h.chunk_id for h in app.search("calibration gamma", OPERATOR)})
            app.store.close()

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index, "write_lexical_rows", write_while_reading)
    done = run_ragox(home, "reprocess", "--json")
    monkeypatch.setattr(index, "write_lexical_rows", original)
    assert done.code == 0, done.stderr
    rebuilt = json.loads(done.stdout)
    assert rebuilt["documents"] == {DOC: expected}
    [revision] = rebuilt["revisions"]
    assert revision["state"] == "REBUILT"
    new_manifest = revision["new_manifest_id"]
    assert new_manifest not in (None, old_manifest)
    assert seen and seen[0] and seen[0] <= old_chunks

    # Exactly the MIGRATED anchor has a successor; all old anchors are kept.
    for name, stored in anchors.items():
        successors = app.store.anchor_successors(TENANT, stored.anchor.anchor_id)
        assert len(successors) == (1 if name == "MIGRATED" else 0), name
        old = app.resolve(stored.anchor, OPERATOR)
        assert old.status is ResolutionStatus.RESOLVED and old.current is False, name
        assert old.manifest_id == old_manifest
    [successor_id] = app.store.anchor_successors(TENANT, anchors["MIGRATED"].anchor.anchor_id)
    successor = app.store.get_anchor(TENANT, successor_id)
    assert successor is not None and successor.manifest_id == new_manifest
    fresh = app.resolve(successor.anchor, OPERATOR)
    assert fresh.status is ResolutionStatus.RESOLVED and fresh.current
    assert fresh.exact == "Zeta calibration"

    new_chunks = {c.chunk_id for c in app.store.chunks(new_manifest)}
    hits = app.search("calibration gamma", OPERATOR)
    assert hits and {h.chunk_id for h in hits} <= new_chunks
    assert not new_chunks & old_chunks
    assert app.store.index_complete(TENANT, DOC, "r1")
    assert "gam-\nma" not in app.text(DOC, OPERATOR)
    assert app.status(DOC, OPERATOR).revisions[0].stale == ()
    after = _counts(home)
    assert after["manifests"] == before["manifests"] + 1
    assert after["anchors"] == before["anchors"] + 1
    assert after["anchor_links"] == 1
    # The report is kept: the anchors left for review can be listed later.
    history = json.loads(run_ragox(home, "reprocess", "--history", "--json").stdout)
    [kept] = history["reports"]
    assert kept["report_id"] == rebuilt["report_id"] and kept["documents"] == {DOC: expected}
    review = {a["anchor_id"] for a in kept["revisions"][0]["anchors"] if a["needs_review"]}
    assert review == {s.anchor.anchor_id for n, s in anchors.items() if n != "MIGRATED"}
    assert "gam" not in json.dumps(kept)  # ids and outcomes, never document text
    [line] = run_ragox(home, "reprocess", "--history").stdout.splitlines()
    tally = ", ".join(f"{state} {n}" for state, n in expected.items())
    assert line.endswith(f"  {DOC} ({tally})")  # before: a Python dict


def test_migrated_citation_names_both_revisions_on_replay(
    app: Ragox, home: Path, tmp_path: Path, upgrade
) -> None:
    """An answer whose citation was migrated says so on replay (CLI and API), with the
    identities of both representations; the API names an old anchor's successor."""
    _ingest(app, tmp_path)
    record = app.ask("What stands alone in this manual?", STAFF)
    assert record.citations and not record.abstained
    cited = record.citations[0].anchor
    assert "Zeta" in cited.quote.exact
    key = app.create_key(STAFF)
    upgrade()
    report = app.reprocess()
    outcomes = {a.anchor_id: a.outcome.value for r in report.rebuilds for a in r.anchors}
    assert outcomes[cited.anchor_id] == "MIGRATED"

    shown = run_ragox(
        home,
        "answer",
        "show",
        record.answer_id,
        "--principal",
        "sam",
        "--groups",
        "staff",
        "--json",
    )
    assert shown.code == 0, shown.stderr
    citation = json.loads(shown.stdout)["citations"][0]
    migrated = citation["migrated"]
    assert migrated["from"]["parser"] == "plain-text@1"
    assert migrated["to"]["parser"] == "plain-text@2"
    assert migrated["from"]["anchor_id"] == cited.anchor_id
    assert migrated["from"]["manifest_id"] != migrated["to"]["manifest_id"]
    assert migrated["from"]["revision"] == migrated["to"]["revision"] == "r1"
    assert (
        "migrated:"
        in run_ragox(
            home, "answer", "show", record.answer_id, "--principal", "sam", "--groups", "staff"
        ).stdout
    )
    # A reader outside the document's groups learns nothing about the migration.
    outsider = run_ragox(
        home, "answer", "show", record.answer_id, "--principal", "oz", "--groups", "x", "--json"
    )
    assert "migrated" not in outsider.stdout

    with serving(home) as url:
        headers = {"Authorization": f"Bearer {key}"}
        body = httpx.get(f"{url}/v1/answers/{record.answer_id}", headers=headers).json()
        assert body["citations"][0]["migrated"] == migrated
        anchor = httpx.get(f"{url}/v1/anchors/{cited.anchor_id}", headers=headers).json()
        assert anchor["status"] == "RESOLVED" and anchor["current"] is False
        assert anchor["successor"] == migrated["to"]
        # The old anchor's representation stays readable for the viewer; another
        # document's manifest id is not.
        text_url = f"{url}/v1/documents/{DOC}/revisions/r1/text"
        old_text = httpx.get(
            text_url, params={"manifest_id": migrated["from"]["manifest_id"]}, headers=headers
        ).json()
        assert "gam-\nma" in old_text["text"]
        assert "gam-\nma" not in httpx.get(text_url, headers=headers).json()["text"]
        other = httpx.get(text_url, params={"manifest_id": "0" * 64}, headers=headers)
        assert other.status_code == 404


def test_a_changed_chunker_switches_the_served_chunks_in_one_transaction(
    app: Ragox, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunker upgrade re-cuts the chunks of the representation the revision serves:
    a reader during the switch still finds the old chunks, after it only the new."""
    path = tmp_path / DOC
    path.write_text(LONG, encoding="utf-8")
    assert app.ingest_path(path, tmp_path).ready
    record = app.store.get_revision(TENANT, DOC, "r1")
    assert record is not None and record.manifest_id is not None
    old_chunks = {c.chunk_id for c in app.store.chunks(record.manifest_id)}
    small = ChunkingConfig(
        target_tokens=8, max_tokens=12, small_tokens=2, tiny_tokens=1, overlap_tokens=0
    )
    original_chunker = _pipeline.search_text_and_chunks

    def chunk_small(*args: Any, **kwargs: Any) -> tuple[SearchText, list[ChunkRecord]]:
        return original_chunker(*args, **{**kwargs, "config": small})

    monkeypatch.setattr(_pipeline, "search_text_and_chunks", chunk_small)
    monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@small")
    seen: list[set[str]] = []
    index = index_class()
    original = index.write_lexical_rows

    def write_while_reading(self: Any, *args: Any, **kwargs: Any) -> None:
        def read() -> None:
            seen.append({h.chunk_id for h in app.search("paragraph", OPERATOR)})
            app.store.close()

        thread = threading.Thread(target=read)
        thread.start()
        thread.join()
        original(self, *args, **kwargs)

    monkeypatch.setattr(index, "write_lexical_rows", write_while_reading)
    [rebuilt] = app.reprocess().rebuilds
    monkeypatch.setattr(index, "write_lexical_rows", original)
    assert rebuilt.state.value == "REBUILT"
    assert rebuilt.new_manifest_id == record.manifest_id
    new_chunks = {c.chunk_id for c in app.store.chunks(record.manifest_id)}
    assert len(new_chunks) > len(old_chunks)
    assert seen and seen[0] and seen[0] <= old_chunks
    after = {h.chunk_id for h in app.search("paragraph", OPERATOR, limit=50)}
    assert after and after <= new_chunks
    assert app.store.index_complete(TENANT, DOC, "r1")


def _crashing_reprocess(home: str) -> None:
    """Child: install the upgrade, and die (no cleanup) just before the switch."""
    ragox.extract._EXTRACTORS["text/plain"] = (UPGRADED, _upgraded_plain_text)

    def die(*args: object, **kwargs: object) -> None:
        os._exit(17)

    store_class().commit_index = die
    Ragox(Path(home)).reprocess()
    os._exit(0)


def test_a_reprocess_that_died_resumes_without_duplicates(
    app: Ragox, home: Path, tmp_path: Path, upgrade
) -> None:
    """A reprocess killed after migrating anchors, before the switch: the old index
    still serves, status shows the dead job; the next run ends it and finishes with
    one new representation, one successor per migrated anchor, one row per chunk."""
    _ingest(app, tmp_path)
    anchors = _anchors(app)
    app.close()
    process = multiprocessing.get_context("fork").Process(
        target=_crashing_reprocess, args=(str(home),)
    )
    process.start()
    process.join(60)
    assert process.exitcode == 17

    app = Ragox(home)
    upgrade()
    row = app.status(DOC, OPERATOR).revisions[0]
    assert row.job is not None and row.job.liveness.value == "STALE"
    assert [s.value for s in row.stale] == ["PARSER"]
    assert app.search("calibration", OPERATOR)  # the old index serves, whole
    half = _counts(home)
    assert half["anchor_links"] == 1  # migrated before the switch

    report = app.reprocess()
    [rebuilt] = report.rebuilds
    assert rebuilt.state.value == "REBUILT"
    assert (
        report.by_document()[DOC][next(o for o in rebuilt.counts() if o.value == "MIGRATED")] == 1
    )
    after = _counts(home)
    assert after["manifests"] == half["manifests"]
    assert after["anchors"] == half["anchors"]
    assert after["anchor_links"] == 1
    assert app.store.index_complete(TENANT, DOC, "r1")
    states = [(j.state.value, j.error_code) for j in app.store.jobs(TENANT, DOC, "r1")]
    assert states == [("DONE", None), ("FAILED", "JOB_ABANDONED"), ("DONE", None)]
    migrated = anchors["MIGRATED"].anchor.anchor_id
    assert len(app.store.anchor_successors(TENANT, migrated)) == 1
    app.close()


def test_an_interrupted_reprocess_keeps_the_report_of_what_it_rebuilt(
    app: Ragox, home: Path, tmp_path: Path, upgrade, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run stopped (Ctrl-C) after rebuilding the first of two documents: the anchors
    it left for review are still listed by ``--history``, marked interrupted; the next
    run rebuilds the rest under a report of its own, complete."""
    _ingest(app, tmp_path)
    anchors = _anchors(app)
    other = tmp_path / "second.txt"
    other.write_text(MANUAL, encoding="utf-8")
    assert app.ingest_path(other, tmp_path, groups=frozenset({"staff"})).ready
    upgrade()
    original = Reprocessor._rebuild
    calls: list[str] = []

    def stopped_at_the_second(self: Reprocessor, record: Any, stale: Any) -> Any:
        calls.append(record.document_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(self, record, stale)

    monkeypatch.setattr(Reprocessor, "_rebuild", stopped_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        app.reprocess()
    monkeypatch.setattr(Reprocessor, "_rebuild", original)

    [kept] = app.reprocess_history()
    assert kept["complete"] is False
    [revision] = kept["revisions"]
    assert revision["document_id"] == calls[0] and revision["state"] == "REBUILT"
    if calls[0] == DOC:
        review = {a["anchor_id"] for a in revision["anchors"] if a["needs_review"]}
        assert review == {s.anchor.anchor_id for n, s in anchors.items() if n != "MIGRATED"}
    else:
        assert revision["anchors"] == []
    [line] = run_ragox(home, "reprocess", "--history").stdout.splitlines()
    assert line.endswith("(incomplete: stopped, or still running)")

    report = app.reprocess()
    assert [r.document_id for r in report.rebuilds] == [calls[1]]
    newest, first = app.reprocess_history()
    assert newest["report_id"] == report.report_id and newest["complete"] is True
    assert first["report_id"] == kept["report_id"] and first == kept


@pytest.mark.sqlite_only  # an older SQLite home
def test_an_older_home_migrates_and_shows_its_index_stages_stale(
    home: Path, tmp_path: Path
) -> None:
    """A home from before schema 17 opens; its rows carry no versions, so every index
    stage shows stale until reprocess rebuilds them (and records today's versions)."""
    app = Ragox(home)
    _ingest(app, tmp_path)
    app.close()
    conn = sqlite3.connect(home / "ragox.db")
    # what schemas 31 and 30 added (30's triggers read the indexes of schema 28)
    for kind, name in conn.execute(
        "SELECT type, name FROM sqlite_master WHERE (name LIKE 'revision_facts%' "
        "OR name LIKE 'vector_counts%') AND type IN ('table', 'trigger')"
    ).fetchall():
        conn.execute(f"DROP {kind.upper()} {name}")
    # what schema 28 added (its index covers the columns dropped below)
    for index in ("search_texts_versions", "representations_facts", "revision_groups_by_group"):
        conn.execute(f"DROP INDEX {index}")
    conn.execute("DROP TRIGGER chunk_counts_insert")
    conn.execute("DROP TRIGGER chunk_counts_delete")
    conn.execute("DROP TABLE chunk_counts")
    for table, column in (
        ("search_texts", "cleaner"),
        ("search_texts", "splitter"),
        ("search_texts", "chunker"),
        ("search_texts", "analyzer"),
        ("chunks", "chunker"),
        ("chunks", "splitter"),
    ):
        conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute("DROP TABLE reprocess_reports")
    conn.execute("DROP INDEX anchors_by_manifest")
    # and what later schemas added (20: the job queue)
    conn.execute("DROP INDEX jobs_by_state")
    for column in ("worker", "lease_seconds", "lease_until", "attempts", "ocr"):  # 20, 26
        conn.execute(f"ALTER TABLE jobs DROP COLUMN {column}")
    conn.execute("ALTER TABLE blocks DROP COLUMN ocr")  # schema 22, after 17
    conn.execute("ALTER TABLE blocks DROP COLUMN cell")  # schema 23
    conn.execute("ALTER TABLE lexical_partitions DROP COLUMN generation")  # schema 27
    conn.execute("DELETE FROM settings WHERE key = 'lexical_generation'")
    # the schema just before 17 (later entries, if any, come after it)
    before = max(number for number, _ in MIGRATIONS if number < 17)
    conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(before),))
    conn.commit()
    conn.close()

    app = Ragox(home)
    assert app.store.schema_version() >= 17
    stale = [s.value for s in app.status(DOC, OPERATOR).revisions[0].stale]
    assert stale == ["CLEANER", "SPLITTER", "CHUNKER", "ANALYZER"]
    report = app.reprocess([DOC])
    assert [r.state.value for r in report.rebuilds] == ["REBUILT"]
    assert app.status(DOC, OPERATOR).revisions[0].stale == ()
    assert app.search("calibration", OPERATOR)
    app.close()


def test_reprocess_of_an_unknown_document_is_not_found(home: Path) -> None:
    """Naming a document that does not exist exits 1 with NOT_FOUND."""
    Ragox(home).close()  # a home (reprocess refuses a home that does not exist)
    result = run_ragox(home, "reprocess", "--documents", "nope", "--json")
    assert result.code == 1
    assert json.loads(result.stdout)["status"] == "NOT_FOUND"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_viewer_of_an_old_anchor_highlights_its_own_text_and_names_its_successor(
    app: Ragox, home: Path, tmp_path: Path, upgrade
) -> None:
    """In a real browser, an anchor made before a rebuild highlights its quote in the
    representation it resolves against (the old one) and links to its successor."""
    pytest.importorskip("playwright.sync_api")
    _ingest(app, tmp_path)
    anchors = _anchors(app)
    key = app.create_key(STAFF)
    upgrade()
    app.reprocess()
    [successor] = app.store.anchor_successors(TENANT, anchors["MIGRATED"].anchor.anchor_id)
    with serving(home) as url, chromium() as browser:
        context = browser.new_context(**VIEWPORTS["desktop"])
        page = context.new_page()
        for name, quote in (("MIGRATED", "Zeta calibration"), ("NOT_FOUND", "gam-\nma")):
            page.goto(f"{url}/view/anchors/{anchors[name].anchor.anchor_id}#key={key}")
            page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
            assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
            assert page.get_attribute("#ragox-viewer", "data-ragox-current") == "false"
            marks = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
            assert "".join(marks) == quote, name
            link = page.locator("#notice a")
            if name == "MIGRATED":
                assert link.get_attribute("data-ragox-successor") == successor
                assert "migrated" in page.inner_text("#notice")
            else:
                assert link.count() == 0
        context.close()


def test_a_long_reprocess_saves_its_report_now_and_then_and_a_failed_save_stops_nothing(
    app: Ragox, tmp_path: Path, upgrade, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each save writes the whole report: saved after every revision, a run of 3,000
    revisions spent minutes on it (a red team's count). It is saved at most every
    ``_REPORT_EVERY_S`` while the run goes on, and once at its end; a save that fails
    meanwhile (a busy database) stops no rebuild."""
    import ragox.service._ragox as service

    for number in range(4):
        path = tmp_path / f"doc{number}.txt"
        path.write_text(MANUAL, encoding="utf-8")
        assert app.ingest_path(path, tmp_path, groups=frozenset({"staff"})).ready
    upgrade()
    monkeypatch.setattr(service, "_REPORT_EVERY_S", 3600.0)
    saves: list[bool] = []
    original = type(app.store).save_reprocess_report

    def counted(self: Any, tenant: str, report_id: str, created: str, payload: Any) -> None:
        saves.append(bool(payload["complete"]))
        if len(saves) == 1:
            raise StoreError("database is locked")
        original(self, tenant, report_id, created, payload)

    monkeypatch.setattr(type(app.store), "save_reprocess_report", counted)
    report = app.reprocess()
    assert [r.state.value for r in report.rebuilds] == ["REBUILT"] * 4
    # the first revision's (failed), tried again after the next, then the whole
    assert saves == [False, False, True]
    [kept] = app.reprocess_history()
    assert kept["complete"] is True and len(kept["revisions"]) == 4
