"""A new user's pass over the everyday commands (issue 16), as real `python -m ragox`
processes and a real `ragox serve`: what `resolve` prints for a printed anchor id, anchor
ids as people copy them, `--home` between a command group and its command, and a
refused prefix that tells nothing about the anchors it does not show."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from conftest import serving
from ragox.access import Principal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends


def _cited(home: Path) -> tuple[str, str]:
    """A stored citation's full anchor id and the 16 digits that `ask` prints."""
    app = Ragox(home)
    try:
        app.ingestor.ingest_bytes(
            b"Pump manual.\n\nReplace the shaft seal every 2,000 operating hours.\n",
            "pump.txt",
            "manuals/pump.txt",
            groups=frozenset({"staff"}),
            tenant="default",
        )
        record = app.ask("How often is the shaft seal replaced?", Principal.local_operator())
    finally:
        app.close()
    assert record.citations
    full = record.citations[0].anchor.anchor_id
    return full, full[:16]


def test_resolve_names_the_document_of_a_printed_anchor_id(ragox_process, home: Path) -> None:
    """`resolve 1a2b…` says which document and revision the passage is in (before: only
    a range), and `--json` adds the anchor as GET /v1/anchors/{id} does."""
    full, short = _cited(home)
    shown = ragox_process("resolve", short)
    assert shown.code == 0, shown.stderr
    first = shown.stdout.splitlines()[0]
    assert first.startswith("RESOLVED  manuals/pump.txt@r1  [")
    data = json.loads(ragox_process("resolve", short, "--json").stdout)
    assert data["status"] == "RESOLVED"
    assert data["anchor"]["anchor_id"] == full
    assert (data["anchor"]["document_id"], data["anchor"]["revision"]) == (
        "manuals/pump.txt",
        "r1",
    )
    # A refusal still carries no document: not the anchor, not its document id.
    denied = ragox_process("resolve", short, "--principal", "oz", "--groups", "sales", "--json")
    assert denied.code == 1
    assert set(json.loads(denied.stdout)) == {"status", "reason", "anchor_id"}
    assert "pump" not in denied.stdout


def test_anchor_ids_as_people_copy_them(ragox_process, home: Path) -> None:
    """An id in capitals resolves (ids are hex); seven digits are too few for an id and
    the message says so instead of "no such file"."""
    _, short = _cited(home)
    upper = ragox_process("resolve", short.upper(), "--json")
    assert upper.code == 0, upper.stderr
    assert json.loads(upper.stdout)["status"] == "RESOLVED"
    app = Ragox(home)
    try:
        key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    finally:
        app.close()
    with serving(home) as url:  # the API (and so the viewer) too
        body = httpx.get(
            f"{url}/v1/anchors/{short.upper()}", headers={"Authorization": f"Bearer {key}"}
        ).json()
        assert body["status"] == "RESOLVED"
    too_short = ragox_process("resolve", short[:7])
    assert too_short.code == 2
    assert "at least 8" in too_short.stderr
    assert "no such file" not in too_short.stderr
    assert "Traceback" not in too_short.stderr


def test_home_between_a_group_and_its_command(ragox_process, tmp_path: Path) -> None:
    """`ragox keys --home DIR list` is `keys list --home DIR` (before: "No such option")."""
    other = tmp_path / "other-home"
    made = ragox_process(
        "keys", "create", "--principal", "sam", "--groups", "staff", "--home", str(other)
    )
    assert made.code == 0, made.stderr
    between = ragox_process("keys", "--home", str(other), "list", "--json")
    assert between.code == 0, between.stderr
    after = ragox_process("keys", "list", "--home", str(other), "--json")
    assert json.loads(between.stdout) == json.loads(after.stdout)
    assert "sam" in [k["principal"] for k in json.loads(between.stdout)["keys"]]


