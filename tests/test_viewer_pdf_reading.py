"""Opening a citation in a long PDF as a reader would, in a real browser (Debian's
Chromium through Playwright) against a real `ragox serve`: the cited passage is on
screen at once (before the page image has arrived), and on a phone it can be read
without zooming and without sideways scrolling (a whole PDF page at a phone's width
draws its text about 6 px high)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import serving
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")

FILLER = (
    "Section {page}.{n}. The archive keeps every package of the release together with "
    "its sources, and mirrors copy it several times a day so that users nearby can "
    "fetch updates quickly."
)
QUOTE = (
    "To upgrade all the packages on your system without installing extra packages, "
    "run apt upgrade and read what it proposes first."
)
QUOTE_PAGE = 6  # of 8: its text lies far below the first screen


def _long_pdf(path: Path) -> None:
    """Eight pages of paragraphs in a 10 pt font, like a manual; the quote on page 6."""
    import pymupdf

    pdf = pymupdf.open()
    for number in range(1, 9):
        page = pdf.new_page(width=612, height=792)
        paragraphs = [FILLER.format(page=number, n=n) for n in range(1, 9)]
        if number == QUOTE_PAGE:
            paragraphs.insert(4, QUOTE)
        page.insert_textbox(
            pymupdf.Rect(72, 72, 540, 740), "\n\n".join(paragraphs), fontsize=10, fontname="helv"
        )
    pdf.save(path)
    pdf.close()


@dataclass(frozen=True)
class Site:
    url: str
    key: str
    anchor_id: str
    exact: str  # the quote as the representation has it (PDF line ends included)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("pdfreading")
    pdf = folder / "manual.pdf"
    _long_pdf(pdf)
    app = Ragox(folder / "home")
    app.ingest_path(pdf, folder, groups=frozenset({"staff"}))
    reader = Principal("sam", groups=frozenset({"staff"}))
    text = app.text("manual.pdf", reader)
    start = " ".join(text.split("\n")).index(QUOTE)  # the PDF breaks lines: same offsets
    created = app.create_anchor("manual.pdf", start, start + len(QUOTE), reader)
    assert not isinstance(created, Refusal)
    key = app.create_key(reader)
    app.close()
    with serving(folder / "home") as url:
        yield Site(url, key, created.anchor.anchor_id, created.anchor.quote.exact)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def _visible_share(page: Any, selector: str) -> float:
    """How much of the element's box lies inside the viewport (0 to 1)."""
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    if not box or box["height"] <= 0:
        return 0.0
    top, bottom = max(box["y"], 0), min(box["y"] + box["height"], size["height"])
    return max(0.0, bottom - top) / box["height"]


def _wait_scrolled(page: Any, selector: str) -> float:
    """The visible share of ``selector`` once smooth or late scrolling has settled."""
    share = 0.0
    for _ in range(20):
        share = _visible_share(page, selector)
        if share > 0.5:
            break
        page.wait_for_timeout(100)
    return share


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_the_passage_is_on_screen_before_the_page_image_arrives(
    browser: Any, site: Site, kind: str
) -> None:
    """Page images take a render each (seconds on a busy server): until it comes, the
    highlighted text is what the reader sees, not the first lines of the document."""
    context = browser.new_context(**VIEWPORTS[kind])
    held: list[Any] = []
    try:
        page = context.new_page()

        def hold(route: Any) -> None:  # the image request waits, unanswered
            held.append(route)  # (playwright cannot take a bound builtin as handler)

        page.route("**/pages/**", hold)
        page.goto(f"{site.url}/view/anchors/{site.anchor_id[:16]}#key={site.key}")
        page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        page.wait_for_timeout(300)
        assert held, "the page image was asked for"
        assert (
            "".join(page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)"))
            == site.exact
        )
        assert _wait_scrolled(page, "mark.ragox-hl") > 0.5
        for route in held:
            route.continue_()
        page.wait_for_selector("#page .rect")
        assert _wait_scrolled(page, "#page .rect") > 0.5  # then the passage on its page
    finally:
        context.close()


def test_on_a_phone_the_cited_pdf_text_is_readable(browser: Any, site: Site) -> None:
    """At 390 × 844 the page image is too small to read: the verified quote is shown as
    text in the page's own font size beside the page's rectangles, nothing scrolls
    sideways, and the whole page still fits the screen's width."""
    context = browser.new_context(**VIEWPORTS["mobile"])
    try:
        page = context.new_page()
        page.goto(f"{site.url}/view/anchors/{site.anchor_id}#key={site.key}")
        page.wait_for_selector("#page .rect")
        page.wait_for_timeout(300)
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        quoted = page.locator("#quoted-text")
        assert quoted.is_visible()
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert quoted.text_content() == "".join(marked)
        assert _wait_scrolled(page, "#quoted-text") == 1.0
        assert _visible_share(page, "#page .rect") > 0  # and where it is on the page
        size = quoted.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 14
        assert page.evaluate(
            "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
        )
        assert quoted.get_attribute("lang") == "en"
    finally:
        context.close()


def test_on_a_desktop_the_page_image_is_the_reading(browser: Any, site: Site) -> None:
    """At desktop width the page image is legible: no second copy of the quote."""
    context = browser.new_context(**VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        page.goto(f"{site.url}/view/anchors/{site.anchor_id}#key={site.key}")
        page.wait_for_selector("#page .rect")
        assert not page.locator("#quoted-text").is_visible()
        width = page.locator("#page img").bounding_box()
        assert width is not None and width["width"] >= 600  # 10 pt at >= 1 px per pt
    finally:
        context.close()


NESTED = (
    "<!doctype html><html><body>"
    + "<div>" * 9
    + "<table><tr><th>apt syntax</th><th>aptitude syntax</th><th>description</th></tr>"
    "<tr><td>apt search regex</td><td>aptitude search regex</td>"
    "<td>search packages which match regex</td></tr></table>" + "</div>" * 9 + "</body></html>"
)


def test_a_deep_html_location_does_not_widen_the_phone_page(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A cell deep in an HTML manual without ids (the Debian Reference's tables) has a long
    XPath-like location ("/html/body/div/div/…/tr[2]/td[2]"): on a phone it wraps instead
    of making the whole page scroll sideways (before: 507 px of page in a 390 px screen)."""
    folder = tmp_path_factory.mktemp("deephtml")
    (folder / "ch02.html").write_text(NESTED)
    app = Ragox(folder / "home")
    app.ingest_path(folder / "ch02.html", folder, groups=frozenset({"staff"}))
    reader = Principal("sam", groups=frozenset({"staff"}))
    text = app.text("ch02.html", reader)
    start = text.index("aptitude search regex")
    created = app.create_anchor("ch02.html", start, start + len("aptitude search regex"), reader)
    assert not isinstance(created, Refusal)
    key = app.create_key(reader)
    app.close()
    with serving(folder / "home") as url:
        context = browser.new_context(**VIEWPORTS["mobile"])
        try:
            page = context.new_page()
            page.goto(f"{url}/view/anchors/{created.anchor.anchor_id}#key={key}")
            page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
            assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
            location = page.inner_text("#location")
            assert "/div/div/div" in location  # the long locator is shown
            assert page.evaluate(
                "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
            ), page.evaluate("document.documentElement.scrollWidth")
        finally:
            context.close()
