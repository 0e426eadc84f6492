"""The viewer in a real browser (Debian's Chromium through Playwright), beyond the happy
path: refusals render their own reason in both viewports, an anchor on an old revision
still highlights but says that a newer one exists, a highlight may cross HTML blocks,
and the three pages pass a keyboard and a WCAG 2.x contrast audit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browser import CHROMIUM, VIEWPORTS, chromium
from conftest import DATA, serving
from ragox.access import Principal
from ragox.anchor import Anchor, Refusal, ResolutionStatus
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

STAFF = Principal("sam", groups=frozenset({"staff"}))
GROUPS = frozenset({"staff"})

#: Paragraphs and list items: anchors may start in one block and end in the next.
ABLAUF = """<!doctype html><html lang="de"><body><h2>Ablauf</h2>
<p>Zuerst wird die Pumpe abgeschaltet und gesichert.</p>
<p>Danach wird der <b>Deckel</b> geöffnet.</p>
<ul><li>Dichtung prüfen</li><li>Laufrad <i>reinigen</i></li></ul></body></html>"""
#: (where the quote starts, where it ends) in the representation text of ABLAUF.
ACROSS = {
    "paragraphs": ("abgeschaltet und gesichert.", "Danach wird der Deckel"),
    "list items": ("prüfen", "Laufrad rein"),
}

#: Filler before the passage, so that on a phone the passage is far below the fold.
FILLER = "".join(
    f"Abschnitt {i}: Sichtprüfung des Gehäuses und der Leitungen.\n\n" for i in range(60)
)
PUMPE_R1 = FILLER + "Das Laufrad wird jährlich geprüft.\n"
PUMPE_R2 = FILLER + "Das Laufrad wird monatlich geprüft.\n"
OLD_QUOTE = "jährlich"


@dataclass
class Site:
    url: str
    key: str
    outsider: str
    operator: str  # an operate key: deletes documents and changes their readers
    writer: str  # a key that may upload into staff/
    across: dict[str, tuple[str, str, tuple[str, ...]]]  # name -> (anchor id, quote, block ids)
    source_changed: str
    ambiguous: str
    mutated: dict[str, str]  # status -> anchor id, for anchors other tools wrote
    not_current: str
    pdf: str
    #: an anchor on r1 of pumpe.txt whose passage r2 keeps
    kept: str


def _anchor(app: Ragox, document_id: str, quote: str, end_quote: str | None = None) -> Anchor:
    """A stored anchor from the start of ``quote`` to the end of ``end_quote`` (or of quote)."""
    text = app.text(document_id, STAFF)
    start = text.index(quote)
    end = text.index(end_quote) + len(end_quote) if end_quote else start + len(quote)
    created = app.create_anchor(document_id, start, end, STAFF)
    assert not isinstance(created, Refusal), quote
    return created.anchor


def _import(app: Ragox, data: dict[str, Any], document_id: str) -> str:
    """Store anchor JSON that was written elsewhere (an exported answer, another tool)."""
    anchor = Anchor.from_json(data)
    status = app.status(document_id, STAFF)
    manifest_id = status.revisions[0].revision.manifest_id
    assert manifest_id is not None
    app.store.save_anchor(anchor, manifest_id, "import")
    return anchor.anchor_id


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("viewer-states") / "home"
    app = Ragox(home)

    def ingest(data: bytes, name: str, revision: str | None = None) -> None:
        outcome = app.ingestor.ingest_bytes(
            data, name, name, revision=revision, groups=GROUPS, tenant="default"
        )
        assert outcome.state.value == "READY", name

    ingest(ABLAUF.encode(), "ablauf.html")
    across = {}
    for name, (first, last) in ACROSS.items():
        anchor = _anchor(app, "ablauf.html", first, last)
        resolved = app.resolve(anchor, STAFF)
        assert resolved.target is not None and resolved.exact is not None
        blocks = tuple(b.block_id for b in resolved.target.blocks)
        assert len(blocks) == 2, name  # the passage really spans two blocks
        across[name] = (anchor.anchor_id, resolved.exact, blocks)

    # SOURCE_CHANGED: an answer cited revision v1; the document was later deleted and
    # uploaded again as v1 with other bytes. The old citation comes back from an export.
    ingest("Die Dichtung wird alle 500 Stunden geprüft.\n".encode(), "dichtung.txt", "v1")
    exported = _anchor(app, "dichtung.txt", "500 Stunden").to_json()
    assert app.delete("dichtung.txt")
    ingest("Die Dichtung wird alle 250 Stunden geprüft.\n".encode(), "dichtung.txt", "v1")
    source_changed = _import(app, exported, "dichtung.txt")

    # Anchors on the current dichtung.txt as other tools (or older ragox versions) might
    # have written them: each gets its own refusal from the resolver.
    current = _anchor(app, "dichtung.txt", "250 Stunden").to_json()
    current.pop("anchor_id")
    mutations: dict[str, dict[str, Any]] = {
        "PARSER_MISMATCH": {"parser": "plain-text@0"},
        "PROFILE_MISMATCH": {"profile": "utf8-strict;crlf-to-lf;NFKC;unicode-14.0.0"},
        "TEXT_CHANGED": {"text_sha256": "0" * 64},
        "INVALID_RANGE": {"position": {"start": 17, "end": 4000}},
        "QUOTE_NOT_FOUND": {"quote": {"exact": "750 Stunden", "prefix": "", "suffix": ""}},
        "POSITION_MISMATCH": {
            "position": {
                "start": current["position"]["start"] + 1,
                "end": current["position"]["end"] + 1,
            }
        },
    }
    mutated = {
        status: _import(app, {**current, **change}, "dichtung.txt")
        for status, change in mutations.items()
    }

    # AMBIGUOUS: another tool quoted the first "Prüfung" without prefix or suffix (W3C
    # makes them optional); the text holds the quote twice.
    ingest("Prüfung\nDie Prüfung ist bestanden.\n".encode(), "pruefung.txt")
    contextless = _anchor(app, "pruefung.txt", "Prüfung").to_json()
    contextless.pop("anchor_id")
    contextless["quote"] = {"exact": "Prüfung", "prefix": "", "suffix": ""}
    ambiguous = _import(app, contextless, "pruefung.txt")

    # Not current: cited in r1, then r2 replaced the text at that place.
    ingest(PUMPE_R1.encode(), "pumpe.txt")
    old = _anchor(app, "pumpe.txt", OLD_QUOTE)
    kept = _anchor(app, "pumpe.txt", "Abschnitt 59: Sichtprüfung")
    ingest(PUMPE_R2.encode(), "pumpe.txt")

    pdf = DATA / "pdf" / "multicolumn.pdf"
    app.ingest_path(pdf, pdf.parent, groups=GROUPS)
    pdf_anchor = _anchor(app, "multicolumn.pdf", "Nulla ullamcorper vestibulum turpis.")

    # The states under test are the resolver's own verdicts, not the viewer's guesses.
    expect = {
        source_changed: ResolutionStatus.SOURCE_CHANGED,
        ambiguous: ResolutionStatus.AMBIGUOUS,
        old.anchor_id: ResolutionStatus.RESOLVED,
    }
    expect.update({anchor_id: ResolutionStatus(status) for status, anchor_id in mutated.items()})
    for anchor_id, status in expect.items():
        assert app.resolve_id(anchor_id, STAFF).status is status
    assert app.resolve_id(old.anchor_id, STAFF).current is False

    key = app.create_key(STAFF)
    outsider = app.create_key(Principal("oz", groups=frozenset({"sales"})))
    operator = app.create_key(Principal("olga", operator=True))
    writer = app.create_key(
        Principal("wim", groups=frozenset({"staff"}), write=frozenset({"staff/"}))
    )
    app.close()
    with serving(home) as url:
        yield Site(
            url,
            key,
            outsider,
            operator,
            writer,
            across,
            source_changed,
            ambiguous,
            mutated,
            old.anchor_id,
            pdf_anchor.anchor_id,
            kept.anchor_id,
        )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """Open a URL in a fresh context (so no API key is left in session storage)."""
    contexts: list[Any] = []

    def opener(url: str, kind: str = "desktop") -> Any:
        context = browser.new_context(**VIEWPORTS[kind])
        contexts.append(context)
        page = context.new_page()
        page.goto(url)
        return page

    yield opener
    for context in contexts:
        context.close()


def _view(open_page: Any, site: Site, anchor_id: str, kind: str, key: str | None = None) -> Any:
    page = open_page(f"{site.url}/view/anchors/{anchor_id}#key={key or site.key}", kind)
    # a selector, not a JS predicate: the viewer's CSP forbids eval, rightly
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return page


def _in_viewport(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    size = page.viewport_size
    return bool(
        box
        and box["height"] > 0
        and box["y"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= size["width"]
    )


def _marks(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)"))


# -- explicit states ----------------------------------------------------------------------

REFUSALS = {
    # state: (anchor attribute, the reason in words, text of the document as it is now)
    "SOURCE_CHANGED": ("source_changed", "the source changed since this answer", "250 Stunden"),
    "AMBIGUOUS": ("ambiguous", "this passage is ambiguous in the current text", "bestanden"),
    "PARSER_MISMATCH": ("mutated", "re-extracted since this answer", "250 Stunden"),
    "PROFILE_MISMATCH": ("mutated", "re-normalized since this answer", "250 Stunden"),
    "TEXT_CHANGED": ("mutated", "text changed since this answer", "250 Stunden"),
    "INVALID_RANGE": ("mutated", "range is not valid in this text", "250 Stunden"),
    "QUOTE_NOT_FOUND": ("mutated", "not in the current text", "250 Stunden"),
    "POSITION_MISMATCH": ("mutated", "not where the citation says it is", "250 Stunden"),
}


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
@pytest.mark.parametrize("state", sorted(REFUSALS))
def test_refusal_shows_its_reason_and_an_unverified_link(
    open_page: Any, site: Site, state: str, kind: str
) -> None:
    """A refused anchor renders its own reason, no highlight, and a link to the document
    that says plainly that it is unverified; following it shows the text, still unmarked."""
    attribute, reason, now = REFUSALS[state]
    anchor_id = site.mutated[state] if attribute == "mutated" else getattr(site, attribute)
    page = _view(open_page, site, anchor_id, kind)
    assert page.get_attribute("#ragox-viewer", "data-ragox-status") == state
    assert reason in page.inner_text("#state").lower()
    assert _in_viewport(page, "#state")
    assert _marks(page) == []
    link = page.locator("#unverified a")
    assert link.count() == 1 and link.is_visible()
    assert "unverified" in link.inner_text().lower()
    assert "unverified" in page.inner_text("#unverified").lower()
    link.click()
    page.wait_for_selector("#document.unverified .block")
    assert now in page.inner_text("#document")
    assert _marks(page) == []
    assert page.get_attribute("#ragox-viewer", "data-ragox-status") == state


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_access_denied_offers_no_document(open_page: Any, site: Site, kind: str) -> None:
    """Without access the reason is shown, and neither a document link nor its name."""
    page = _view(open_page, site, site.source_changed, kind, key=site.outsider)
    assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "ACCESS_DENIED"
    assert "you do not have access" in page.inner_text("#state").lower()
    assert page.locator("#unverified").is_hidden()
    assert page.locator("main a:visible").count() == 0
    assert "dichtung" not in page.content().lower()
    assert "Stunden" not in page.content()


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_old_revision_highlights_and_says_a_newer_one_exists(
    open_page: Any, site: Site, kind: str
) -> None:
    """An anchor on a superseded revision still highlights its exact quote, and a notice
    that a newer revision exists stays in view together with the highlight."""
    page = _view(open_page, site, site.not_current, kind)
    assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
    assert page.get_attribute("#ragox-viewer", "data-ragox-current") == "false"
    assert "".join(_marks(page)) == OLD_QUOTE
    notice = page.inner_text("#notice").lower()
    assert "a newer revision" in notice and "exists" in notice and "r2" in notice
    assert "the current revision (r2) no longer has it" in notice  # "jährlich" is gone
    assert _in_viewport(page, "mark.ragox-hl")
    assert _in_viewport(page, "#notice")
    assert _in_viewport(page, "#state")


def test_old_revision_says_when_the_current_one_still_has_the_passage(
    open_page: Any, site: Site
) -> None:
    """A passage of r1 that r2 keeps: verified in r1, and the notice says r2 has it too."""
    page = _view(open_page, site, site.kept, "desktop")
    assert page.get_attribute("#ragox-viewer", "data-ragox-current") == "false"
    assert "".join(_marks(page)) == "Abschnitt 59: Sichtprüfung"
    notice = page.inner_text("#notice").lower()
    assert "a newer revision" in notice and "the current revision (r2) has it too" in notice


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
@pytest.mark.parametrize("name", sorted(ACROSS))
def test_highlight_across_two_blocks(open_page: Any, site: Site, name: str, kind: str) -> None:
    """A passage from one block into the next is marked in both, and the marks together
    are exactly the quote."""
    anchor_id, quote, blocks = site.across[name]
    page = _view(open_page, site, anchor_id, kind)
    assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
    marks = _marks(page)
    assert len(marks) >= 2
    assert "".join(marks) == quote
    marked_blocks = page.eval_on_selector_all(
        "mark.ragox-hl",
        "ms => [...new Set(ms.map(m => m.closest('.block')).filter(Boolean)"
        ".map(b => b.dataset.block))]",
    )
    assert tuple(marked_blocks) == blocks
    for block in blocks:  # each block's part of the passage is on screen
        assert page.locator(f"[data-block='{block}'] mark.ragox-hl").first.is_visible()


# -- keyboard ------------------------------------------------------------------------------

#: Every control a keyboard can reach, described as tag#id "name", in DOM order.
CONTROLS_JS = """() => {
  const selector = 'a[href], button, input, select, textarea, iframe, [tabindex]';
  const shown = (el) =>
    el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  return [...document.querySelectorAll(selector)]
    .filter((el) => !el.disabled && el.tabIndex >= 0 && shown(el))
    .map((el) => window.__describe(el));
}"""

DESCRIBE_JS = """() => {
  window.__describe = (el) => {
    const label = el.labels && el.labels.length ? el.labels[0].textContent : '';
    const name = (el.getAttribute('aria-label') || label || el.title || el.textContent || '')
      .trim().replace(/\\s+/g, ' ').slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${name}"`;
  };
}"""

#: The focused element and whether its focus is visible: :focus-visible matches and a
#: ring is drawn (an outline or a box shadow) in a colour with 3:1 against the page.
FOCUS_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return {
    name: window.__describe ? window.__describe(el) : el.tagName.toLowerCase(),
    frame: el.tagName === 'IFRAME',
    focusVisible: el.matches(':focus-visible'),
    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
    shadow: style.boxShadow !== 'none',
    ringColor: style.outlineColor,
  };
}"""


