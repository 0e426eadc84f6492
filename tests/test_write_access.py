"""Writes follow access (issue 10): uploads to another group's document, same-bytes
deduplication and revision labels across the read line, the supplier of each revision,
GET document and answer replay inside a tenant, and the operate routes.

The tests marked "regression" use only keys that today's main can create too (a name
and groups), so each of them fails there on behaviour, not on a missing option."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import serving, stored_groups
from ragox.access import Principal
from ragox.anchor import sha256_hex
from ragox.search import SearchMode
from ragox.service import NotFound, Ragox

pytestmark = pytest.mark.both_backends

SECRET = b"Board minutes. The merger closes on 3 March; 120 roles move to Lyon.\n"
PUBLIC = b"Staff handbook. The canteen opens at eight.\n"


@dataclass
class Site:
    url: str
    home: Path
    #: a reader of "board" (the hidden document's group)
    board: str
    #: a reader of "staff" only, who may write under staff/ where main allows it
    staff: str
    #: a reader of "staff" with another name (same groups, not the asker)
    colleague: str
    #: an operate key of the tenant
    operator: str
    #: a reader of "staff" and "lab" who may write under staff/
    lab: str


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _key(app: Ragox, name: str, groups: set[str], **rights: Any) -> str:
    return app.create_key(Principal(name, groups=frozenset(groups), **rights))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("writes") / "home"
    app = Ragox(home)
    for doc_id in ("board/minutes", "minutes"):
        app.ingestor.ingest_bytes(
            SECRET, "minutes.txt", doc_id, groups=frozenset({"board"}), tenant="default"
        )
    app.ingestor.ingest_bytes(
        PUBLIC, "handbook.txt", "staff/handbook", groups=frozenset({"staff"}), tenant="default"
    )
    staff_rights: dict[str, Any] = {}
    if "write" in Principal.__dataclass_fields__:  # main's keys carry no write rights
        staff_rights["write"] = frozenset({"staff/"})
    keys = Site(
        url="",
        home=home,
        board=_key(app, "bo", {"board"}),
        staff=_key(app, "sam", {"staff"}, **staff_rights),
        colleague=_key(app, "sue", {"staff"}),
        operator=_key(app, "op", {"staff"}, **({"operator": True} if staff_rights else {})),
        lab=_key(app, "lin", {"staff", "lab"}, **staff_rights),
    )
    app.close()
    with serving(home) as url:
        keys.url = url
        yield keys


def _upload(
    site: Site, key: str, document_id: str, data: bytes, revision: str | None = None
) -> httpx.Response:
    form = {"document_id": document_id, **({"revision": revision} if revision else {})}
    return httpx.post(
        f"{site.url}/v1/documents",
        headers=_auth(key),
        files={"file": ("x.txt", data)},
        data=form,
        timeout=30,
    )


def _operator_view(site: Site, document_id: str) -> dict[str, Any]:
    app = Ragox(site.home)
    try:
        status = app.status(document_id, Principal.local_operator())
        return {
            "current": status.document.current_revision,
            "revisions": [
                (r.revision.revision, r.revision.source_sha256) for r in status.revisions
            ],
        }
    finally:
        app.close()


def _filed(site: Site, document_id: str, data: bytes, groups: set[str], name: str = "f.txt") -> str:
    """The operator files ``data`` (a file ``name``) as ``document_id`` for
    ``groups``; the revision's state."""
    app = Ragox(site.home)
    try:
        outcome = app.ingestor.ingest_bytes(
            data, name, document_id, groups=frozenset(groups), tenant="default"
        )
    finally:
        app.close()
    return outcome.state.value


def _wait_ready(site: Site, key: str, document_id: str) -> dict[str, Any]:
    deadline = time.time() + 30
    while True:
        body = httpx.get(f"{site.url}/v1/documents/{document_id}", headers=_auth(key)).json()
        states = {r["state"] for r in body.get("revisions", [])}
        if states and states <= {"READY", "FAILED"}:
            assert isinstance(body, dict)
            return body
        assert time.time() < deadline, body
        time.sleep(0.1)


