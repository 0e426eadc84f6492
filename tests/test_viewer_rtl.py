"""Right-to-left and bidirectional text in the viewer (Debian's Chromium through
Playwright), desktop and mobile: Arabic, Hebrew and mixed blocks read right to left;
a highlight equals the exact quote and lies on the quote's own glyphs; a PDF whose
right-to-left text came out in drawing order is marked by block, never by character."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox
from rtl_pdfs import FONT, VISUAL_LINE, laid_out_pdf, visual_order_pdf

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.skipif(not FONT.exists(), reason="needs fonts-dejavu-core"),
    pytest.mark.both_backends,
]

RTL = DATA / "rtl"
STAFF = Principal("sam", groups=frozenset({"staff"}))

#: document id → quotes cited from it (numbers and Latin words inside RTL text)
QUOTES: dict[str, tuple[str, ...]] = {
    "arabic.html": ("كل 500 ساعة تشغيل", "الزيت SAE 10W-40 فقط", "انتظر 15 دقيقة", "2.5 بار"),
    "hebrew.html": (
        "כל 500 שעות עבודה",
        "בשמן SAE 10W-40 והחליפו",
        "כל 250 שעות",
        "2.5 בר בטמפרטורה של 20",
    ),
    "mixed.md": ("P-17 נבדקת כל 500 שעות", "كل 1,000 ساعة", "(מספר הזמנה): 4711-B"),
    "mixed.txt": ("(ראו סעיף 3.2)", "25 N·m — عزم الدوران 25", "Pump P-17"),
    "laid-out.pdf": ("המשאבה כל 500", "SAE 10W-40"),
}
CASES = [(doc, quote) for doc, quotes in QUOTES.items() for quote in quotes]


@dataclass
class Served:
    url: str
    key: str
    anchors: dict[tuple[str, str], tuple[str, int, int]]  # → anchor id, UTF-16 range
    visual_anchor: str
    visual_block: tuple[float, float, float, float]


def _ingest(app: Ragox, name: str, data: bytes) -> None:
    outcome = app.ingestor.ingest_bytes(
        data, name, name, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY", name


def _utf16(text: str, codepoints: int) -> int:
    return len(text[:codepoints].encode("utf-16-le")) // 2


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Served]:
    from conftest import serving

    home = tmp_path_factory.mktemp("rtl") / "home"
    app = Ragox(home)
    for name in ("arabic.html", "hebrew.html", "mixed.md", "mixed.txt"):
        _ingest(app, name, (RTL / name).read_bytes())
    _ingest(app, "laid-out.pdf", laid_out_pdf())
    _ingest(app, "visual.pdf", visual_order_pdf())
    anchors = {}
    for doc, quote in CASES:
        text = app.text(doc, STAFF)
        start = text.index(quote)
        created = app.create_anchor(doc, start, start + len(quote), STAFF)
        assert not isinstance(created, Refusal), quote
        end = start + len(quote)
        anchors[doc, quote] = (created.anchor.anchor_id, _utf16(text, start), _utf16(text, end))
    visual_text = app.text("visual.pdf", STAFF)
    word = VISUAL_LINE.split(" ")[1]
    start = visual_text.index(word)
    visual = app.create_anchor("visual.pdf", start, start + len(word), STAFF)
    assert not isinstance(visual, Refusal)
    resolved = app.resolve(visual.anchor, STAFF)
    assert resolved.target is not None
    manifest = resolved.manifest_id
    assert manifest is not None
    (stored,) = app.store.blocks(manifest)
    assert stored.bbox is not None
    bbox = (stored.bbox.x0, stored.bbox.y0, stored.bbox.x1, stored.bbox.y1)
    key = app.create_key(STAFF)
    app.close()
    with serving(home) as url:
        yield Served(url, key, anchors, visual.anchor.anchor_id, bbox)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def _open(browser: Any, served: Served, anchor_id: str, kind: str) -> tuple[Any, Any]:
    context = browser.new_context(**VIEWPORTS[kind])
    page = context.new_page()
    page.goto(f"{served.url}/view/anchors/{anchor_id}#key={served.key}")
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page


#: The quote's range built here from the resolver's UTF-16 offsets over the article's
#: text nodes (not by the viewer's code), with the client rectangles of each of its
#: code units, of the whole range, and of the viewer's marks.
GEOMETRY = """([start, end]) => {
  const article = document.getElementById("document");
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  const at = (offset, preferEnd) => {
    let seen = 0;
    for (const n of nodes) {
      if (offset < seen + n.data.length || (preferEnd && offset === seen + n.data.length))
        return [n, offset - seen];
      seen += n.data.length;
    }
    throw new Error("past the text");
  };
  const box = (r) => [r.left, r.top, r.right, r.bottom];
  const span = (a, b) => {
    const range = document.createRange();
    const [sn, so] = at(a, false);
    const [en, eo] = at(b, true);
    range.setStart(sn, so);
    range.setEnd(en, eo);
    return range;
  };
  const whole = span(start, end);
  const chars = [];
  for (let i = start; i < end; i++) {
    const rects = [...span(i, i + 1).getClientRects()].filter((r) => r.width > 0);
    chars.push(rects.map(box));
  }
  const marks = [...document.querySelectorAll("mark.ragox-hl")];
  return {
    text: whole.toString(),
    chars,
    marks: marks.flatMap((m) => [...m.getClientRects()].map(box)),
    directions: marks.map((m) => getComputedStyle(m.closest(".block")).direction),
  };
}"""


def _inside(inner: list[float], outer: list[float], slack: float = 1.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
@pytest.mark.parametrize(("doc", "quote"), CASES, ids=[f"{d}:{i}" for d, i in CASES])
def test_rtl_highlight_lies_on_the_quote(
    browser: Any, served: Served, doc: str, quote: str, kind: str
) -> None:
    """The marks equal the exact quote; every glyph of the quote lies inside a mark and
    every mark over a glyph of the quote; right-to-left letters run right to left and
    numbers left to right, in a block whose direction is its text's."""
    anchor_id, start, end = served.anchors[doc, quote]
    context, page = _open(browser, served, anchor_id, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == quote
        found = page.evaluate(GEOMETRY, [start, end])
        assert found["text"] == quote
        marks = found["marks"]
        glyphs = [(ch, rects) for ch, rects in zip(quote, found["chars"], strict=True) if rects]
        assert glyphs and marks
        for _, rects in glyphs:
            assert all(any(_inside(r, m) for m in marks) for r in rects)
        for mark in marks:  # no mark strays from the quote's glyphs
            if mark[2] - mark[0] > 0.5:
                assert any(
                    r[0] < mark[2] and r[2] > mark[0] and r[1] < mark[3] and r[3] > mark[1]
                    for _, rects in glyphs
                    for r in rects
                )
        rtl_block = _first_strong(_block_text(page, anchor_id)) == "rtl"
        assert set(found["directions"]) == {"rtl" if rtl_block else "ltr"}
        _assert_reading_order(glyphs)
    finally:
        context.close()


def _block_text(page: Any, anchor_id: str) -> str:
    return str(page.eval_on_selector("mark.ragox-hl", "m => m.closest('.block').textContent"))


def _first_strong(text: str) -> str | None:
    """Unicode bidi rule P2: the direction of the first strong character."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return None


def _assert_reading_order(glyphs: list[tuple[str, list[list[float]]]]) -> None:
    """Neighbouring RTL letters on one line: the later one lies to the left; neighbouring
    digits of one number: the later one lies to the right."""
    for (a, ra), (b, rb) in itertools.pairwise(glyphs):
        (ax0, ay0, ax1, _), (bx0, by0, bx1, _) = ra[0], rb[0]
        if abs(ay0 - by0) > 2:  # a line break between them
            continue
        kinds = unicodedata.bidirectional(a), unicodedata.bidirectional(b)
        if kinds[0] in ("R", "AL") and kinds[1] in ("R", "AL"):
            assert (bx0 + bx1) / 2 < (ax0 + ax1) / 2, (a, b)
        if kinds == ("EN", "EN"):
            assert (bx0 + bx1) / 2 > (ax0 + ax1) / 2, (a, b)


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_visual_order_pdf_is_marked_by_block(browser: Any, served: Served, kind: str) -> None:
    """A PDF whose right-to-left words came out in drawing order: no character mark;
    the block is marked in the text and on the page, with a visible note saying why."""
    context, page = _open(browser, served, served.visual_anchor, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        assert page.get_attribute("#ragox-viewer", "data-ragox-precision") == "block"
        assert page.locator("mark.ragox-hl").count() == 0
        assert page.locator("#precision").is_visible()
        assert "drawing order" in page.inner_text("#precision")
        assert page.locator("#document .ragox-block-hl").count() == 1
        page.wait_for_selector("#page .rect.block-rect")
        assert page.locator("#page .rect").count() == 1
        image = page.locator("#page img").bounding_box()
        drawn = page.locator("#page .rect").bounding_box()
        scale = image["width"] / 595.0  # an A4 page from PyMuPDF's new_page()
        x0, y0, x1, y1 = served.visual_block
        assert abs(drawn["x"] - (image["x"] + x0 * scale)) < 2
        assert abs(drawn["width"] - (x1 - x0) * scale) < 2
        assert abs(drawn["y"] - (image["y"] + y0 * scale)) < 2
        assert abs(drawn["height"] - (y1 - y0) * scale) < 2
    finally:
        context.close()


def test_language_is_shown(browser: Any, served: Served) -> None:
    """The viewer names the document's language (detected at ingestion) and tags the
    text with it."""
    anchor_id, _, _ = served.anchors["hebrew.html", QUOTES["hebrew.html"][0]]
    context, page = _open(browser, served, anchor_id, "desktop")
    try:
        assert "he" in page.inner_text("#language")
        assert page.get_attribute("#document", "lang") == "he"
        assert page.get_attribute("#ragox-viewer", "data-ragox-language") == "he"
    finally:
        context.close()
    anchor_id, _, _ = served.anchors["arabic.html", QUOTES["arabic.html"][0]]
    context, page = _open(browser, served, anchor_id, "mobile")
    try:
        assert page.get_attribute("#document", "lang") == "ar"
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
@pytest.mark.parametrize("quote", QUOTES["laid-out.pdf"])
def test_rtl_pdf_rectangles_cover_the_quote(
    browser: Any, served: Served, quote: str, kind: str
) -> None:
    """On a laid-out right-to-left PDF page, the drawn rectangles span what PyMuPDF's
    own search finds for the quote, and no more."""
    import pymupdf

    anchor_id, _, _ = served.anchors["laid-out.pdf", quote]
    context, page = _open(browser, served, anchor_id, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        page.wait_for_selector("#page .rect")
        image = page.locator("#page img").bounding_box()
        boxes = page.locator("#page .rect")
        drawn = [boxes.nth(i).bounding_box() for i in range(boxes.count())]
        with pymupdf.open(stream=laid_out_pdf()) as pdf:
            found = pdf[0].search_for(quote)
            scale = image["width"] / pdf[0].rect.width
        assert found
        expected = (
            image["x"] + min(r.x0 for r in found) * scale,
            image["y"] + min(r.y0 for r in found) * scale,
            image["x"] + max(r.x1 for r in found) * scale,
            image["y"] + max(r.y1 for r in found) * scale,
        )
        got = (
            min(b["x"] for b in drawn),
            min(b["y"] for b in drawn),
            max(b["x"] + b["width"] for b in drawn),
            max(b["y"] + b["height"] for b in drawn),
        )
        assert all(abs(a - b) <= 3 * scale for a, b in zip(got, expected, strict=True))
    finally:
        context.close()