def _tab(page: Any) -> dict[str, Any] | None:
    page.keyboard.press("Tab")
    focused: dict[str, Any] | None = page.evaluate(FOCUS_JS)
    return focused


def _assert_ring(focused: dict[str, Any], where: str) -> None:
    assert focused["focusVisible"], where
    assert focused["outline"] or focused["shadow"], where
    if focused["outline"]:  # WCAG 1.4.11: the ring itself against the white page
        assert _contrast(_rgb(focused["ringColor"]), (255.0, 255.0, 255.0)) >= 3, where


def _walk(page: Any, expected: list[str]) -> None:
    """Tab from the top: every control in ``expected`` order, each with a visible ring."""
    page.evaluate(DESCRIBE_JS)
    assert page.evaluate(CONTROLS_JS) == expected  # nothing reachable is left out
    for name in expected:
        focused = _tab(page)
        assert focused is not None and focused["name"] == name
        _assert_ring(focused, name)


LIBRARY_START = [
    'a "Ask"',
    'a "Documents"',
    'button#forget "Forget key"',
    'input#search "Name"',
    'select#state-filter "State"',
    'select#group "Group"',
    'select#language "Language"',
]


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_keyboard_library(open_page: Any, site: Site) -> None:
    """Library: the section links, forgetting the key, the upload (keys that may write),
    then the filters, in that order; an operate key also reaches each document's
    readers and delete."""
    page = open_page(f"{site.url}/view/library#key={site.key}")
    page.wait_for_selector("#documents tbody tr")
    _walk(page, LIBRARY_START)
    page = open_page(f"{site.url}/view/library#key={site.writer}")
    page.wait_for_selector("#documents tbody tr")
    upload = ['input#file "Add a document"', 'button "Upload"']
    _walk(page, LIBRARY_START[:3] + upload + LIBRARY_START[3:])
    page = open_page(f"{site.url}/view/library#key={site.operator}")
    page.wait_for_selector("#documents tbody tr button")
    _walk(
        page,
        LIBRARY_START
        + [
            name
            for row in page.eval_on_selector_all(
                "#documents tbody tr", "rs => rs.map(r => r.dataset.document)"
            )
            for name in (f'button "Readers of {row}"', f'button "Delete {row}"')
        ],
    )
    page.keyboard.press("Shift+Tab")  # from the last row's delete to its readers
    page.keyboard.press("Enter")  # the readers editor opens, its field focused
    focused = page.evaluate(FOCUS_JS)
    assert focused is not None and focused["name"].startswith("input#groups-"), focused
    _assert_ring(focused, "readers field")


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_keyboard_viewer_pdf_and_login(open_page: Any, site: Site) -> None:
    """Viewer: page buttons, the original file, then the text; without a key the form."""
    page = _view(open_page, site, site.pdf, "desktop")
    page.wait_for_selector("#page .rect")
    _walk(
        page,
        [
            'button#forget "Forget key"',
            'button#prev "◀ Previous page"',
            'button#next "Next page ▶"',
            'button#zoom "Zoom to passage"',
            'a#original "Original file"',
            'article#document "Document text"',
        ],
    )
    page = open_page(f"{site.url}/view/anchors/{site.pdf}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='LOGIN']")
    _walk(page, ['input#key "API key"', 'button "Open"'])
    page.keyboard.press("Shift+Tab")  # back to the key, type it, submit with Enter
    page.keyboard.type(site.key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_keyboard_viewer_refusal(open_page: Any, site: Site) -> None:
    """A refusal: the unverified link is the one control, and Enter opens the text."""
    page = _view(open_page, site, site.source_changed, "desktop")
    expected = [
        'button#forget "Forget key"',
        'a#unverified-link "Open the document as it is now (unverifi"',
    ]
    _walk(page, expected)
    page.keyboard.press("Enter")
    page.wait_for_selector("#document.unverified .block")
    focused = page.evaluate(FOCUS_JS)
    assert focused is not None and focused["name"].startswith("article#document")
    _assert_ring(focused, "document after Enter")


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_keyboard_ask(open_page: Any, site: Site) -> None:
    """Ask with the keyboard only: links, question, button, each citation, the passage."""
    page = open_page(f"{site.url}/view/ask#key={site.key}")
    page.evaluate(DESCRIBE_JS)
    page.wait_for_selector("#account[data-signed-in='true']")
    start = ['a "Ask"', 'a "Documents"', 'button#forget "Forget key"']
    form = ['input#question "Question"', 'button "Ask"', 'select#answer-language "Answer in"']
    assert page.evaluate(CONTROLS_JS) == start + form
    for name in start + form[:1]:
        focused = _tab(page)
        assert focused is not None and focused["name"] == name
        _assert_ring(focused, name)
    page.keyboard.type("Wann wird das Laufrad geprüft?")
    focused = _tab(page)
    assert focused is not None and focused["name"] == form[1]
    _assert_ring(focused, form[1])
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-ragox-state='ANSWERED']")
    cards = page.evaluate(CONTROLS_JS)[len(start) : -len(form)]
    assert cards[0::2] and all(c.startswith('button "[S') for c in cards[0::2])
    assert all(c.startswith('button "Copy link to S') for c in cards[1::2])
    page.keyboard.press("Shift+Tab")  # from the button to the question,
    for _ in range(len(cards)):  # and back to the first card
        page.keyboard.press("Shift+Tab")
    for number, name in enumerate(cards):
        focused = page.evaluate(FOCUS_JS)
        assert focused is not None and focused["name"] == name
        _assert_ring(focused, name)
        if number == 0:
            page.keyboard.press("Enter")  # open the first citation beside the answer
        _tab(page)
    passage = page.frame_locator("#passage")
    passage.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
    assert page.evaluate(CONTROLS_JS) == start + cards + form + ['iframe#passage "Cited passage"']
    _tab(page)  # the question's button, the answer language, then the frame
    _tab(page)
    focused = _tab(page)
    assert focused is not None and focused["frame"]
    frame = next(f for f in page.frames if f != page.main_frame)
    frame.evaluate(DESCRIBE_JS)
    inner = frame.evaluate(FOCUS_JS)
    assert inner is not None and inner["name"] == 'article#document "Document text"'
    _assert_ring(inner, "the passage's text inside the frame")


