"""The web app's own words in the reader's language (issue 16: messages in English,
German and Russian), in a real browser (Debian's Chromium through Playwright) against a
real `ragox serve`: the browser's preferred language picks the interface language,
``?lang=`` in the address overrides it and is handed to the framed viewer (not to a
copied link), the refusals the viewer explains are translated, and every phrase exists
in every language with the same placeholders."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from browser import CHROMIUM, chromium
from conftest import serving
from ragox.access import Principal
from ragox.service import Ragox
from ragox.web import STATIC

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")

STAFF = Principal("sam", groups=frozenset({"staff"}))
PUMP = (
    "Pump manual\n\n"
    "The shaft seal of the pump is checked every 500 hours by the service team.\n\n"
    "The lid is painted green.\n"
)
NOTICE = "Die Dichtung der Pumpe wird alle 500 Stunden vom Serviceteam geprüft.\n"
LIST = "Уплотнение насоса проверяется каждые 500 часов сервисной бригадой.\n"


@dataclass
class Site:
    url: str
    key: str
    browser: Any


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("weblanguages") / "home"
    app = Ragox(home)
    for text, name in ((PUMP, "pump.txt"), (NOTICE, "dichtung.txt"), (LIST, "uplotnenie.txt")):
        outcome = app.ingestor.ingest_bytes(
            text.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.state.value == "READY", name
    key = app.create_key(STAFF)
    app.close()
    with serving(home) as url, chromium() as browser:
        yield Site(url, key, browser)


def _open(site: Site, path: str, locale: str) -> Any:
    """A signed-in page of a browser whose preferred language is ``locale``."""
    context = site.browser.new_context(locale=locale, viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{site.url}{path}")
    page.fill("#apikey", site.key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#account[data-signed-in='true']")
    return page


def _ask(page: Any, question: str) -> Any:
    page.fill("#question", question)
    page.keyboard.press("Enter")
    page.wait_for_selector("#ragox-ask[data-turns='1']")
    return page.locator("#conversation > li.turn").first


def test_a_german_browser_gets_german_words_and_a_german_viewer(site: Site) -> None:
    """The ask page, its citation card and the framed viewer's verdict in German; the
    quoted passage stays exactly the document's English text."""
    page = _open(site, "/view/ask", "de-DE")
    try:
        assert page.get_attribute("html", "lang") == "de"
        assert page.title() == "ragox — fragen"
        assert page.inner_text("label[for='question']") == "Frage"
        assert page.inner_text("#ask button[type='submit']") == "Fragen"
        assert page.inner_text("nav a[href^='/view/library']") == "Dokumente"
        assert page.inner_text("#signed-in") == "Angemeldet als sam"
        turn = _ask(page, "How often is the shaft seal checked?")
        card = turn.locator(".card").first
        assert "pump.txt · Revision r1" in card.locator(".where").inner_text()
        assert card.locator(".badge").inner_text().endswith("Überprüft")
        assert card.locator("button.copy").inner_text() == "Link kopieren"
        assert "checked every 500 hours" in card.locator("mark").inner_text()
        card.locator("button.cite").click()
        frame = page.frame_locator("#passage")
        frame.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
        verified = "Überprüft: Dies ist genau die zitierte Stelle."
        assert frame.locator("#state").inner_text() == verified
        assert frame.locator("h1").inner_text() == "Zitierte Stelle"
        assert frame.locator("#language").inner_text() == "Sprache des Dokuments: en"
        assert "checked every 500 hours" in frame.locator("mark.ragox-hl").first.inner_text()
    finally:
        page.context.close()


def test_the_address_overrides_the_browser_and_reaches_the_framed_viewer(site: Site) -> None:
    """``?lang=ru`` in a German browser: Russian words, the framed viewer asked in
    Russian too; the copied link names no language (its reader's browser decides)."""
    page = _open(site, "/view/ask?lang=ru", "de-DE")
    try:
        assert page.get_attribute("html", "lang") == "ru"
        assert page.inner_text("label[for='question']") == "Вопрос"
        assert page.get_attribute("nav a[href^='/view/library']", "href") == "/view/library?lang=ru"
        turn = _ask(page, "Как часто проверяется уплотнение насоса?")
        card = turn.locator(".card").first
        assert "редакция r1" in card.locator(".where").inner_text()
        card.locator("button.cite").click()
        assert "lang=ru" in (page.get_attribute("#passage", "src") or "")
        frame = page.frame_locator("#passage")
        frame.locator("#ragox-viewer[data-ragox-status='RESOLVED']").wait_for()
        assert frame.locator("#state").inner_text().startswith("Проверено:")
        card.locator("button.copy").click()
        page.wait_for_selector("#conversation li.card[data-link]")
        link = page.get_attribute("#conversation li.card", "data-link") or ""
        assert "/view/anchors/" in link and "lang=" not in link
    finally:
        page.context.close()


