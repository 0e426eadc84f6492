"""Issue 16, retrieval and answers on manuals: a heading opens its chunk, a chunk's index
row carries the headings above it, an FAQ's question is never quoted as an answer, and a
question is answered from passages in its own language when the home has them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import HEADING_FILLER, blocks_of
from ragox.access import Principal
from ragox.answer import Evidence
from ragox.answer._blocks import runs_into_block
from ragox.answer._extractive import ExtractiveGenerator, score_sentences
from ragox.extract import BlockKind
from ragox.ingest import chunk_representation
from ragox.ingest._headings import heading_context
from ragox.ingest._searchtext import build_search_text
from ragox.search import compound_parts, compound_vocabulary, index_terms
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))


def test_a_heading_opens_a_chunk_and_its_path_goes_into_the_index_row_only() -> None:
    text, blocks = blocks_of(
        [
            (BlockKind.HEADING, "/html/body/h1", "Chapter 8. Package tools"),
            (BlockKind.HEADING, "/html/body/div/h2", "8.4. Zeitzone einstellen"),
            (BlockKind.PARAGRAPH, "/html/body/div/p[1]", HEADING_FILLER),
            (BlockKind.PARAGRAPH, "/html/body/div/p[2]", HEADING_FILLER.replace("This", "That")),
            (BlockKind.HEADING, "/html/body/div[2]/h2", "8.5. Another section"),
            (BlockKind.PARAGRAPH, "/html/body/div[2]/p", "Short text here."),
        ]
    )
    search = build_search_text(text, blocks)
    chunks = chunk_representation("m", text, blocks, search.alignment)
    starts = [text[c.start : c.end] for c in chunks]
    # the second section's heading is not packed onto the first section's end
    assert any(s.startswith("8.5. Another section") for s in starts), starts
    assert not any(s.rstrip().endswith("Another section") for s in starts)
    # the first chunk holds both headings (a chapter title, then the section's)
    assert starts[0].startswith("Chapter 8. Package tools\n\n8.4. Zeitzone einstellen")
    context = heading_context(text, blocks, chunks)
    second = next(i for i, s in enumerate(starts) if s.startswith("That paragraph"))
    assert context[second] == "Chapter 8. Package tools 8.4. Zeitzone einstellen"
    last = next(i for i, s in enumerate(starts) if s.startswith("8.5."))
    assert context[last] == "Chapter 8. Package tools"  # its own heading is in its text
    assert context[0] == ""


@pytest.mark.both_backends
def test_a_query_on_the_section_heading_finds_the_chunks_under_it(app: Ragox) -> None:
    html = (
        "<html><body><h1>Handbuch</h1><h2>Zeitzone einstellen</h2>"
        f"<p>{HEADING_FILLER}</p><p>{HEADING_FILLER.replace('This', 'That')}</p>"
        "<p>Run the reconfiguration of the tzdata package with dpkg-reconfigure tzdata "
        "as root and pick your region from the list that the dialog shows you.</p>"
        "<h2>Other</h2><p>Nothing to see here at all in this last short section.</p>"
        "</body></html>"
    )
    outcome = app.ingestor.ingest_bytes(
        html.encode(), "m.html", "manual", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    text = app.text("manual", STAFF)
    hits = app.search("Zeitzone", STAFF)
    found = [text[h.start : h.end] for h in hits]
    assert any("dpkg-reconfigure tzdata" in f and "Zeitzone" not in f for f in found), found
    # the heading context is in no hit's text and moves no anchor
    assert all(h.end - h.start == len(f) for h, f in zip(hits, found, strict=True))


def test_an_faq_question_in_the_text_is_never_quoted_as_its_answer() -> None:
    text = (
        "11.1. How can I ensure that all programs use the same paper size?\n\n"
        "Install the libpaper1 package, and it will ask you for a paper size. "
        "This setting will be kept in the file /etc/papersize."
    )
    evidence = [Evidence("S1", "faq", "r1", "m1", ("c1",), 0, len(text), text, ())]
    draft = ExtractiveGenerator().generate(
        "How can I make all programs use the same paper size?", evidence
    )
    assert not draft.abstained
    assert all(not (c.quote or "").rstrip().endswith("?") for c in draft.claims)
    scoring = score_sentences("Where is the paper size kept?", evidence)
    assert all(not s.evidence.text[s.start : s.end].endswith("?") for s in scoring.sentences)


def test_a_question_is_answered_from_passages_in_its_own_language() -> None:
    english = "To display the default target of systemd, run the command systemctl get-default."
    german = (
        "Um den Standard-Target von systemd anzuzeigen, führen Sie den Befehl "
        "systemctl get-default aus."
    )
    evidence = [
        Evidence("S1", "faq-de", "r1", "m1", ("c1",), 0, len(german), german, ()),
        Evidence("S2", "faq-en", "r1", "m2", ("c2",), 0, len(english), english, ()),
    ]
    draft = ExtractiveGenerator().generate(
        "How can I show the default target of systemd?", evidence
    )
    assert not draft.abstained
    assert {c.source_id for c in draft.claims} == {"S2"}
    # a German question over the same evidence keeps its German passage
    draft = ExtractiveGenerator().generate(
        "Wie zeige ich den Standard-Target von systemd an?", evidence
    )
    assert "S1" in {c.source_id for c in draft.claims}


def test_a_sentence_that_runs_on_into_a_command_is_quoted_with_it() -> None:
    """ "… you can run the command" and the command on its own line: one quote."""
    text = (
        "During boot-up, systemd starts the services listed in the default target.\n\n"
        "If you specifically wish not to start a service during boot-up, instead of "
        "removing the corresponding package, you can run the command\n\n"
        "systemctl disable service.service\n\n\n"
        "using the name of the service file installed in /lib/systemd/system."
    )
    evidence = [Evidence("S1", "faq", "r1", "m1", ("c1",), 0, len(text), text, ())]
    draft = ExtractiveGenerator().generate(
        "How can I keep a service from being started at boot?", evidence
    )
    assert not draft.abstained
    assert any("systemctl disable service.service" in (c.quote or "") for c in draft.claims)
    # a short unterminated line (a heading) before a command does not swallow it
    assert runs_into_block("you can run the command")
    assert not runs_into_block("8.1.1. dpkg")
    assert not runs_into_block("Then run the command.")


@pytest.mark.both_backends
def test_german_compounds_are_found_by_their_parts(app: Ragox) -> None:
    """A German document's compounds carry the parts it also uses as words: a question
    about the "Papiergröße" finds the sentence on the "Standardpapiergröße"."""
    assert compound_parts("paketverwaltungssystem", frozenset({"paketverwaltung", "system"})) == [
        "paketverwaltung",
        "system",
    ]
    assert compound_parts("zeitzone", frozenset({"zeitzone"})) == []  # no compound
    text = (
        "Installieren Sie das Paket libpaper1 und es wird nach einer systemweiten "
        "Standardpapiergröße fragen. Diese Einstellung wird in einer Datei gespeichert.\n\n"
        "Benutzer können die Papiergröße mit einer Umgebungsvariablen ändern, die hier "
        "nicht weiter beschrieben wird, weil sie selten gebraucht wird und nur stört."
    )
    terms = index_terms(text, "de", compound_vocabulary(text)).split()
    assert "papiergross" in terms or "papiergröss" in terms
    outcome = app.ingestor.ingest_bytes(
        text.encode(), "papier.txt", "papier", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    found = [app.text("papier", STAFF)[h.start : h.end] for h in app.search("Papiergröße", STAFF)]
    assert any("Standardpapiergröße" in f for f in found), found


def test_the_sentence_that_goes_on_about_the_best_one_is_quoted_with_it() -> None:
    """ "This setting will be kept in …" completes the sentence before it; an unrelated
    sentence after it is not added."""
    text = (
        "Install the libpaper1 package, and it will ask you for a system-wide default "
        "paper size. This setting will be kept in the file /etc/papersize. "
        "Many device files in the /dev directory belong to some predefined groups."
    )
    evidence = [Evidence("S1", "faq", "r1", "m1", ("c1",), 0, len(text), text, ())]
    draft = ExtractiveGenerator().generate(
        "Where is the system-wide default paper size stored?", evidence
    )
    quotes = [c.quote or "" for c in draft.claims]
    assert any("/etc/papersize" in q for q in quotes), quotes
    assert not any("device files" in q for q in quotes)


_LINES = st.sampled_from(
    [
        "8.4. How do I display the files of an installed package?",
        "  1.2.7 adequate",
        "\t3.1 Tabs",
        "12.10.3. x",
        "1. Not a section number (one level)",
        "1.2.",  # a number alone: no heading
        "4.2 ",  # nor with a space and nothing after it
        "Prose with 1.2 inside the line",
        "",
        "x" * 40,
    ]
)


@given(
    lines=st.lists(_LINES, max_size=40),
    window=st.integers(min_value=1, max_value=64),
    data=st.data(),
)
def test_a_sections_heading_is_found_backwards_as_a_scan_from_the_start_finds_it(
    lines: list[str], window: int, data: st.DataObject
) -> None:
    """The section holding a position starts at the last numbered heading that ends by
    it; found backwards a window of lines at a time (windows of 1 to 64 code points
    here, so that headings fall on every side of a window's edge), it is the one a scan
    of the text from its start finds."""
    from ragox.answer import _context

    text = "\n".join(lines)
    start = data.draw(st.integers(min_value=0, max_value=len(text) + 1))
    expected = -1
    for match in _context._HEADING.finditer(text, 0, start + 1):
        expected = match.start()
    original = _context._HEADING_WINDOW
    try:
        _context._HEADING_WINDOW = window
        assert _context._section(text, start) == expected
    finally:
        _context._HEADING_WINDOW = original


def test_a_short_question_opens_a_chunk_with_its_answer() -> None:
    """An FAQ whose questions are bold paragraphs, not headings (Double Commander's
    Russian help): "В: Ctrl+A не работает, где включить?" was packed onto the end of
    the answer before it, and its own answer began the next chunk, which a search for
    the question never found (a new user's pass)."""
    answer_before = (
        "О: Очередь файловых операций была реализована в версии 0.4.6 alpha и "
        "добавлена в следующий стабильный релиз."
    )
    answer = (
        "О: Вы должны сделать следующее: Настройки > Параметры > Клавиши > Горячие "
        "клавиши > в категории «Основные» найдите команду cm_MarkMarkAll и установите "
        "для неё горячую клавишу Ctrl+A."
    )
    text, blocks = blocks_of(
        [
            (BlockKind.PARAGRAPH, "/html/body/p[1]", "В: Есть ли очередь копирования файлов?"),
            (BlockKind.PARAGRAPH, "/html/body/p[2]", answer_before),
            (BlockKind.PARAGRAPH, "/html/body/p[3]", "В: Ctrl+A не работает, где включить?"),
            (BlockKind.PARAGRAPH, "/html/body/p[4]", answer),
            # a short line that asks nothing still joins the paragraph before it
            (BlockKind.PARAGRAPH, "/html/body/p[5]", "Готово."),
        ]
    )
    search = build_search_text(text, blocks)
    chunks = [
        text[c.start : c.end] for c in chunk_representation("m", text, blocks, search.alignment)
    ]
    assert any(c.startswith("В: Ctrl+A") and "cm_MarkMarkAll" in c for c in chunks), chunks
    assert any(c.startswith("В: Есть ли очередь") and "0.4.6" in c for c in chunks), chunks
    assert not any(c.endswith("где включить?") for c in chunks), chunks