# -- contrast and structure ----------------------------------------------------------------

#: Every rendered element with text of its own: its colour and its effective background
#: (the backgrounds of it and its ancestors composited over the white canvas).
TEXTS_JS = """() => {
  const parse = (c) => {
    const m = c.match(/^rgba?\\(([^)]*)\\)$/);
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3]));
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const field = el.tagName === 'INPUT' && ['text', 'password', 'search'].includes(el.type);
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.data.trim());
    if ((!own.length && !field) || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || parseFloat(style.opacity) === 0) continue;
    const layers = [];
    for (let e = el; e; e = e.parentElement) layers.push(getComputedStyle(e).backgroundColor);
    let background = [255, 255, 255];
    let unparsed = null;
    for (const layer of layers.reverse()) {
      const rgba = parse(layer);
      if (!rgba) { unparsed = layer; break; }
      background = over(rgba, background);
    }
    const color = parse(style.color);
    out.push({
      name: window.__describe(el) + (el.className ? '.' + el.className : ''),
      text: field ? el.value : own.map((n) => n.data.trim()).join(' ').slice(0, 30),
      color: color ? over(color, background) : null,
      rawColor: style.color,
      background,
      unparsed,
      size: parseFloat(style.fontSize),
      weight: parseInt(style.fontWeight, 10),
    });
  }
  return out;
}"""