def test_a_denied_prefix_looks_like_an_unknown_one(ragox_process, home: Path) -> None:
    """An outsider who tries a prefix learns nothing: the refusal names the id as given,
    whether an anchor with that prefix exists or not (before, it answered with the full
    64-digit id of an existing anchor), over the CLI and the HTTP API alike."""
    full, short = _cited(home)
    unknown = "0" * 16 if not full.startswith("0" * 16) else "f" * 16
    for given in (short, full[:8], unknown):
        refused = ragox_process(
            "resolve", given, "--principal", "oz", "--groups", "sales", "--json"
        )
        assert json.loads(refused.stdout) == {
            "status": "ACCESS_DENIED",
            "reason": "access_denied",
            "anchor_id": given,
        }
    app = Ragox(home)
    try:
        outsider = app.create_key(Principal("oz", groups=frozenset({"sales"})))
    finally:
        app.close()
    headers = {"Authorization": f"Bearer {outsider}"}
    with serving(home) as url:
        for given in (short, unknown):
            by_path = httpx.get(f"{url}/v1/anchors/{given}", headers=headers).json()
            by_body = httpx.post(
                f"{url}/v1/resolve", headers=headers, json={"anchor_id": given}
            ).json()
            for body in (by_path, by_body):
                assert body == {
                    "status": "ACCESS_DENIED",
                    "reason": "access_denied",
                    "anchor_id": given,
                }


def test_an_abstention_does_not_call_the_askers_pronoun_unmentioned(
    ragox_process, home: Path
) -> None:
    """ "Wie ändere ich die Zeitzone?" over German manuals without the answer: the
    abstention names "zeitzone" as not mentioned, never "ich" (which they use on every
    page; before: "…erwähnt: ich, zeitzone.")."""
    app = Ragox(home)
    try:
        app.ingestor.ingest_bytes(
            "Wie kann ich mein Debian-System aktuell halten? Ich rufe dafür apt upgrade "
            "auf, und danach prüfe ich die Protokolle der Paketverwaltung.\n".encode(),
            "faq.txt",
            "faq.txt",
            groups=frozenset({"staff"}),
            tenant="default",
        )
    finally:
        app.close()
    answer = ragox_process("ask", "Wie ändere ich die Zeitzone?", "--json")
    assert answer.code == 0, answer.stderr
    data = json.loads(answer.stdout)
    assert data["abstained"] is True
    assert data["missing"].startswith("Keine Passage")  # in the question's language
    assert "Zeitzone" in data["missing"]  # as the question writes it
    assert "ich" not in data["missing"].split(": ", 1)[1]


