"""Every format end to end on real files: ingest, search text, anchors on the right
page, and `ragox check` (seed 003's round trip) on every fixture."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from conftest import DATA, OPERATOR, store_sql
from ragox.anchor import Refusal, ResolutionStatus
from ragox.service import Ragox
from ragox.store import RevisionState

pytestmark = pytest.mark.both_backends

FIXTURES = [
    DATA / "pdf" / "multicolumn.pdf",
    DATA / "pdf" / "tracemonkey.pdf",
    DATA / "pdf" / "ligatures.pdf",
    DATA / "pdf" / "cyrillic.pdf",
    DATA / "pdf" / "geotopo-de.pdf",
    DATA / "pdf" / "habibi-arabic.pdf",
    DATA / "pdf" / "habibi-rotated.pdf",
    DATA / "html" / "manual.html",
    DATA / "html" / "hostile.html",
    DATA / "md" / "manual.md",
]


def _ingest(app: Ragox, path: Path, doc: str | None = None) -> str:
    item = app.ingest_path(path, path.parent, document_id=doc)
    assert item.outcome is not None and item.outcome.state is RevisionState.READY, item
    return item.outcome.document_id


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_ingests_and_passes_check(app: Ragox, path: Path) -> None:
    """Each real fixture becomes READY with chunks, and every sampled fragment maps back."""
    doc = _ingest(app, path)
    status = app.status(doc, OPERATOR)
    assert status.revisions[0].chunks > 0
    report = app.check(doc, OPERATOR)
    assert report.fragments > 0
    assert report.mismatches == ()


def _pdf(path: Path, pages: list[list[tuple[float, str]]]) -> Path:
    document = pymupdf.open()
    for lines in pages:
        page = document.new_page(width=595, height=842)
        for y, line in lines:
            page.insert_text((72, y), line, fontsize=11)
    document.save(path)
    document.close()
    return path


def _manual_pdf(tmp_path: Path) -> Path:
    pages = []
    for number in range(1, 6):
        body = [(60.0, "ACME Pump P-200 Service Manual - Confidential")]
        body.append((200.0, f"Section {number}: the impeller of stage {number} is inspected."))
        if number in (2, 4):
            body.append((240.0, f"Before step {number}0 the operator checks the gauge."))
            body.append((260.0, "Disconnect power before opening the cover."))
        if number == 3:
            body.append((240.0, "Regular mainte-"))
            body.append((254.0, "nance of the seal prevents leaks."))
        body.append((800.0, f"Page {number} of 5"))
        pages.append(body)
    return _pdf(tmp_path / "manual.pdf", pages)


def test_repeated_header_dropped_from_search_text_anchor_on_right_page(
    app: Ragox, tmp_path: Path
) -> None:
    """The header and page numbers are not indexed; a body anchor resolves on page 3."""
    doc = _ingest(app, _manual_pdf(tmp_path))
    record = app.store.get_revision("default", doc, "r1")
    assert record is not None and record.manifest_id is not None
    found = app.store.search_text(record.manifest_id)
    assert found is not None
    search_text, _ = found
    assert "Confidential" not in search_text and "of 5" not in search_text
    assert "Confidential" in app.text(doc, OPERATOR)  # the representation keeps it
    text = app.text(doc, OPERATOR)
    start = text.index("stage 3")
    created = app.create_anchor(doc, start, start + 7, OPERATOR)
    assert not isinstance(created, Refusal)
    result = app.resolve(created.anchor, OPERATOR)
    assert result.status is ResolutionStatus.RESOLVED and result.target is not None
    assert [p.page for p in result.target.pages] == [3]
    (rect,) = result.target.pages[0].rects
    with pymupdf.open(tmp_path / "manual.pdf") as pdf:
        (expected,) = pdf[2].search_for("stage 3")
    assert abs(rect.x0 - expected.x0) < 2 and abs(rect.x1 - expected.x1) < 2
    assert abs(rect.y0 - expected.y0) < 3 and abs(rect.y1 - expected.y1) < 3


def test_passage_repeated_on_two_pages_anchors_uniquely(app: Ragox, tmp_path: Path) -> None:
    """The same sentence on pages 2 and 4: each anchor resolves to its own page."""
    doc = _ingest(app, _manual_pdf(tmp_path))
    text = app.text(doc, OPERATOR)
    quote = "Disconnect power before opening the cover."
    first = text.index(quote)
    second = text.index(quote, first + 1)
    pages = []
    for start in (first, second):
        created = app.create_anchor(doc, start, start + len(quote), OPERATOR)
        assert not isinstance(created, Refusal)
        assert created.anchor.quote.prefix or created.anchor.quote.suffix
        result = app.resolve(created.anchor, OPERATOR)
        assert result.status is ResolutionStatus.RESOLVED and result.target is not None
        pages.append([p.page for p in result.target.pages])
    assert pages == [[2], [4]]


def test_hyphenated_word_and_ligature_are_found_by_search(app: Ragox, tmp_path: Path) -> None:
    """'mainte-/nance' is found as 'maintenance'; 'ﬁ' in a PDF is found by 'fi' words."""
    doc = _ingest(app, _manual_pdf(tmp_path))
    hits = app.search("maintenance", OPERATOR)
    assert hits and hits[0].document_id == doc and hits[0].pages == (3,)
    assert "mainte-\nnance" in hits[0].snippet  # snippets come from the representation
    lig = _ingest(app, DATA / "pdf" / "tracemonkey.pdf")
    text = app.text(lig, OPERATOR)
    assert "ﬁ" in text  # NFC keeps the ligature in the representation
    position = text.index("ﬁ")
    start = position
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    end = position + 1
    while end < len(text) and text[end].isalpha():
        end += 1
    word = text[start:end].replace("ﬁ", "fi")
    hits = app.search(word, OPERATOR, limit=50)
    assert any(hit.document_id == lig for hit in hits)


def test_passage_across_a_page_break_has_rectangles_on_both_pages(
    app: Ragox, tmp_path: Path
) -> None:
    """A range spanning the end of page 1 and the start of page 2 yields two pages."""
    path = _pdf(
        tmp_path / "break.pdf",
        [
            [(100.0, "The warranty expires if the seal is replaced")],
            [(100.0, "with a part that is not approved by the maker.")],
        ],
    )
    doc = _ingest(app, path)
    text = app.text(doc, OPERATOR)
    start = text.index("seal is replaced")
    end = text.index("with a part") + len("with a part")
    created = app.create_anchor(doc, start, end, OPERATOR)
    assert not isinstance(created, Refusal)
    result = app.resolve(created.anchor, OPERATOR)
    assert result.target is not None
    assert [p.page for p in result.target.pages] == [1, 2]
    assert all(p.rects for p in result.target.pages)


def test_retry_of_a_pdf_gives_identical_chunks(app: Ragox, tmp_path: Path) -> None:
    """A PDF ingested three times: one revision, identical chunk ids."""
    path = tmp_path / "multicolumn.pdf"
    shutil.copy(DATA / "pdf" / "multicolumn.pdf", path)
    seen = []
    for _ in range(3):
        doc = _ingest(app, path)
        record = app.store.get_revision("default", doc, "r1")
        assert record is not None and record.manifest_id is not None
        seen.append([c.chunk_id for c in app.store.chunks(record.manifest_id)])
    assert seen[0] == seen[1] == seen[2]
    assert len(app.store.revisions("default", "multicolumn.pdf")) == 1


BAD = [
    ("truncated.pdf", (DATA / "pdf" / "tracemonkey.pdf").read_bytes()[:50_000], "CORRUPT_PDF"),
    ("encrypted.pdf", (DATA / "pdf" / "password-protected.pdf").read_bytes(), "ENCRYPTED_PDF"),
    ("fake.pdf", b"%PDF-1.7\n" + b"\x00garbage" * 100, "CORRUPT_PDF"),
    ("nested.html", b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000, "TOO_COMPLEX"),
    ("empty.html", b"", "EMPTY_FILE"),
    ("script-only.html", b"<html><script>alert(1)</script></html>", "EMPTY_FILE"),
    ("bad.md", b"# Titel\n\nGr\xfc\xdfe\n", "INVALID_UTF8"),
]


@pytest.mark.parametrize(("name", "data", "code"), BAD, ids=[b[0] for b in BAD])
def test_bad_files_fail_with_a_code_and_stored_documents_stay(
    app: Ragox, tmp_path: Path, name: str, data: bytes, code: str
) -> None:
    """Each bad file is FAILED with its code, and a document stored before still resolves."""
    doc = _ingest(app, DATA / "md" / "manual.md")
    anchor = app.create_anchor(doc, 0, 4, OPERATOR)
    assert not isinstance(anchor, Refusal)
    path = tmp_path / name
    path.write_bytes(data)
    item = app.ingest_path(path, tmp_path)
    assert item.outcome is not None
    assert (item.outcome.state, item.outcome.error_code) == (RevisionState.FAILED, code)
    assert app.resolve(anchor.anchor, OPERATOR).status is ResolutionStatus.RESOLVED


def _ingest_encrypted(app: Ragox) -> None:
    """The password-protected sample PDF as document ``p``, opened with its password."""
    outcome = app.ingestor.ingest_bytes(
        (DATA / "pdf" / "password-protected.pdf").read_bytes(),
        "p.pdf",
        "p",
        tenant="default",
        password="openpassword",
    )
    assert outcome.state is RevisionState.READY


def test_encrypted_pdf_with_password_and_entity_heavy_html(app: Ragox, tmp_path: Path) -> None:
    """The right password opens an encrypted PDF; 200k entities are ingested correctly."""
    _ingest_encrypted(app)
    path = tmp_path / "entities.html"
    path.write_bytes(b"<p>" + b"&amp;&eacute;" * 100_000 + b"</p>")
    doc = _ingest(app, path)
    assert app.text(doc, OPERATOR) == "&é" * 100_000


def test_an_encrypted_pdf_is_checked_with_its_password_and_never_fails_verify(
    app: Ragox, ragox_cli: Any
) -> None:
    """`check` of an encrypted PDF without its password says so with its code (exit 1;
    before: an internal error), with it checks the round trip; `verify`, which has no
    password (a home never keeps one), lists it as not checkable without failing."""
    _ingest_encrypted(app)
    app.close()
    locked = ragox_cli("check", "p")
    assert locked.code == 1
    assert locked.stdout.strip() == "p: not checkable: ENCRYPTED_PDF  (give --password)"
    assert "internal error" not in locked.stderr
    data: Any = ragox_cli("check", "p", "--json").json()
    assert data == {"document_id": "p", "error_code": "ENCRYPTED_PDF"}
    opened = ragox_cli("check", "p", "--password", "openpassword")
    assert opened.code == 0 and "0 mismatches" in opened.stdout, opened.stdout
    verified = ragox_cli("verify", "--json")
    assert verified.code == 0, verified.stdout
    cases = [c for c in verified.json()["cases"] if c["part"] == "roundtrip"]  # type: ignore[index]
    assert [c["observed"] for c in cases] == ["not checkable without its password (not kept)"]


def test_check_detects_a_broken_mapping(app: Ragox, tmp_path: Path) -> None:
    """If stored page boxes point elsewhere, `check` reports mismatches (it can fail)."""
    from array import array

    doc = _ingest(app, _manual_pdf(tmp_path))
    record = app.store.get_revision("default", doc, "r1")
    assert record is not None and record.manifest_id is not None
    boxes = array("f", app.store.char_boxes(record.manifest_id) or b"")
    for i in range(1, len(boxes), 4):  # move every box 40 points down
        boxes[i] += 40
        boxes[i + 2] += 40
    store_sql(
        app.home,
        "UPDATE representations SET char_boxes=? WHERE manifest_id=?",
        (boxes.tobytes(), record.manifest_id),
    )
    report = app.check(doc, OPERATOR)
    assert report.mismatches and not report.ok


def test_a_pages_navigation_is_neither_searched_nor_quoted(app: Ragox, tmp_path: Path) -> None:
    """A DocBook page's "Prev"/"Next" bar names the chapters around it ("Chapter 10.
    Debian and the kernel"): it stays in the text the viewer shows, but no search finds
    it and no answer quotes it (a Russian manual's footer was the whole answer to a
    question about kernel tools; new-user find)."""
    page = tmp_path / "upload.html"
    page.write_text(
        '<div class="navheader"><table><tr><th colspan=3>Chapter 9. Uploading</th></tr>'
        "</table></div><h1>Chapter 9. Uploading</h1>"
        "<p>Run dput to upload the signed package to the archive.</p>"
        "<p>The upload queue checks the signature of the changes file before the "
        "package is accepted, and mails the result to the maintainer.</p>"
        '<div class="navfooter"><table><tr><td>Chapter 8. Updating the package</td>'
        "<td>Chapter 10. Debian and the kernel</td></tr></table></div>",
        encoding="utf-8",
    )
    doc = _ingest(app, page)
    assert "Chapter 10. Debian and the kernel" in app.text(doc, OPERATOR)
    assert app.search("kernel", OPERATOR) == []
    answer = app.ask("Which chapter is about Debian and the kernel?", OPERATOR)
    assert answer.abstained and "Chapter 10" not in answer.answer
    found = app.ask("How do I upload the signed package?", OPERATOR)
    assert not found.abstained and "dput" in found.answer


def test_a_pages_hidden_debug_footer_is_neither_searched_nor_quoted(
    app: Ragox, tmp_path: Path
) -> None:
    """LibreOffice's help ends every page with a footer that its external style sheet
    hides ("Help content debug info: This page is: /text/swriter/guide/fields_date.xhp
    Title is: …"); it was quoted first for "whats the difference between a fixed and a
    variable date field in writer?" and shown in 84 search snippets (nu18). The page's
    footer is furniture, as its navigation is."""
    page = tmp_path / "fields_date.html"
    page.write_text(
        "<html><body><div id=DisplayArea><h1>Inserting Fixed or Variable Date Fields</h1>"
        "<p>You can insert the current date as a field that updates each time you open "
        "the document, or as a field that does not update.</p>"
        "<p>Choose Insert - Field - More Fields and click the Document tab.</p></div>"
        "<footer><div id=DEBUG class=debug><h3 class=bug>Help content debug info:</h3>"
        "<p>This page is: /text/swriter/guide/fields_date.xhp</p>"
        "<p>Title is: Inserting Fixed or Variable Date Fields</p></div></footer>"
        "</body></html>",
        encoding="utf-8",
    )
    doc = _ingest(app, page)
    assert "Help content debug info:" in app.text(doc, OPERATOR)
    assert app.search("debug info", OPERATOR) == []
    answer = app.ask("whats the difference between a fixed and a variable date field?", OPERATOR)
    assert not answer.abstained, answer.answer
    assert "debug" not in answer.answer
    assert "updates each time you open the document" in answer.answer


def test_a_bar_and_a_footer_are_weighed_each_on_its_own(app: Ragox, tmp_path: Path) -> None:
    """A short page's navigation bar and footer together hold more than half of it; each
    holds less, and neither is searched (a red team's case: adding the footer had
    indexed the bar again, and "disaster recovery drills" quoted "Next: Chapter 9 …")."""
    page = tmp_path / "chapter8.html"
    page.write_text(
        "<nav><p>Previous: Chapter 7 Snapshot rotation. Next: Chapter 9 Disaster recovery "
        "drills. Up: Operations guide contents.</p></nav>"
        "<h1>Chapter 8 Archives</h1><p>Archives are written to tape every Sunday night and "
        "kept for ten years in the vault.</p>"
        "<footer><p>Copyright 2024 Example Corporation. All rights reserved. Operations "
        "guide release 4.</p></footer>",
        encoding="utf-8",
    )
    _ingest(app, page)
    assert app.search("disaster recovery drills", OPERATOR) == []
    assert app.search("copyright corporation", OPERATOR) == []
    assert app.search("archives tape", OPERATOR)


def test_no_chunk_is_packed_across_a_navigation_bar(app: Ragox, tmp_path: Path) -> None:
    """Short sections on both sides of a ``nav`` are packed into chunks, but never into
    one across it: its text is in no chunk's range, so no answer can quote it."""
    page = tmp_path / "short.html"
    page.write_text(
        "<p>Seals.</p><p>Replace the seal yearly.</p>"
        "<nav><p>Kernel tools and more chapters</p></nav>"
        "<p>Oil.</p><p>Change the oil monthly.</p>",
        encoding="utf-8",
    )
    doc = _ingest(app, page)
    text = app.text(doc, OPERATOR)
    nav = text.index("Kernel tools")
    record = app.store.get_revision("default", doc, "r1")
    assert record is not None and record.manifest_id is not None
    chunks = app.store.chunks(record.manifest_id)
    assert len(chunks) == 2
    assert all(not (c.start <= nav < c.end) for c in chunks)


def test_an_answer_is_never_extended_into_a_navigation_menu(app: Ragox, tmp_path: Path) -> None:
    """A sentence that introduces what follows ("see the following pages:") is not
    extended through the site menu after it (red-team find: the menu's items were
    quoted as the answer's list)."""
    page = tmp_path / "backups.html"
    page.write_text(
        "<main><h1>Backups</h1><p>The quollsync tool copies the backup set to the remote "
        "host. For more on quollsync, see the following pages:</p></main>"
        '<nav aria-label="Site"><ul><li>Home</li><li>Products</li><li>Pricing</li>'
        "<li>Contact us</li></ul></nav>",
        encoding="utf-8",
    )
    _ingest(app, page)
    answer = app.ask("What does quollsync do?", OPERATOR)
    assert not answer.abstained and "copies the backup set" in answer.answer
    assert "Pricing" not in answer.answer
    assert all("Pricing" not in c.anchor.quote.exact for c in answer.citations)


@pytest.mark.parametrize(
    "markup",
    [
        # an unclosed <nav>: the HTML parser puts the rest of the page inside it
        '<h1>Emuguide</h1><nav><a href="/">Home</a> | <a href="/docs">Docs</a>'
        "<p>The emuvalve must be closed before the emupump is started.</p>",
        # a navigation landmark on the page's body
        '<body role="navigation"><h1>Emuguide</h1>'
        "<p>The emuvalve must be closed before the emupump is started.</p></body>",
    ],
    ids=["unclosed-nav", "body-role"],
)
def test_navigation_markup_over_a_whole_page_does_not_hide_it(
    app: Ragox, tmp_path: Path, markup: str
) -> None:
    """Where navigation would hold most of a page, the markup is wrong (or the links
    are the page): it is searched and quoted as text (red-team find: such a page was
    READY and every question about it abstained)."""
    page = tmp_path / "emu.html"
    page.write_text(markup, encoding="utf-8")
    doc = _ingest(app, page)
    assert [hit.document_id for hit in app.search("emuvalve", OPERATOR)] == [doc]
    answer = app.ask("When must the emuvalve be closed?", OPERATOR)
    assert not answer.abstained and "before the emupump" in answer.answer


def test_a_navigation_link_in_a_header_cell_heads_no_cell(app: Ragox, tmp_path: Path) -> None:
    """A header cell's navigation text is not put before the cells it heads in the
    search text (red-team find: it made the link's words searchable)."""
    page = tmp_path / "prices.html"
    page.write_text(
        "<p>Prices of the widget tiers, as listed by the sales office this year.</p>"
        "<table><tr><th><nav>Kangaroosecret column</nav></th><th>Item</th></tr>"
        "<tr><td>Twelve euros per unit for the premium tier</td><td>Widget alpha model</td>"
        "</tr></table>",
        encoding="utf-8",
    )
    _ingest(app, page)
    assert app.search("kangaroosecret", OPERATOR) == []
    assert app.search("premium tier", OPERATOR)