def _rgb(css: str) -> tuple[float, float, float]:
    inside = css[css.index("(") + 1 : css.index(")")].replace(",", " ").split()
    return (float(inside[0]), float(inside[1]), float(inside[2]))


def _luminance(rgb: tuple[float, ...] | list[float]) -> float:
    # https://www.w3.org/TR/WCAG22/#dfn-relative-luminance
    def linear(value: float) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.04045 else float(((v + 0.055) / 1.055) ** 2.4)

    r, g, b = (linear(v) for v in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[float, ...] | list[float], b: tuple[float, ...] | list[float]) -> float:
    # https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _required(size_px: float, weight: int) -> float:
    # https://www.w3.org/TR/WCAG22/#dfn-large-scale-text: 18 pt, or 14 pt bold
    large = size_px >= 24 or (size_px >= 18.66 and weight >= 700)
    return 3.0 if large else 4.5


def _audit_contrast(page: Any, must_cover: list[str]) -> list[str]:
    """Contrast failures of every text on the page; ``must_cover`` names must be audited."""
    page.evaluate(DESCRIBE_JS)
    texts = page.evaluate(TEXTS_JS)
    names = " ".join(t["name"] for t in texts)
    for needle in must_cover:
        assert needle in names, f"{needle} was not audited: {names}"
    failures = []
    for t in texts:
        assert t["unparsed"] is None and t["color"] is not None, t
        ratio = _contrast(t["color"], t["background"])
        if ratio < _required(t["size"], t["weight"]):
            failures.append(f"{t['name']} {t['text']!r}: {ratio:.2f}")
    return failures


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_contrast_of_every_page_and_state(open_page: Any, site: Site) -> None:
    """WCAG 2.x contrast, from computed styles, for every text of the ask and library
    pages and of the viewer: the highlight, the states, the notice, the unverified link."""
    failures: list[str] = []
    for kind in ("desktop", "mobile"):  # the phone layout has its own font size
        page = _view(open_page, site, site.not_current, kind)
        failures += _audit_contrast(page, ["mark", "#state", "#notice", "#where", "#unit"])
    page = _view(open_page, site, site.source_changed, "desktop")
    failures += _audit_contrast(page, ["#state", "a#unverified-link"])
    page.click("#unverified a")
    page.wait_for_selector("#document.unverified .block")
    failures += _audit_contrast(page, ["#state", 'p "Die Dichtung', 'p "Unverified'])
    page = _view(open_page, site, site.ambiguous, "desktop", key=site.outsider)
    failures += _audit_contrast(page, ["#state"])
    page = open_page(f"{site.url}/view/anchors/{site.ambiguous}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='LOGIN']")
    failures += _audit_contrast(page, ["#state", "label", "button"])
    page = _view(open_page, site, site.pdf, "desktop")
    page.wait_for_selector("#page .rect")
    failures += _audit_contrast(page, ["button#prev", "a#original", "#pageno", "mark"])
    page = open_page(f"{site.url}/view/library#key={site.writer}")
    page.wait_for_selector("#documents tbody tr")
    failures += _audit_contrast(
        page, ["th", "td", 'label "Add', 'button "Upload', 'a "Ask"', "#count", "#signed-in"]
    )
    page = open_page(f"{site.url}/view/library#key={site.operator}")
    page.wait_for_selector("#documents tbody tr button")
    page.locator("#documents button", has_text="Readers").first.click()
    failures += _audit_contrast(page, ['button "Readers', 'button "Delete', 'label "Reader groups'])
    page = open_page(f"{site.url}/view/library", "mobile")  # signed out, phone cards
    page.wait_for_selector("#signin")
    failures += _audit_contrast(page, ['label "API key"', 'button "Sign in"'])
    page = open_page(f"{site.url}/view/ask#key={site.key}")
    page.wait_for_selector("#account[data-signed-in='true']")
    page.fill("#question", "Wann wird das Laufrad geprüft?")
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-ragox-state='ANSWERED']")
    page.locator("button.copy").first.click()
    page.wait_for_selector(".copied:not(:empty)")
    failures += _audit_contrast(page, [".source", ".where", "mark", ".badge", ".copied", ".asked"])
    assert failures == []