@pytest.mark.alone  # it reads when lines arrive: no other test slows the one file down
def test_ingest_reports_each_file_as_it_is_done(home: Path, tmp_path: Path) -> None:
    """Into a log or a pipe, `ingest` prints a file's line as soon as that file is done
    (before: every line at the end, so a long folder was silent in a log for minutes):
    the small first file's line arrives well before the summary that follows the large
    second file."""
    import os
    import subprocess
    import sys
    import time

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("A short note about pumps.\n")
    words = ["pump", "seal", "valve", "bearing", "shaft", "motor", "impeller", "gasket"]
    paragraphs = (
        " ".join(words[(i * 7 + j) % len(words)] for j in range(60)) + "." for i in range(4000)
    )
    # ~1.4 MB: about a second of ingestion (220 KB took under 0.1 s once ingestion got faster)
    (folder / "b.txt").write_text("\n\n".join(paragraphs) + "\n")
    # Python block-buffers a pipe unless PYTHONUNBUFFERED is set (as on some machines):
    # the command itself must flush each line.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}
    process = subprocess.Popen(
        [sys.executable, "-m", "ragox", "--home", str(home), "ingest", str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    arrived = []
    running_at_first_line = None
    for line in process.stdout:
        arrived.append((time.monotonic(), line.rstrip("\n")))
        if running_at_first_line is None:
            running_at_first_line = process.poll() is None
    assert process.wait(timeout=300) == 0
    lines = [line for _, line in arrived]
    assert lines[0].startswith("READY    a.txt@r1")
    assert lines[1].startswith("READY    b.txt@r1")
    assert lines[-1] == "2 ready, 0 skipped, 0 failed"
    assert running_at_first_line  # a's line came while b was still being ingested
    assert arrived[-1][0] - arrived[0][0] > 0.1


def test_a_folder_with_a_link_to_nothing_is_not_a_failure(ragox_process, tmp_path: Path) -> None:
    """Debian's doc folders hold links whose targets live in another package
    (`README.md.gz -> ../debian-reference-common/README.md.gz`): ingesting such a folder
    reports the link as skipped (`BROKEN_LINK`) and exits 0 (before: FAILED
    `UNREADABLE`, exit 1, for a folder whose every readable file was READY)."""
    folder = tmp_path / "usr" / "share" / "doc" / "debian-reference-en"
    folder.mkdir(parents=True)
    (folder / "copyright").write_text("Copyright: 1999-2023 Osamu Aoki\nLicense: GPL-2+\n")
    (folder / "README.md").symlink_to("../debian-reference-common/README.md")
    shown = ragox_process("ingest", str(tmp_path / "usr"))
    assert shown.code == 0, shown.stdout + shown.stderr
    assert "SKIPPED" in shown.stdout and "(BROKEN_LINK)" in shown.stdout
    assert shown.stdout.strip().splitlines()[-1] == "1 ready, 1 skipped, 0 failed"
    again = ragox_process("ingest", str(tmp_path / "usr"), "--json")
    data = json.loads(again.stdout)
    assert data["summary"] == {"ready": 1, "unchanged": 1, "skipped": 1, "failed": 0}
    assert {r.get("reason") for r in data["results"]} >= {"BROKEN_LINK"}


def test_a_folder_with_a_fifo_and_link_loops_is_ingested_to_the_end(
    ragox_process, tmp_path: Path
) -> None:
    """A FIFO named like a text file and links that never end (``self -> self``,
    ``x1 -> x2 -> x1``) are skipped, and the files around them are READY (before: the
    FIFO blocked the worker that reads text files ahead, and the command waited for
    ever; a loop ended the command with an internal error)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("The seal is checked weekly.\n")
    os.mkfifo(folder / "b.txt")
    (folder / "c.txt").write_text("The pump is painted in spring.\n")
    (folder / "self").symlink_to("self")
    (folder / "x1").symlink_to("x2")
    (folder / "x2").symlink_to("x1")
    shown = ragox_process("ingest", str(folder), "--json")
    assert shown.code == 0, shown.stdout + shown.stderr
    data = json.loads(shown.stdout)
    assert data["summary"] == {"ready": 2, "unchanged": 0, "skipped": 4, "failed": 0}
    reasons = {r["path"].rsplit("/", 1)[-1]: r.get("reason") for r in data["results"]}
    assert reasons["b.txt"] == "NOT_A_FILE"
    assert reasons["self"] == reasons["x1"] == reasons["x2"] == "BROKEN_LINK"
    alone = ragox_process("ingest", str(folder / "self"))
    assert alone.code == 0 and "(BROKEN_LINK)" in alone.stdout, alone.stdout + alone.stderr


def test_sources_list_each_label_once(ragox_process, home: Path) -> None:
    """Three quotes of one passage ("… [S1] … [S1] … [S1]") are listed under one [S1]
    with a line per quote (before: "[S1]" three times, and with another source between
    them a reader could not tell which line a marker meant)."""
    app = Ragox(home)
    try:
        app.ingestor.ingest_bytes(
            b"Pump manual.\n\nTo replace the shaft seal, first stop the pump and close both "
            b"valves. Then remove the four bolts of the seal housing and pull the old shaft "
            b"seal out. Press the new shaft seal in by hand and tighten the four bolts to "
            b"16 Nm.\n\nThe warranty covers the pump housing for two years.\n",
            "pump.txt",
            "pump.txt",
            groups=frozenset({"staff"}),
            tenant="default",
        )
    finally:
        app.close()
    question = "How do I replace the shaft seal?"
    data = json.loads(ragox_process("ask", question, "--json").stdout)
    labels = [c["source_id"] for c in data["citations"]]
    assert len(labels) > len(set(labels))  # some passage is quoted more than once
    shown = ragox_process("ask", question)
    assert shown.code == 0
    sources = shown.stdout.split("\nSources:\n", 1)[1].split("\n\n(answer", 1)[0].splitlines()
    assert len(sources) == len(labels)  # a line per quote, each with its anchor
    assert all(" anchor " in line for line in sources)
    listed = [line.split()[0] for line in sources if line.lstrip().startswith("[S")]
    assert sorted(listed) == sorted(f"[{label}]" for label in set(labels))
    for citation in data["citations"]:
        assert citation["anchor"]["anchor_id"][:16] in shown.stdout