@pytest.mark.parametrize("hidden", ["board/minutes", "minutes"])
def test_upload_to_a_hidden_document_answers_like_a_missing_one(site: Site, hidden: str) -> None:
    """Regression: other bytes, the hidden file's exact bytes, and a taken revision label,
    sent by a key that cannot read the document: one refusal, the same for a missing id,
    and the hidden document keeps its single revision."""
    before = _operator_view(site, hidden)
    missing = hidden.replace("minutes", "no-such-minutes")
    for data, revision in ((b"Forged minutes.\n", None), (SECRET, None), (b"x\n", "r1")):
        taken = _upload(site, site.staff, hidden, data, revision)
        free = _upload(site, site.staff, missing, data, revision)
        assert taken.status_code == free.status_code == 403, (taken.text, free.text)
        assert taken.json() == free.json()
        assert taken.headers["content-type"] == free.headers["content-type"]
    assert _operator_view(site, hidden) == before
    assert (
        httpx.get(f"{site.url}/v1/documents/{missing}", headers=_auth(site.staff)).status_code
        == 404
    )


def test_the_hidden_document_stays_current_and_searchable(site: Site) -> None:
    """Regression: after another group's upload attempts, the owners still find the
    hidden document's own text (its current revision was not replaced)."""
    _upload(site, site.staff, "board/minutes", b"Forged minutes: nothing moves.\n")
    hits = httpx.get(
        f"{site.url}/v1/search", params={"q": "merger Lyon"}, headers=_auth(site.board)
    ).json()["hits"]
    # the two documents hold the same text: one hit, the other listed under it (issue 16)
    found = {h["document_id"] for h in hits} | {
        o["document_id"] for h in hits for o in h["also_in"]
    }
    assert found == {"board/minutes", "minutes"}
    text = httpx.get(
        f"{site.url}/v1/documents/board/minutes/revisions/r1/text", headers=_auth(site.board)
    )
    assert text.json()["text"] == SECRET.decode()
    current = httpx.get(f"{site.url}/v1/documents/board/minutes", headers=_auth(site.board))
    assert current.json()["current_revision"] == "r1"
    assert [r["revision"] for r in current.json()["revisions"]] == ["r1"]


def test_document_status_names_no_revision_the_reader_cannot_read(tmp_path: Path) -> None:
    """Regression: when the current revision is readable by another group only, GET
    /v1/documents/{id} shows the reader's own revisions and no current revision."""
    home = tmp_path / "home"
    app = Ragox(home)
    for text in (b"Draft one.\n", b"Draft two, confidential.\n"):
        app.ingestor.ingest_bytes(
            text, "d.txt", "plan", groups=frozenset({"staff"}), tenant="default"
        )
    app.set_groups("plan", frozenset({"board"}), revision="r2")
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    with serving(home) as url:
        body = httpx.get(f"{url}/v1/documents/plan", headers=_auth(key)).json()
        listed = httpx.get(f"{url}/v1/documents", headers=_auth(key)).json()["documents"]
    assert body["current_revision"] is None
    assert [r["revision"] for r in body["revisions"]] == ["r1"]
    assert all(r["current"] is False for r in body["revisions"])
    assert "r2" not in json.dumps(body) and _steady(listed) == _steady([body])