STRUCTURE_JS = """() => {
  const unlabelled = [...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.type !== 'hidden')
    .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
      && !el.getAttribute('aria-labelledby'))
    .map((el) => el.id || el.name || el.outerHTML);
  const nameless = [...document.querySelectorAll('button, a[href]')]
    .filter((el) => !(el.textContent.trim() || el.getAttribute('aria-label')))
    .map((el) => el.outerHTML);
  return {
    lang: document.documentElement.lang,
    title: document.title,
    mains: document.querySelectorAll('main').length,
    h1: document.querySelectorAll('h1').length,
    unlabelled,
    nameless,
    untitledFrames: [...document.querySelectorAll('iframe')].filter((f) => !f.title).length,
    imagesWithoutAlt: [...document.querySelectorAll('img')]
      .filter((i) => !i.hasAttribute('alt')).length,
  };
}"""


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_pages_have_language_title_labels_and_landmarks(open_page: Any, site: Site) -> None:
    """Each page names its language and title, has one main landmark and one h1, and
    every input, button, link, frame and image has a name."""
    pages = {
        "ask": f"{site.url}/view/ask#key={site.key}",
        "library": f"{site.url}/view/library#key={site.key}",
        "viewer": f"{site.url}/view/anchors/{site.pdf}#key={site.key}",
        "login": f"{site.url}/view/anchors/{site.pdf}",
    }
    for name, url in pages.items():
        page = open_page(url)
        if name == "viewer":
            page.wait_for_selector("#page img")
        facts = page.evaluate(STRUCTURE_JS)
        assert facts["lang"] == "en", name
        assert facts["title"].startswith("ragox — "), name
        assert facts["mains"] == 1 and facts["h1"] == 1, name
        assert facts["unlabelled"] == [] and facts["nameless"] == [], name
        assert facts["untitledFrames"] == 0 and facts["imagesWithoutAlt"] == 0, name


