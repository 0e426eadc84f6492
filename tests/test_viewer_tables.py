"""The viewer on table cells in a real browser (Chromium through Playwright), desktop
and phone: the cited cell is highlighted with exactly its own text, and its column and
row headers are marked as context, in a style of their own and labelled for screen
readers; on a PDF page the header cells get rectangles of their own."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA, serving
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

TABLES = DATA / "tables"

#: document, cited cell, its header cells by role (at least these)
CASES = {
    "html": ("pump-specs.html", "400 V", {"row": ["P-150", "P-200"], "column": ["Voltage"]}),
    "markdown": ("parts.md", "Ball bearing 6203", {"column": ["Description"]}),
    "pdf": ("fastener-torque.pdf", "16 Nm", {"column": ["Torque"]}),
}


@dataclass
class Tables:
    url: str
    key: str
    anchors: dict[str, str]
    pdf_page: int


def _cell_range(app: Ragox, doc: str, quote: str, after: str | None) -> tuple[int, int]:
    """The range of the block whose text is ``quote`` (after the block ``after``)."""
    record = app.store.revisions("default", doc)[-1]
    assert record.manifest_id is not None
    text = app.store.text(record.manifest_id)
    blocks = app.store.blocks(record.manifest_id)
    texts = [text[b.span.start : b.span.end] for b in blocks]
    start_at = texts.index(after) + 1 if after else 0
    index = texts.index(quote, start_at)
    assert blocks[index].cell is not None
    return blocks[index].span.start, blocks[index].span.end


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Tables]:
    home = tmp_path_factory.mktemp("tables") / "home"
    app = Ragox(home)
    staff = Principal("sam", groups=frozenset({"staff"}))
    anchors: dict[str, str] = {}
    pdf_page = 0
    for kind, (name, quote, _) in CASES.items():
        item = app.ingest_path(TABLES / name, TABLES, groups=frozenset({"staff"}))
        assert item.ready, item
        # the PDF's "16 Nm" of part P-48, on page 2
        start, end = _cell_range(app, name, quote, "P-48" if kind == "pdf" else None)
        created = app.create_anchor(name, start, end, staff)
        assert not isinstance(created, Refusal)
        assert created.anchor.quote.exact == quote  # the cell's text only
        anchors[kind] = created.anchor.anchor_id
        if kind == "pdf":
            resolved = app.resolve(created.anchor, staff)
            assert resolved.target is not None
            pdf_page = resolved.target.pages[0].page
    key = app.create_key(staff)
    app.close()
    with serving(home) as url:
        yield Tables(url, key, anchors, pdf_page)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as instance:
        yield instance


def _open(browser, tables: Tables, kind: str, viewport: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(**VIEWPORTS[viewport])  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(f"{tables.url}/view/anchors/{tables.anchors[kind]}#key={tables.key}")
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page


@pytest.mark.parametrize("viewport", ["desktop", "mobile"])
@pytest.mark.parametrize("kind", list(CASES))
def test_cited_cell_shows_its_headers_as_context(
    browser, tables: Tables, kind: str, viewport: str
) -> None:  # type: ignore[no-untyped-def]
    """The highlight is the cell's text exactly; its header cells, and only they, are
    marked as context in a different style, each described for screen readers, and a
    line outside the text names them."""
    _, quote, headers = CASES[kind]
    context, page = _open(browser, tables, kind, viewport)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == quote
        # the mark sits in a table cell of the rendered table
        assert page.eval_on_selector("mark.ragox-hl", "m => m.closest('td, th') !== null")
        found = page.eval_on_selector_all(
            ".ragox-context",
            "es => es.map(e => [e.dataset.ragoxContext, e.textContent, e.tagName,"
            " e.getAttribute('aria-describedby'), e.querySelector('mark') !== null])",
        )
        roles: dict[str, list[str]] = {}
        for role, text, tag, described, has_mark in found:
            roles.setdefault(role, []).append(text)
            assert tag == "TH" and not has_mark
            assert described == f"context-{role}"
            label = page.text_content(f"#{described}")
            assert label is not None and "header of the cited cell" in label
        for role, names in headers.items():
            assert set(names) <= set(roles.get(role, []))
        assert all(role in ("column", "row", "group") for role in roles)
        context_style = page.eval_on_selector(
            ".ragox-context", "e => [getComputedStyle(e).backgroundColor, e.offsetWidth > 0]"
        )
        mark_style = page.eval_on_selector(
            "mark.ragox-hl", "e => getComputedStyle(e).backgroundColor"
        )
        assert context_style[1] and context_style[0] != mark_style
        line = page.text_content("#cellcontext") or ""
        assert page.is_visible("#cellcontext")
        for role, names in headers.items():
            assert f"{role.capitalize()} header: " in line
            assert all(name in line for name in names)
        assert page.get_attribute("mark.ragox-hl", "aria-describedby") == "cellcontext"
    finally:
        context.close()


@pytest.mark.parametrize("viewport", ["desktop", "mobile"])
def test_pdf_page_draws_the_header_cell_beside_the_cited_cell(
    browser, tables: Tables, viewport: str
) -> None:  # type: ignore[no-untyped-def]
    """On the cited page (page 2 of the table), the header row repeated there is drawn as
    context rectangle over PyMuPDF's own position of "Torque", apart from the cell's."""
    import pymupdf

    context, page = _open(browser, tables, "pdf", viewport)
    try:
        page.wait_for_selector("#page .rect")
        assert page.get_attribute("#page", "data-page") == str(tables.pdf_page) == "2"
        image = page.locator("#page img").bounding_box()
        boxes = page.locator("#page .context-rect")
        assert boxes.count() == 1
        drawn = boxes.first.bounding_box()
        cell = page.locator("#page .rect").first.bounding_box()
        with pymupdf.open(TABLES / "fastener-torque.pdf") as pdf:
            pdf_page = pdf[tables.pdf_page - 1]
            [torque] = pdf_page.search_for("Torque")
            scale = image["width"] / pdf_page.rect.width
        cx = image["x"] + (torque.x0 + torque.x1) / 2 * scale
        cy = image["y"] + (torque.y0 + torque.y1) / 2 * scale
        assert drawn["x"] <= cx <= drawn["x"] + drawn["width"]
        assert drawn["y"] <= cy <= drawn["y"] + drawn["height"]
        assert drawn["y"] + drawn["height"] <= cell["y"] + 1  # the header is above the cell
        assert abs(drawn["x"] - cell["x"]) < 0.2 * image["width"]  # in the cell's column
    finally:
        context.close()
