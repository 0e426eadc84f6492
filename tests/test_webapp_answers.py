"""The ask page's answers in a real browser (Debian's Chromium through Playwright) against
a real `ragox serve` (issue 16): two quotes of one source under one source label, the
same passage in another document shown as "also in", an answer's lines (a quoted
list's items) shown as lines, and German and Russian abstentions marked with their
language."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browser import CHROMIUM, chromium
from conftest import pdf_of_lines, serving
from ragox.access import Principal
from ragox.service import Ragox

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")

STAFF = Principal("sam", groups=frozenset({"staff"}))

PUMP = (
    "Pump manual\n\n"
    "The shaft seal of the pump is checked every 500 hours by the service team. "
    "It is replaced every 2000 hours with a seal from the spare parts store.\n\n"
    "The lid is painted green.\n"
)
UPGRADE_LINES = [
    "Vor dem Upgrade sichern Sie alle Daten. Die Aktualisierung auf eine neue",
    "Version der Distribution erfordert nach dem Sichern der Daten mehrere Schrit-",
    "te, die in den Hinweisen zur Veröffentlichung beschrieben sind.",
]
VALVE_HTML = (
    "<html lang='en'><body><h1>Valve controller</h1><p>To configure the valve controller, "
    "set the following:</p><ul><li>Mode auto Keeps the valve open while the tank "
    "fills.</li><li>Limit 80 Closes the valve at eighty percent.</li></ul></body></html>"
)
UPGRADE_HTML = (
    "<html lang='de'><body><h1>Upgrade</h1><p>Vor dem Upgrade sichern Sie alle Daten. "
    "Die Aktualisierung auf eine neue Version der Distribution erfordert nach dem "
    "Sichern der Daten mehrere Schritte, die in den Hinweisen zur Veröffentlichung "
    "beschrieben sind.</p></body></html>"
)


@dataclass
class Site:
    url: str
    key: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("webanswers") / "home"
    app = Ragox(home)
    for data, name in (
        (PUMP.encode(), "pump.txt"),
        (UPGRADE_HTML.encode(), "upgrade.html"),
        (pdf_of_lines(UPGRADE_LINES), "upgrade.pdf"),
        (VALVE_HTML.encode(), "valve.html"),
    ):
        outcome = app.ingestor.ingest_bytes(
            data, name, name, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.state.value == "READY", name
    key = app.create_key(STAFF)
    app.close()
    with serving(home) as url:
        yield Site(url, key)


@pytest.fixture(scope="module")
def page(site: Site) -> Iterator[Any]:
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        opened = context.new_page()
        opened.goto(f"{site.url}/view/ask")
        opened.fill("#apikey", site.key)
        opened.keyboard.press("Enter")
        opened.wait_for_selector("#account[data-signed-in='true']")
        yield opened
        context.close()


def _ask(page: Any, question: str) -> Any:
    """The turn of ``question`` once its answer is on screen."""
    turns = page.locator("#conversation > li.turn")
    before = turns.count()
    page.fill("#question", question)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#ragox-ask[data-turns='{before + 1}']")
    return turns.nth(before)


def test_two_quotes_of_one_source_share_its_card(page: Any) -> None:
    """The answer quotes two sentences of one passage ("… [S1] … [S1]"): the page shows
    the label [S1] on one card holding both quotes (not two cards both labelled [S1]),
    and each quote opens its own passage."""
    turn = _ask(page, "How often is the shaft seal checked and replaced?")
    assert turn.locator(".reply").inner_text().count("[S1]") == 2  # the answer's markers
    assert turn.locator(".card .source").all_inner_texts() == ["[S1]"]
    card = turn.locator(".card")
    assert card.count() == 1
    quotes = card.locator("button.cite mark").all_inner_texts()
    assert len(quotes) == 2
    assert "500 hours" in quotes[0] and "2000 hours" in quotes[1]
    # shown once, but a screen reader still hears whose quote the second one is
    assert card.locator("button.cite").nth(1).text_content().startswith("[S1] ")
    card.locator("button.cite").nth(1).click()
    frame = page.frame_locator("#passage")
    frame.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
    assert "".join(frame.locator("mark.ragox-hl").all_inner_texts()) == quotes[1]


def test_an_answers_lines_stay_lines(page: Any) -> None:
    """The sentence that introduces a list is quoted with its items, one a line in the
    answer's text; the page shows them as lines, not run together into one paragraph."""
    turn = _ask(page, "How do I configure the valve controller?")
    shown = turn.locator(".reply").inner_text()
    assert "set the following:\nMode auto" in shown, shown
    assert "fills.\nLimit 80" in shown, shown


def test_the_same_passage_elsewhere_is_shown_as_also_in(page: Any) -> None:
    """The sentence found in the HTML and the PDF of one manual is one card that names
    the other document as "Also in"."""
    turn = _ask(page, "Was erfordert die Aktualisierung auf eine neue Version?")
    card = turn.locator(".card")
    assert card.count() == 1
    cited = card.locator(".where").inner_text()
    other = "upgrade.pdf" if "upgrade.html" in cited else "upgrade.html"
    assert f"Also in {other} · revision r1" in card.locator(".also-in").inner_text()


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Welcher Jahrgang des Pinot Noir hat gewonnen?", "de"),
        ("Какой урожай пино нуар победил?", "ru"),
        ("Which vintage of the Pinot Noir won?", "en"),
    ],
)
def test_abstentions_are_marked_with_their_language(
    page: Any, question: str, language: str
) -> None:
    """An abstention in German or Russian carries lang="de" or "ru" on the element that
    holds it (screen readers pick the voice, browsers the hyphenation), English "en"."""
    turn = _ask(page, question)
    assert turn.get_attribute("data-state") == "ABSTAINED"
    reply = turn.locator(".reply")
    assert reply.get_attribute("lang") == language
    assert reply.evaluate("element => element.closest('[lang]').lang") == language
