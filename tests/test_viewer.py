"""The web viewer in a real browser (Debian's Chromium through Playwright), desktop and
mobile: highlights equal the exact quote; failures render as explicit states."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA, serving, store_sql
from ragox.access import ANY_ID, Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

PAGE = """<!doctype html><html><body>
<h1>Wartung 🔧</h1>
<p>Die <b>Prüfung</b> der Dichtung erfolgt alle 500&nbsp;Stunden. Familie 👨\u200d👩\u200d👧 und
Café (e\u0301 zerlegt) im O\ufb03ce.</p>
<p>Die <i>Pr<b>üf</b>ung</i> wird protokolliert.</p>
<table><tr><td>Drehmoment</td><td>25 N·m</td></tr></table>
<p>Die Prüfung der Dichtung erfolgt alle 500&nbsp;Stunden.</p>
<script>document.body.dataset.pwned = "yes"</script>
<img src="http://192.0.2.1/x.png" onerror="document.body.dataset.pwned='img'">
<a href="javascript:document.body.dataset.pwned='link'">link</a>
</body></html>"""

QUOTES = [
    "Prüfung der Dichtung erfolgt alle 500\u00a0Stunden.",  # NBSP, inline <b>
    "👨\u200d👩\u200d👧",  # ZWJ sequence
    "Café",  # composed by NFC from a combining mark
    "O\ufb03ce",  # ligature kept by NFC
    "Prüfung wird protokolliert",  # across several inline elements
    "25 N·m",  # a table cell
    "Stunden. Familie",  # inside one block across a sentence
]


@dataclass
class Viewer:
    url: str
    key: str
    outsider: str
    anchors: dict[str, str]
    denied_anchor: str
    pdf_anchor: str
    pdf_quote: str
    pdf_page: int
    tampered_anchor: str
    uploader: str  # an operate key: it may write any id


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Viewer]:
    home = tmp_path_factory.mktemp("viewer") / "home"
    app = Ragox(home)
    outcome = app.ingestor.ingest_bytes(
        PAGE.encode(), "wartung.html", "wartung.html", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    staff = Principal("sam", groups=frozenset({"staff"}))
    text = app.text("wartung.html", staff)
    anchors = {}
    for quote in QUOTES:
        start = text.index(quote)
        created = app.create_anchor("wartung.html", start, start + len(quote), staff)
        assert not isinstance(created, Refusal), quote
        anchors[quote] = created.anchor.anchor_id
    pdf = DATA / "pdf" / "multicolumn.pdf"
    app.ingest_path(pdf, pdf.parent, groups=frozenset({"staff"}))
    pdf_text = app.text("multicolumn.pdf", staff)
    pdf_quote = "Nulla ullamcorper vestibulum turpis."
    pdf_start = pdf_text.index(pdf_quote)
    pdf_anchor = app.create_anchor("multicolumn.pdf", pdf_start, pdf_start + len(pdf_quote), staff)
    assert not isinstance(pdf_anchor, Refusal)
    resolved = app.resolve(pdf_anchor.anchor, staff)
    assert resolved.target is not None
    app.ingestor.ingest_bytes(
        b"Seal check every 500 hours.\n",
        "t.txt",
        "tampered.txt",
        groups=frozenset({"staff"}),
        tenant="default",
    )
    tampered = app.create_anchor("tampered.txt", 0, 10, staff)
    assert not isinstance(tampered, Refusal)
    store_sql(  # edit a manifest behind ragox's back
        app.home,
        "UPDATE manifests SET json = replace(json, 'text/plain', 'text/html') "
        "WHERE document_id = 'tampered.txt'",
    )
    key = app.create_key(Principal("sam", groups=staff.groups, write=frozenset({"staff/"})))
    outsider = app.create_key(Principal("oz", groups=frozenset({"sales"})))
    uploader = app.create_key(Principal("olga", operator=True, write=frozenset({ANY_ID})))
    app.close()
    with serving(home) as url:
        yield Viewer(
            url,
            key,
            outsider,
            anchors,
            anchors[QUOTES[0]],
            pdf_anchor.anchor.anchor_id,
            pdf_quote,
            resolved.target.pages[0].page,
            tampered.anchor.anchor_id,
            uploader,
        )


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as instance:
        yield instance


def _open(browser, viewer: Viewer, anchor_id: str, key: str, kind: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(**VIEWPORTS[kind])  # type: ignore[attr-defined]
    requests: list[str] = []
    page = context.new_page()
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{viewer.url}/view/anchors/{anchor_id}#key={key}")
    # a selector, not a JS predicate: the viewer's CSP forbids eval, rightly
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page, requests


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
@pytest.mark.parametrize("quote", QUOTES)
def test_highlight_equals_the_exact_quote(browser, viewer: Viewer, quote: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    """The marked text equals the anchor's exact quote, and is scrolled into view."""
    context, page, requests = _open(browser, viewer, viewer.anchors[quote], viewer.key, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == quote
        assert page.locator("mark.ragox-hl").first.is_visible()
        assert page.evaluate("document.body.dataset.pwned") is None
        assert all(url.startswith(viewer.url) for url in requests)
    finally:
        context.close()


def test_access_denied_state(browser, viewer: Viewer) -> None:  # type: ignore[no-untyped-def]
    """A reader without access sees the explicit state, and no document text."""
    context, page, _ = _open(browser, viewer, viewer.denied_anchor, viewer.outsider, "desktop")
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "ACCESS_DENIED"
        assert "access" in page.inner_text("#state")
        assert "Prüfung" not in page.content()
    finally:
        context.close()


@pytest.mark.parametrize("link", ["a%2Fb", "abc", "x/" + "0" * 64])
def test_a_link_that_names_no_anchor_reads_as_an_unknown_anchor(  # type: ignore[no-untyped-def]
    browser, viewer: Viewer, link: str
) -> None:
    """Any /view/anchors/… link opens the viewer, which says what it says of an unknown
    anchor (before: "a%2Fb" was a bare JSON 404, and a 404's body was read as a status)."""
    context, page, _ = _open(browser, viewer, link, viewer.key, "desktop")
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "ACCESS_DENIED"
        assert "access" in page.inner_text("#state")
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_pdf_rectangles_cover_the_quote_on_its_page(browser, viewer: Viewer, kind: str) -> None:  # type: ignore[no-untyped-def]
    """The page image is the cited page, and the drawn rectangles cover what PyMuPDF's
    own search finds for the quote on that page."""
    import pymupdf

    context, page, _ = _open(browser, viewer, viewer.pdf_anchor, viewer.key, kind)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        page.wait_for_selector("#page .rect")
        assert page.get_attribute("#page", "data-page") == str(viewer.pdf_page)
        image = page.locator("#page img").bounding_box()
        rects = [
            page.locator("#page .rect").nth(i).bounding_box()
            for i in range(page.locator("#page .rect").count())
        ]
        with pymupdf.open(DATA / "pdf" / "multicolumn.pdf") as pdf:
            pdf_page = pdf[viewer.pdf_page - 1]
            found = pdf_page.search_for(viewer.pdf_quote)
            scale = image["width"] / pdf_page.rect.width
        assert found and rects
        for expected in found:  # every hit line is covered by a drawn rectangle
            ex0 = image["x"] + expected.x0 * scale
            ey = image["y"] + (expected.y0 + expected.y1) / 2 * scale
            assert any(
                r["x"] - 3 <= ex0 <= r["x"] + r["width"] + 3
                and r["y"] - 3 <= ey <= r["y"] + r["height"] + 3
                for r in rects
            )
    finally:
        context.close()


def test_tampered_manifest_state(browser, viewer: Viewer) -> None:  # type: ignore[no-untyped-def]
    """A failed integrity check renders its state, an unverified note, and no highlight."""
    context, page, _ = _open(browser, viewer, viewer.tampered_anchor, viewer.key, "desktop")
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "MANIFEST_INVALID"
        assert "integrity" in page.inner_text("#state")
        assert "Unverified" in page.inner_text("#unverified")
        assert "unverified" in page.inner_text("#unverified a").lower()
        assert page.locator("mark.ragox-hl").count() == 0
    finally:
        context.close()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_ask_page_opens_a_citation_beside_the_answer(browser, viewer: Viewer, kind: str) -> None:  # type: ignore[no-untyped-def]
    """Ask, read the answer with numbered citations, open one: it resolves beside it."""
    context = browser.new_context(**VIEWPORTS[kind])
    try:
        page = context.new_page()
        page.goto(f"{viewer.url}/view/ask#key={viewer.key}")
        page.fill("#question", "Wie oft erfolgt die Prüfung der Dichtung?")
        page.keyboard.press("Enter")  # keyboard only
        page.wait_for_selector("#ragox-ask[data-ragox-state='ANSWERED']")
        assert "500" in page.inner_text("#conversation .turn .reply")
        assert page.inner_text("#conversation .cards").startswith("[S1]")
        page.locator("button.cite").first.focus()
        page.keyboard.press("Enter")
        passage = page.frame_locator("#passage")
        passage.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
        marked = passage.locator("mark.ragox-hl").all_inner_texts()
        assert "500" in "".join(marked)
    finally:
        context.close()


def test_library_shows_upload_states(browser, viewer: Viewer, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Uploads show their revision's state: ready when searchable, failed with a reason."""
    good = tmp_path / "pumpe.md"
    good.write_text("# Pumpe\n\nDas Laufrad wird jährlich geprüft.\n", encoding="utf-8")
    empty = tmp_path / "leer.txt"
    empty.write_bytes(b"")
    context = browser.new_context(**VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        page.goto(f"{viewer.url}/view/library#key={viewer.uploader}")
        for path in (good, empty):
            page.set_input_files("#file", str(path))
            page.click("#upload button")
            page.wait_for_selector(f"#upload-state:has-text('{path.name}')")
            # the upload's row is listed once the server took it: the next upload starts
            # after that (the status line shows "uploading" first, and a second upload
            # started meanwhile had its status overwritten when the first one ended)
            page.wait_for_selector(f"tr[data-document='{path.name}']")
        page.wait_for_selector("tr[data-document='pumpe.md'][data-state='READY']")
        failed = page.locator("tr[data-document='leer.txt'][data-state='FAILED']")
        failed.wait_for()
        assert "EMPTY_FILE" in failed.inner_text()
    finally:
        context.close()


def test_library_keeps_each_concurrent_uploads_status(  # type: ignore[no-untyped-def]
    browser, viewer: Viewer, tmp_path: Path
) -> None:
    """A small upload that ends while a large one is still sending has its own status
    line: neither overwrites the other, and the progress bar stays while one sends."""
    large = tmp_path / "gross.txt"
    large.write_text("Die Pumpe wird jährlich geprüft.\n\n" * 36_000, encoding="utf-8")
    small = tmp_path / "klein.txt"
    small.write_text("Das Ventil wird monatlich geprüft.\n", encoding="utf-8")
    context = browser.new_context(**VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        # uploads at 256 KiB/s: the large file (about 1.3 MB) sends for about five seconds
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": 0,
                "downloadThroughput": -1,
                "uploadThroughput": 256 * 1024,
            },
        )
        page.goto(f"{viewer.url}/view/library#key={viewer.uploader}")
        page.set_input_files("#file", str(large))
        page.click("#upload button")
        page.wait_for_selector("#upload-state:has-text('gross.txt')")
        page.set_input_files("#file", str(small))
        page.click("#upload button")
        page.wait_for_selector("tr[data-document='klein.txt']")
        assert page.is_visible("#upload-progress")  # the large one still sends
        page.wait_for_selector("tr[data-document='gross.txt']")
        page.wait_for_function("document.querySelector('#upload-progress').hidden")
        lines = page.locator("#upload-state .upload-line").all_inner_texts()
        assert len(lines) == 2, lines
        assert any("klein.txt" in line for line in lines), lines
        assert any("gross.txt" in line for line in lines), lines
        assert not any("%" in line for line in lines), lines  # both ended, none "uploading"
    finally:
        context.close()
