"""``status`` reads every document at once (issue 15): the batched reads give exactly
what the one-by-one reads give (revisions, reader groups, latest run, manifest, chunks,
notes, index versions, stale stages), and their number does not grow with the number
of documents."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ragox.access import Principal, can_read
from ragox.ingest import stale_stages
from ragox.service import DocumentStatus, NotFound, Ragox
from ragox.service._json import document_status_json

pytestmark = pytest.mark.both_backends

OPERATOR = Principal.local_operator()
STAFF = Principal("sam", groups=frozenset({"staff"}))


def _fill(app: Ragox, tmp_path: Path, documents: int) -> None:
    """Documents in several states: READY with reader groups, a second revision, a
    refused file (FAILED), one queued for a worker (RECEIVED, a QUEUED run)."""
    ingest = app.ingestor.ingest_bytes
    for n in range(documents):
        groups = frozenset({"staff"}) if n % 2 else frozenset({"eng"})
        text = f"Pump {n} is checked every Monday.\n\nThe backup {n} runs at night.\n"
        ingest(text.encode(), f"d{n}.txt", f"d{n:02d}.txt", groups=groups, tenant="default")
    ingest(b"A newer text of pump one.\n", "d01.txt", "d01.txt", tenant="default")
    ingest(b"\x00\x01\x02 not text", "bad.txt", "bad.txt", tenant="default")
    queued = tmp_path / "later.txt"
    queued.write_text("Queued for a worker.\n", encoding="utf-8")
    item = app.ingest_path(queued, tmp_path, queue=True)
    assert item.queued


def _one_by_one(app: Ragox, principal: Principal) -> list[dict[str, object]]:
    """What status showed before the batched reads: each document read on its own."""
    shown = []
    store = app.store
    for document in store.list_documents(principal.tenant):
        revisions = []
        for record in store.revisions(principal.tenant, document.document_id):
            if not can_read(principal, document.tenant, record.groups):
                continue
            jobs = store.jobs(principal.tenant, document.document_id, record.revision)
            found = store.get_manifest(record.manifest_id) if record.manifest_id else None
            revisions.append(
                {
                    "record": record,
                    "manifest": found.manifest if found else None,
                    "chunks": store.chunk_count(record.manifest_id) if record.manifest_id else 0,
                    "notes": store.notes(record.manifest_id) if record.manifest_id else None,
                    "job": jobs[-1] if jobs else None,
                    "stale": stale_stages(store, record, app.profile.id),
                }
            )
        if revisions:
            shown.append({"document_id": document.document_id, "revisions": revisions})
    return shown


def _shape(status: DocumentStatus) -> dict[str, Any]:
    """The JSON ``status`` prints, without the runs' ages (the clock moves on)."""
    data = document_status_json(status)
    for revision in data["revisions"]:
        if revision["job"] is not None:
            del revision["job"]["age_seconds"], revision["job"]["heartbeat_age_seconds"]
    return data


def _batched(app: Ragox, principal: Principal) -> list[dict[str, object]]:
    shown = []
    for status in app.documents(principal):
        revisions = []
        for row in status.revisions:
            manifest_id = row.revision.manifest_id
            found = app.store.get_manifest(manifest_id) if manifest_id else None
            revisions.append(
                {
                    "record": row.revision,
                    "manifest": found.manifest if found else None,
                    "chunks": row.chunks,
                    "notes": row.notes if manifest_id else None,
                    "job": row.job.job if row.job else None,
                    "stale": row.stale,
                }
            )
            assert row.text_sha256 == (found.manifest.text_sha256 if found else None)
            assert row.parser == (found.manifest.parser if found else None)
        shown.append({"document_id": status.document.document_id, "revisions": revisions})
    return shown


def test_batched_status_equals_the_one_by_one_reads(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every document, revision, run and stage as the separate reads give them, for the
    operator and for a reader who sees only some revisions; a chunker upgrade shows."""
    _fill(app, tmp_path, 6)
    monkeypatch.setattr("ragox.ingest._chunker.CHUNKER_VERSION", "chunker@next")
    for principal in (OPERATOR, STAFF):
        expected = _one_by_one(app, principal)
        assert _batched(app, principal) == expected
        listed = [_shape(s) for s in app.documents(principal)]
        one_each = [app.status(str(d["document_id"]), principal) for d in expected]
        assert [_shape(s) for s in one_each] == listed
    states = {row.revision.state.value for s in app.documents(OPERATOR) for row in s.revisions}
    assert states == {"READY", "FAILED", "RECEIVED"}
    stale = {
        stage.value for s in app.documents(OPERATOR) for row in s.revisions for stage in row.stale
    }
    assert stale == {"CHUNKER"}
    queued = app.status("later.txt", OPERATOR).revisions[0]
    assert queued.job is not None and queued.job.job.state.value == "QUEUED"
    assert queued.job.liveness.value == "QUEUED"
    # the reader sees neither the eng documents nor the label of d01's newer revision
    seen = {s.document.document_id: s for s in app.documents(STAFF)}
    assert "d00.txt" not in seen and "d01.txt" in seen
    assert seen["d01.txt"].document.current_revision is None
    assert document_status_json(seen["d01.txt"])["current_revision"] is None
    with pytest.raises(NotFound):
        app.status("d00.txt", STAFF)
    with pytest.raises(NotFound):
        app.status("missing.txt", OPERATOR)


@pytest.mark.sqlite_only
def test_status_queries_do_not_grow_with_documents(app: Ragox, tmp_path: Path) -> None:
    """Listing 3 documents and listing 12 make the same number of queries."""

    def queries() -> int:
        conn: sqlite3.Connection = app.store._connection()  # type: ignore[attr-defined]
        made: list[str] = []
        conn.set_trace_callback(made.append)
        try:
            app.documents(OPERATOR)
        finally:
            conn.set_trace_callback(None)
        return len(made)

    _fill(app, tmp_path, 3)
    few = queries()
    for n in range(3, 12):
        app.ingestor.ingest_bytes(
            f"More text {n}.\n".encode(), f"m{n}.txt", f"m{n}.txt", tenant="default"
        )
    assert len(app.documents(OPERATOR)) == 14
    assert queries() == few <= 8
