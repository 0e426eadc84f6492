"""``ragox status`` of a whole home in counts (issue 15): the summary counts exactly
what the listing of every document shows, after ingest, a failure, a queued upload, a
second revision, an upgrade that makes revisions stale, reprocess, an ACL change and
a delete; a failed or stale document is always in it; ``--all`` and ``--json`` keep
the listing; SQLite keeps the rows it reads in ``revision_facts`` (schema 30)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import drop_to_schema, run_ragox
from ragox.access import Principal
from ragox.service import Attention, DocumentStatus, Ragox, StatusSummary
from ragox.service._json import document_status_json, documents_json
from ragox.store import SCHEMA_VERSION

OPERATOR = Principal.local_operator()
STAFF = Principal("sam", groups=frozenset({"staff"}))
ENG = Principal("eve", groups=frozenset({"eng"}))
READERS = (OPERATOR, STAFF, ENG, Principal("nobody", groups=frozenset({"ops"})))
IN_PROGRESS = {"RECEIVED", "EXTRACTING", "EXTRACTED", "INDEXING"}


def _ingest(app: Ragox, doc: str, text: str, groups: set[str] | None = None) -> None:
    app.ingestor.ingest_bytes(
        text.encode(),
        f"{doc}.txt",
        doc,
        groups=frozenset(groups or {"staff"}),
        tenant="default",
    )


def _fill(app: Ragox, tmp_path: Path) -> None:
    """READY documents of two reader groups, a second revision, a refused file
    (FAILED) and an upload queued for a worker (RECEIVED, a QUEUED run)."""
    for n in range(6):
        groups = {"staff"} if n % 2 else {"eng"}
        _ingest(app, f"d{n}", f"Pump {n} is checked every Monday.\n\nValve {n}.\n", groups)
    _ingest(app, "d1", "A newer text of pump one.\n", {"staff"})
    app.ingestor.ingest_bytes(b"\x00\x01\x02 not text", "bad.txt", "bad", tenant="default")
    queued = tmp_path / "later.txt"
    queued.write_text("Queued for a worker.\n", encoding="utf-8")
    assert app.ingest_path(queued, tmp_path, queue=True).queued


def _from_listing(found: list[DocumentStatus], limit: int) -> dict[str, Any]:
    """The summary that the listing of every document implies."""
    states: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    reasons: dict[str, set[Attention]] = {}
    runs = Counter()
    stale = missing = with_missing = pages = 0
    for status in found:
        doc = status.document.document_id
        for row in status.revisions:
            state = row.revision.state.value
            states[state] += 1
            missing += row.vectors_missing or 0
            why: set[Attention] = set()
            if state == "FAILED":
                why.add(Attention.FAILED)
            elif state in IN_PROGRESS:
                if row.stuck:
                    runs["stuck"] += 1
                    why.add(Attention.STUCK)
                else:
                    job = row.job.job.state.value if row.job else None
                    runs["queued"] += job == "QUEUED"
                    runs["running"] += job == "RUNNING"
                    why.add(Attention.IN_PROGRESS)
            else:
                if row.vectors_missing:
                    with_missing += 1
                    why.add(Attention.VECTORS_MISSING)
                if row.notes.pages_without_text:
                    pages += 1
                    why.add(Attention.PAGES_WITHOUT_TEXT)
                if row.stale:
                    stale += 1
                    why.add(Attention.STALE)
                    stages.update(stage.value for stage in row.stale)
            reasons.setdefault(doc, set()).update(why)
    order = list(Attention)
    flagged = {doc: why for doc, why in reasons.items() if why}
    ranked = sorted(flagged, key=lambda d: (min(order.index(r) for r in flagged[d]), d))
    return {
        "documents": len(found),
        "revisions": dict(sorted(states.items())),
        "stale_revisions": stale,
        "stale_stages": dict(stages),
        "runs": (runs["queued"], runs["running"], runs["stuck"]),
        "pages_without_text": pages,
        "vectors": (missing, with_missing),
        "attention": {r: sum(r in why for why in flagged.values()) for r in order},
        "attention_documents": len(flagged),
        "shown": [(d, tuple(r for r in order if r in flagged[d])) for d in ranked[:limit]],
    }


def _seen(summary: StatusSummary) -> dict[str, Any]:
    return {
        "documents": summary.documents,
        "revisions": summary.revisions,
        "stale_revisions": summary.stale_revisions,
        "stale_stages": summary.stale_stages,
        "runs": (summary.queued, summary.running, summary.stuck),
        "pages_without_text": summary.pages_without_text,
        "vectors": (summary.vectors_missing or 0, summary.revisions_missing_vectors or 0),
        "attention": {r: summary.attention.get(r, 0) for r in Attention},
        "attention_documents": summary.attention_documents,
        "shown": [(s.document.document_id, reasons) for s, reasons in summary.shown],
    }


def _agrees(app: Ragox, limit: int = 3) -> StatusSummary:
    """For every reader: the summary equals what the listing implies, and the
    documents it shows are shown as the listing shows them."""
    summary = None
    for principal in READERS:
        found = app.documents(principal)
        summary = app.status_summary(principal, limit=limit)
        assert _seen(summary) == _from_listing(found, limit), principal.name
        listed = {s.document.document_id: s for s in found}
        for status, _ in summary.shown:
            assert _json(status) == _json(listed[status.document.document_id])
    assert summary is not None
    return app.status_summary(OPERATOR, limit=limit)


def _json(status: DocumentStatus) -> dict[str, Any]:
    data = document_status_json(status)
    for revision in data["revisions"]:
        if revision["job"] is not None:  # the clock moves on
            del revision["job"]["age_seconds"], revision["job"]["heartbeat_age_seconds"]
    return data


@pytest.mark.both_backends
def test_summary_counts_what_the_listing_shows_after_every_write(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(app, tmp_path)
    first = _agrees(app)
    assert first.documents == 8 and first.revisions["READY"] == 7
    assert first.revisions == {"FAILED": 1, "READY": 7, "RECEIVED": 1}
    assert first.attention == {Attention.FAILED: 1, Attention.IN_PROGRESS: 1}
    assert first.queued == 1 and first.stale_revisions == 0
    # an upgrade of the chunker: every READY revision is stale in that stage
    monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@summary-test")
    upgraded = _agrees(app, limit=20)
    assert upgraded.stale_revisions == 7 and upgraded.stale_stages == {"CHUNKER": 7}
    _ingest(app, "d9", "Written by today's chunker.\n")
    assert _agrees(app).stale_revisions == 7
    # reprocess rebuilds one document: it is no longer stale
    app.reprocess(["d2"])
    assert _agrees(app).stale_revisions == 6
    # an ACL change moves a document between readers
    staff_before = app.status_summary(STAFF).documents
    assert app.set_groups("d0", frozenset({"staff"})) == 1
    assert _agrees(app).documents == 9
    assert app.status_summary(STAFF).documents == staff_before + 1
    # a delete takes its revisions out of every count
    assert app.delete("d3")
    after = _agrees(app)
    assert after.documents == 8 and after.stale_revisions == 5
    assert app.delete("bad")
    assert Attention.FAILED not in _agrees(app).attention


@pytest.mark.both_backends
def test_a_failed_or_stale_document_is_always_in_the_summary(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Among many fresh documents, a failure and a stale revision whose ids sort last
    are named by ``ragox status`` (counted, and shown before any fresh document),
    and the JSON summary counts them too."""
    app = Ragox(home)
    try:
        _ingest(app, "zz-stale", "Made by yesterday's chunker.\n")
        monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@summary-test")
        for n in range(25):
            _ingest(app, f"a{n:02d}", f"Fresh document {n}.\n")
        app.ingestor.ingest_bytes(b"\x00\x01 binary", "zz.txt", "zz-failed", tenant="default")
    finally:
        app.close()
    shown = run_ragox(home, "status")
    assert shown.code == 0
    lines = shown.stdout.splitlines()
    assert lines[0] == "27 documents, 27 revisions (FAILED 1, READY 26)"
    assert "stale: 1 revision (CHUNKER 1): ragox reprocess rebuilds them" in lines
    assert "needs attention: 2 documents (FAILED 1, STALE 1)" in lines
    assert lines.index("zz-failed  current: -") < lines.index("zz-stale  current: r1")
    assert not any(line.startswith("a0") for line in lines)  # fresh ones are counted only
    first = run_ragox(home, "status", "--limit", "1").stdout
    assert "zz-failed" in first and "zz-stale" not in first
    assert "the first 1 below (ragox status --all lists every document)" in first
    assert "stale: 1 revision (CHUNKER 1)" in first  # counted even when not shown
    data = json.loads(run_ragox(home, "status", "--summary", "--json", "--limit", "1").stdout)
    assert data["summary"]["attention"] == {
        "documents": 2,
        "reasons": {"FAILED": 1, "STALE": 1},
        "shown": 1,
    }
    assert data["summary"]["stale"] == {"revisions": 1, "stages": {"CHUNKER": 1}}
    assert [(d["document_id"], d["attention"]) for d in data["attention"]] == [
        ("zz-failed", ["FAILED"])
    ]


