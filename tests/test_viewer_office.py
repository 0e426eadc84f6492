"""The viewer on Office files in a real browser (Debian's Chromium), desktop and phone: a
DOCX passage highlighted with its locator shown, and a spreadsheet cell in its row."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA, serving
from ragox.access import ANY_ID, Principal
from ragox.anchor import Refusal
from ragox.service import Ragox
from test_extract_office import make_pptx, make_xlsx

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

DOCX_QUOTE = "twelve months or after 2,000 hours"
CELL_QUOTE = "Seal kit"


@dataclass
class Served:
    url: str
    key: str
    docx_anchor: str
    cell_anchor: str
    uploader: str
    folder: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("office")
    home = folder / "home"
    app = Ragox(home)
    staff = Principal("sam", groups=frozenset({"staff"}))
    anchors = []
    for path, quote in (
        (DATA / "office" / "libreoffice-handbook.docx", DOCX_QUOTE),
        (make_xlsx(folder / "prices.xlsx"), CELL_QUOTE),
    ):
        item = app.ingest_path(path, path.parent, groups=frozenset({"staff"}))
        assert item.outcome is not None and item.outcome.state.value == "READY"
        text = app.text(path.name, staff)
        start = text.index(quote)
        created = app.create_anchor(path.name, start, start + len(quote), staff)
        assert not isinstance(created, Refusal)
        anchors.append(created.anchor.anchor_id)
    key = app.create_key(Principal("sam", groups=staff.groups))
    uploader = app.create_key(Principal("olga", operator=True, write=frozenset({ANY_ID})))
    app.close()
    with serving(home) as url:
        yield Served(url, key, anchors[0], anchors[1], uploader, folder)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as instance:
        yield instance


def _open(browser, served: Served, anchor_id: str, kind: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(**VIEWPORTS[kind])  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(f"{served.url}/view/anchors/{anchor_id}#key={served.key}")
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_docx_passage_highlighted_with_its_locator(browser, served: Served, kind: str) -> None:  # type: ignore[no-untyped-def]
    """A cited DOCX passage: the highlight equals the quote, lies in the paragraph block of
    its locator, and the location line names the section by number and heading."""
    context, page = _open(browser, served, served.docx_anchor, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == DOCX_QUOTE
        mark = page.locator("mark.ragox-hl").first
        assert mark.is_visible()
        block = page.locator("mark.ragox-hl >> xpath=ancestor::*[@data-locator][1]")
        assert block.get_attribute("data-locator") == "§ 1.2 › paragraph 1"
        location = page.locator("#location")
        assert location.is_visible()
        assert location.inner_text() == "Location: § 1.2 Maintenance › paragraph 1"
        box = location.bounding_box()
        assert box is not None and box["width"] <= VIEWPORTS[kind]["viewport"]["width"]
        # Word headings render as headings, one level per outline depth.
        assert page.locator("h2.block[data-locator='§ 1']").count() == 1
        assert page.locator("h3.block[data-locator='§ 1.2']").inner_text() == "Maintenance"
        assert "Confirm the interval" not in page.inner_text("#document")  # comment dropped
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_spreadsheet_cell_highlighted_in_its_row(browser, served: Served, kind: str) -> None:  # type: ignore[no-untyped-def]
    """A cited XLSX cell is highlighted inside a table cell whose row holds the row's other
    cells, and the location line gives the cell reference."""
    context, page = _open(browser, served, served.cell_anchor, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == CELL_QUOTE
        assert page.inner_text("#location") == "Location: Sheet Prices!A3"
        row = page.locator("mark.ragox-hl >> xpath=ancestor::tr[1]")
        cells = row.locator("td").all_inner_texts()
        assert cells == ["Seal kit", "39", "2024-03-01 14:30:00"]
        assert page.locator("mark.ragox-hl").first.is_visible()
    finally:
        context.close()


def _state(served: Served, doc: str) -> dict[str, object]:
    """The revision's status once it left the pipeline (READY or FAILED)."""
    deadline = time.time() + 60
    while True:
        found = httpx.get(
            f"{served.url}/v1/documents/{doc}",
            headers={"Authorization": f"Bearer {served.uploader}"},
        ).json()["revisions"][0]
        if found["state"] in ("READY", "FAILED") or time.time() > deadline:
            return dict(found)
        time.sleep(0.2)


def test_api_upload_of_office_files(served: Served) -> None:
    """Over HTTP: a PPTX upload becomes READY with slide locators in its text's blocks;
    a password-protected DOCX is FAILED with ENCRYPTED_OFFICE."""
    auth = {"Authorization": f"Bearer {served.uploader}"}
    uploads = {
        "deck.pptx": make_pptx(served.folder / "deck.pptx").read_bytes(),
        "locked.docx": (DATA / "office" / "encrypted-handbook.docx").read_bytes(),
    }
    for name, data in uploads.items():
        response = httpx.post(
            f"{served.url}/v1/documents", headers=auth, files={"file": (name, data)}
        )
        assert response.status_code == 202, response.text
    ready = _state(served, "deck.pptx")
    assert ready["state"] == "READY"
    assert ready["warnings"] == ["HIDDEN_SLIDES_DROPPED"]
    text = httpx.get(f"{served.url}/v1/documents/deck.pptx/revisions/r1/text", headers=auth).json()
    assert text["media_type"].endswith("presentationml.presentation")
    assert "slide 1 › notes" in [b["locator"] for b in text["blocks"]]
    failed = _state(served, "locked.docx")
    assert (failed["state"], failed["error"]) == ("FAILED", "ENCRYPTED_OFFICE")
