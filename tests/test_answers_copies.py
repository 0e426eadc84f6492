"""One manual ingested several times (as HTML, as PDF, as its source; issue 16): the
same passage in several documents is evidence once for the places it takes. An answer
draws on distinct passages, each with its copies after it, so that it can still cite
the passage once and list the others as "also in"."""

from __future__ import annotations

from ragox.access import Principal
from ragox.answer import ContextConfig, select_context
from ragox.search import Hit
from ragox.service import Ragox

OPERATOR = Principal.local_operator()

SECTION = (
    "3.2.4. Going on vacation gracefully\n\n"
    "It is common for developers to have periods of absence, whether those are planned "
    "vacations or simply being buried in other work. The important thing to notice is "
    "that other developers need to know that you are on vacation so that they can do "
    "whatever is needed if a problem occurs with your packages while you are away."
)
ANSWER = (
    "Vacation notices\n\n"
    "To announce a vacation, send a mail to debian-private@lists.debian.org with [VAC] "
    "in the subject of your message."
)


def _ingest(app: Ragox, name: str, text: str) -> None:
    app.ingestor.ingest_bytes(text.encode(), name, name, tenant="default")


def _hit(app: Ragox, document_id: str, rank: int, also_in: tuple[Hit, ...] = ()) -> Hit:
    manifest_id = app.status(document_id, OPERATOR).revisions[0].revision.manifest_id
    assert manifest_id is not None
    text = app.text(document_id, OPERATOR)
    return Hit(
        f"c-{document_id}",
        document_id,
        "r1",
        manifest_id,
        1.0 / rank,
        (),
        0,
        len(text),
        (),
        "",
        also_in,
    )


def test_copies_follow_their_passage_and_take_no_place(app: Ragox) -> None:
    """Two places of evidence: the first passage, its two copies after it, and the
    second passage; a copy names the passage it repeats."""
    for name in ("guide-html.txt", "guide-pdf.txt", "guide-rst.txt"):
        _ingest(app, name, SECTION)
    _ingest(app, "notices.txt", ANSWER)
    copies = (_hit(app, "guide-pdf.txt", 2), _hit(app, "guide-rst.txt", 3))
    hits = [_hit(app, "guide-html.txt", 1, copies), _hit(app, "notices.txt", 4)]
    evidence = select_context(app.store, hits, ContextConfig(max_items=2))
    assert [(item.document_id, item.copy_of) for item in evidence] == [
        ("guide-html.txt", None),
        ("guide-pdf.txt", "S1"),
        ("guide-rst.txt", "S1"),
        ("notices.txt", None),
    ]
    assert [item.source_id for item in evidence] == ["S1", "S2", "S3", "S4"]
    assert evidence[1].text == evidence[0].text == SECTION


def test_a_copy_that_is_already_evidence_is_not_repeated(app: Ragox) -> None:
    """A passage that is a hit of its own and another's copy is evidence once."""
    for name in ("guide-html.txt", "guide-pdf.txt"):
        _ingest(app, name, SECTION)
    pdf = _hit(app, "guide-pdf.txt", 2)
    hits = [_hit(app, "guide-html.txt", 1, (pdf,)), pdf]
    evidence = select_context(app.store, hits, ContextConfig())
    assert [item.document_id for item in evidence] == ["guide-html.txt", "guide-pdf.txt"]


def test_an_answer_is_not_crowded_out_by_copies(app: Ragox) -> None:
    """Ten copies of a manual's section rank above another passage on the question:
    that passage is still evidence (the copies took every place before), and a quote
    from the section is cited once, its copies listed as "also in"."""
    for number in range(10):
        _ingest(app, f"guide-{number}.txt", SECTION)
    _ingest(app, "notices.txt", ANSWER)
    record = app.ask("How do I let other developers know that I am on vacation?", OPERATOR)
    assert not record.abstained
    assert [item.document_id for item in record.evidence if item.copy_of is None] == [
        "guide-0.txt",
        "notices.txt",
    ]
    from_guide = [c for c in record.citations if c.anchor.document_id.startswith("guide-")]
    assert from_guide
    for citation in from_guide:
        shown = {citation.anchor.document_id} | {c.anchor.document_id for c in citation.also_in}
        assert shown == {f"guide-{number}.txt" for number in range(10)}