TARGETS_JS = """() => [...document.querySelectorAll('a, button, input, select')]
  .filter(e => e.offsetParent !== null)
  .map(e => { const r = e.getBoundingClientRect();
    return {name: e.tagName.toLowerCase() + ' ' + (e.textContent || e.id).trim(),
            height: r.height}; })"""


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_touch_targets_on_a_phone(open_page: Any, site: Site) -> None:
    """On a phone every visible link, button, input and select is at least 44 px high
    (WCAG 2.5.5): the section bar, the sign-in form, the filters, an operator's row
    controls, the citation cards and the viewer's page controls."""
    pages = [
        (f"/view/ask#key={site.key}", "main:not([data-ragox-status='LOADING'])"),
        ("/view/ask", "#signin"),
        (f"/view/library#key={site.writer}", "#documents tbody tr"),
        (f"/view/library#key={site.operator}", "#documents tbody tr button"),
        (f"/view/anchors/{site.pdf}#key={site.key}", "#page .rect"),
    ]
    for path, ready in pages:
        page = open_page(f"{site.url}{path}", "mobile")
        page.wait_for_selector(ready)
        if path.startswith("/view/ask#"):
            page.wait_for_selector("#account[data-signed-in='true']")
            page.fill("#question", "Wann wird das Laufrad geprüft?")
            page.keyboard.press("Enter")
            page.wait_for_selector("#ragox-ask[data-ragox-state='ANSWERED']")
            page.locator("button.cite").first.click()
        targets = page.evaluate(TARGETS_JS)
        assert targets, path
        small = [t["name"] for t in targets if t["height"] < 44]
        assert small == [], (path, small)


