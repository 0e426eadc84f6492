"""The viewer on a scanned page (Chromium, desktop and phone): a citation on OCR text
shows the page with the block's rectangle and a visible "recognized by OCR" note,
never character-precise boxes; a text PDF shows neither (seed 003)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import ragox.extract._ocr as ocr_module
from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA, serving
from ragox.access import Principal
from ragox.anchor import Rect, Refusal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.skipif(
        ocr_module.tessdata_folder() is None, reason="needs tesseract-ocr-{eng,deu,rus}"
    ),
    pytest.mark.both_backends,
]

SCAN = DATA / "ocr" / "ru-seed003.pdf"
QUOTE = "Помощник отвечает на вопрос о штрафе"
STAFF = Principal("sam", groups=frozenset({"staff"}))


@dataclass
class Site:
    url: str
    key: str
    ocr_anchor: str
    block_rects: list[Rect]
    text_anchor: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("viewer-ocr") / "home"
    app = Ragox(home)
    app.ingest_path(SCAN, SCAN.parent, groups=frozenset({"staff"}))
    text = app.text("ru-seed003.pdf", STAFF)
    start = text.index(QUOTE)
    anchor = app.create_anchor("ru-seed003.pdf", start, start + len(QUOTE), STAFF)
    assert not isinstance(anchor, Refusal)
    target = app.resolve(anchor.anchor, STAFF).target
    assert target is not None
    rects = [r for page in target.pages for r in page.rects]
    pdf = DATA / "pdf" / "multicolumn.pdf"
    app.ingest_path(pdf, pdf.parent, groups=frozenset({"staff"}))
    pdf_text = app.text("multicolumn.pdf", STAFF)
    quote = "Nulla ullamcorper vestibulum turpis."
    plain = app.create_anchor(
        "multicolumn.pdf", pdf_text.index(quote), pdf_text.index(quote) + len(quote), STAFF
    )
    assert not isinstance(plain, Refusal)
    key = app.create_key(STAFF)
    app.close()
    with serving(home) as url:
        yield Site(url, key, anchor.anchor.anchor_id, rects, plain.anchor.anchor_id)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as instance:
        yield instance


def _open(browser, site: Site, anchor_id: str, kind: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(**VIEWPORTS[kind])  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(f"{site.url}/view/anchors/{anchor_id}#key={site.key}")
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_ocr_citation_shows_note_and_block_rectangle(browser, site: Site, kind: str) -> None:  # type: ignore[no-untyped-def]
    """The quote is highlighted exactly in the text; the page shows the OCR note and one
    dashed rectangle per block, where the block lies on the page image."""
    context, page = _open(browser, site, site.ocr_anchor, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        assert page.get_attribute("#ragox-viewer", "data-ragox-ocr") == "true"
        marks = page.locator("mark.ragox-hl")
        assert "".join(marks.nth(i).inner_text() for i in range(marks.count())) == QUOTE
        page.wait_for_selector("#page .rect")
        note = page.locator("#ocrnote")
        assert note.is_visible()
        assert "Recognized by OCR" in note.inner_text()
        boxes = page.locator("#page .rect")
        assert boxes.count() == len(site.block_rects) >= 1
        assert page.locator("#page .rect.ocr").count() == boxes.count()
        # Zoom back out on a phone, so that the page and the rectangle compare 1:1.
        if page.get_attribute("#zoom", "aria-pressed") == "true":
            page.click("#zoom")
        image = page.locator("#page img").bounding_box()
        scale = image["width"] / 595  # the scan's page is A4 wide
        for i, rect in enumerate(site.block_rects):
            box = boxes.nth(i).bounding_box()
            assert abs(box["x"] - (image["x"] + rect.x0 * scale)) <= 2
            assert abs(box["y"] - (image["y"] + rect.y0 * scale)) <= 2
            assert abs(box["width"] - (rect.x1 - rect.x0) * scale) <= 2
            assert abs(box["height"] - (rect.y1 - rect.y0) * scale) <= 2
        if kind == "mobile":  # the note fits the phone's width, no sideways scrolling
            assert note.bounding_box()["width"] <= 390
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_text_pdf_citation_has_no_ocr_note(browser, site: Site, kind: str) -> None:  # type: ignore[no-untyped-def]
    """A text PDF's citation keeps its character rectangles and shows no OCR note."""
    context, page = _open(browser, site, site.text_anchor, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        page.wait_for_selector("#page .rect")
        assert page.get_attribute("#ragox-viewer", "data-ragox-ocr") == "false"
        assert not page.locator("#ocrnote").is_visible()
        assert page.locator("#page .rect.ocr").count() == 0
    finally:
        context.close()
