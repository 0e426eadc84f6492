"""The viewer's own re-verification: when the text it renders is not the text the
resolver verified (a proxy or a cache altered the response in flight), the viewer shows
HIGHLIGHT_MISMATCH and highlights nothing, in a real browser."""

from __future__ import annotations

import json
import re
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
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium"),
    pytest.mark.both_backends,
]

STAFF = Principal("sam", groups=frozenset({"staff"}))
TEXT = "Wartung.\n\nDie Dichtung wird alle 500 Stunden geprüft. Danach den Deckel schließen.\n"
QUOTE = "alle 500 Stunden"


@dataclass
class Site:
    url: str
    key: str
    anchor_id: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("viewer-mismatch") / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        TEXT.encode(), "dichtung.txt", "dichtung.txt", groups=frozenset({"staff"}), tenant="default"
    )
    start = app.text("dichtung.txt", STAFF).index(QUOTE)
    created = app.create_anchor("dichtung.txt", start, start + len(QUOTE), STAFF)
    assert not isinstance(created, Refusal)
    key = app.create_key(STAFF)
    app.close()
    with serving(home) as url:
        yield Site(url, key, created.anchor.anchor_id)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


#: How the text is altered on its way to the browser: the same length with one digit
#: changed inside the quote, and one character inserted before it (every offset shifts).
ALTERATIONS = {
    "changed": lambda text: text.replace("500", "600"),
    "shifted": lambda text: text.replace("Wartung.", "Wartung!!"),
}


def _view(browser: Any, site: Site, alteration: str | None) -> tuple[Any, Any]:
    context = browser.new_context(**VIEWPORTS["desktop"])
    page = context.new_page()
    if alteration is not None:
        alter = ALTERATIONS[alteration]

        def tamper(route: Any) -> None:
            response = route.fetch()
            body = response.json()
            body["text"] = alter(body["text"])
            route.fulfill(response=response, body=json.dumps(body))

        # the text route, with or without the representation the anchor names
        page.route(re.compile(r".*/v1/documents/.+/revisions/[^/]+/text(\?.*)?$"), tamper)
    page.goto(f"{site.url}/view/anchors/{site.anchor_id}#key={site.key}")
    # a selector, not a JS predicate: the viewer's CSP forbids eval, rightly
    page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
    return context, page


def _marks(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)"))


def test_untouched_text_highlights_the_quote(browser: Any, site: Site) -> None:
    """Without tampering the same page verifies and marks exactly the quote."""
    context, page = _view(browser, site, None)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        assert "".join(_marks(page)) == QUOTE
    finally:
        context.close()


@pytest.mark.parametrize("alteration", sorted(ALTERATIONS))
def test_text_that_differs_from_the_quote_is_highlight_mismatch(
    browser: Any, site: Site, alteration: str
) -> None:
    """The resolver said RESOLVED, but the rendered text at the range is not the quote:
    the viewer says HIGHLIGHT_MISMATCH and leaves nothing marked."""
    context, page = _view(browser, site, alteration)
    try:
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "HIGHLIGHT_MISMATCH"
        assert _marks(page) == []
        assert "could not reproduce the exact passage" in page.inner_text("#state")
    finally:
        context.close()
