"""The web app in a real browser (Debian's Chromium through Playwright) against a real
`ragox serve`, desktop and phone: sign-in shared across tabs, a conversation whose
citation cards open the viewer, the library's search, paging, upload, readers and
delete, the viewer's headings, lists, code and tables, and a PDF's printed page label
with the passage zoomed on a phone."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import serving
from ragox.access import ANY_ID, Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

STAFF = Principal("sam", groups=frozenset({"staff"}))
OPERATOR = Principal("olga", operator=True, write=frozenset({ANY_ID}))
GROUPS = frozenset({"staff"})

MANUAL = """<!doctype html><html lang="en"><body>
<h1>Pump manual</h1>
<p>The seal is checked every 500 hours by the service team.</p>
<h2>Steps</h2>
<ol><li>Switch the pump off</li><li>Open the lid</li></ol>
<pre><code>def torque():
    return "25 N·m"</code></pre>
<table><tr><th>Part</th><th>Interval</th></tr><tr><td>Impeller</td><td>yearly</td></tr></table>
</body></html>"""
CODE_QUOTE = 'return "25 N·m"'
#: English and German notes, enough of each for the library's filters and paging.
NOTES = {
    "en": "The filter of the cooling circuit is replaced every spring by the maintenance crew.",
    "de": "Der Filter des Kühlkreislaufs wird jedes Frühjahr vom Wartungsteam gewechselt.",
}
NOTE_COUNT = 204


def _labelled_pdf() -> bytes:
    """Three pages printed as 21, 22, 23 (a chapter of a larger book)."""
    import pymupdf

    pdf = pymupdf.open()
    for number, text in enumerate(
        [
            "Chapter three begins here.",
            "The gasket is replaced after 2000 operating hours.",
            "End of chapter.",
        ]
    ):
        page = pdf.new_page(width=420, height=595)
        page.insert_text((40, 80 + 20 * number), text, fontsize=11)
    pdf.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 21}])
    data: bytes = pdf.tobytes()
    pdf.close()
    return data


@dataclass
class App:
    url: str
    reader: str
    operator: str
    code_anchor: str
    pdf_anchor: str


def build_home(home: Path) -> tuple[str, str, str, str]:
    """A home with the manual, the labelled PDF and many notes; the reader's and the
    operator's keys and the anchors of a code quote and of the PDF passage."""
    app = Ragox(home)

    def ingest(data: bytes, name: str, groups: frozenset[str] = GROUPS) -> None:
        outcome = app.ingestor.ingest_bytes(data, name, name, groups=groups, tenant="default")
        assert outcome.state.value == "READY", name

    ingest(MANUAL.encode(), "manual.html")
    ingest(_labelled_pdf(), "chapter3.pdf")
    for i in range(NOTE_COUNT):
        language = "en" if i % 2 else "de"
        groups = GROUPS | ({"sales"} if i % 10 == 0 else set())
        ingest(f"Note {i}. {NOTES[language]}\n".encode(), f"note-{i:03d}.txt", frozenset(groups))
    anchors = []
    for document_id, quote in (("manual.html", CODE_QUOTE), ("chapter3.pdf", "2000 operating")):
        text = app.text(document_id, STAFF)
        start = text.index(quote)
        created = app.create_anchor(document_id, start, start + len(quote), STAFF)
        assert not isinstance(created, Refusal)
        anchors.append(created.anchor.anchor_id)
    keys = (app.create_key(STAFF), app.create_key(OPERATOR))
    app.close()
    return keys[0], keys[1], anchors[0], anchors[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[App]:
    home = tmp_path_factory.mktemp("webapp") / "home"
    reader, operator, code_anchor, pdf_anchor = build_home(home)
    with serving(home) as url:
        yield App(url, reader, operator, code_anchor, pdf_anchor)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """A fresh browser profile per test (nothing left in session storage)."""
    made: list[Any] = []

    def make(kind: str = "desktop") -> Any:
        made.append(browser.new_context(**VIEWPORTS[kind]))
        return made[-1]

    yield make
    for each in made:
        each.close()


def _sign_in(page: Any, key: str) -> None:
    page.fill("#apikey", key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#account[data-signed-in='true']")


def _no_sideways_scroll(page: Any) -> bool:
    root = "document.documentElement"
    return bool(page.evaluate(f"{root}.scrollWidth <= {root}.clientWidth"))


def test_root_opens_the_app_and_serve_prints_its_url(site: App, tmp_path: Path) -> None:
    """`/` redirects to the ask page; `ragox serve` prints the app's URL first thing."""
    response = httpx.get(f"{site.url}/", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/view/ask"
    process = subprocess.Popen(
        [sys.executable, "-m", "ragox", "--home", str(tmp_path / "h"), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        # `--port 0`: the URL names the port the system chose, and it serves there
        url = line.split()[3]
        assert line.startswith("ragox web app: http://127.0.0.1:") and ":0/" not in url
        deadline = time.time() + 60
        while True:
            try:
                assert httpx.get(url, timeout=2, follow_redirects=True).status_code == 200
                break
            except httpx.TransportError:
                assert time.time() < deadline
                time.sleep(0.2)
        # another server on that port is refused before it prints a URL
        taken = subprocess.run(
            [
                sys.executable,
                "-m",
                "ragox",
                "--home",
                str(tmp_path / "h"),
                "serve",
                "--port",
                url.rsplit(":", 1)[1].strip("/"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert taken.returncode == 1 and "cannot listen on 127.0.0.1:" in taken.stderr
        assert "ragox web app" not in taken.stdout
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_sign_in_is_shared_by_tabs_and_forgotten_in_all(context: Any, site: App, kind: str) -> None:
    """A refused key is said so; a good one signs in this tab and a new tab (never in a
    URL); forgetting it in one tab signs out the others."""
    ctx = context(kind)
    requests: list[str] = []
    ctx.on("request", lambda request: requests.append(request.url))
    first = ctx.new_page()
    first.goto(f"{site.url}/")
    assert first.url.endswith("/view/ask")
    first.wait_for_selector("#signin")
    first.fill("#apikey", "rgx_not-a-key")
    first.keyboard.press("Enter")
    first.wait_for_selector("#signin-state:has-text('refused')")
    _sign_in(first, site.reader)
    assert "sam" in first.inner_text("#signed-in")
    first.fill("#question", "How often is the seal checked?")
    first.keyboard.press("Enter")
    first.wait_for_selector("#ragox-ask[data-turns='1']")
    second = ctx.new_page()  # a new tab: no key of its own, asks the open ones
    second.goto(f"{site.url}/view/library")
    second.wait_for_selector("#account[data-signed-in='true']")
    second.wait_for_selector("#documents tbody tr")
    viewer = ctx.new_page()  # a citation opened in a new tab needs no key either
    viewer.goto(f"{site.url}/view/anchors/{site.code_anchor}")
    viewer.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")
    assert all(site.reader not in url for url in requests)
    assert all(site.reader not in p.url for p in (first, second, viewer))
    assert CODE_QUOTE in viewer.inner_text("#document")
    second.click("#forget")
    second.wait_for_selector("#signin")
    first.wait_for_selector("#signin")  # the other tab forgot it too
    # and the viewer's tab no longer shows what it read with the key (before: the
    # document stayed on screen)
    viewer.wait_for_selector("#ragox-viewer[data-ragox-status='LOGIN']")
    assert viewer.inner_text("#document").strip() == ""
    assert first.locator("#conversation li").count() == 0  # and cleared its answers
    assert first.evaluate("sessionStorage.getItem('ragox-key')") is None
    assert first.evaluate("localStorage.length") == 0  # never kept on disk


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_two_question_conversation_and_a_card_opens_the_viewer(
    context: Any, site: App, kind: str
) -> None:
    """Two questions in a row: both answers stay, each with citation cards (quote, name,
    revision, printed page, status); a card opens the highlighted passage beside it on a
    desktop, under it on a phone; the copied link carries no key."""
    ctx = context(kind)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"])
    page = ctx.new_page()
    page.goto(f"{site.url}/view/ask")
    _sign_in(page, site.reader)
    page.fill("#question", "How often is the seal checked?")
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-turns='1']")
    page.fill("#question", "When is the gasket replaced?")
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-turns='2']")
    turns = page.locator("#conversation > li.turn")
    assert turns.count() == 2
    assert "500" in turns.nth(0).locator(".reply").inner_text()
    assert "2000" in turns.nth(1).locator(".reply").inner_text()
    first_card = turns.nth(0).locator(".card").first
    assert "manual.html · revision" in first_card.inner_text()
    assert "Verified" in first_card.locator(".badge").inner_text()
    pdf_card = turns.nth(1).locator(".card").first
    assert "chapter3.pdf" in pdf_card.inner_text()
    assert "page 22" in pdf_card.inner_text()  # the printed label, not sheet 2
    assert "2000" in pdf_card.locator("mark").inner_text()
    assert pdf_card.locator(".context").all_inner_texts() == [
        "Chapter three begins here. ",
        " End of chapter.",
    ]  # the whole text is shown around it: no ellipsis
    quote = pdf_card.locator("mark").inner_text()
    pdf_card.locator("button.cite").click()
    frame = page.frame_locator("#passage")
    frame.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
    assert "".join(frame.locator("mark.ragox-hl").all_inner_texts()) == quote
    card_box = pdf_card.bounding_box()
    passage_box = page.locator("#passage").bounding_box()
    if kind == "desktop":
        assert passage_box["x"] > card_box["x"] + card_box["width"] - 1  # beside it
    else:
        assert passage_box["y"] >= card_box["y"]  # under the card, inside it
        assert _no_sideways_scroll(page)
    pdf_card.locator("button.copy").click()
    page.wait_for_selector("#conversation .card[data-link]")
    link = pdf_card.get_attribute("data-link")
    assert link is not None and link.startswith(f"{site.url}/view/anchors/")
    assert site.reader not in link and "key" not in link


def _first_card(context: Any, site: App, question: str) -> tuple[Any, Any]:
    """A desktop ask page, signed in as the reader, after ``question``: the page and
    the answer's first citation card."""
    page = context("desktop").new_page()
    page.goto(f"{site.url}/view/ask")
    _sign_in(page, site.reader)
    page.fill("#question", question)
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-turns='1']")
    return page, page.locator("#conversation .card").first


def test_a_card_says_when_its_quote_no_longer_resolves(context: Any, site: App) -> None:
    """A card's badge and quote are checked again when it is opened and when the page is
    shown again: after its document is deleted the card says so and its quote leaves
    the screen (before: "Verified" and the quote stayed, while the viewer refused)."""
    auth = {"Authorization": f"Bearer {site.operator}"}
    uploaded = httpx.post(
        f"{site.url}/v1/documents",
        headers=auth,
        files={"file": ("zebra.txt", b"The zebrafish tank is cleaned every Thursday.\n")},
        data={"groups": "staff"},
        timeout=60,
    )
    assert uploaded.status_code in (200, 201, 202), uploaded.text
    for _ in range(100):  # an upload is processed in the background
        listed = httpx.get(f"{site.url}/v1/documents/zebra.txt", headers=auth).json()
        if any(r["state"] == "READY" for r in listed["revisions"]):
            break
        time.sleep(0.1)
    page, card = _first_card(context, site, "When is the zebrafish tank cleaned?")
    assert "Verified" in card.locator(".badge").inner_text()
    assert "Thursday" in card.inner_text()
    assert httpx.delete(f"{site.url}/v1/documents/zebra.txt", headers=auth).status_code == 200
    card.locator("button.cite").click()
    page.wait_for_selector("#conversation .card[data-status='ACCESS_DENIED']")
    assert "Verified" not in card.locator(".badge").inner_text()
    assert "Thursday" not in card.inner_text()
    frame = page.frame_locator("#passage")
    frame.locator("#ragox-viewer[data-ragox-status='ACCESS_DENIED']").wait_for()


def test_a_card_that_cannot_be_checked_again_no_longer_says_verified(
    context: Any, site: App
) -> None:
    """When the check on opening fails (a 503, a lost connection), the card says "Not
    re-checked" instead of keeping "Verified" (before, a failing check left it as it
    was); its quote stays. A later check that succeeds says "Verified" again."""
    page, card = _first_card(context, site, "How often is the seal checked?")
    assert "Verified" in card.locator(".badge").inner_text()
    quote = card.locator(".quote").first.inner_text()

    def unavailable(route: Any) -> None:
        route.fulfill(status=503, body="{}", content_type="application/json")

    page.route("**/v1/anchors/**", unavailable)
    card.locator("button.cite").first.click()
    page.wait_for_selector("#conversation .card[data-status='UNCHECKED']")
    assert "Not re-checked" in card.locator(".badge").first.inner_text()
    assert card.locator(".quote").first.inner_text() == quote
    page.unroute("**/v1/anchors/**", unavailable)
    card.locator("button.cite").first.click()
    page.wait_for_selector("#conversation .card[data-status='RESOLVED']")
    assert "Verified" in card.locator(".badge").first.inner_text()


def test_answer_code_is_shown_as_code(context: Any, site: App) -> None:
    """Backticks and fences in an answer become code elements, as text, never markup."""
    page = context().new_page()
    page.goto(f"{site.url}/view/ask")
    page.wait_for_selector("#signin")
    html = page.evaluate(
        """async () => {
          const { renderRich } = await import('/view/static/ask.js');
          const box = document.createElement('div');
          renderRich('Run `make <b>` then:\\n```sh\\necho <i>hi</i>\\n```\\nDone.', box);
          return box.innerHTML;
        }"""
    )
    assert "<code>make &lt;b&gt;</code>" in html
    assert "<pre><code>echo &lt;i&gt;hi&lt;/i&gt;\n</code></pre>" in html


def test_a_long_token_in_an_answer_wraps_on_a_phone(context: Any, site: App) -> None:
    """An answer holding a long unbreakable token (a package file name pattern) wraps
    inside the phone's width; before, the page became 422 px wide at 390 (found by a
    new-user pass)."""
    page = context("mobile").new_page()
    page.goto(f"{site.url}/view/ask")
    page.wait_for_selector("#signin")
    assert _no_sideways_scroll(page)
    page.evaluate(
        """async () => {
          const { renderRich } = await import('/view/static/ask.js');
          const turn = document.createElement('li');
          turn.className = 'turn';
          const reply = document.createElement('div');
          reply.className = 'reply';
          renderRich('Name: <foo>_<НомерВерсии>-<НомерРевизииDebian>_<АрхитектураDebian>.deb',
            reply);
          turn.append(reply);
          (document.getElementById('conversation') || document.body).append(turn);
        }"""
    )
    assert page.locator(".turn .reply p").count() == 1
    assert _no_sideways_scroll(page)


def test_a_word_broken_at_a_line_end_reads_joined_and_stays_the_quote(
    context: Any, site: App
) -> None:
    """A PDF's "Schrit-\\nte" on an ask card (and in the viewer's readable quote on a
    phone, which builds its text the same way) is read as "Schritte": the hyphen and the
    line end are hidden text, so the element's text stays the verified quote exactly. A
    compound's capitalised part, a part in another script and a hyphen before a
    conjunction keep theirs, as in the server's display text."""
    page = context().new_page()
    page.goto(f"{site.url}/view/ask")
    page.wait_for_selector("#signin")
    quote = (
        "erfordert mehrere Schrit-\nte, die pre-\n   defined sind: Debian-\nSystem, A-\nb, "
        "Unix-\nверсии, ка-\nталоге, Wort-\nund Satzzeichen"
    )
    shown, text, context = page.evaluate(
        """async (quote) => {
          const { joinBrokenWords, readableNodes } = await import('/view/static/readable.js');
          const card = document.createElement('div');
          card.className = 'card';
          const box = document.createElement('span');
          box.className = 'quote';
          const mark = document.createElement('mark');
          mark.append(...readableNodes(quote));
          box.append(mark);
          card.append(box);
          document.body.append(card);
          return [mark.innerText, mark.textContent, joinBrokenWords(quote)];
        }""",
        quote,
    )
    assert text == quote
    assert shown == (
        "erfordert mehrere Schritte, die predefined sind: Debian-\nSystem, A-\nb, "
        "Unix-\nверсии, каталоге, Wort-\nund Satzzeichen"
    )
    assert context == shown  # the context around a quote is joined the same way


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_library_search_filters_and_paging(context: Any, site: App, kind: str) -> None:
    """Two hundred documents are pages of 25; name, state, group and language filter
    them; on a phone nothing scrolls sideways."""
    page = context(kind).new_page()
    page.goto(f"{site.url}/view/library")
    _sign_in(page, site.reader)
    page.wait_for_selector("#documents tbody tr")
    total = NOTE_COUNT + 2
    assert page.locator("#documents tbody tr").count() == 25
    assert page.inner_text("#count") == f"{total} documents"
    assert page.inner_text("#page-of") == f"Page 1 of {(total + 24) // 25}"
    page.click("#next-page")
    assert page.inner_text("#page-of").startswith("Page 2 of")
    first = page.locator("#documents tbody tr").first
    assert first.get_attribute("data-document") == "note-023.txt"
    page.fill("#search", "note-17")
    rows = page.locator("#documents tbody tr")
    assert rows.count() == 10 and page.inner_text("#page-of") == "Page 1 of 1"
    assert page.is_hidden("#paging")
    page.fill("#search", "")
    page.select_option("#group", "sales")
    assert page.inner_text("#count") == f"{(NOTE_COUNT + 9) // 10} of {total} documents match"
    page.select_option("#group", "")
    page.select_option("#language", "de")
    names = page.eval_on_selector_all(
        "#documents tbody tr", "rs => rs.map(r => r.dataset.document)"
    )
    assert names and all(int(n[5:8]) % 2 == 0 for n in names)
    page.select_option("#language", "")
    page.select_option("#state-filter", "FAILED")
    assert page.locator("#documents tbody tr").count() == 0
    page.select_option("#state-filter", "READY")
    assert page.locator("#documents tbody tr").count() == 25
    assert page.locator("#documents button").count() == 0  # a reader gets no controls
    assert page.is_hidden("#upload")  # nor an upload it may not make
    if kind == "mobile":
        assert _no_sideways_scroll(page)


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_library_upload_readers_and_delete_for_an_operator(
    context: Any, site: App, tmp_path: Path, kind: str
) -> None:
    """An operate key uploads with progress, sees the new revision at once until READY,
    changes its readers and deletes it; a reader's delete is refused by the server."""
    upload = tmp_path / f"pump-{kind}.md"
    upload.write_text("# Pump\n\nThe impeller is inspected yearly.\n" * 200, encoding="utf-8")
    page = context(kind).new_page()
    page.goto(f"{site.url}/view/library")
    _sign_in(page, site.operator)
    page.wait_for_selector("#documents tbody tr")
    page.set_input_files("#file", str(upload))
    page.click("#upload button")
    row = page.locator(f"tr[data-document='{upload.name}']")
    row.wait_for()  # listed at once, first
    assert page.locator("#documents tbody tr").first.get_attribute("data-document") == upload.name
    assert page.get_attribute("#upload-progress", "data-seen") == "100"
    page.wait_for_selector(f"tr[data-document='{upload.name}'][data-state='READY']")
    # the upload's line follows its state too (before: it stayed at "received")
    page.wait_for_selector(f"#upload-state .upload-line:has-text('{upload.name} (r1): ready')")
    row.locator("button", has_text="Readers").click()
    if kind == "mobile":  # the editor's cell has no column label: no stray ":" before it
        before = page.evaluate(
            "getComputedStyle(document.querySelector('tr.editor td'), '::before').content"
        )
        assert before in ("none", "normal"), before
    page.fill("tr.editor input", "staff, sales")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"tr[data-document='{upload.name}'] td:has-text('sales, staff')")
    doomed = page.locator(f"tr[data-document='{upload.name}'] button", has_text="Delete")
    doomed.click()
    page.locator(f"tr[data-document='{upload.name}'] button", has_text="Confirm delete").click()
    page.wait_for_selector(f"#upload-state:has-text('Deleted {upload.name}')")
    page.locator(f"tr[data-document='{upload.name}']").wait_for(state="detached")
    if kind == "mobile":
        assert _no_sideways_scroll(page)
    refused = httpx.delete(
        f"{site.url}/v1/documents/manual.html",
        headers={"Authorization": f"Bearer {site.reader}"},
    )
    assert refused.status_code == 404


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_viewer_renders_headings_lists_code_and_tables(context: Any, site: App, kind: str) -> None:
    """The representation's blocks render as headings, a list, code and a table, from
    text nodes only; the highlight in the code block is exactly the quote."""
    page = context(kind).new_page()
    page.goto(f"{site.url}/view/anchors/{site.code_anchor}#key={site.reader}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")
    article = page.locator("#document")
    assert article.locator("h2.block").inner_text() == "Pump manual"
    assert article.locator("h3.block").inner_text() == "Steps"
    assert article.locator("ol.doc-list > li.block").all_inner_texts() == [
        "Switch the pump off",
        "Open the lid",
    ]
    assert article.locator("pre.block code").inner_text().startswith("def torque():")
    assert article.locator("table.doc-table tr").count() == 2
    assert article.locator("table.doc-table th.block").all_inner_texts() == ["Part", "Interval"]
    assert article.locator("table.doc-table td.block").all_inner_texts() == ["Impeller", "yearly"]
    marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
    assert "".join(marked) == CODE_QUOTE
    assert page.locator("pre.block mark.ragox-hl").count() == 1
    # every character of the representation is still a text node, in order
    assert page.evaluate("document.getElementById('document').textContent.length") > 0
    assert page.locator("#document .gap").first.is_hidden()
    if kind == "mobile":
        assert _no_sideways_scroll(page)


def test_table_cells_keep_their_words_whole_on_a_phone(context: Any, site: App) -> None:
    """A document table wider than a phone keeps each word whole in its cell and
    scrolls inside itself; before, cells broke words in the middle ("Debi an") to fit
    the screen (found by a new-user pass)."""
    page = context("mobile").new_page()
    page.goto(f"{site.url}/view/anchors/{site.code_anchor}#key={site.reader}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")
    lines = page.evaluate(
        """() => {
          const table = document.querySelector('#document table.doc-table');
          const row = table.querySelector('tr');
          for (let i = 0; i < 8; i++) {
            const cell = document.createElement('td');
            cell.className = 'block';
            cell.textContent = 'Paketverwaltungswerkzeuge';
            row.append(cell);
          }
          return [...row.querySelectorAll('td')].slice(-8).map((cell) => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            return range.getClientRects().length;
          });
        }"""
    )
    assert lines == [1] * 8, lines
    assert _no_sideways_scroll(page)


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_pdf_page_label_and_zoom_on_a_phone(context: Any, site: App, kind: str) -> None:
    """A PDF citation names the printed page (22, on sheet 2); on a phone the page is
    enlarged to the highlighted rectangle, which is in view, and the page does not
    scroll sideways; on a desktop the whole page shows."""
    page = context(kind).new_page()
    page.goto(f"{site.url}/view/anchors/{site.pdf_anchor}#key={site.reader}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")
    page.wait_for_selector("#page .rect")
    assert page.get_attribute("#page", "data-page") == "2"
    assert page.get_attribute("#page", "data-label") == "22"
    assert page.inner_text("#pageno").startswith("Page 22")
    assert page.get_attribute("#page img", "alt") == "Page 22 of the original PDF"
    zoom = float(page.get_attribute("#page", "data-zoom") or "0")
    rect = page.locator("#page .rect").first.bounding_box()
    viewport = page.viewport_size
    if kind == "mobile":
        assert zoom > 1.5
        assert page.get_attribute("#zoom", "aria-pressed") == "true"
        assert rect["width"] > viewport["width"] * 0.6  # readable: it fills the screen
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= viewport["width"]
        assert 0 <= rect["y"] <= viewport["height"]
        assert _no_sideways_scroll(page)
        # the page's buttons are in view below the sticky state bar, not under it
        # (before: the bar covered the top of "Zoom to passage")
        bar = page.locator("#statebar").bounding_box()
        button = page.locator("#zoom").bounding_box()
        assert bar["y"] + bar["height"] <= button["y"] + 1, (bar, button)
        assert button["y"] + button["height"] <= viewport["height"]
        page.click("#zoom")  # back to the whole page
        assert page.get_attribute("#page", "data-zoom") == "1"
    else:
        assert zoom == 1


def test_api_fields_the_app_uses(site: App) -> None:
    """Who a key is, a PDF's printed page labels, each revision's language, and each
    ask citation's printed pages and surrounding text: additive fields, each checked."""

    def get(path: str, key: str) -> Any:
        response = httpx.get(f"{site.url}{path}", headers={"Authorization": f"Bearer {key}"})
        assert response.status_code == 200, path
        return response.json()

    assert get("/v1/me", site.reader) == {
        "name": "sam",
        "tenant": "default",
        "groups": ["staff"],
        "operate": False,
        "write": [],
    }
    assert get("/v1/me", site.operator)["operate"] is True
    assert httpx.get(f"{site.url}/v1/me").status_code == 401
    text = get("/v1/documents/chapter3.pdf/revisions/r1/text", site.reader)
    assert text["page_labels"] == ["21", "22", "23"]
    assert get("/v1/documents/manual.html/revisions/r1/text", site.reader)["page_labels"] is None
    languages = {
        d["document_id"]: d["revisions"][0]["language"]
        for d in get("/v1/documents", site.reader)["documents"]
    }
    assert languages["note-001.txt"] == "en" and languages["note-002.txt"] == "de"
    answer = httpx.post(
        f"{site.url}/v1/ask",
        headers={"Authorization": f"Bearer {site.reader}"},
        json={"question": "When is the gasket replaced?", "generator": "extractive"},
    ).json()
    citation = answer["citations"][0]
    assert citation["pages"] == [{"page": 2, "label": "22"}]
    seal = httpx.post(
        f"{site.url}/v1/ask",
        headers={"Authorization": f"Bearer {site.reader}"},
        json={"question": "How often is the seal checked?", "generator": "extractive"},
    ).json()["citations"][0]
    assert seal["pages"] == []
    assert seal["context"]["before"].endswith("Pump manual\n\n")
    assert seal["context"]["after"].startswith("\n\nSteps")
    assert seal["context"]["from_start"] is True and seal["context"]["to_end"] is False
