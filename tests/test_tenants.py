"""Document ids are per tenant (schema 7): two tenants each have a document "manual"
with their own revisions, text, search, answers, anchors and deletion, through the
HTTP API, the CLI and the store; a database of schema 6 is upgraded with nothing lost."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import legacy_lexical_tables, older_database, run_ragox, serving
from ragox.access import Principal
from ragox.anchor import Refusal, ResolutionStatus
from ragox.service import NotFound, Ragox
from ragox.store import SCHEMA_VERSION

pytestmark = pytest.mark.both_backends

DEFAULT_TEXT = (
    "Pump P-200 service manual.\n\n"
    "The seal is checked every 500 operating hours. A worn seal causes leaks.\n"
)
ACME_TEXT = (
    "Compressor C-9 handbook.\n\n"
    "How often? The impeller is inspected every 200 operating hours. A cracked impeller hums.\n"
)
DEFAULT_STAFF = Principal("sam", groups=frozenset({"staff"}))
ACME_STAFF = Principal("ann", tenant="acme", groups=frozenset({"staff"}))
#: acme's operator key: it may write any id of its tenant (and reads all of it)
ACME_OPERATOR = Principal(
    "ann", tenant="acme", groups=frozenset({"staff"}), operator=True, write=frozenset({"*"})
)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# -- HTTP API -----------------------------------------------------------------------------


@dataclass
class Api:
    url: str
    default: str
    acme: str
    home: Path


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Api]:
    home = tmp_path_factory.mktemp("tenants") / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        DEFAULT_TEXT.encode(), "manual.txt", "manual", groups=frozenset({"staff"}), tenant="default"
    )
    app.ingestor.ingest_bytes(
        b"Only the default tenant has this.\n",
        "only.txt",
        "default-only",
        groups=frozenset({"staff"}),
        tenant="default",
    )
    keys = (app.create_key(DEFAULT_STAFF), app.create_key(ACME_OPERATOR))
    app.close()
    with serving(home) as url:
        yield Api(url, keys[0], keys[1], home)


def _wait_ready(api: Api, key: str, document_id: str) -> dict[str, Any]:
    deadline = time.time() + 30
    while True:
        body = httpx.get(f"{api.url}/v1/documents/{document_id}", headers=_auth(key)).json()
        if body.get("revisions") and body["revisions"][-1]["state"] in {"READY", "FAILED"}:
            assert isinstance(body, dict)
            return body
        assert time.time() < deadline, body
        time.sleep(0.2)


@pytest.fixture(scope="module")
def acme_manual(api: Api) -> dict[str, Any]:
    """The acme tenant uploads its own "manual": accepted, not a 409."""
    response = httpx.post(
        f"{api.url}/v1/documents",
        headers=_auth(api.acme),
        files={"file": ("handbook.txt", ACME_TEXT.encode())},
        data={"document_id": "manual"},
    )
    assert response.status_code == 202, response.text
    assert response.json()["document_id"] == "manual"
    assert response.json()["revision"] == "r1"
    return _wait_ready(api, api.acme, "manual")


def test_same_document_id_in_two_tenants_over_the_api(
    api: Api, acme_manual: dict[str, Any]
) -> None:
    """Each tenant sees its own "manual": status, revision, text, search and answers."""
    assert acme_manual["revisions"][0]["state"] == "READY"
    mine = httpx.get(f"{api.url}/v1/documents/manual", headers=_auth(api.default)).json()
    assert mine["current_revision"] == "r1" and mine["revisions"][0]["state"] == "READY"
    assert mine["revisions"][0]["source_sha256"] != acme_manual["revisions"][0]["source_sha256"]
    for key, own, foreign, question in (
        (api.default, "seal", "impeller", "How often is the seal checked?"),
        (api.acme, "impeller", "seal", "How often is the impeller inspected?"),
    ):
        text = httpx.get(f"{api.url}/v1/documents/manual/revisions/r1/text", headers=_auth(key))
        assert text.status_code == 200
        assert own in text.json()["text"] and foreign not in text.text
        hits = httpx.get(f"{api.url}/v1/search", params={"q": own}, headers=_auth(key)).json()
        assert [h["document_id"] for h in hits["hits"]] == ["manual"]
        assert own in hits["hits"][0]["snippet"]
        none = httpx.get(f"{api.url}/v1/search", params={"q": foreign}, headers=_auth(key))
        assert none.json()["hits"] == [] and foreign not in none.text.replace(f"q={foreign}", "")
        answer = httpx.post(
            f"{api.url}/v1/ask", headers=_auth(key), json={"question": question}
        ).json()
        assert own in answer["answer"] and foreign not in answer["answer"]
        assert answer["citations"]
        for citation in answer["citations"]:
            assert citation["status"] == "RESOLVED"
            assert citation["anchor"]["document_id"] == "manual"
            assert foreign not in citation["anchor"]["quote"]["exact"]
        listed = httpx.get(f"{api.url}/v1/documents", headers=_auth(key)).json()
        ids = sorted(d["document_id"] for d in listed["documents"])
        assert ids == (["default-only", "manual"] if key == api.default else ["manual"])


def test_foreign_objects_answer_exactly_like_missing_ones(
    api: Api, acme_manual: dict[str, Any]
) -> None:
    """Another tenant's document, anchor and answer: the same 404 / ACCESS_DENIED body as
    an id that exists nowhere."""
    missing = httpx.get(f"{api.url}/v1/documents/no-such-id", headers=_auth(api.acme))
    foreign = httpx.get(f"{api.url}/v1/documents/default-only", headers=_auth(api.acme))
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()
    text = httpx.get(
        f"{api.url}/v1/documents/default-only/revisions/r1/text", headers=_auth(api.acme)
    )
    assert text.status_code == 404 and text.json() == missing.json()
    # The acme tenant may upload an id the default tenant uses: no existence oracle.
    again = httpx.post(
        f"{api.url}/v1/documents",
        headers=_auth(api.acme),
        files={"file": ("x.txt", b"Acme has its own default-only document.\n")},
        data={"document_id": "default-only"},
    )
    assert again.status_code == 202 and again.json()["revision"] == "r1"
    _wait_ready(api, api.acme, "default-only")
    # Anchors and answers of the default tenant, asked for by acme.
    answer = httpx.post(
        f"{api.url}/v1/ask",
        headers=_auth(api.default),
        json={"question": "How often is the seal checked?"},
    ).json()
    anchor = answer["citations"][0]["anchor"]
    by_id = httpx.get(f"{api.url}/v1/anchors/{anchor['anchor_id']}", headers=_auth(api.acme))
    nowhere = httpx.get(f"{api.url}/v1/anchors/{'0' * 64}", headers=_auth(api.acme))
    assert by_id.status_code == nowhere.status_code == 200
    assert by_id.json() == {**nowhere.json(), "anchor_id": anchor["anchor_id"]}
    assert by_id.json()["status"] == "ACCESS_DENIED"
    resolved = httpx.post(
        f"{api.url}/v1/resolve", headers=_auth(api.acme), json={"anchor_id": anchor["anchor_id"]}
    )
    assert resolved.json()["status"] == "ACCESS_DENIED"
    # The anchor JSON itself names "manual": acme's own manual, whose bytes differ.
    posted = httpx.post(f"{api.url}/v1/resolve", headers=_auth(api.acme), json=anchor)
    assert posted.json()["status"] == "SOURCE_CHANGED" and "seal" not in posted.text
    answer_missing = httpx.get(f"{api.url}/v1/answers/{'0' * 32}", headers=_auth(api.acme))
    answer_foreign = httpx.get(
        f"{api.url}/v1/answers/{answer['answer_id']}", headers=_auth(api.acme)
    )
    assert answer_foreign.status_code == answer_missing.status_code == 404
    assert answer_foreign.json() == answer_missing.json()
    own = httpx.get(f"{api.url}/v1/answers/{answer['answer_id']}", headers=_auth(api.default))
    assert own.status_code == 200 and own.json()["citations"][0]["status"] == "RESOLVED"


def test_deleting_one_tenants_document_leaves_the_other(
    api: Api, acme_manual: dict[str, Any]
) -> None:
    """Deleting acme's "manual" (while the server runs) leaves the default tenant's
    document, search, anchors and answers untouched."""
    answers = {}
    for key, question in (
        (api.default, "How often is the seal checked?"),
        (api.acme, "How often is the impeller inspected?"),
    ):
        answers[key] = httpx.post(
            f"{api.url}/v1/ask", headers=_auth(key), json={"question": question}
        ).json()
        assert answers[key]["citations"], answers[key]
    app = Ragox(api.home)
    try:
        assert app.delete("manual", tenant="acme")
        assert not app.delete("manual", tenant="acme")
        assert not app.delete("manual", tenant="nobody")
    finally:
        app.close()
    gone = httpx.get(f"{api.url}/v1/documents/manual", headers=_auth(api.acme))
    assert gone.status_code == 404
    acme_anchor = answers[api.acme]["citations"][0]["anchor"]["anchor_id"]
    assert (
        httpx.get(f"{api.url}/v1/anchors/{acme_anchor}", headers=_auth(api.acme)).json()["status"]
        == "ACCESS_DENIED"
    )
    assert httpx.get(
        f"{api.url}/v1/search", params={"q": "impeller"}, headers=_auth(api.acme)
    ).json() == {"hits": []}
    still = httpx.get(f"{api.url}/v1/documents/manual", headers=_auth(api.default))
    assert still.status_code == 200 and still.json()["revisions"][0]["state"] == "READY"
    default_anchor = answers[api.default]["citations"][0]["anchor"]["anchor_id"]
    resolved = httpx.get(f"{api.url}/v1/anchors/{default_anchor}", headers=_auth(api.default))
    assert resolved.json()["status"] == "RESOLVED" and "seal" in resolved.json()["exact"]
    hits = httpx.get(f"{api.url}/v1/search", params={"q": "seal"}, headers=_auth(api.default))
    assert [h["document_id"] for h in hits.json()["hits"]] == ["manual"]
    replay = httpx.get(
        f"{api.url}/v1/answers/{answers[api.default]['answer_id']}", headers=_auth(api.default)
    )
    assert replay.json()["citations"][0]["status"] == "RESOLVED"


# -- CLI ----------------------------------------------------------------------------------


def test_same_document_id_in_two_tenants_over_the_cli(tmp_path: Path) -> None:
    """`--tenant` addresses one tenant's "manual" in every command; acl and delete of one
    tenant leave the other's alone."""
    home = tmp_path / "home"
    (tmp_path / "a.txt").write_text(DEFAULT_TEXT, encoding="utf-8")
    (tmp_path / "b.txt").write_text(ACME_TEXT, encoding="utf-8")

    def cli(*args: str, stdin: str | None = None) -> Any:
        return run_ragox(home, *args, stdin=stdin)

    a = cli("ingest", str(tmp_path / "a.txt"), "--document-id", "manual", "--groups", "staff")
    b = cli(
        "ingest",
        str(tmp_path / "b.txt"),
        "--document-id",
        "manual",
        "--groups",
        "staff",
        "--tenant",
        "acme",
        "--json",
    )
    assert a.code == 0 and b.code == 0, (a.stderr, b.stderr)
    assert b.json()["results"][0]["revision"] == "r1"
    assert cli("text", "manual").stdout == DEFAULT_TEXT
    assert cli("text", "manual", "--tenant", "acme").stdout == ACME_TEXT
    assert cli("text", "manual", "--tenant", "nobody").code == 1
    reader = ("--principal", "ann", "--groups", "staff", "--tenant", "acme")
    hits = cli("search", "impeller", *reader, "--json").json()["hits"]
    assert [h["document_id"] for h in hits] == ["manual"]
    assert cli("search", "seal", *reader, "--json").json()["hits"] == []
    assert cli("search", "impeller", "--json").json()["hits"] == []  # the default operator
    answer = cli("ask", "How often is the impeller inspected?", *reader, "--json").json()
    assert "impeller" in answer["answer"] and "seal" not in answer["answer"]
    shown = cli("answer", "show", answer["answer_id"], "--json")
    assert shown.code == 1 and shown.json()["status"] == "NOT_FOUND"  # the default operator
    anchor = cli("anchor", "manual", "--start", "0", "--end", "10", "--tenant", "acme", "--json")
    assert anchor.json()["quote"]["exact"] == "Compressor"
    anchor_id = anchor.json()["anchor_id"]
    ok = cli("resolve", anchor_id, *reader, "--json")
    assert ok.code == 0 and ok.json()["exact"] == "Compressor"
    denied = cli("resolve", anchor_id, "--json")  # the default tenant's operator
    assert denied.code == 1 and denied.json()["status"] == "ACCESS_DENIED"
    assert cli("annotation", anchor_id).code == 1
    assert cli("annotation", anchor_id, "--tenant", "acme").code == 0
    listed = cli("status", "--json", "--tenant", "acme").json()["documents"]
    assert [(d["document_id"], d["current_revision"]) for d in listed] == [("manual", "r1")]
    assert cli("check", "manual", "--tenant", "acme").code == 0
    # acl in one tenant: the other tenant's readers keep their access.
    assert cli("acl", "manual", "--groups", "board", "--tenant", "acme").code == 0
    assert cli("search", "impeller", *reader, "--json").json()["hits"] == []
    sam = ("--principal", "sam", "--groups", "staff")
    assert len(cli("search", "seal", *sam, "--json").json()["hits"]) == 1
    # delete in one tenant.
    assert cli("delete", "manual", "--tenant", "acme").code == 0
    assert cli("delete", "manual", "--tenant", "acme").code == 1
    assert cli("text", "manual", "--tenant", "acme").code == 1
    assert cli("text", "manual").stdout == DEFAULT_TEXT
    assert len(cli("search", "seal", *sam, "--json").json()["hits"]) == 1