def test_a_refusal_is_explained_in_russian(site: Site) -> None:
    """An anchor this reader cannot resolve: the viewer's honest statement, in Russian,
    with the status itself unchanged for programs."""
    context = site.browser.new_context(locale="ru-RU")
    page = context.new_page()
    try:
        page.goto(f"{site.url}/view/ask")
        page.fill("#apikey", site.key)
        page.keyboard.press("Enter")
        page.wait_for_selector("#account[data-signed-in='true']")
        page.goto(f"{site.url}/view/anchors/{'0' * 64}")
        page.wait_for_selector("#ragox-viewer[data-ragox-status='ACCESS_DENIED']")
        assert page.inner_text("#state") == (
            "У вас нет доступа к этому фрагменту (или его не существует)."
        )
    finally:
        context.close()


def test_the_library_counts_in_russian_and_a_french_browser_reads_english(site: Site) -> None:
    """Russian counts take their plural form (3 → "документа"); a language ragox does
    not speak falls back to English."""
    page = _open(site, "/view/library", "ru-RU")
    try:
        page.wait_for_selector("#documents tbody tr[data-state='READY']")
        assert page.inner_text("h1") == "Документы"
        assert page.inner_text("#count") == "3 документа"
        assert page.inner_text("#documents thead th:first-child") == "Документ"
        state = page.inner_text("#documents tbody tr td:nth-child(3)")
        assert state == "готов (доступен для поиска)"
        counted = page.evaluate(
            "async () => { const { t } = await import('/view/static/i18n.js');"
            " return [1, 3, 5, 21, 112].map((n) => t('library.count', { n })); }"
        )
        assert counted == [
            "1 документ",
            "3 документа",
            "5 документов",
            "21 документ",
            "112 документов",
        ]
    finally:
        page.context.close()
    page = _open(site, "/view/library", "fr-FR")
    try:
        page.wait_for_selector("#documents tbody tr[data-state='READY']")
        assert page.get_attribute("html", "lang") == "en"
        assert page.inner_text("#count") == "3 documents"
    finally:
        page.context.close()


def test_every_phrase_is_in_every_language_with_the_same_placeholders(site: Site) -> None:
    """The phrase book itself, as the browser loads it: each entry in en, de and ru with
    the placeholders of its English form; each key the pages name exists in it."""
    context = site.browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{site.url}/view/ask")
        book: dict[str, dict[str, Any]] = page.evaluate(
            "async () => (await import('/view/static/i18n.js')).WORDS"
        )
    finally:
        context.close()
    assert len(book) > 100

    def holes(phrase: Any) -> set[str]:
        forms = phrase.values() if isinstance(phrase, dict) else [phrase]
        return {name for form in forms for name in re.findall(r"\{(\w+)\}", form)}

    for key, entry in book.items():
        assert set(entry) == {"en", "de", "ru"}, key
        for language in ("de", "ru"):
            assert holes(entry[language]) == holes(entry["en"]), (key, language)
            if isinstance(entry["en"], dict):
                assert "other" in entry[language], (key, language)
    named: set[str] = set()
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".js":
            named |= set(re.findall(r"\bt\(\"([\w.-]+)\"", text))
            mapped = r"\[([^\]]+)\]\s*\.map\(\(\w+\) => \[\w+, t\(`([\w.-]+)\$"
            for prefix, names in re.findall(mapped, text):
                named |= {names + name for name in re.findall(r'"(\w+)"', prefix)}
        elif path.suffix == ".html":
            named |= set(re.findall(r'data-i18n(?:-label|-title)?="([\w.-]+)"', text))
    assert len(named) > 100
    assert named - set(book) == set()