@pytest.mark.sqlite_only  # the pages' layout and keyboard paths, not the store
def test_key_prompt_is_not_shown_as_an_error(open_page: Any, site: Site) -> None:
    """Without a key the viewer asks for one in ordinary text, not in the error colour."""
    page = open_page(f"{site.url}/view/anchors/{site.pdf}")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='LOGIN']")
    colour = page.eval_on_selector("#state", "e => getComputedStyle(e).color")
    assert colour == "rgb(26, 26, 26)"


@pytest.mark.sqlite_only  # the viewer's page buttons, not the store
def test_page_buttons_say_when_there_is_no_page_beyond(open_page: Any, site: Site) -> None:
    """On a PDF's first page "Previous page" and on its last "Next page" are
    aria-disabled, and a click there asks the server for nothing (before: each click on
    the last page asked for a page that does not exist, got a 404, and nothing
    changed; found by a new-user pass)."""
    page = _view(open_page, site, site.pdf, "desktop")
    page.wait_for_selector("#page .rect")
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    for _ in range(5):  # multicolumn.pdf has 3 pages
        if page.get_attribute("#next", "aria-disabled") == "true":
            break
        shown = page.get_attribute("#page", "data-page")
        page.click("#next")
        page.wait_for_selector(f"#page:not([data-page={json.dumps(shown)}])")
    assert page.get_attribute("#page", "data-page") == "3"
    assert page.get_attribute("#next", "aria-disabled") == "true"
    assert page.get_attribute("#prev", "aria-disabled") == "false"
    before = len(asked)
    page.focus("#next")  # still in the keyboard's path: Enter on it does nothing
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert [url for url in asked[before:] if "/pages/" in url] == []
    assert page.get_attribute("#page", "data-page") == "3"
    while page.get_attribute("#page", "data-page") != "1":
        shown = page.get_attribute("#page", "data-page")
        page.click("#prev")
        page.wait_for_selector(f"#page:not([data-page={json.dumps(shown)}])")
    assert page.get_attribute("#prev", "aria-disabled") == "true"