def test_identical_bytes_under_one_id_in_two_tenants(app: Ragox) -> None:
    """Same bytes, id and revision label in two tenants give the same anchor id; each
    tenant's stored anchor, blob and deletion stay its own."""
    for tenant in ("default", "acme"):
        outcome = app.ingestor.ingest_bytes(
            DEFAULT_TEXT.encode(), "m.txt", "manual", groups=frozenset({"staff"}), tenant=tenant
        )
        assert outcome.state.value == "READY" and outcome.revision == "r1"
    mine = app.create_anchor("manual", 0, 4, DEFAULT_STAFF)
    theirs = app.create_anchor("manual", 0, 4, ACME_STAFF)
    assert not isinstance(mine, Refusal) and not isinstance(theirs, Refusal)
    assert mine.anchor.anchor_id == theirs.anchor.anchor_id
    assert mine.manifest_id != theirs.manifest_id
    sha = app.store.get_revision("acme", "manual", "r1")
    assert sha is not None
    assert app.delete("manual", tenant="acme")
    assert app.resolve_id(mine.anchor.anchor_id, ACME_STAFF).status is (
        ResolutionStatus.ACCESS_DENIED
    )
    kept = app.resolve_id(mine.anchor.anchor_id, DEFAULT_STAFF)
    assert kept.status is ResolutionStatus.RESOLVED and kept.exact == "Pump"
    assert app.store.blobs.get(sha.source_sha256) == DEFAULT_TEXT.encode()
    with pytest.raises(NotFound):
        app.text("manual", ACME_STAFF)


