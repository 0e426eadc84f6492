"""Nothing outlives its rule (issue 10, item 6): deleting a document removes its text
from answer records, traces, memos and caches (in this process and in a running
`ragox serve`); answers and traces expire after the stored retention periods; traces
are the operator's; and an older home keeps its answers and traces on upgrade."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from conftest import copy_lexical_partitions, older_database, run_ragox, serving, table_rows
from ragox.access import Principal
from ragox.anchor import ResolutionStatus
from ragox.anchor import _resolve as resolver
from ragox.answer import Draft, Evidence, ExtractiveGenerator
from ragox.service import NotFound, Ragox
from ragox.store import RetentionPolicy
from ragox.store.sqlite._schema import MIGRATIONS

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))
OPERATOR = Principal.local_operator()
#: Each document has a sentence found nowhere else: its text must vanish with it.
SEAL = "The quixotic seal is checked every 500 operating hours."
PUMP = "The pump impeller is replaced every twelve years."
MANUAL = f"Pump manual.\n\n{SEAL}\n\nDisconnect power first.\n"
HANDBOOK = f"Handbook.\n\n{PUMP}\n\nWear gloves.\n"
QUESTION = "How often is the seal checked?"


def _ingest(app: Ragox, name: str, text: str) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"


def _files_containing(home: Path, needle: str) -> list[str]:
    return [
        path.name
        for path in sorted(home.rglob("*"))
        if path.is_file() and needle.encode() in path.read_bytes()
    ]


def _age(app: Ragox, table: str, answer_id: str, days: int) -> None:
    """Make a stored row ``days`` older (retention is about time; tests do not wait)."""
    then = (datetime.now(UTC) - timedelta(days=days)).isoformat(timespec="microseconds")
    then = then.replace("+00:00", "Z")
    postgres = hasattr(app.store, "_fetchone")
    mark = "%s" if postgres else "?"
    with app.store.transaction() as conn:  # type: ignore[attr-defined]
        conn.execute(
            f"UPDATE {table} SET created_at = {mark} WHERE answer_id = {mark}", (then, answer_id)
        )
        if table == "answers":  # the record states its own time too
            conn.execute(
                "UPDATE answers SET json = jsonb_set(json::jsonb, '{created_at}', "
                "to_jsonb(created_at))::text WHERE answer_id = %s"
                if postgres
                else "UPDATE answers SET json = json_set(json, '$.created_at', created_at) "
                "WHERE answer_id = ?",
                (answer_id,),
            )


# -- deletion ---------------------------------------------------------------------------


def test_delete_redacts_answers_and_traces(app: Ragox, home: Path, backend: str) -> None:
    """After deleting a cited document no file of the home holds its sentence; the
    answer keeps its question and ids, shows the citation as ACCESS_DENIED without a
    quote, and its trace is gone; an answer citing another document still shows it."""
    _ingest(app, "manual.txt", MANUAL)
    _ingest(app, "handbook.txt", HANDBOOK)
    cited = app.ask(QUESTION, STAFF)
    other = app.ask("How often is the pump impeller replaced?", STAFF)
    assert SEAL in cited.answer and PUMP in other.answer
    assert app.answer_trace(cited.answer_id, OPERATOR)["candidates"]
    # (the files of an embedded home; a PostgreSQL home keeps no text in files)
    assert _files_containing(home, SEAL) or backend == "postgres"

    assert app.delete("manual.txt")
    assert _files_containing(home, SEAL) == []
    replay = app.show_answer(cited.answer_id, STAFF)
    assert replay.record.question == QUESTION
    assert [c.resolution.status for c in replay.citations] == [ResolutionStatus.ACCESS_DENIED]
    assert all(c.anchor is None for c in replay.citations)
    assert "500" not in replay.answer and "redacted" in replay.answer
    assert [r.document_id for r in replay.record.redactions] == ["manual.txt"]
    with pytest.raises(NotFound):
        app.answer_trace(cited.answer_id, OPERATOR)
    kept = app.show_answer(other.answer_id, STAFF)
    assert PUMP in kept.answer and kept.citations[0].resolution.resolved


def test_answer_stored_after_its_document_was_deleted_is_redacted(app: Ragox, home: Path) -> None:
    """A document deleted (by another process) while an answer is being written: the
    record is stored redacted, without its trace, as if the deletion came after."""
    _ingest(app, "manual.txt", MANUAL)

    class DeletingGenerator(ExtractiveGenerator):
        """Answers as usual, but another process deletes the document meanwhile."""

        def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft:
            draft = super().generate(question, evidence)
            other = Ragox(home)
            assert other.delete("manual.txt")
            other.close()
            return draft

    record = app.ask(QUESTION, STAFF, DeletingGenerator())
    stored = app.store.get_answer(record.answer_id)
    assert stored is not None and SEAL not in json.dumps(stored)
    assert stored["evidence"][0]["deleted"] is True  # type: ignore[index]
    assert table_rows(app.store, "answer_traces") == 0


def test_caches_of_another_process_forget_deleted_text(app: Ragox, home: Path) -> None:
    """A second store on the same home (as `ragox serve` beside the CLI) that has the
    text and a verdict in memory drops both on its next read after the deletion."""
    _ingest(app, "manual.txt", MANUAL)
    start = MANUAL.index("quixotic")
    created = app.create_anchor("manual.txt", start, start + len("quixotic seal"), STAFF)
    assert not isinstance(created, type(None)) and hasattr(created, "anchor")
    anchor = created.anchor  # type: ignore[union-attr]
    server = Ragox(home)
    try:
        assert server.resolve(anchor, STAFF).resolved
        manifest_id = server.resolve(anchor, STAFF).manifest_id
        assert manifest_id in server.store._texts  # type: ignore[attr-defined]
        assert any("quixotic seal" in key for key in resolver._VERDICTS)
        assert app.delete("manual.txt")
        # the server's next resolution reads the erasure counter before anything else
        assert server.resolve(anchor, STAFF).status is ResolutionStatus.ACCESS_DENIED
        assert manifest_id not in server.store._texts  # type: ignore[attr-defined]
        assert not any("quixotic seal" in key for key in resolver._VERDICTS)
    finally:
        server.close()


def test_running_server_after_cli_delete(home: Path, tmp_path: Path) -> None:
    """`ragox serve` keeps running while the CLI deletes: the anchor, the text and the
    answer replay over HTTP no longer show the deleted passage."""
    app = Ragox(home)
    _ingest(app, "manual.txt", MANUAL)
    key = app.create_key(STAFF)
    app.close()
    headers = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        asked = httpx.post(f"{url}/v1/ask", json={"question": QUESTION}, headers=headers)
        body = asked.json()
        assert asked.status_code == 200 and SEAL in body["answer"]
        anchor_id = body["citations"][0]["anchor"]["anchor_id"]
        text_url = f"{url}/v1/documents/manual.txt/revisions/r1/text"
        assert SEAL in httpx.get(text_url, headers=headers).text
        assert httpx.get(f"{url}/v1/anchors/{anchor_id}", headers=headers).json()["status"] == (
            "RESOLVED"
        )
        assert run_ragox(home, "delete", "manual.txt").code == 0
        assert httpx.get(text_url, headers=headers).status_code == 404
        resolved = httpx.get(f"{url}/v1/anchors/{anchor_id}", headers=headers).json()
        assert resolved["status"] == "ACCESS_DENIED" and "anchor" not in resolved
        replay = httpx.get(f"{url}/v1/answers/{body['answer_id']}", headers=headers).json()
        assert replay["citations"] == [
            {"source_id": "S1", "anchor": {"anchor_id": anchor_id}, "status": "ACCESS_DENIED"}
        ]
        assert "quixotic" not in json.dumps(replay)


# -- retention ----------------------------------------------------------------------------


def test_retention_expires_answers_and_traces(app: Ragox) -> None:
    """With answers kept 30 days and traces 7: an 8-day-old answer is shown without its
    trace, a 31-day-old one is not shown even before it is deleted, and the next write
    deletes both expired records."""
    _ingest(app, "manual.txt", MANUAL)
    old = app.ask(QUESTION, STAFF)
    week = app.ask(QUESTION, STAFF)
    app.set_retention(RetentionPolicy(answers_seconds=30 * 86400, traces_seconds=7 * 86400))
    assert app.retention() == RetentionPolicy(30 * 86400, 7 * 86400)
    # time passes, and nothing is written meanwhile: expired records are not shown
    _age(app, "answers", old.answer_id, 31)
    _age(app, "answer_traces", old.answer_id, 31)
    _age(app, "answer_traces", week.answer_id, 8)
    _age(app, "answers", week.answer_id, 8)
    assert app.store.get_answer(old.answer_id) is not None
    with pytest.raises(NotFound):
        app.show_answer(old.answer_id, STAFF)
    assert app.show_answer(week.answer_id, STAFF).citations[0].resolution.resolved
    with pytest.raises(NotFound):
        app.answer_trace(week.answer_id, OPERATOR)
    fresh = app.ask(QUESTION, STAFF)  # every write applies the periods
    assert app.store.get_answer(old.answer_id) is None
    assert app.store.get_answer_trace(week.answer_id) is None
    assert app.answer_trace(fresh.answer_id, OPERATOR)["candidates"]


def test_purge_and_retention_commands(ragox_cli, app: Ragox) -> None:  # type: ignore[no-untyped-def]
    """`ragox retention` stores periods; `ragox purge --older-than` deletes now and says
    how much; durations are checked (exit 2)."""
    _ingest(app, "manual.txt", MANUAL)
    first = app.ask(QUESTION, STAFF)
    app.close()
    shown = ragox_cli("retention", "--json")
    assert shown.code == 0 and shown.json() == {"answers": None, "traces": None}
    stored = ragox_cli("retention", "--answers", "30d", "--traces", "36h", "--json")
    assert stored.json() == {"answers": "30d", "traces": "36h"}
    assert ragox_cli("purge", "--json").json() == {
        "answers_deleted": 0,
        "traces_deleted": 0,
        "answers_redacted": 0,
    }
    assert ragox_cli("purge", "--traces-older-than", "0s", "--json").json() == {
        "answers_deleted": 0,
        "traces_deleted": 1,
        "answers_redacted": 0,
    }
    assert ragox_cli("answer", "trace", first.answer_id).code == 1
    assert ragox_cli("purge", "--older-than", "0s", "--json").json()["answers_deleted"] == 1  # type: ignore[index]
    assert ragox_cli("answer", "show", first.answer_id).code == 1
    assert ragox_cli("purge", "--older-than", "30 days").code == 2
    assert ragox_cli("retention", "--answers", "keep", "--json").json() == {
        "answers": None,
        "traces": "36h",
    }


def test_traces_are_the_operators(ragox_cli, app: Ragox) -> None:  # type: ignore[no-untyped-def]
    """The asker (and anyone but the operator) cannot read a trace; no API route serves
    one; `ragox answer trace` prints it for the local operator."""
    _ingest(app, "manual.txt", MANUAL)
    record = app.ask(QUESTION, STAFF)
    with pytest.raises(NotFound):
        app.answer_trace(record.answer_id, STAFF)
    with pytest.raises(NotFound):
        app.answer_trace(record.answer_id, Principal.local_operator("acme"))
    assert "trace" not in json.dumps(record.to_json()["citations"])
    stored = app.store.get_answer(record.answer_id)
    assert stored is not None and "trace" not in stored
    app.close()
    printed = ragox_cli("answer", "trace", record.answer_id)
    assert printed.code == 0 and printed.json()["context"][0]["document_id"] == "manual.txt"  # type: ignore[index]
    from ragox.api import create_app

    paths = create_app(app.home).openapi()["paths"]
    assert not [path for path in paths if "trace" in path]


# -- upgrade to schema 11 ------------------------------------------------------------------


#: the schema just before retention (other migrations may lie between 7 and 11)
BEFORE_RETENTION = max(number for number, _ in MIGRATIONS if number < 11)


def _before_retention(home: Path) -> None:
    """Rebuild the home's database as the release before schema 11 wrote it: the
    migrations before 11 only, every row of their tables copied over, and each trace
    back inside its answer record."""
    old_db = home / "old.db"
    with older_database(home / "ragox.db", old_db, BEFORE_RETENTION) as old:
        old.execute("DELETE FROM main.settings WHERE key='erasure_generation'")
        # Schema 10 keeps lexical rows in partitions (the upgrade dropped lexical_tables).
        old.execute("DROP TABLE main.lexical_tables")
        copy_lexical_partitions(old)
        old.execute(
            "UPDATE main.answers SET json = json_set(json, '$.trace', json((SELECT t.json FROM "
            "new.answer_traces t WHERE t.answer_id = answers.answer_id)))"
        )
    for suffix in ("", "-wal", "-shm"):
        (home / f"ragox.db{suffix}").unlink(missing_ok=True)
    old_db.rename(home / "ragox.db")


@pytest.mark.sqlite_only  # an older SQLite home
def test_older_home_keeps_traces_and_redacts_on_purge(home: Path) -> None:
    """A home from before schema 11 opens with its traces moved beside the records; deleting a
    document then redacts the answers citing it; `purge` redacts answers of a document
    deleted before the upgrade (when nothing redacted records)."""
    app = Ragox(home)
    _ingest(app, "manual.txt", MANUAL)
    _ingest(app, "handbook.txt", HANDBOOK)
    seal = app.ask(QUESTION, STAFF)
    pump = app.ask("How often is the pump impeller replaced?", STAFF)
    # deleted by the previous release: the record keeps the quote
    assert app.store.delete_document("default", "handbook.txt")
    app.close()
    _before_retention(home)
    old = sqlite3.connect(home / "ragox.db")
    stored = json.loads(
        old.execute("SELECT json FROM answers WHERE answer_id=?", (seal.answer_id,)).fetchone()[0]
    )
    old.close()
    assert stored["trace"]["candidates"]

    upgraded = Ragox(home)
    try:
        assert upgraded.store.schema_version() >= 11
        assert upgraded.answer_trace(seal.answer_id, OPERATOR) == stored["trace"]
        assert "trace" not in (upgraded.store.get_answer(seal.answer_id) or {})
        assert PUMP in upgraded.show_answer(pump.answer_id, STAFF).record.answer
        counts = upgraded.purge(None, None)
        assert counts.redacted == 1
        assert PUMP not in json.dumps(upgraded.store.get_answer(pump.answer_id))
        assert upgraded.delete("manual.txt")
        assert SEAL not in json.dumps(upgraded.store.get_answer(seal.answer_id))
        assert _files_containing(home, SEAL) == [] and _files_containing(home, PUMP) == []
    finally:
        upgraded.close()


# -- the redaction itself -----------------------------------------------------------------


def _record(generator: str, abstained: bool = False) -> dict[str, object]:
    anchor = {"anchor_id": "a1", "document_id": "gone.txt", "quote": {"exact": SEAL}}
    kept = {"anchor_id": "a2", "document_id": "kept.txt", "quote": {"exact": PUMP}}
    return {
        "generator": generator,
        "answer": f"{SEAL} [S1] {PUMP} [S2]",
        "abstained": abstained,
        "missing": f"Only {SEAL} was found." if abstained else None,
        "claims": [
            {"text": SEAL, "source_id": "S1", "anchor_id": "a1"},
            {"text": PUMP, "source_id": "S2", "anchor_id": "a2"},
        ],
        "citations": [
            {"source_id": "S1", "anchor": anchor, "status": "RESOLVED"},
            {"source_id": "S2", "anchor": kept, "status": "RESOLVED"},
        ],
        "evidence": [
            {"source_id": "S1", "document_id": "gone.txt", "start": 5, "end": 60},
            {"source_id": "S2", "document_id": "kept.txt", "start": 0, "end": 40},
        ],
    }


def test_redaction_keeps_other_documents_for_extractive_answers_only() -> None:
    """Extractive claims citing another document stay; a generator's own words (which
    may mix passages) all go, and so does its abstention note; redacting twice changes
    nothing more."""
    from ragox.answer import redact_answer

    extractive = redact_answer(_record("extractive@2"), frozenset({"gone.txt"}), "t1")
    assert SEAL not in json.dumps(extractive) and PUMP in extractive["answer"]
    assert extractive["citations"][0] == {
        "source_id": "S1",
        "anchor_id": "a1",
        "status": "ACCESS_DENIED",
        "redacted": True,
    }
    assert extractive["evidence"][0]["deleted"] is True
    assert redact_answer(extractive, frozenset({"gone.txt"}), "t2") == extractive
    generated = redact_answer(_record("openai:m", True), frozenset({"gone.txt"}), "t1")
    assert SEAL not in json.dumps(generated) and PUMP not in json.dumps(generated["claims"])
    assert "quixotic" not in generated["missing"]
    untouched = _record("openai:m")
    assert redact_answer(untouched, frozenset({"other.txt"}), "t1") == untouched


def test_redacted_and_withheld_claims_speak_the_questions_language() -> None:
    """A German or Russian asker reads why a claim is gone in German or Russian (the
    stored redaction and the replay's withheld claims), an English one in English;
    before, the placeholders were English whatever the question (new-user find)."""
    from ragox.answer import redact_answer

    for question, claim, note in (
        ("Wie oft wird die Dichtung geprüft?", "(entfernt: ein zitiertes Dokument", "Der Rest"),
        ("Как часто проверяют уплотнение?", "(удалено: цитируемый документ", "Остальная"),
        ("How often is the seal checked?", "(redacted: a cited document", "The rest"),
    ):
        redacted = redact_answer(
            {**_record("extractive@2"), "question": question}, frozenset({"gone.txt"}), "t1"
        )
        assert redacted["answer"].startswith(claim), redacted["answer"]
        abstained = redact_answer(
            {**_record("openai:m", True), "question": question}, frozenset({"gone.txt"}), "t1"
        )
        assert note in abstained["answer"] and note in abstained["missing"]


def test_a_replay_says_why_a_claim_is_gone_in_the_askers_language(app: Ragox, home: Path) -> None:
    """`GET /v1/answers/{id}` of a German question after its document was deleted: the
    claim reads "(entfernt: …)" and the reply names its message language, as `ask`
    does; a claim withheld from a reader who lost access reads "(zurückgehalten: …)"."""
    _ingest(app, "handbuch.txt", "Pumpenhandbuch.\n\nDie Dichtung wird alle 500 Stunden geprüft.\n")
    _ingest(app, "wartung.txt", "Wartung.\n\nDas Laufrad wird alle zwölf Jahre gewechselt.\n")
    key = app.create_key(STAFF)
    deleted = app.ask("Wie oft wird die Dichtung geprüft?", STAFF)
    lost = app.ask("Wie oft wird das Laufrad gewechselt?", STAFF)
    assert not deleted.abstained and not lost.abstained
    assert app.delete("handbuch.txt")
    assert app.set_groups("wartung.txt", frozenset({"board"}))
    app.close()
    with serving(home) as url:
        headers = {"Authorization": f"Bearer {key}"}
        gone = httpx.get(f"{url}/v1/answers/{deleted.answer_id}", headers=headers).json()
        hidden = httpx.get(f"{url}/v1/answers/{lost.answer_id}", headers=headers).json()
    assert gone["answer"].startswith("(entfernt: ein zitiertes Dokument wurde gelöscht)")
    assert gone["message_language"] == "de"
    assert hidden["answer"].startswith("(zurückgehalten: ACCESS_DENIED)"), hidden["answer"]
