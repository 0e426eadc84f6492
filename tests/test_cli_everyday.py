"""Everyday commands without surprises (issue 16): ids that collide across the roots of
one command, exit codes and a summary for folders with unsupported files, anchor-id
prefixes wherever an id is accepted, and --home/--json on either side of the command."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import httpx
import pymupdf
import pytest

from conftest import CliResult, run_ragox, serving, store_sql, table_rows
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def _readmes(root: Path) -> tuple[Path, Path]:
    git, polkit = root / "readmes" / "git", root / "readmes" / "polkitd"
    git.mkdir(parents=True)
    polkit.mkdir(parents=True)
    (git / "README.md").write_text("# Git\n\nGit is a distributed version control system.\n")
    (polkit / "README.md").write_text("# polkit\n\npolkitd decides who may do what.\n")
    return git, polkit


def test_same_relative_id_from_two_roots_is_refused_not_a_new_revision(
    ragox_cli, tmp_path: Path
) -> None:
    """`ingest git polkitd` never makes polkitd's README.md revision r2 of git's."""
    git, polkit = _readmes(tmp_path)
    result = ragox_cli("ingest", str(git), str(polkit), "--json")
    assert result.code == 1
    data = json.loads(result.stdout)
    assert {r["reason"] for r in data["results"]} == {"ID_COLLISION"}
    assert data["summary"] == {"ready": 0, "unchanged": 0, "skipped": 0, "failed": 2}
    assert ragox_cli("status", "README.md").code == 1  # nothing was stored under the id
    # The common folder gives each its own id.
    whole = ragox_cli("ingest", str(tmp_path / "readmes"), "--json")
    assert whole.code == 0
    ids = sorted(r["document_id"] for r in json.loads(whole.stdout)["results"])
    assert ids == ["git/README.md", "polkitd/README.md"]


def _translated_manual(root: Path) -> tuple[Path, Path]:
    english, german = root / "docs" / "en", root / "docs" / "de"
    english.mkdir(parents=True)
    german.mkdir(parents=True)
    (english / "layers.html").write_text(
        "<p>To change the layer mode, open the Layers dialog and choose a mode from the "
        "list. The mode is kept when you save the image.</p>"
    )
    (german / "layers.html").write_text(
        "<p>Um den Ebenenmodus zu ändern, öffnen Sie den Ebenendialog und wählen Sie "
        "einen Modus aus der Liste. Der Modus wird beim Speichern des Bildes beibehalten.</p>",
        encoding="utf-8",
    )
    return english, german


def test_a_translation_ingested_after_its_original_says_it_replaced_another_language(
    ragox_cli, tmp_path: Path
) -> None:
    """A manual's folders ingested one command each (`ingest docs/en`, then `ingest
    docs/de`) give their files the same ids: the German page became revision r2 of the
    English one, and the ingest said only "READY layers.html@r2" (nu20). The line and the
    JSON now say that it replaced a revision in another language, and the summary tells
    how to keep them apart; a file in the same language replaced says nothing."""
    english, german = _translated_manual(tmp_path)
    assert ragox_cli("ingest", str(english)).code == 0
    result = ragox_cli("ingest", str(german))
    assert result.code == 0  # a new revision is what was asked for, as far as ragox knows
    assert "layers.html@r2" in result.stdout
    assert "(replaces r1, which is in another language: en → de)" in result.stdout
    assert "--prefix" in result.stderr
    # the English page edited, in --json
    (english / "layers.html").write_text(
        "<p>To rename a layer, double-click its name in the Layers dialog and type the "
        "new name. The name is kept when you save the image.</p>"
    )
    data = ragox_cli("ingest", str(english), "--json").json()
    assert data["results"][0]["replaced"] == {"revision": "r2", "language": "de", "now": "en"}
    # an edited page in the language of the revision it replaces: not a word
    (english / "layers.html").write_text(
        "<p>To delete a layer, select it in the Layers dialog and click the delete "
        "button. The other layers are kept as they are.</p>"
    )
    edited = ragox_cli("ingest", str(english), "--json").json()["results"][0]
    assert edited["revision"] == "r4" and "replaced" not in edited


def test_a_prefix_keeps_a_translation_apart(ragox_cli, tmp_path: Path) -> None:
    """`--prefix de/` starts the ids of a folder's files, so the translation is a document
    of its own; a prefix that would make no valid id, or one beside --document-id, is
    refused before any file is read."""
    english, german = _translated_manual(tmp_path)
    assert ragox_cli("ingest", str(english), "--prefix", "en/").code == 0
    result = ragox_cli("ingest", str(german), "--prefix", "de/", "--json")
    assert result.code == 0
    assert [r["document_id"] for r in result.json()["results"]] == ["de/layers.html"]
    assert "replaced" not in result.json()["results"][0]
    listed = ragox_cli("status", "--all", "--json").json()["documents"]
    assert sorted(d["document_id"] for d in listed) == ["de/layers.html", "en/layers.html"]
    assert ragox_cli("ingest", str(german), "--prefix", "../").code == 2
    page = str(german / "layers.html")
    assert ragox_cli("ingest", page, "--prefix", "de/", "--document-id", "x").code == 2


def test_the_same_file_named_twice_is_one_file(ragox_cli, tmp_path: Path) -> None:
    """Naming one file twice (or a folder and a file in it) is not a collision."""
    git, _ = _readmes(tmp_path)
    result = ragox_cli("ingest", str(git / "README.md"), str(git / "README.md"), "--json")
    assert result.code == 0
    assert len(json.loads(result.stdout)["results"]) == 1


def test_unsupported_files_only_skipped_exit_zero_with_a_summary(ragox_cli, tmp_path: Path) -> None:
    """A folder with an image besides its text: exit 0 and one summary line."""
    git, _ = _readmes(tmp_path)
    (git / "logo.png").write_bytes(PNG)
    result = ragox_cli("ingest", str(git))
    assert result.code == 0, result.stderr
    assert "SKIPPED" in result.stdout and "UNSUPPORTED_TYPE" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "1 ready, 1 skipped, 0 failed"


def test_the_summary_counts_files_already_stored_as_unchanged(ragox_cli, tmp_path: Path) -> None:
    """A folder ingested again with one file edited: the summary says how many of the
    ready ones were stored already ("2 ready (1 unchanged)"), not "2 ready" as if two
    documents had been added (noticed by a new-user pass)."""
    git, _ = _readmes(tmp_path)
    (git / "NOTES.txt").write_text("The first note.\n", encoding="utf-8")
    first = ragox_cli("ingest", str(git))
    assert first.stdout.strip().splitlines()[-1] == "2 ready, 0 skipped, 0 failed"
    (git / "NOTES.txt").write_text("The second note.\n", encoding="utf-8")
    again = ragox_cli("ingest", str(git))
    assert again.code == 0, again.stderr
    assert again.stdout.strip().splitlines()[-1] == "2 ready (1 unchanged), 0 skipped, 0 failed"
    third = json.loads(ragox_cli("ingest", str(git), "--json").stdout)
    assert third["summary"] == {"ready": 2, "unchanged": 2, "skipped": 0, "failed": 0}


def test_an_edited_file_ingested_again_without_groups_keeps_its_readers(
    ragox_cli, tmp_path: Path
) -> None:
    """`ingest --groups staff` once, then the edited folder again without --groups:
    r2 is for staff too, and staff still finds the document. Before, r2 had no groups
    (operators only) and the document vanished for its readers. `--groups ""` still
    means no readers; a new file without --groups still has none."""
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "a.txt").write_text("The pump is checked weekly.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(folder), "--groups", "staff").code == 0
    (folder / "a.txt").write_text("The pump is checked daily.\n", encoding="utf-8")
    (folder / "b.txt").write_text("The valve is greased daily.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(folder)).code == 0
    shown = json.loads(ragox_cli("status", "a.txt", "--json").stdout)
    assert [r["groups"] for r in shown["revisions"]] == [["staff"], ["staff"]]
    found = ragox_cli("search", "pump daily", "--principal", "sam", "--groups", "staff")
    assert "a.txt@r2" in found.stdout
    fresh = json.loads(ragox_cli("status", "b.txt", "--json").stdout)
    assert [r["groups"] for r in fresh["revisions"]] == [[]]
    (folder / "a.txt").write_text("The pump is checked hourly.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(folder / "a.txt"), "--groups", "").code == 0
    shown = json.loads(ragox_cli("status", "a.txt", "--json").stdout)
    assert [r["groups"] for r in shown["revisions"]] == [["staff"], ["staff"], []]


def test_inherited_readers_never_bring_back_a_group_removed_from_the_current(
    ragox_cli, tmp_path: Path
) -> None:
    """r1 for staff and hr; r2 (the same groups) FAILED; `acl --revision r1` narrows the
    current one to staff; the next edit ingested without --groups is for staff only,
    not the FAILED r2's staff and hr (red-team: hr got the document back)."""
    path = tmp_path / "a.txt"
    path.write_text("The pump is checked weekly.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(path), "--groups", "staff,hr").code == 0
    broken = tmp_path / "a.pdf"
    broken.write_bytes(b"%PDF-1.7 broken")
    failed = ragox_cli("ingest", str(broken), "--document-id", "a.txt", "--groups", "staff,hr")
    assert failed.code == 1
    assert ragox_cli("acl", "a.txt", "--groups", "staff", "--revision", "r1").code == 0
    path.write_text("The pump is checked daily.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(path)).code == 0
    shown = json.loads(ragox_cli("status", "a.txt", "--json").stdout)
    assert [r["groups"] for r in shown["revisions"]] == [["staff"], ["hr", "staff"], ["staff"]]
    assert "a.txt" not in ragox_cli("search", "pump", "--principal", "h", "--groups", "hr").stdout


def test_serve_refuses_a_body_timeout_that_is_no_number(ragox_cli) -> None:
    """`--body-timeout nan` was accepted, and then every ask failed with a 500."""
    for value in ("nan", "inf", "0", "0.5"):
        assert ragox_cli("serve", "--body-timeout", value).code == 2, value


def test_serve_refuses_a_port_that_does_not_exist(ragox_cli) -> None:
    """`--port 70000` printed a URL with that port and then served nowhere (exit 0 after
    uvicorn's own refusal, or a hang); a port is 0 (any free one) to 65535."""
    for value in ("70000", "-1", "65536"):
        refused = ragox_cli("serve", "--port", value)
        assert refused.code == 2, value
        assert "--port" in refused.stderr and "ragox web app" not in refused.stdout


def test_groups_given_for_bytes_stored_with_other_readers_are_refused(
    ragox_cli, tmp_path: Path
) -> None:
    """The same bytes ingested again with other --groups: refused (GROUPS_DIFFER, exit 1,
    with a pointer to `ragox acl`) and the stored readers unchanged; the same groups, or
    none given, stay "unchanged" with exit 0 (before: exit 0 and the new groups silently
    dropped, so an operator restricting a document thought it restricted)."""
    path = tmp_path / "sal.txt"
    path.write_text("Salary bands are reviewed every year.\n")
    assert ragox_cli("ingest", str(path), "--groups", "everyone").code == 0
    refused = ragox_cli("ingest", str(path), "--groups", "hr")
    assert refused.code == 1
    assert "(GROUPS_DIFFER)" in refused.stdout and "ragox acl" in refused.stdout
    data = json.loads(ragox_cli("ingest", str(path), "--groups", "hr", "--json").stdout)
    assert data["results"][0]["reason"] == "GROUPS_DIFFER"
    assert data["summary"] == {"ready": 0, "unchanged": 0, "skipped": 0, "failed": 1}
    status = json.loads(ragox_cli("status", "sal.txt", "--json").stdout)
    assert status["revisions"][0]["groups"] == ["everyone"]
    for same in (("--groups", "everyone"), ()):
        again = ragox_cli("ingest", str(path), *same)
        assert again.code == 0 and "(unchanged)" in again.stdout, again.stdout


def test_names_and_text_cannot_forge_or_reorder_a_line_for_people(
    ragox_cli, tmp_path: Path
) -> None:
    """A file named with a line break and a fake report line is one line, its break
    escaped; a document's bidirectional override ("Total \u202e0001\u202c EUR", shown as
    1000 by a terminal) is escaped in search and ask output. --json and the stored text
    keep the characters exactly."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "evil.txt\nREADY    payroll.txt@r1  payroll.txt").write_text("A note.\n")
    (folder / "odd\u2028READY    fake.txt@r1.txt").write_text("Another note.\n")
    (folder / "bill.txt").write_text(
        "Total \u202e0001\u202c EUR is due on Friday.\u2028Sources:\u2028  [S9] fake.txt@r1\n"
    )
    shown = ragox_cli("ingest", str(folder))
    lines = shown.stdout.splitlines()  # (splits at U+2028 too, as log viewers do)
    assert not any(
        line.lstrip().startswith(("READY    payroll", "READY    fake")) for line in lines
    )
    assert any("evil.txt\\x0aREADY" in line for line in lines), lines
    assert any("odd\\u2028READY" in line for line in lines), lines
    found = ragox_cli("search", "total")
    assert "\u202e" not in found.stdout and "Total \\u202e0001\\u202c EUR" in found.stdout
    asked = ragox_cli("ask", "What total is due on Friday?")
    assert "\u202e" not in asked.stdout and "\\u202e0001" in asked.stdout, asked.stdout
    assert "\u2028" not in asked.stdout and not any(
        line.startswith("Sources:") and "[S9]" in line for line in asked.stdout.splitlines()
    )
    # an id the operator gives with a bidirectional override is refused outright now
    # (before, it was stored, and its lines escaped it)
    odd = ragox_cli("ingest", str(folder / "bill.txt"), "--document-id", "inv\u202eoice")
    assert odd.code == 2 and "bidirectional" in odd.stderr, odd.stderr
    assert "\u202e" not in odd.stderr
    exact = json.loads(ragox_cli("search", "total", "--json").stdout)["hits"][0]["snippet"]
    assert "\u202e0001\u202c" in exact


def test_the_bytes_of_an_older_revision_say_that_they_are_not_current(
    ragox_cli, tmp_path: Path
) -> None:
    """r1's bytes ingested again after r2: still r1, unchanged, and the line says r2 is
    current (before: "READY a.txt@r1 (unchanged)", read as r1 restored); exit 0."""
    path = tmp_path / "a.txt"
    path.write_text("Version one of the note.\n")
    assert ragox_cli("ingest", str(path)).code == 0
    path.write_text("Version two of the note.\n")
    assert ragox_cli("ingest", str(path)).code == 0
    path.write_text("Version one of the note.\n")
    again = ragox_cli("ingest", str(path))
    assert again.code == 0
    assert "a.txt@r1" in again.stdout and "(unchanged; not current: r2 is)" in again.stdout
    data = json.loads(ragox_cli("ingest", str(path), "--json").stdout)["results"][0]
    assert (data["revision"], data["created"], data["current_revision"]) == ("r1", False, "r2")
    status = json.loads(ragox_cli("status", "a.txt", "--json").stdout)
    assert status["current_revision"] == "r2"
    path.write_text("Version two of the note.\n")
    latest = json.loads(ragox_cli("ingest", str(path), "--json").stdout)["results"][0]
    assert "current_revision" not in latest


def test_a_failed_file_still_exits_one_and_is_counted(ragox_cli, tmp_path: Path) -> None:
    """Failures keep exit 1; the summary counts them apart from skips."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("A plain note about pumps.\n")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "logo.png").write_bytes(PNG)
    result = ragox_cli("ingest", str(folder), "--json")
    assert result.code == 1
    assert json.loads(result.stdout)["summary"] == {
        "ready": 1,
        "unchanged": 0,
        "skipped": 1,
        "failed": 1,
    }


def _note(app: Ragox, name: str, data: bytes, group: str) -> None:
    """``data`` as document ``name``, readable by ``group``."""
    app.ingestor.ingest_bytes(data, name, name, groups=frozenset({group}), tenant="default")


def _asked(home: Path) -> tuple[str, str]:
    """A stored citation's anchor id, and the 16-digit form that `ask` prints."""
    app = Ragox(home)
    try:
        _note(
            app,
            "pump.txt",
            b"Pump manual.\n\nReplace the shaft seal every 2,000 operating hours.\n",
            "staff",
        )
        record = app.ask("How often is the shaft seal replaced?", Principal.local_operator())
    finally:
        app.close()
    assert record.citations
    full = record.citations[0].anchor.anchor_id
    return full, full[:16]


def test_printed_anchor_id_prefixes_are_accepted_by_resolve(ragox_cli, home: Path) -> None:
    """The 16-digit ids that `ask` prints resolve; so does any unique prefix of 8+."""
    full, short = _asked(home)
    printed = ragox_cli("ask", "How often is the shaft seal replaced?")
    assert f"anchor {short}" in printed.stdout
    for given in (full, short, full[:8]):
        result = ragox_cli("resolve", given, "--json")
        assert result.code == 0, (given, result.stderr)
        assert json.loads(result.stdout)["status"] == "RESOLVED"
    assert ragox_cli("annotation", short).code == 0
    # Too short to be an id, and not a file either: a usage error.
    assert ragox_cli("resolve", full[:7]).code == 2
    # A prefix of nothing: refused like an unknown anchor.
    unknown = "0" * 16 if not full.startswith("0" * 16) else "f" * 16
    refused = ragox_cli("resolve", unknown, "--json")
    assert refused.code == 1 and json.loads(refused.stdout)["status"] == "ACCESS_DENIED"


def test_anchor_prefix_keeps_access_rules(ragox_cli, home: Path) -> None:
    """A prefix is looked up within the reader's tenant and access is decided as for the
    full id: an outsider gets ACCESS_DENIED either way."""
    full, short = _asked(home)
    for given in (full, short):
        denied = ragox_cli("resolve", given, "--principal", "oz", "--groups", "sales", "--json")
        assert json.loads(denied.stdout)["status"] == "ACCESS_DENIED"
        other = ragox_cli("resolve", given, "--tenant", "acme", "--json")
        assert json.loads(other.stdout)["status"] == "ACCESS_DENIED"


def test_an_unknown_anchor_id_is_named_so_to_the_operator_only(ragox_cli, home: Path) -> None:
    """The local operator reads everything, so its ACCESS_DENIED for an id can only
    mean that no such anchor is stored: it is told so. A declared reader is told
    nothing more, for a stored anchor it may not read and an unknown id alike."""
    full, _ = _asked(home)
    unknown = "0" * 16 if not full.startswith("0" * 16) else "f" * 16
    told = ragox_cli("resolve", unknown)
    assert told.code == 1
    assert told.stdout.splitlines() == [
        "ACCESS_DENIED  (access_denied)",
        f"  no anchor with id {unknown} is stored in tenant default",
    ]
    for given in (unknown, full):
        reader = ragox_cli("resolve", given, "--principal", "oz", "--groups", "sales")
        assert reader.code == 1
        assert reader.stdout.splitlines() == ["ACCESS_DENIED  (access_denied)"]


def test_an_ambiguous_prefix_is_told_only_to_the_operator(ragox_cli, home: Path) -> None:
    """Two stored anchors share the first 8 digits (the second one of a document only
    the finance group reads): the local operator is told to give more digits (exit 2); a
    declared reader gets ACCESS_DENIED, as for a prefix of nothing (before: "names
    several anchors", telling an outsider that an anchor it may not read exists)."""
    full, _ = _asked(home)
    app = Ragox(home)
    try:
        _note(app, "pay.txt", b"Salaries rise by two percent.\n", "finance")
        pay = app.create_anchor("pay.txt", 0, 8, Principal.local_operator())
    finally:
        app.close()
    assert not isinstance(pay, Refusal)
    twin = full[:8] + pay.anchor.anchor_id[8:]  # the finance anchor under a colliding id
    if os.environ.get("RAGOX_STORE"):
        listed = "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        listed += "ORDER BY ordinal_position"
        columns = [row[0] for row in store_sql(home, listed, ("anchors",))]
    else:
        columns = [row[1] for row in store_sql(home, "PRAGMA table_info(anchors)")]
    chosen = ", ".join("?" if column == "anchor_id" else column for column in columns)
    store_sql(
        home,
        f"INSERT INTO anchors({', '.join(columns)}) SELECT {chosen} FROM anchors "
        "WHERE anchor_id = ?",
        (twin, pay.anchor.anchor_id),
    )
    told = ragox_cli("resolve", full[:8])
    assert told.code == 2 and "names several anchors" in told.stderr
    for who in (
        ("--principal", "oz", "--groups", "sales"),
        ("--principal", "sam", "--groups", "staff"),
    ):
        shown = ragox_cli("resolve", full[:8], *who, "--json")
        unknown = ragox_cli("resolve", "0" * 8 if full[:8] != "0" * 8 else "f" * 8, *who, "--json")
        assert shown.code == unknown.code == 1
        assert json.loads(shown.stdout) == {**json.loads(unknown.stdout), "anchor_id": full[:8]}


def test_resolve_of_a_name_longer_than_the_system_takes_is_a_usage_error(
    ragox_cli, home: Path
) -> None:
    """Neither an id nor a file the system can name: exit 2 (before: an internal error,
    ENAMETOOLONG)."""
    _asked(home)
    for given in ("f" * 300, "f" * 5000, "g" * 300):
        result = ragox_cli("resolve", given)
        assert result.code == 2 and "no such file" in result.stderr, result.stderr[:200]


def test_api_and_viewer_accept_anchor_id_prefixes(home: Path) -> None:
    """GET /v1/anchors/{16-digit prefix} resolves the anchor the prefix names."""
    full, short = _asked(home)
    app = Ragox(home)
    try:
        key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    finally:
        app.close()
    with serving(home) as url:
        headers = {"Authorization": f"Bearer {key}"}
        body = httpx.get(f"{url}/v1/anchors/{short}", headers=headers).json()
        assert body["status"] == "RESOLVED"
        assert body["anchor"]["anchor_id"] == full
        by_body = httpx.post(f"{url}/v1/resolve", headers=headers, json={"anchor_id": short})
        assert by_body.json()["status"] == "RESOLVED"


def _both_sides(home: Path, *args: str) -> tuple[CliResult, CliResult]:
    """The same command with --home before and after the command name."""
    before = run_ragox(home.parent / "unused", "--home", str(home), *args)
    after = run_ragox(home.parent / "unused", *args, "--home", str(home))
    return before, after


def _shown(result: CliResult) -> list[tuple[str, str, str]]:
    """Documents, revisions and states of `status --json` (not its ages and times)."""
    documents = json.loads(result.stdout)["documents"]
    return [
        (doc["document_id"], rev["revision"], rev["state"])
        for doc in documents
        for rev in doc["revisions"]
    ]


def test_home_and_json_before_or_after_the_command(tmp_path: Path, seed_file: Path) -> None:
    """`ragox status --home DIR` and `ragox --json status` do what people expect."""
    home = tmp_path / "elsewhere"
    ingested = run_ragox(tmp_path / "unused", "ingest", str(seed_file), "--home", str(home))
    assert ingested.code == 0, ingested.stderr
    before, after = _both_sides(home, "status", "--json")
    assert before.code == after.code == 0
    assert _shown(before) == _shown(after) == [("seed.txt", "r1", "READY")]
    # --json before the command switches the command's own --json on.
    early = run_ragox(home, "--json", "status")
    assert _shown(early) == _shown(after)
    searched = run_ragox(home, "--json", "search", "Prüfung")
    assert "hits" in json.loads(searched.stdout)
    # The unused default home was never created by the commands that named another.
    assert not (tmp_path / "unused").exists()


def test_keys_list_shows_ids_and_grants_never_keys(ragox_cli, home: Path) -> None:
    """`keys list` shows each key's id, principal and grants but never a key (only its
    hash is stored); a key whose secret is lost is revoked by that id, and a revoked key
    leaves the list (it stays under --all)."""
    made = [
        json.loads(ragox_cli(*args, "--json").stdout)
        for args in (
            ("keys", "create", "--principal", "sam", "--groups", "staff"),
            ("keys", "create", "--principal", "wendy", "--groups", "staff", "--write", "staff/"),
        )
    ]
    listed = ragox_cli("keys", "list", "--json")
    assert listed.code == 0
    rows = json.loads(listed.stdout)["keys"]
    assert [(r["principal"], r["write"], r["operate"]) for r in rows] == [
        ("sam", [], False),
        ("wendy", ["staff/"], False),
    ]
    shown = listed.stdout + ragox_cli("keys", "list").stdout
    assert all(key["key"] not in shown for key in made)
    assert all(len(r["key_id"]) == 12 for r in rows)
    assert ragox_cli("keys", "list", "--tenant", "acme", "--json").json() == {"keys": []}
    assert ragox_cli("keys", "revoke", "--id", rows[0]["key_id"][:6]).code == 1  # too short
    assert ragox_cli("keys", "revoke", "--id", rows[0]["key_id"]).code == 0
    app = Ragox(home)
    try:
        assert app.authenticate(made[0]["key"]) is None
        assert app.authenticate(made[1]["key"]) is not None
    finally:
        app.close()
    remaining = json.loads(ragox_cli("keys", "list", "--json").stdout)["keys"]
    assert [r["principal"] for r in remaining] == ["wendy"]
    everything = json.loads(ragox_cli("keys", "list", "--all", "--json").stdout)["keys"]
    assert [r["revoked_at"] is not None for r in everything] == [True, False]
    assert ragox_cli("keys", "revoke").code == 2  # neither a key nor --id


@pytest.mark.sqlite_only  # a PostgreSQL store is the server's to say, not a file's
@pytest.mark.parametrize(
    "command",
    [
        ("search", "pump"),
        ("ask", "How often is the pump checked?"),
        ("resolve", "0" * 64),
        ("text", "pump.txt"),
        ("keys", "list"),
        ("delete", "pump.txt"),
        # before, these made an empty home and answered from it with exit 0
        ("status",),
        ("retention",),
        ("reprocess", "--dry-run"),
        ("reprocess", "--history"),
        ("retry", "pump.txt", "--revision", "r1"),
        ("fail", "pump.txt", "--revision", "r1"),
        ("migrate", "0" * 64),
    ],
)
def test_commands_that_read_refuse_a_home_that_does_not_exist(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A mistyped --home is an error, not an empty answer from a new empty home that
    the command leaves behind; commands that write (ingest) still create it."""
    home = tmp_path / "no-such-home"
    result = run_ragox(home, *command)
    assert result.code == 1
    assert f"no ragox home at {home}" in result.stderr
    assert not home.exists()
    source = tmp_path / "pump.txt"
    source.write_text("The pump is checked every Monday.\n", encoding="utf-8")
    assert run_ragox(home, "ingest", str(source)).code == 0
    assert run_ragox(home, "search", "pump").code == 0


@pytest.mark.parametrize(
    "tenant", ["*", "", " t2", "de\u202efault", "a,b", "t\u200b2", "de\u0301fault"]
)
def test_tenant_names_that_no_one_could_address_are_refused(
    ragox_cli, home: Path, tmp_path: Path, tenant: str
) -> None:
    """`--tenant` is checked like a group name on every command (exit 2, nothing stored):
    "*" marked the operator's answers before schema 7, and an empty or invisible name
    made keys and documents that read as another tenant's."""
    note = tmp_path / "n.txt"
    note.write_text("The pump is checked daily.\n")
    for command in (
        ("keys", "create", "k", "--groups", "staff", "--tenant", tenant),
        ("ingest", str(note), "--tenant", tenant),
        ("search", "pump", "--tenant", tenant),
        ("status", "--tenant", tenant),
    ):
        refused = ragox_cli(*command)
        assert refused.code == 2, command
        assert "--tenant" in refused.stderr
    app = Ragox(home)
    stored = (table_rows(app.store, "documents"), table_rows(app.store, "api_keys"))
    app.close()
    assert stored == (0, 0)
    assert ragox_cli("ingest", str(note), "--tenant", "t2").code == 0  # a plain name is fine


def test_the_same_bytes_with_another_language_are_indexed_in_it(
    ragox_cli, home: Path, tmp_path: Path
) -> None:
    """`--language` given again for unchanged bytes: the revision is indexed in the new
    language, as its document then says (before: the document said "ru" while its index
    kept "de", so search analyzed the text in a language no one had given)."""
    note = tmp_path / "note.txt"
    note.write_text("Die Pumpen werden jede Woche von den Technikern geprüft.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(note), "--language", "en").code == 0
    again = ragox_cli("ingest", str(note), "--language", "de")
    assert again.code == 0 and "(unchanged)" in again.stdout  # no new revision
    app = Ragox(home)
    try:
        record = app.store.get_revision("default", "note.txt", "r1")
        document = app.store.get_document("default", "note.txt")
        assert record is not None and record.manifest_id is not None and document is not None
        indexed = app.store.index.representation_languages([record.manifest_id])
        assert (document.language, indexed[record.manifest_id]) == ("de", "de")
    finally:
        app.close()
    found = ragox_cli("search", "Pumpe", "--json").json()  # German stemming: Pumpen ~ Pumpe
    assert [hit["document_id"] for hit in found["hits"]] == ["note.txt"]


def test_status_names_each_revisions_language(ragox_cli, tmp_path: Path) -> None:
    """`status DOC` (text and --json) and the listing name each revision's language, the
    given one or the detected one, as the API does (before: only the API said it)."""
    note = tmp_path / "note.txt"
    note.write_text("Die Pumpen werden jede Woche von den Technikern geprüft.\n", encoding="utf-8")
    assert ragox_cli("ingest", str(note), "--language", "de").code == 0
    guide = tmp_path / "guide.txt"
    guide.write_text("The pumps are checked every week by the technicians on duty.\n")
    assert ragox_cli("ingest", str(guide)).code == 0
    assert "READY" in (shown := ragox_cli("status", "note.txt").stdout) and "(de)" in shown
    assert ragox_cli("status", "guide.txt", "--json").json()["revisions"][0]["language"] == "en"
    listed = ragox_cli("status", "--all", "--json").json()["documents"]
    assert {d["document_id"]: d["revisions"][0]["language"] for d in listed} == {
        "note.txt": "de",
        "guide.txt": "en",
    }


def test_answer_trace_takes_json_after_the_command(ragox_cli, tmp_path: Path) -> None:
    """`answer trace ID --json` is accepted like `--json` before the command (its output
    is JSON either way); before, it was "No such option"."""
    note = tmp_path / "note.txt"
    note.write_text("The pump is checked every Monday.\n")
    assert ragox_cli("ingest", str(note)).code == 0
    asked = ragox_cli("ask", "When is the pump checked?", "--json").json()
    after = ragox_cli("answer", "trace", asked["answer_id"], "--json")
    assert (
        after.code == 0 and after.json() == ragox_cli("answer", "trace", asked["answer_id"]).json()
    )


def test_check_of_a_failed_revision_says_it_failed(ragox_cli, tmp_path: Path) -> None:
    """`check DOC --revision r2` of a FAILED revision says so (before: "document not
    found", of a document `status` lists); an unknown revision or document is not found."""
    note = tmp_path / "note.txt"
    note.write_text("The pump is checked every Monday.\n")
    assert ragox_cli("ingest", str(note)).code == 0
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 broken")
    assert ragox_cli("ingest", str(broken), "--document-id", "note.txt").code == 1
    failed = ragox_cli("check", "note.txt", "--revision", "r2")
    assert failed.code == 1 and "revision r2 is FAILED" in failed.stderr
    assert ragox_cli("check", "note.txt", "--revision", "r2", "--json").json() == {
        "status": "NOT_READY",
        "state": "FAILED",
    }
    assert "revision not found" in ragox_cli("check", "note.txt", "--revision", "r9").stderr
    assert "document not found" in ragox_cli("check", "nope.txt").stderr
    assert ragox_cli("check", "note.txt").code == 0


@pytest.mark.parametrize(
    "name", ["\u00b5-Labor", "\uff84\uff73\uff77\uff6e\uff73", "R&D\u00b2", "d\u00e9faut"]
)
def test_real_names_with_compatibility_characters_stay_usable(
    ragox_cli, tmp_path: Path, name: str
) -> None:
    """A tenant and a group named with a micro sign, half-width katakana, a superscript
    or a precomposed accent are accepted (NFKC would refuse them and strand data made
    under them; only decomposed look-alikes are refused)."""
    note = tmp_path / "n.txt"
    note.write_text("The pump is checked daily.\n")
    assert ragox_cli("ingest", str(note), "--tenant", name, "--groups", name).code == 0
    found = ragox_cli(
        "search", "pump", "--tenant", name, "--principal", "p", "--groups", name, "--json"
    ).json()
    assert [hit["document_id"] for hit in found["hits"]] == ["n.txt"]


def test_a_packages_readme_with_a_variant_suffix_is_text(ragox_cli, tmp_path: Path) -> None:
    """Debian ships "README.Debian", "README.source", "NEWS.Debian": their suffix names
    a variant, not a type. They were skipped as UNSUPPORTED_TYPE while an extensionless
    README was read (a new-user pass); a compressed "changelog.Debian.gz" or a binary
    file under such a name stays skipped, not a decoding failure."""
    folder = tmp_path / "openssl"
    folder.mkdir()
    (folder / "README.Debian").write_text(
        "The default configuration enables TLS 1.2 as the lowest version.\n", encoding="utf-8"
    )
    (folder / "changelog.Debian.gz").write_bytes(gzip.compress(b"openssl (3.0) unstable\n"))
    (folder / "NEWS.bin").write_bytes(b"\x00\x01binary")
    # Latin-1 past the first kilobytes is no UTF-8 text: skipped, not a failure
    (folder / "README.source").write_bytes(b"x\n" + b"a" * 8200 + b"\nCaf\xe9\n")
    # a type's suffix under a documentation name is that type: a key, a script
    (folder / "security.pem").write_text("-----BEGIN PRIVATE KEY-----\nMIIE\n")
    (folder / "install.sh").write_text("#!/bin/sh\necho install\n")
    # the name of what it documents is a variant too (a new-user pass: init-system-
    # helpers' "README.policy-rc.d" was skipped); a script's suffix is not
    (folder / "README.policy-rc.d").write_text("The policy layer decides which services start.\n")
    (folder / "README.sh").write_text("#!/bin/sh\necho readme\n")
    result = ragox_cli("ingest", str(folder), "--json")
    assert result.code == 0, result.stderr
    states = _states(result)
    assert states == {
        "README.Debian": "READY",
        "changelog.Debian.gz": "UNSUPPORTED_TYPE",
        "NEWS.bin": "UNSUPPORTED_TYPE",
        "README.source": "UNSUPPORTED_TYPE",
        "security.pem": "UNSUPPORTED_TYPE",
        "install.sh": "UNSUPPORTED_TYPE",
        "README.policy-rc.d": "READY",
        "README.sh": "UNSUPPORTED_TYPE",
    }
    found = ragox_cli("search", "lowest TLS version", "--json")
    assert [h["document_id"] for h in json.loads(found.stdout)["hits"]] == ["README.Debian"]


def test_a_tutorial_in_another_language_is_text(ragox_cli, tmp_path: Path) -> None:
    """Emacs ships its tutorial as "TUTORIAL.de" and "TUTORIAL.ru": the suffix names a
    language, and both were skipped as UNSUPPORTED_TYPE (a new-user pass, nu16); a
    binary file under such a name stays skipped."""
    folder = tmp_path / "tutorials"
    folder.mkdir()
    (folder / "TUTORIAL.de").write_text(
        "Einführung in Emacs. Mit C-x C-c beenden Sie die Emacs-Sitzung.\n", encoding="utf-8"
    )
    (folder / "TUTORIAL.ru").write_text(
        "Учебник Emacs. Чтобы завершить сеанс Emacs, наберите C-x C-c.\n", encoding="utf-8"
    )
    (folder / "INSTALL.ja").write_bytes(b"\x00\x01binary")
    # a language's code that is a source file's suffix too: Czech, not C#
    (folder / "README.cs").write_text("Návod k použití programu.\n", encoding="utf-8")
    # source code under such a name is no documentation (a red team's cases)
    (folder / "history.c").write_text("int main(void) { return 0; }\n")
    (folder / "install.bat").write_text("@echo off\r\ncopy a b\r\n")
    result = ragox_cli("ingest", str(folder), "--json")
    assert result.code == 0, result.stderr
    states = _states(result)
    assert states == {
        "TUTORIAL.de": "READY",
        "TUTORIAL.ru": "READY",
        "INSTALL.ja": "UNSUPPORTED_TYPE",
        "README.cs": "READY",
        "history.c": "UNSUPPORTED_TYPE",
        "install.bat": "UNSUPPORTED_TYPE",
    }
    found = ragox_cli("search", "Sitzung beenden", "--json")
    assert [h["document_id"] for h in json.loads(found.stdout)["hits"]] == ["TUTORIAL.de"]


def _states(result: CliResult) -> dict[str, str]:
    """Each ingested file's name and its state, or the reason it was skipped."""
    return {
        Path(r["path"]).name: r.get("reason") or r["state"]
        for r in json.loads(result.stdout)["results"]
    }


def test_a_sphinx_source_copy_is_read_as_its_markup(ragox_cli, tmp_path: Path) -> None:
    """Sphinx publishes each page's source as ``_sources/NAME.rst.txt`` (MyST's as
    ``.md.txt``): read as plain text, its titles' underlines were text and its
    sections no sections (a new-user pass over the Developer's Reference). It is read
    as reStructuredText (Markdown), whose blocks keep their inline markup as written
    (see ``ragox.extract.rst``); a plain ``notes.txt`` stays text."""
    folder = tmp_path / "_sources"
    folder.mkdir()
    (folder / "pkgs.rst.txt").write_text(
        "Filing bugs\n===========\n\nThe severity of an ITP bug must be ``wishlist``, "
        "and *every* report goes to the BTS.\n",
        encoding="utf-8",
    )
    (folder / "howto.md.txt").write_text(
        "# Uploads\n\nRun `dput` with **one** changes file.\n", encoding="utf-8"
    )
    (folder / "notes.txt").write_text(
        "Keep ``these`` marks as they are.\n=====\n", encoding="utf-8"
    )
    result = ragox_cli("ingest", str(folder), "--json")
    assert result.code == 0, result.stderr
    assert {r["state"] for r in json.loads(result.stdout)["results"]} == {"READY"}
    assert ragox_cli("text", "pkgs.rst.txt").stdout.startswith(
        "Filing bugs\n\nThe severity of an ITP bug"
    )
    assert ragox_cli("text", "howto.md.txt").stdout.startswith("Uploads\n\nRun `dput`")
    plain = ragox_cli("text", "notes.txt").stdout
    assert plain.startswith("Keep ``these`` marks")


def test_ask_names_the_pdf_page_of_each_quote(ragox_cli, tmp_path: Path) -> None:
    """A reader of a PDF manual looks for a page (a new user's pass over LinuxCNC's
    manual: `ask` gave code points only, though `resolve --json` knew the page)."""
    document = pymupdf.open()
    for text in (
        "Chapter one describes the machine and its parts in general terms.",
        "The spindle is lubricated with oil every 200 operating hours.",
        "Chapter three describes the control panel and its buttons.",
    ):
        page = document.new_page(width=595, height=842)
        page.insert_text((72, 100), text, fontsize=11)
    path = tmp_path / "manual.pdf"
    document.save(path)
    document.close()
    assert ragox_cli("ingest", str(path)).code == 0
    asked = ragox_cli("ask", "How often is the spindle lubricated?")
    assert asked.code == 0, asked.stderr
    sources = [line for line in asked.stdout.splitlines() if "manual.pdf@r1" in line]
    assert sources and all(" p. 2 " in line for line in sources), asked.stdout


def test_ask_names_the_status_of_each_copy(ragox_cli, tmp_path: Path) -> None:
    """A copy listed under "also in" is verified as the citation is, and says so (a new
    user's pass: the copies' lines had no status, as if unchecked)."""
    text = "# Pump\n\nThe spindle is lubricated with oil every 200 operating hours.\n"
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert ragox_cli("ingest", str(tmp_path / "a.md"), str(tmp_path / "b.md")).code == 0
    asked = ragox_cli("ask", "How often is the spindle lubricated?")
    copies = [line for line in asked.stdout.splitlines() if "also in" in line]
    assert copies and all(" RESOLVED " in line for line in copies), asked.stdout


def test_ask_names_the_document_again_after_a_copys_line(ragox_cli, tmp_path: Path) -> None:
    """A second quote of one passage is listed under its label alone only right below
    the first; after an "also in" line it names its document again (a new user's pass
    over the Debian handbook: "[1659, 1713) RESOLVED …" under the German copy's line
    read as a range of that copy)."""
    text = (
        "# Pump\n\nThe spindle is lubricated with oil every 200 operating hours. Use only "
        "SAE 30 oil for the spindle.\n\nThe pump is cleaned every week.\n"
    )
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert ragox_cli("ingest", str(tmp_path / "a.md"), str(tmp_path / "b.md")).code == 0
    asked = ragox_cli("ask", "How often is the spindle lubricated, and with which oil?")
    assert asked.code == 0, asked.stderr
    sources = asked.stdout.split("\nSources:\n", 1)[1].split("\n\n(answer", 1)[0].splitlines()
    quotes = [line for line in sources if " anchor " in line and "also in" not in line]
    assert len(quotes) == 2 and any("also in" in line for line in sources), asked.stdout
    assert all(" a.md@r1 " in line for line in quotes), asked.stdout