def _steady(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Document statuses without their jobs (whose ages grow between two requests)."""
    return [
        {**doc, "revisions": [{k: v for k, v in r.items() if k != "job"} for r in doc["revisions"]]}
        for doc in documents
    ]


def test_a_replayed_answer_is_for_its_asker_and_operators_only(site: Site) -> None:
    """Regression: another principal of the tenant holding an answer id (same groups,
    or none that matter) gets the 404 of a missing answer, never the question."""
    question = "When does the canteen open?"
    asked = httpx.post(
        f"{site.url}/v1/ask", headers=_auth(site.staff), json={"question": question}
    ).json()
    url = f"{site.url}/v1/answers/{asked['answer_id']}"
    own = httpx.get(url, headers=_auth(site.staff))
    assert own.status_code == 200 and own.json()["question"] == question
    missing = httpx.get(f"{site.url}/v1/answers/{'0' * 32}", headers=_auth(site.colleague))
    for key in (site.colleague, site.board):
        other = httpx.get(url, headers=_auth(key))
        assert other.status_code == missing.status_code == 404
        assert other.json() == missing.json() and "canteen" not in other.text
    assert httpx.get(url, headers=_auth(site.operator)).json()["question"] == question


def test_cli_answer_show_is_for_the_asker(tmp_path: Path, ragox_cli: Any) -> None:
    """Regression: `ragox answer show --principal` another principal → not found, exit 1,
    nothing of the question; the asker and the local operator see it."""
    path = tmp_path / "handbook.txt"
    path.write_bytes(PUBLIC)
    assert ragox_cli("ingest", str(path), "--document-id", "h", "--groups", "staff").code == 0
    asked = ragox_cli(
        "ask", "When does the canteen open?", "--principal", "sam", "--groups", "staff", "--json"
    )
    answer_id = json.loads(asked.stdout)["answer_id"]
    other = ragox_cli("answer", "show", answer_id, "--principal", "sue", "--groups", "staff")
    assert other.code == 1 and "canteen" not in other.stdout + other.stderr
    own = ragox_cli("answer", "show", answer_id, "--principal", "sam", "--groups", "staff")
    assert own.code == 0 and "eight" in own.stdout
    assert ragox_cli("answer", "show", answer_id).code == 0


def test_a_chosen_label_never_blocks_automatic_ones(tmp_path: Path, ragox_cli: Any) -> None:
    """Regression: `ingest --revision r3` then plain ingests: the automatic labels skip
    r3 (r4, r5: still in creation order), never a REVISION_CONFLICT."""
    path = tmp_path / "a.txt"
    labels = []
    for number, revision in enumerate(("", "r3", "", ""), start=1):
        path.write_text(f"Version {number} of the manual.\n")
        extra = ("--revision", revision) if revision else ()
        result = ragox_cli("ingest", str(path), "--document-id", "manual", *extra, "--json")
        assert result.code == 0, result.stdout + result.stderr
        labels.append(json.loads(result.stdout)["results"][0]["revision"])
    assert labels == ["r1", "r3", "r4", "r5"]


def test_api_label_squat_blocks_no_owner_upload(site: Site) -> None:
    """A writer's chosen label `r3` on its own document does not block later automatic
    uploads (r4, then r5), and a chosen label that exists is a 409 only for readers."""
    base = "staff/labels"
    assert _upload(site, site.staff, base, b"one\n").status_code == 202
    _wait_ready(site, site.staff, base)
    assert _upload(site, site.staff, base, b"three\n", "r3").json()["revision"] == "r3"
    _wait_ready(site, site.staff, base)
    for data, label in ((b"four\n", "r4"), (b"five\n", "r5")):
        response = _upload(site, site.staff, base, data)
        assert response.status_code == 202 and response.json()["revision"] == label
        _wait_ready(site, site.staff, base)
    assert _upload(site, site.staff, base, b"other\n", "r3").status_code == 409


def test_supplier_is_recorded_and_shown(site: Site, tmp_path: Path, ragox_cli: Any) -> None:
    """Each revision names the principal that supplied it: the key's principal over the
    API, "operator" for the local CLI; shown in status JSON to its readers."""
    assert _upload(site, site.staff, "staff/supplied", b"Supplied by sam.\n").status_code == 202
    body = _wait_ready(site, site.staff, "staff/supplied")
    assert [r["supplied_by"] for r in body["revisions"]] == ["sam"]
    path = tmp_path / "b.txt"
    path.write_text("Local.\n")
    assert ragox_cli("ingest", str(path), "--document-id", "local").code == 0
    shown = json.loads(ragox_cli("status", "local", "--json").stdout)
    assert shown["revisions"][0]["supplied_by"] == "operator"


def test_writes_need_a_write_prefix_and_land_in_the_collection(site: Site) -> None:
    """A read-only key cannot upload at all; ids outside staff/ are refused alike; a
    writer's upload under staff/ is readable by staff even when it names only lab."""
    read_only = _upload(site, site.colleague, "staff/new", b"New.\n")
    assert read_only.status_code == 403
    outside = _upload(site, site.staff, "handbook-copy", b"New.\n")
    assert outside.status_code == 403 and outside.json() == read_only.json()
    ok = httpx.post(
        f"{site.url}/v1/documents",
        headers=_auth(site.staff),
        files={"file": ("c.txt", b"Collection.\n")},
        data={"document_id": "staff/collection"},
    )
    assert ok.status_code == 202
    body = _wait_ready(site, site.staff, "staff/collection")
    assert body["revisions"][0]["groups"] == ["staff"]
    lab_only = httpx.post(
        f"{site.url}/v1/documents",
        headers=_auth(site.lab),
        files={"file": ("l.txt", b"Lab results.\n")},
        data={"document_id": "staff/lab-results", "groups": "lab"},
    )
    assert lab_only.status_code == 202
    body = _wait_ready(site, site.staff, "staff/lab-results")
    assert body["revisions"][0]["groups"] == ["lab", "staff"]


def test_a_new_revision_without_groups_keeps_the_documents_readers(site: Site) -> None:
    """A writer of staff and lab uploads a new version of a staff-only document without
    naming groups (as the web app's Documents page does): r2 stays staff-only. Before,
    it got every group of the writer's key, and a lab reader read it. A new document
    without groups still gets the key's groups."""
    _filed(site, "staff/pay", b"Salaries are reviewed in May.\n", {"staff"})
    new = _upload(site, site.lab, "staff/pay", b"Salaries are reviewed in June.\n")
    assert new.status_code == 202, new.text
    body = _wait_ready(site, site.lab, "staff/pay")
    assert [r["groups"] for r in body["revisions"]] == [["staff"], ["staff"]]
    app = Ragox(site.home)
    try:
        lab = Principal("lu", groups=frozenset({"lab"}))
        hits = app.searcher().search("salaries reviewed June", lab, SearchMode.LEXICAL)
        assert not any(hit.document_id == "staff/pay" for hit in hits)
        staff = Principal("sy", groups=frozenset({"staff"}))
        hits = app.searcher().search("salaries reviewed June", staff, SearchMode.LEXICAL)
        assert any(hit.document_id == "staff/pay" for hit in hits)
    finally:
        app.close()
    fresh = _upload(site, site.lab, "staff/pay-fresh", b"Bonuses are paid in July.\n")
    assert fresh.status_code == 202
    body = _wait_ready(site, site.lab, "staff/pay-fresh")
    assert body["revisions"][0]["groups"] == ["lab", "staff"]


def test_a_misfiled_hidden_document_is_not_replaced(site: Site) -> None:
    """A document the operator filed under staff/ for board only: staff's writer cannot
    replace it, its bytes never come back READY, its labels never answer 409; the one
    thing it learns is documented (README: keep a collection readable by its group)."""
    app = Ragox(site.home)
    app.ingestor.ingest_bytes(
        SECRET, "m.txt", "staff/misfiled", groups=frozenset({"board"}), tenant="default"
    )
    app.close()
    before = _operator_view(site, "staff/misfiled")
    answers = [
        _upload(site, site.staff, "staff/misfiled", data, label)
        for data, label in ((SECRET, None), (b"other\n", None), (b"other\n", "r1"))
    ]
    assert {(a.status_code, a.text) for a in answers} == {(answers[0].status_code, answers[0].text)}
    assert answers[0].status_code == 403
    assert _operator_view(site, "staff/misfiled") == before


def test_delete_and_groups_routes_are_for_operate_keys(site: Site) -> None:
    """DELETE /v1/documents/{id} and PUT …/groups: other keys get the 404 of a missing
    document (for readable, hidden and missing ids alike); an operate key acts."""
    missing = httpx.delete(f"{site.url}/v1/documents/nothing", headers=_auth(site.staff))
    assert missing.status_code == 404
    for key in (site.staff, site.board, site.colleague):
        for doc_id in ("staff/handbook", "board/minutes"):
            deleted = httpx.delete(f"{site.url}/v1/documents/{doc_id}", headers=_auth(key))
            regrouped = httpx.put(
                f"{site.url}/v1/documents/{doc_id}/groups",
                headers=_auth(key),
                json={"groups": ["staff"]},
            )
            for response in (deleted, regrouped):
                assert response.status_code == 404 and response.json() == missing.json()
    assert _operator_view(site, "staff/handbook")["current"] == "r1"
    app = Ragox(site.home)
    app.ingestor.ingest_bytes(
        b"Temp.\n", "t.txt", "temp", groups=frozenset({"x"}), tenant="default"
    )
    app.close()
    regrouped = httpx.put(
        f"{site.url}/v1/documents/temp/groups",
        headers=_auth(site.operator),
        json={"groups": ["staff"]},
    )
    assert regrouped.status_code == 200 and regrouped.json()["revisions_changed"] == 1
    assert httpx.get(f"{site.url}/v1/documents/temp", headers=_auth(site.staff)).status_code == 200
    gone = httpx.delete(f"{site.url}/v1/documents/temp", headers=_auth(site.operator))
    assert gone.status_code == 200 and gone.json() == {"document_id": "temp", "deleted": True}
    again = httpx.delete(f"{site.url}/v1/documents/temp", headers=_auth(site.operator))
    assert again.status_code == 404 and again.json() == missing.json()


def test_keys_create_carries_write_and_operate(ragox_cli: Any) -> None:
    """`keys create --write --operate --json` shows what the key may do; a write prefix
    outside the key's groups is a usage error (exit 2), except for operate keys."""
    made = ragox_cli(
        "keys", "create", "--principal", "w", "--groups", "red", "--write", "red/a/,red/", "--json"
    )
    assert made.code == 0
    assert {k: v for k, v in json.loads(made.stdout).items() if k != "key"} == {
        "principal": "w",
        "groups": ["red"],
        "tenant": "default",
        "write": ["red/", "red/a/"],
        "operate": False,
        "unreadable_in_write_scope": 0,
    }
    bad = ragox_cli("keys", "create", "--principal", "w", "--groups", "red", "--write", "blue/")
    assert bad.code == 2 and "blue/" in bad.stderr
    bare = ragox_cli("keys", "create", "--principal", "w", "--groups", "red", "--write", "red")
    assert bare.code == 2
    operate = ragox_cli("keys", "create", "--principal", "o", "--operate", "--write", "*", "--json")
    assert operate.code == 0 and json.loads(operate.stdout)["write"] == ["*"]
    assert json.loads(operate.stdout)["operate"] is True


def test_keys_create_warns_about_documents_its_uploads_could_probe(
    ragox_cli: Any, tmp_path: Path
) -> None:
    """A document the operator filed under red/ for blue only: a red/ writer's key is
    created with a warning on stderr and the count in JSON (README's one residual)."""
    path = tmp_path / "s.txt"
    path.write_text("Blue's secret.\n")
    ingested = ragox_cli("ingest", str(path), "--document-id", "red/s", "--groups", "blue")
    assert ingested.code == 0
    made = ragox_cli(
        "keys", "create", "--principal", "w", "--groups", "red", "--write", "red/", "--json"
    )
    assert made.code == 0 and "1 document(s)" in made.stderr and "red/s" not in made.stderr
    assert json.loads(made.stdout)["unreadable_in_write_scope"] == 1
    fixed = ragox_cli("acl", "red/s", "--groups", "blue,red")
    assert fixed.code == 0
    again = ragox_cli(
        "keys", "create", "--principal", "w", "--groups", "red", "--write", "red/", "--json"
    )
    assert again.stderr == "" and json.loads(again.stdout)["unreadable_in_write_scope"] == 0


def test_collections_with_writers_stay_readable_by_their_group(
    ragox_cli: Any, tmp_path: Path
) -> None:
    """Once a key may write red/, the operator cannot file a document there without red
    among its readers (ingest skips it: COLLECTION_READERS), nor drop red with `acl`;
    ids elsewhere, and revoked keys' collections, are not bound."""
    made = ragox_cli(
        "keys", "create", "--principal", "w", "--groups", "red", "--write", "red/a/", "--json"
    )
    key = json.loads(made.stdout)["key"]
    path = tmp_path / "s.txt"
    path.write_text("Blue's secret.\n")
    refused = ragox_cli(
        "ingest", str(path), "--document-id", "red/a/s", "--groups", "blue", "--json"
    )
    assert refused.code == 1
    assert json.loads(refused.stdout)["results"][0]["reason"] == "COLLECTION_READERS"
    assert ragox_cli("status", "red/a/s").code == 1
    for doc_id, groups in (("red/a/s", "blue,red"), ("red/b", "blue"), ("blue/s", "blue")):
        assert ragox_cli("ingest", str(path), "--document-id", doc_id, "--groups", groups).code == 0
    dropped = ragox_cli("acl", "red/a/s", "--groups", "blue")
    assert dropped.code == 1 and "'red'" in dropped.stderr
    shown = json.loads(ragox_cli("status", "red/a/s", "--json").stdout)
    assert shown["revisions"][0]["groups"] == ["blue", "red"]
    assert ragox_cli("keys", "revoke", key).code == 0
    assert ragox_cli("acl", "red/a/s", "--groups", "blue").code == 0


@pytest.mark.sqlite_only  # an older SQLite home
def test_schema7_keys_become_read_only(tmp_path: Path) -> None:
    """A schema-7 home opens migrated: its keys keep their groups and lose the upload
    right nobody chose (read-only, not operate); old revisions have no supplier."""
    from ragox.store.sqlite._schema import MIGRATIONS

    home = tmp_path / "home"
    home.mkdir()
    key = "rgx_" + "k" * 43
    with sqlite3.connect(home / "ragox.db") as conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        for number, script in MIGRATIONS:
            if number <= 7:
                for statement in script:
                    conn.execute(statement)
        conn.execute("INSERT INTO meta VALUES('schema_version', '7')")
        conn.execute(
            "INSERT INTO api_keys(key_hash, principal, tenant, groups, created_at) "
            "VALUES(?, 'sam', 'default', '[\"staff\"]', '2026-01-01T00:00:00Z')",
            (sha256_hex(key.encode()),),
        )
        conn.execute("INSERT INTO documents VALUES('default', 'old', 'r1', '2026', NULL)")
        conn.execute(
            "INSERT INTO revisions(tenant, document_id, revision, seq, source_sha256, "
            "media_type, filename, size, state, created_at, updated_at) "
            "VALUES('default', 'old', 'r1', 1, ?, 'text/plain', 'o.txt', 4, 'FAILED', '', '')",
            ("0" * 64,),
        )
    app = Ragox(home)
    try:
        assert app.store.schema_version() >= 8
        who = app.authenticate(key)
        assert who == Principal("sam", groups=frozenset({"staff"}))
        assert who is not None and who.write == frozenset() and not who.operator
        record = app.store.get_revision("default", "old", "r1")
        assert record is not None and record.supplied_by is None
        with pytest.raises(NotFound):
            app.delete_as(who, "old")
    finally:
        app.close()


BAD_GROUPS = [
    "everyone, hr",  # shown as if hr could read; the Readers editor cannot edit it back
    "everyone\uff0chr",  # the same with a full-width comma (red-team)
    "staff\u202e",  # a bidirectional override: shown as another name
    "staff\u200b",  # a zero-width space: listed as "staff" (red-team)
    "st\x00aff",
    "g" * 5000,
    "sta\u0301ff",  # a decomposed accent: another name than its composed look-alike
]


@pytest.mark.parametrize("group", BAD_GROUPS)
def test_reader_groups_that_read_as_others_are_refused(site: Site, group: str) -> None:
    """PUT …/groups and an upload's groups refuse a group with a comma, a control or
    bidirectional character, or 5,000 characters (422); nothing changes. Before, all
    were stored (found by a new-user pass)."""
    before = _operator_view(site, "staff/handbook")
    regrouped = httpx.put(
        f"{site.url}/v1/documents/staff/handbook/groups",
        headers=_auth(site.operator),
        json={"groups": ["staff", group]},
    )
    assert regrouped.status_code == 422, regrouped.text
    assert group not in regrouped.text
    surrogate = httpx.put(  # a revision label with a lone surrogate: 422, was a 500
        f"{site.url}/v1/documents/staff/handbook/groups",
        headers={**_auth(site.operator), "Content-Type": "application/json"},
        content=b'{"groups": ["staff"], "revision": "r1\\ud800"}',
    )
    assert surrogate.status_code == 422, surrogate.text
    if "," not in group:  # the upload's field is comma-separated itself
        uploaded = httpx.post(
            f"{site.url}/v1/documents",
            headers=_auth(site.lab),
            files={"file": ("g.txt", b"Groups.\n")},
            data={"document_id": "staff/odd-groups", "groups": f"staff,{group}"},
        )
        assert uploaded.status_code == 422, uploaded.text
    assert _operator_view(site, "staff/handbook") == before
    assert stored_groups(site.home, "staff/handbook") == {"staff"}


def test_a_document_id_with_a_bidirectional_control_is_refused(site: Site) -> None:
    """``staff/a\u202egnp.txt`` was accepted and listed as ``staff/atxt.png``."""
    uploaded = _upload(site, site.staff, "staff/a\u202egnp.txt", b"Looks like a PNG.\n")
    assert uploaded.status_code == 422, uploaded.text
    assert "bidirectional" in uploaded.json()["detail"]


def test_cli_refuses_bad_reader_groups(tmp_path: Path, ragox_cli: Any) -> None:
    path = tmp_path / "a.txt"
    path.write_text("The pump is checked weekly.\n")
    for group in ("staff\u202e", "x" * 200):
        refused = ragox_cli("ingest", str(path), "--groups", group)
        assert refused.code == 2 and "--groups" in refused.stderr
        assert ragox_cli("keys", "create", "--principal", "p", "--groups", group).code == 2
    assert ragox_cli("ingest", str(path), "--groups", "staff").code == 0
    assert ragox_cli("acl", "a.txt", "--groups", "staff,\u2066hr").code == 2
    shown = json.loads(ragox_cli("status", "a.txt", "--json").stdout)
    assert shown["revisions"][0]["groups"] == ["staff"]


def test_names_of_other_scripts_stay_valid() -> None:
    """The name rules refuse what reads as another name, not the words of other
    scripts: Cyrillic, CJK, inner spaces, Persian with its zero-width non-joiner,
    Hindi with its combining marks."""
    from ragox.access import group_problem
    from ragox.service import document_id_problem

    for name in ("отдел-продаж", "財務", "sales team", "می\u200cخواهم", "विक्रय"):
        assert group_problem(name) is None, name
        assert document_id_problem(f"docs/{name}.txt") is None, name
    for name in ("a\u200bb", "a\ufeffb", "a\u2060b", "a\u00adb", "a\U000e0041b"):
        assert group_problem(name) is not None, name
        assert document_id_problem(f"x/{name}") is not None, name


def test_inherited_readers_never_reach_a_group_the_writer_is_not_in(site: Site) -> None:
    """A staff writer's new version (no groups named) of a document for staff and
    board is for staff only: the writer may not name board itself (403), so inherited
    groups do not let its text reach board either (red-team)."""
    _filed(site, "staff/menu", b"The canteen menu for staff and board.\n", {"staff", "board"})
    new = _upload(site, site.staff, "staff/menu", b"The canteen menu changed for spring.\n")
    assert new.status_code == 202, new.text
    body = _wait_ready(site, site.staff, "staff/menu")
    assert [r["groups"] for r in body["revisions"]] == [["board", "staff"], ["staff"]]


def test_inherited_readers_follow_the_latest_revision_not_the_current(site: Site) -> None:
    """r1 for staff and lab, then r2 narrowed to staff that FAILED (so r1 stays
    current): a later upload without groups keeps the narrowing (red-team: a re-upload
    from the web app undid it)."""
    _filed(site, "staff/plan", b"Lab plan.\n", {"staff", "lab"})
    assert _filed(site, "staff/plan", b"%PDF-1.7 broken", {"staff"}, "p.pdf") == "FAILED"
    new = _upload(site, site.lab, "staff/plan", b"Lab plan, confidential now.\n")
    assert new.status_code == 202, new.text
    body = _wait_ready(site, site.lab, "staff/plan")
    assert [r["groups"] for r in body["revisions"]] == [["lab", "staff"], ["staff"], ["staff"]]
