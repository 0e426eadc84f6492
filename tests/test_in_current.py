"""A passage verified in an older revision says whether the current revision still has
it (a new-user pass: `resolve` printed "RESOLVED … not current" alike for a sentence the
new revision removed and one it kept; only `migrate` told them apart). `resolve`, its
`--json`, `answer show`, `GET /v1/anchors/{id}` and `GET /v1/answers/{id}` say it;
nothing is said of a current revision the reader may not read."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conftest import serving, store_sql
from ragox.access import Principal
from ragox.anchor import Anchor, Refusal, ResolutionStatus
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))
R1 = "The seal is checked every 500 hours.\n\nThe pump is painted in spring.\n"
R2 = "Safety first.\n\nThe seal is checked every 800 hours.\n\nThe pump is painted in spring.\n"


def _ingest(app: Ragox, text: str, groups: frozenset[str] = frozenset({"staff"})) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), "pump.txt", "pump.txt", groups=groups, tenant="default"
    )
    assert outcome.state.value == "READY"


def _anchor(app: Ragox, quote: str) -> Anchor:
    text = app.text("pump.txt", STAFF)
    start = text.index(quote)
    created = app.create_anchor("pump.txt", start, start + len(quote), STAFF)
    assert not isinstance(created, Refusal)
    return created.anchor


def test_an_older_revisions_passage_says_whether_the_current_one_has_it(app: Ragox) -> None:
    _ingest(app, R1)
    gone = _anchor(app, "every 500 hours")
    kept = _anchor(app, "The pump is painted in spring.")
    assert app.in_current(kept, STAFF) is None  # current: nothing to say
    _ingest(app, R2)
    now = app.in_current(kept, STAFF)
    assert now is not None and now.revision == "r2" and now.status is ResolutionStatus.RESOLVED
    assert now.range is not None
    assert app.text("pump.txt", STAFF)[now.range.start : now.range.end] == kept.quote.exact
    missing = app.in_current(gone, STAFF)
    assert missing is not None and missing.status is ResolutionStatus.QUOTE_NOT_FOUND
    assert missing.range is None
    # the old anchors still resolve, against r1, as before
    assert app.resolve(gone, STAFF).status is ResolutionStatus.RESOLVED


def test_nothing_is_said_of_a_current_revision_the_reader_may_not_read(app: Ragox) -> None:
    """r2 is for the managers only: a staff reader of r1 learns nothing about it, neither
    that the passage is there nor that it is not."""
    _ingest(app, R1)
    gone = _anchor(app, "every 500 hours")
    kept = _anchor(app, "The pump is painted in spring.")
    _ingest(app, R2, frozenset({"managers"}))
    assert app.resolve(kept, STAFF).status is ResolutionStatus.RESOLVED
    assert app.in_current(kept, STAFF) is None
    assert app.in_current(gone, STAFF) is None
    manager = Principal("mia", groups=frozenset({"staff", "managers"}))
    found = app.in_current(gone, manager)
    assert found is not None and found.status is ResolutionStatus.QUOTE_NOT_FOUND


def test_resolve_and_the_api_say_it(app: Ragox, ragox_cli: Any) -> None:
    _ingest(app, R1)
    gone = _anchor(app, "every 500 hours")
    kept = _anchor(app, "The pump is painted in spring.")
    _ingest(app, R2)
    key = app.create_key(STAFF)
    home = app.home
    app.close()
    shown = ragox_cli("resolve", kept.anchor_id[:16])
    assert shown.code == 0, shown.stderr
    assert "not current" in shown.stdout
    assert "in the current revision r2 too, at [" in shown.stdout
    shown = ragox_cli("resolve", gone.anchor_id[:16])
    assert "not in the current revision r2 (QUOTE_NOT_FOUND)" in shown.stdout
    data: Any = ragox_cli("resolve", kept.anchor_id, "--json").json()
    assert data["status"] == "RESOLVED" and data["current"] is False
    start = R2.index("The pump")
    assert data["in_current"] == {
        "revision": "r2",
        "status": "RESOLVED",
        "range": {"coordinates": "codepoint", "start": start, "end": start + 30},
    }
    with serving(home) as url:
        headers = {"Authorization": f"Bearer {key}"}
        body = httpx.get(f"{url}/v1/anchors/{gone.anchor_id}", headers=headers).json()
        assert body["status"] == "RESOLVED"
        assert body["in_current"] == {"revision": "r2", "status": "QUOTE_NOT_FOUND"}
        current = _current_anchor_id(home)
        body = httpx.get(f"{url}/v1/anchors/{current}", headers=headers).json()
        assert body["current"] is True and "in_current" not in body


def _current_anchor_id(home: Any) -> str:
    app = Ragox(home)
    try:
        return _anchor(app, "Safety first.").anchor_id
    finally:
        app.close()


def test_an_answers_replay_says_it_for_each_citation(app: Ragox, ragox_cli: Any) -> None:
    """An answer cited r1; r2 changed the cited sentence: `answer show` (text and JSON)
    and the API's replay say that the current revision no longer has it."""
    _ingest(app, R1)
    record = app.ask("How often is the seal checked?", STAFF)
    assert not record.abstained and record.citations
    cited = record.citations[0].anchor
    assert "500 hours" in cited.quote.exact
    _ingest(app, R2)
    key = app.create_key(STAFF)
    home = app.home
    app.close()
    who = ("--principal", "sam", "--groups", "staff")
    shown = ragox_cli("answer", "show", record.answer_id, *who)
    assert "not in the current revision r2 (QUOTE_NOT_FOUND)" in shown.stdout, shown.stdout
    data: Any = ragox_cli("answer", "show", record.answer_id, *who, "--json").json()
    assert data["citations"][0]["in_current"] == {"revision": "r2", "status": "QUOTE_NOT_FOUND"}
    with serving(home) as url:
        replay = httpx.get(
            f"{url}/v1/answers/{record.answer_id}", headers={"Authorization": f"Bearer {key}"}
        ).json()
    assert replay["citations"][0]["in_current"] == {"revision": "r2", "status": "QUOTE_NOT_FOUND"}


def test_a_current_revision_whose_manifest_fails_its_seal_is_not_called_resolved(
    app: Ragox,
) -> None:
    """The current revision's manifest was altered in the database (its HMAC no longer
    matches): the check says MANIFEST_INVALID, as the resolver says of r2's anchors, never
    that r2 has the passage (found by a red-team pass)."""
    _ingest(app, R1)
    kept = _anchor(app, "The pump is painted in spring.")
    _ingest(app, R2)
    store_sql(app.home, "UPDATE manifests SET mac = '00' || substr(mac, 3) WHERE revision = 'r2'")
    now = app.in_current(kept, STAFF)
    assert now is not None and now.status is ResolutionStatus.MANIFEST_INVALID
    assert now.range is None
