"""Issue 16, answers from a chunk that goes on a section: the section's title speaks for
it. The FAQ's "7.12. How do I put a package on hold?" lies in the chunk before the one
that says "With apt, you can set a package to hold using apt-mark hold"; that chunk's
sentences got no credit for the title, and "How do I put a package on hold so it is
not upgraded?" was answered from the status flags of section 7.11."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conftest import OPERATOR, evidence_of
from ragox.answer import score_sentences
from ragox.answer._context import _section_title
from ragox.service import Ragox

_GOES_ON = (
    "Save the file and load it again. With apt, you can set a package to hold using "
    "apt-mark hold package_name."
)


def test_a_passage_is_scored_under_the_title_of_the_section_it_starts_in() -> None:
    """The same sentence, with and without the title of its section: the title's words
    that the sentence does not say count for it (the heading feature), and an FAQ's
    title asks."""
    [bare] = evidence_of(_GOES_ON)
    titled = replace(bare, section_title="7.12. How do I put a package on hold?")
    question = "How do I put a package on hold so that it is not upgraded?"
    without = score_sentences(question, [bare]).sentences
    with_title = score_sentences(question, [titled]).sentences
    assert [s.support.heading for s in without] == [0.0] * len(without)
    best = max(with_title, key=lambda s: s.score)
    assert "apt-mark hold" in titled.text[best.start : best.end]
    assert best.support.heading > 0.0
    assert best.score > max(s.score for s in without)


@pytest.mark.both_backends
def test_evidence_carries_the_title_of_the_section_its_chunk_goes_on(app: Ragox) -> None:
    """A section long enough for several chunks: a passage that starts inside it carries
    its heading's text as ``section_title``; one that opens with its heading carries
    none (its own text has it)."""
    filler = " ".join(
        f"Sentence {n} says something about selections and their files in some words."
        for n in range(60)
    )
    html = (
        "<html><body><h1>Basics</h1><h2>7.11. What is meant by the status?</h2>"
        f"<p>{filler}</p><h2>7.12. How do I put a package on hold?</h2><p>{filler}</p>"
        f"<p>{_GOES_ON}</p></body></html>"
    )
    outcome = app.ingestor.ingest_bytes(
        html.encode(), "faq.html", "faq", groups=frozenset(), tenant="default"
    )
    assert outcome.state.value == "READY"
    record = app.ask("How do I set a package to hold with apt-mark?", OPERATOR)
    goes_on = [e for e in record.evidence if "apt-mark hold" in e.text]
    assert goes_on, [e.text[:60] for e in record.evidence]
    for item in goes_on:
        if item.text.startswith("7.12."):
            assert item.section_title is None
        else:
            assert item.section_title == "7.12. How do I put a package on hold?"
    assert any(item.section_title for item in goes_on)


HOSTNAME_DE = (
    "3.2.1. Der Rechnername\n\n"
    "Der Kernel verwaltet den System-Rechnernamen. Die durch systemd-hostnamed.service "
    "gestartete System-Unit setzt beim Systemstart den Rechnernamen auf den in "
    '"/etc/hostname" festgelegten Wert. Diese Datei sollte nur den Rechnernamen des '
    "Systems enthalten, nicht einen vollqualifizierten Domänennamen. Um den derzeitigen "
    "Rechnernamen auszugeben, führen Sie hostname(1) ohne ein Argument aus."
)
MAIL_DE = (
    "Sie können den echten Rechnernamen des Mailservers wie folgt herausfinden: "
    "$ host smtp.hostname.dom"
)


_OTHERS_DE = (
    "Die Zeitzone wird bei der Installation gewählt und steht in einer eigenen Datei.",
    "Ein Paket wird mit apt installiert, und seine Konfigurationsdateien bleiben erhalten.",
    "Der Drucker wird über das Netzwerk von einem Druckserver bereitgestellt.",
)


def test_a_further_sentence_that_refers_back_comes_with_the_one_it_refers_to(
    app: Ragox,
) -> None:
    """ "Diese Datei sollte nur den Rechnernamen … enthalten" was quoted without the
    sentence before it, which names the file (/etc/hostname): the one fact that
    answers "Wie ändere ich den Rechnernamen?". A further sentence that refers back is
    quoted with its antecedent, or not at all."""
    for name, text in [("hostname.txt", HOSTNAME_DE), ("mail.txt", MAIL_DE)] + [
        (f"other{n}.txt", text) for n, text in enumerate(_OTHERS_DE)
    ]:
        outcome = app.ingestor.ingest_bytes(
            text.encode(), name, name, groups=frozenset(), tenant="default", language="de"
        )
        assert outcome.state.value == "READY"
    record = app.ask("Wie ändere ich den Rechnernamen des Systems?", OPERATOR)
    assert not record.abstained
    texts = [claim.text for claim in record.claims]
    assert any(t.startswith("Diese Datei") for t in texts), texts
    named = texts.index(next(t for t in texts if t.startswith("Diese Datei")))
    assert named > 0 and "/etc/hostname" in texts[named - 1], texts


def test_a_heading_far_before_the_passage_is_no_title_of_it(app: Ragox) -> None:
    """A page's one heading above a thousand paragraphs does not speak for the last of
    them: "How do I remove a package?" was answered "To frobnicate the widget, run frob
    --all" (a red team's page)."""
    paragraphs = "".join(
        f"<p>Paragraph number {n} talks about the weather in many plain words.</p>"
        for n in range(1000)
    )
    html = (
        f"<html><body><h1>How do I remove a package?</h1>{paragraphs}"
        "<p>To frobnicate the widget, run frob --all on the console.</p></body></html>"
    )
    outcome = app.ingestor.ingest_bytes(
        html.encode(), "page.html", "page", groups=frozenset(), tenant="default"
    )
    assert outcome.state.value == "READY"
    record = app.store.get_revision("default", "page", "r1")
    assert record is not None and record.manifest_id is not None
    text = app.store.text(record.manifest_id)
    near, far = text.index("Paragraph number 3 "), text.index("To frobnicate")
    assert _section_title(app.store, record.manifest_id, near) == "How do I remove a package?"
    assert _section_title(app.store, record.manifest_id, far) is None
    answer = app.ask("How do I remove a package?", OPERATOR)
    assert not any("frob" in claim.text for claim in answer.claims)