def test_all_and_json_keep_the_listing_of_every_document(home: Path, tmp_path: Path) -> None:
    """``--all`` prints every document as before the summary; ``--json`` keeps its
    listing (``--all`` implied); ``--summary`` gives counts in JSON; a home where
    nothing needs attention says so."""
    app = Ragox(home)
    try:
        for n in range(3):
            _ingest(app, f"d{n}", f"Pump {n} is checked every Monday.\n")
        # each revision with its language, given or detected (additive, as the API's)
        expected = documents_json(app.store, app.documents(OPERATOR))
        for document in expected:
            for revision in document["revisions"]:
                if revision["job"] is not None:  # the clock moves on
                    del revision["job"]["age_seconds"], revision["job"]["heartbeat_age_seconds"]
    finally:
        app.close()
    assert run_ragox(home, "status").stdout.splitlines() == [
        "3 documents, 3 revisions (READY 3)",
        "nothing needs attention",
    ]
    listing = run_ragox(home, "status", "--all").stdout.splitlines()
    assert listing == [
        line
        for n in range(3)
        for line in (f"d{n}  current: r1", "  r1       READY      plain-text@1")
    ]
    for args in (("status", "--json"), ("--json", "status"), ("status", "--all", "--json")):
        data = json.loads(run_ragox(home, *args).stdout)
        assert list(data) == ["documents"], args
        for document in data["documents"]:
            for revision in document["revisions"]:
                del revision["job"]["age_seconds"], revision["job"]["heartbeat_age_seconds"]
        assert data["documents"] == expected, args
    summary = json.loads(run_ragox(home, "status", "--summary", "--json").stdout)
    assert summary == {
        "summary": {
            "documents": 3,
            "revisions": {"READY": 3},
            "stale": {"revisions": 0, "stages": {}},
            "runs": {"queued": 0, "running": 0, "stuck": 0},
            "vectors_missing": None,
            "revisions_missing_vectors": None,
            "pages_without_text": 0,
            "attention": {"documents": 0, "reasons": {}, "shown": 0},
        },
        "attention": [],
    }