# -- migration from schema 6 -------------------------------------------------------------


def _copy_as_schema6(new_home: Path, old_db: Path) -> None:
    """A database of schema 6 (created by the migrations up to 6 only) holding the rows of
    ``new_home``: the shape the previous release wrote, with real signed manifests,
    chunks, FTS rows, anchors, answers, keys and jobs."""
    with older_database(new_home / "ragox.db", old_db, 6) as old:
        legacy_lexical_tables(old)  # schema 6 kept one lexical table per tenant


@pytest.mark.sqlite_only  # an older SQLite home
def test_schema6_database_is_upgraded_with_nothing_lost(tmp_path: Path) -> None:
    """A schema-6 home (documents of two tenants, anchors, a link, an answer, keys) opens
    with this ragox: the current schema, every row kept, every anchor resolves for its tenant only,
    and afterwards the other tenant may use the same id."""
    assert SCHEMA_VERSION >= 7
    build = tmp_path / "build"
    app = Ragox(build)
    app.ingestor.ingest_bytes(
        DEFAULT_TEXT.encode(), "m.txt", "manual", groups=frozenset({"staff"}), tenant="default"
    )
    app.ingestor.ingest_bytes(  # a second revision: r1 stays retained, not current
        (DEFAULT_TEXT + "Disconnect power first.\n").encode(),
        "m.txt",
        "manual",
        groups=frozenset({"staff"}),
        tenant="default",
    )
    app.ingestor.ingest_bytes(
        ACME_TEXT.encode(), "h.txt", "handbook", groups=frozenset({"staff"}), tenant="acme"
    )
    old_anchor = app.create_anchor("manual", 0, 4, DEFAULT_STAFF, revision="r1")
    new_anchor = app.create_anchor("manual", 0, 4, DEFAULT_STAFF)
    acme_anchor = app.create_anchor("handbook", 0, 10, ACME_STAFF)
    assert not isinstance(old_anchor, Refusal) and not isinstance(new_anchor, Refusal)
    assert not isinstance(acme_anchor, Refusal)
    app.store.link_anchors(
        "default", old_anchor.anchor.anchor_id, new_anchor.anchor.anchor_id, "test", "operator"
    )
    answer = app.ask("How often is the impeller inspected?", ACME_STAFF)
    key = app.create_key(ACME_STAFF)
    app.close()

    home = tmp_path / "old"
    home.mkdir()
    _copy_as_schema6(build, home / "ragox.db")
    for name in ("blobs", "keys"):  # the source bytes and the manifest key
        (build / name).rename(home / name)
    with sqlite3.connect(home / "ragox.db") as conn:
        before = {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for (table,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND sql NOT LIKE '%VIRTUAL%'"
                " AND name NOT LIKE 'lexical_%'"
            ).fetchall()
        }
        assert conn.execute("PRAGMA table_info(revisions)").fetchall()[0][1] == "document_id"
    assert before["documents"] == 2 and before["anchors"] > 3 and before["anchor_links"] == 1

    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() == SCHEMA_VERSION
        with sqlite3.connect(home / "ragox.db") as conn:
            for table, count in before.items():
                assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == count, table
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            tenants = dict(conn.execute("SELECT document_id, tenant FROM revisions").fetchall())
            assert tenants == {"manual": "default", "handbook": "acme"}
        assert upgraded.text("manual", DEFAULT_STAFF) == DEFAULT_TEXT + "Disconnect power first.\n"
        assert upgraded.text("handbook", ACME_STAFF) == ACME_TEXT
        old = upgraded.resolve_id(old_anchor.anchor.anchor_id, DEFAULT_STAFF)
        assert old.status is ResolutionStatus.RESOLVED and old.current is False
        assert upgraded.resolve_id(new_anchor.anchor.anchor_id, DEFAULT_STAFF).current is True
        assert upgraded.resolve_id(acme_anchor.anchor.anchor_id, ACME_STAFF).resolved
        assert upgraded.resolve_id(acme_anchor.anchor.anchor_id, DEFAULT_STAFF).status is (
            ResolutionStatus.ACCESS_DENIED
        )
        assert upgraded.store.anchor_successors("default", old_anchor.anchor.anchor_id) == [
            new_anchor.anchor.anchor_id
        ]
        assert [h.document_id for h in upgraded.search("impeller", ACME_STAFF)] == ["handbook"]
        assert upgraded.search("impeller", DEFAULT_STAFF) == []
        replay = upgraded.show_answer(answer.answer_id, ACME_STAFF)
        assert replay.citations and all(c.resolution.resolved for c in replay.citations)
        assert upgraded.authenticate(key) == ACME_STAFF
        assert [j.state.value for j in upgraded.store.jobs("acme", "handbook", "r1")] == ["DONE"]
        with pytest.raises(NotFound):
            upgraded.text("manual", Principal("oz", groups=frozenset({"sales"})))
        # The id the default tenant uses is free in acme now.
        outcome = upgraded.ingestor.ingest_bytes(
            b"Acme's manual.\n", "x.txt", "manual", groups=frozenset({"staff"}), tenant="acme"
        )
        assert outcome.state.value == "READY" and outcome.revision == "r1"
        assert upgraded.text("manual", ACME_STAFF) == "Acme's manual.\n"
        assert upgraded.resolve_id(old_anchor.anchor.anchor_id, DEFAULT_STAFF).resolved
    finally:
        upgraded.close()
