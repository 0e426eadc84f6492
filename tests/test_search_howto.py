"""Search prefers instructions for how-to questions (issue 16): among lexical hits of
about the same score, a passage with a command, steps or an imperative comes first for
"How do I …", "Wie ändere ich …", "Как изменить …"; other questions keep BM25's order,
and an answer's evidence is read in BM25's order (its scorer weighs instructions)."""

from __future__ import annotations

from ragox.access import Principal
from ragox.search import SearchMode
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))

DOCUMENTS = {
    # more of the question's words, no instruction
    "prose": (
        "The default editor is the editor that opens when a program asks for an editor. "
        "Each desktop has its own default editor."
    ),
    # fewer of them, and the command that answers a how-to question
    "command": (
        "To pick another editor as the default, run this:\n\nupdate-alternatives --config editor"
    ),
    "mail": "Mail is delivered by the mail transport agent. Its queue is kept on disk.",
    "printer": "The printer is set up by the print server. Paper sizes are kept in a file.",
}


def _home(app: Ragox) -> None:
    for document_id, text in DOCUMENTS.items():
        outcome = app.ingestor.ingest_bytes(
            text.encode(),
            f"{document_id}.txt",
            document_id,
            groups=frozenset({"staff"}),
            tenant="default",
        )
        assert outcome.state.value == "READY", outcome.error_code


def _order(app: Ragox, question: str, prefer_instructions: bool = True) -> list[str]:
    hits = app.search(question, STAFF, SearchMode.LEXICAL, prefer_instructions=prefer_instructions)
    return [hit.document_id for hit in hits]


def test_a_how_to_question_finds_the_command_first(app: Ragox) -> None:
    """The passage with the command outranks prose that shares more words, for a how-to
    question only; BM25 alone ranks the prose first."""
    _home(app)
    assert _order(app, "How do I change the default editor?")[:2] == ["command", "prose"]
    assert _order(app, "How do I change the default editor?", False)[:2] == ["prose", "command"]
    assert _order(app, "What is the default editor?")[:2] == ["prose", "command"]


def test_an_answer_reads_its_evidence_in_bm25_order(app: Ragox) -> None:
    """ask's evidence keeps BM25's order (the extractive scorer weighs instructions
    itself), and the answer still quotes the command."""
    _home(app)
    record = app.ask("How do I change the default editor?", STAFF)
    assert [e.document_id for e in record.evidence][:2] == ["prose", "command"]
    assert "update-alternatives --config editor" in record.claims[0].text