@pytest.mark.both_backends
@pytest.mark.sqlite_only
def test_schema_28_home_gets_revision_facts_kept_by_triggers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home of schema 28 opens as schema 30 with a row of facts per revision, the
    summary equal to what its listing shows for every reader, and rows that follow
    the next writes (a new revision, reprocess, a delete)."""
    assert SCHEMA_VERSION >= 30
    build = tmp_path / "build"
    app = Ragox(build)
    _fill(app, tmp_path)
    app.close()
    home = tmp_path / "old"
    shutil.copytree(build, home)
    drop_to_schema(home / "ragox.db", "revision_facts", 28)  # what schema 28 wrote: no facts
    with sqlite3.connect(home / "ragox.db") as conn:
        names = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        assert not any(name.startswith("revision_facts") for name in names)
    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        assert _agrees(upgraded).documents == 8
        monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@summary-test")
        _ingest(upgraded, "d4", "A second revision of four.\n", {"eng"})
        assert _agrees(upgraded).stale_revisions == 7  # d4's first revision stays
        upgraded.reprocess(["d0"])
        assert upgraded.delete("d5")
        assert _agrees(upgraded).stale_revisions == 5
    finally:
        upgraded.close()
    with sqlite3.connect(home / "ragox.db") as conn:
        kept = conn.execute("SELECT * FROM revision_facts ORDER BY 1, 2, 3").fetchall()
        conn.execute("DELETE FROM revision_facts")
        conn.execute("UPDATE meta SET value = '28' WHERE key = 'schema_version'")
    again = Ragox(home)  # migration 30 again: every row made anew, the same
    again.close()
    with sqlite3.connect(home / "ragox.db") as conn:
        assert conn.execute("SELECT * FROM revision_facts ORDER BY 1, 2, 3").fetchall() == kept


@pytest.mark.both_backends
@pytest.mark.sqlite_only
def test_revision_facts_follow_a_write_to_any_table_they_are_made_from(app: Ragox) -> None:
    """A write to a revision's search text, representation or manifest alone (no
    write to the revision itself) changes its row of facts in the same statement."""
    _ingest(app, "d0", "Pump zero is checked every Monday.\n")
    _ingest(app, "d1", "Pump one is checked every Monday.\n")
    assert _agrees(app).stale_revisions == 0
    conn = app.store._connection()  # type: ignore[attr-defined]
    [(manifest_id,)] = conn.execute(
        "SELECT manifest_id FROM revisions WHERE document_id = 'd0'"
    ).fetchall()
    with conn:
        conn.execute(
            "UPDATE search_texts SET analyzer = 'analyzer@0' WHERE manifest_id = ?",
            (manifest_id,),
        )
    stale = _agrees(app)
    assert stale.stale_revisions == 1 and stale.stale_stages == {"ANALYZER": 1}
    with conn:
        conn.execute(
            "UPDATE representations SET pages_without_text = '[1]' WHERE manifest_id = ?",
            (manifest_id,),
        )
    assert _agrees(app).pages_without_text == 1
    with conn:
        conn.execute("DELETE FROM search_texts WHERE manifest_id = ?", (manifest_id,))
    assert _agrees(app).stale_stages == {
        s: 1 for s in ("CLEANER", "SPLITTER", "CHUNKER", "ANALYZER")
    }
    facts = conn.execute("SELECT COUNT(*) FROM revision_facts").fetchone()[0]
    revisions = conn.execute("SELECT COUNT(*) FROM revisions").fetchone()[0]
    assert facts == revisions == 2


def test_status_names_the_pages_without_text(home: Path, tmp_path: Path) -> None:
    """A PDF with image-only pages: `status DOC` names them, runs joined ("2-3, 5 of
    6"; before: the attention code alone, the pages only in --json)."""
    from test_extract_pdf import make_pdf

    line = [(72.0, 72.0, "A page of text about the pump.")]
    path = tmp_path / "scan.pdf"
    path.write_bytes(make_pdf([line, None, None, line, None, line]))
    assert run_ragox(home, "ingest", str(path)).code == 0
    shown = run_ragox(home, "status", "scan.pdf")
    assert "pages without text: 2-3, 5 of 6" in shown.stdout, shown.stdout