@pytest.mark.sqlite_only  # the viewer's sign-in, not the store
def test_a_refused_key_can_be_replaced_in_the_viewer(open_page: Any, site: Site) -> None:
    """A viewer opened with a key the API refuses says so and offers the key form
    again, so another key can be given without reloading (before: only "Forget key"
    was shown; found by a new-user pass)."""
    page = open_page(f"{site.url}/view/anchors/{site.pdf}#key=rgx_not-a-key")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='LOGIN']")
    assert page.is_visible("#login") and not page.is_visible("#forget")
    assert "refused" in page.inner_text("#state")
    page.fill("#key", site.key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-viewer[data-ragox-status='RESOLVED']")


@pytest.mark.sqlite_only  # the pages' keyboard paths, not the store
def test_signing_in_with_the_keyboard_leaves_focus_on_the_question(
    open_page: Any, site: Site
) -> None:
    """Key typed, Enter: the form gives way to the signed-in area and the keyboard is on
    the question field, not dropped to the page's body (found by a new-user pass)."""
    page = open_page(f"{site.url}/view/ask")
    page.wait_for_selector("#signin")
    page.focus("#apikey")
    page.keyboard.type(site.key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#account[data-signed-in='true']")
    page.wait_for_selector("#question:focus")
    assert page.evaluate("document.activeElement.id") == "question"
