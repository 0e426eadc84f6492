"""Redaction of a stored answer record when documents it drew on are deleted.

An answer record holds copies of document text: the claims (sentences of the evidence,
or a generator's words written from it), the quotes of its citations' anchors, and a
generator's note on what is missing. Deleting a document removes every such copy; the
record keeps its question, ids and the fact of the redaction, so that a replay shows
the citation as ``ACCESS_DENIED`` without a quote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ragox.answer._messages import messages_for
from ragox.answer._pipeline import AnswerRecord, compose

__all__ = ["REDACTED_CLAIM", "REDACTED_NOTE", "quotes_only", "redact_answer", "withheld_note"]

#: What a redacted claim says in a recomposed answer (in English; an answer says it in
#: its own message language, ``Messages.claim_redacted``).
REDACTED_CLAIM: Final = "(redacted: a cited document was deleted)"
#: What replaces an abstention's note when the note may quote a deleted document.
REDACTED_NOTE: Final = "(The rest of this note was removed: a document it drew on was deleted.)"


def quotes_only(generator: object) -> bool:
    """Whether the answers of ``generator`` (its stored identity) hold only sentences
    of the evidence they cite: extractive claims do, so a claim citing a passage one may
    read holds no other passage's text. A generator's own words (a language model's)
    may mix every passage it was shown, in any claim and in its note."""
    return isinstance(generator, str) and generator.startswith("extractive")


def withheld_note(record: AnswerRecord) -> str:
    """What replaces a generator's note on what is missing when a passage it was shown
    is no longer the reader's to read (in the answer's message language)."""
    return messages_for(record.question, record.answer_language).note_withheld


def redact_answer(payload: Mapping[str, Any], deleted: frozenset[str], at: str) -> dict[str, Any]:
    """``payload`` (an answer record's JSON) without the text of documents ``deleted``.

    Evidence items of those documents lose their ranges, chunks and pages; citations
    of them keep their source and anchor ids only; claims citing them (or, for a
    generator that writes its own words, every claim) lose their text; an abstention's
    note from such a generator goes too; the answer is recomposed from what is left.
    A redaction note names the documents (ids, not text) and the time ``at``.
    Redacting again changes nothing more.
    """
    data = dict(payload)
    evidence = [dict(item) for item in data.get("evidence", [])]
    hit = [item for item in evidence if item.get("document_id") in deleted]
    citations = [dict(c) for c in data.get("citations", [])]
    cited = [c for c in citations if _cited_document(c) in deleted]
    # The same passage in other documents ("also in") is kept only for documents that
    # still exist: a deleted one's quote must not survive inside another citation.
    trimmed = False
    for citation in citations:
        also = list(citation.get("also_in") or [])
        kept = [other for other in also if _cited_document(other) not in deleted]
        if len(kept) != len(also):
            citation["also_in"] = kept
            trimmed = True
    if not hit and not cited and not trimmed:
        return data
    gone_sources = {str(item["source_id"]) for item in hit} | {str(c["source_id"]) for c in cited}
    for item in hit:
        item.update(manifest_id="", chunk_ids=[], start=0, end=0, pages=[], deleted=True)
    data["evidence"] = evidence
    data["citations"] = [
        {
            "source_id": c["source_id"],
            "anchor_id": _anchor_id(c),
            "status": "ACCESS_DENIED",
            "redacted": True,
        }
        if c in cited
        else c
        for c in citations
    ]
    keep_others = quotes_only(data.get("generator"))
    if not keep_others:
        # the quotes were translated in one request with the deleted passages: the
        # translations of the others may carry their words too
        data["citations"] = [
            {k: v for k, v in c.items() if k != "translation"} for c in data["citations"]
        ]
    claims = []
    for stored in data.get("claims", []):
        claim = dict(stored)
        if claim.get("source_id") in gone_sources or not keep_others:
            claim.update(text="", redacted=True)
        claims.append(claim)
    data["claims"] = claims
    # in the language of the answer's own words (its question's, or the one asked for)
    question = data.get("question")
    language = data.get("answer_language")
    messages = messages_for(
        question if isinstance(question, str) else "",
        language if isinstance(language, str) else None,
    )
    if data.get("abstained"):
        if hit and not keep_others:
            data["missing"] = messages.note_redacted
            data["answer"] = f"{messages.abstain} {messages.note_redacted}"
    else:
        data["answer"] = compose(
            [(c["text"] or messages.claim_redacted, str(c["source_id"])) for c in claims]
        )
    notes = list(data.get("redactions", []))
    for document_id in sorted(deleted):
        entry = {"reason": "document_deleted", "document_id": document_id}
        if not any(_same(note, entry) for note in notes):
            notes.append({**entry, "at": at})
    data["redactions"] = notes
    return data


def _cited_document(citation: Mapping[str, Any]) -> str | None:
    anchor = citation.get("anchor")
    if isinstance(anchor, Mapping):
        value = anchor.get("document_id")
        return value if isinstance(value, str) else None
    return None


def _anchor_id(citation: Mapping[str, Any]) -> str:
    anchor = citation.get("anchor")
    if isinstance(anchor, Mapping) and isinstance(anchor.get("anchor_id"), str):
        return str(anchor["anchor_id"])
    return str(citation.get("anchor_id", ""))


def _same(note: object, entry: Mapping[str, str]) -> bool:
    return isinstance(note, Mapping) and all(note.get(k) == v for k, v in entry.items())
