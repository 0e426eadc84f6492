"""Translations as derived representations (seed 000: never anchor a translation as the
exact quote): a German question over an English manual, answered in German by an
OpenAI-compatible generator (a real, scripted HTTP server), cites English quotes that
resolve, each with a labelled German translation beside it; a claim whose quote is a
translation is dropped as unsupported; the extractive generator says it cannot
translate and quotes the source."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import run_ragox, serving
from ragox.access import Principal
from ragox.anchor import ResolutionStatus
from ragox.answer import OpenAIGenerator
from ragox.service import Ragox
from translator_server import ScriptedServer, scripted_server

pytestmark = pytest.mark.both_backends

MANUAL = b"""# XQ-7 pump manual

Unpack the XQ-7 pump and check the delivery for damage.

Replace the seal of the XQ-7 pump every 500 operating hours.

Disconnect the power supply before opening the cover.
"""
SENTENCE = "Replace the seal of the XQ-7 pump every 500 operating hours."
GERMAN = "Ersetzen Sie die Dichtung der Pumpe XQ-7 alle 500 Betriebsstunden."
QUESTION = "Wie oft muss die Dichtung der XQ-7 Pumpe ersetzt werden?"
STAFF = Principal("sam", groups=frozenset({"staff"}))


@pytest.fixture
def translator() -> Iterator[ScriptedServer]:
    with scripted_server() as server:
        server.claims = [
            ("Die Dichtung wird alle 500 Betriebsstunden ersetzt.", SENTENCE, SENTENCE)
        ]
        server.dictionary = {SENTENCE: GERMAN}
        yield server


@pytest.fixture
def manual(app: Ragox) -> Ragox:
    outcome = app.ingestor.ingest_bytes(
        MANUAL, "manual.md", "manual.md", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    return app


def test_german_answer_cites_english_quotes_with_a_labelled_translation(
    manual: Ragox, translator: ScriptedServer
) -> None:
    """The claims are German, the anchor's exact quote is the English sentence and
    resolves; the German rendering sits beside it, labelled with the translator."""
    generator = OpenAIGenerator(translator.url, "translator-model")
    try:
        record = manual.ask(QUESTION, STAFF, generator, answer_language="de")
    finally:
        generator.close()
    assert not record.abstained
    assert record.answer.startswith("Die Dichtung wird alle 500 Betriebsstunden ersetzt.")
    (citation,) = record.citations
    assert citation.anchor.quote.exact == SENTENCE
    text = manual.text("manual.md", STAFF)
    assert text[citation.anchor.start : citation.anchor.end] == SENTENCE
    assert manual.resolve(citation.anchor, STAFF).status is ResolutionStatus.RESOLVED
    translation = citation.translation
    assert translation is not None
    assert (translation.text, translation.language) == (GERMAN, "de")
    assert (translation.source_language, translation.translator) == (
        "en",
        "openai:translator-model",
    )
    # the answer request asked for German claims and verbatim quotes
    answer_request, translate_request = translator.requests
    assert "German (de)" in answer_request["messages"][0]["content"]
    assert 'Never translate a "quote"' in answer_request["messages"][0]["content"]
    assert "German (de)" in translate_request["messages"][0]["content"]
    assert SENTENCE in translate_request["messages"][1]["content"]
    # stored: the translation beside the anchor, never as an anchor's exact
    stored = manual.store.get_answer(record.answer_id)
    assert stored is not None
    (cited,) = stored["citations"]
    assert cited["anchor"]["quote"]["exact"] == SENTENCE
    assert cited["translation"] == {
        "kind": "translation",
        "text": GERMAN,
        "language": "de",
        "source_language": "en",
        "translator": "openai:translator-model",
    }
    saved = manual.store.get_anchor("default", citation.anchor.anchor_id)
    assert saved is not None and saved.anchor.quote.exact == SENTENCE
    replay = manual.show_answer(record.answer_id, STAFF)
    (again,) = replay.citations
    assert again.translation == translation
    outsider = Principal("sam", groups=frozenset({"sales"}))
    withheld = manual.show_answer(record.answer_id, outsider)
    assert withheld.citations[0].translation is None  # document text: withheld with it


def test_a_translated_quote_is_dropped_as_unsupported(
    manual: Ragox, translator: ScriptedServer
) -> None:
    """A claim quoting the German translation instead of the English source is not a
    citation: dropped as UNSUPPORTED; the English-quoting claim beside it stays."""
    translator.claims = [
        ("Die Dichtung wird ersetzt.", GERMAN, SENTENCE),
        ("Alle 500 Betriebsstunden.", SENTENCE, SENTENCE),
    ]
    generator = OpenAIGenerator(translator.url, "translator-model")
    try:
        record = manual.ask(QUESTION, STAFF, generator, answer_language="de")
    finally:
        generator.close()
    assert [c.text for c in record.claims] == ["Alle 500 Betriebsstunden."]
    assert [c.anchor.quote.exact for c in record.citations] == [SENTENCE]
    trace = manual.store.get_answer_trace(record.answer_id)
    assert trace is not None
    assert [(d["text"], d["reason"]) for d in trace["dropped"]] == [
        ("Die Dichtung wird ersetzt.", "UNSUPPORTED")
    ]
    translator.claims = [("Die Dichtung wird ersetzt.", GERMAN, SENTENCE)]
    generator = OpenAIGenerator(translator.url, "translator-model")
    try:
        only = manual.ask(QUESTION, STAFF, generator, answer_language="de")
    finally:
        generator.close()
    assert only.abstained and only.citations == ()
    assert only.answer.startswith("Die Dokumente, die Sie lesen dürfen")


def test_extractive_generator_says_it_cannot_translate(manual: Ragox) -> None:
    """The extractive generator answers with the English sentence itself and a German
    notice that it cannot translate; no citation carries a translation."""
    record = manual.ask(QUESTION, STAFF, answer_language="de")
    assert not record.abstained
    assert record.notices == (
        f"Nicht übersetzt: Der Generator dieser Antwort ({record.generator}) kann nicht "
        "übersetzen; er antwortet mit den Passagen selbst, zitiert in der Sprache "
        "ihrer Quelle.",
    )
    assert SENTENCE in record.answer
    assert all(c.translation is None for c in record.citations)
    assert any(c.anchor.quote.exact == SENTENCE for c in record.citations)
    english = manual.ask("How often is the seal of the XQ-7 pump replaced?", STAFF)
    assert english.notices == () and english.answer_language is None
    # asked in the sources' own language: nothing to translate, nothing to say
    same = manual.ask(QUESTION, STAFF, answer_language="en")
    assert same.answer_language == "en" and same.notices == ()


def test_cli_ask_answer_language(home: Path, manual: Ragox, translator: ScriptedServer) -> None:
    """`ask --answer-language de --json` prints the translation labelled beside the
    anchor, and the people's output labels it too; a bad code is a usage error."""
    manual.close()
    spec = f"openai:{translator.url}#translator-model"
    args = ("ask", QUESTION, "--generator", spec, "--answer-language", "de")
    result = run_ragox(home, *args, "--json")
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["answer_language"] == "de"
    (citation,) = data["citations"]
    assert citation["anchor"]["quote"]["exact"] == SENTENCE
    assert citation["translation"]["text"] == GERMAN
    assert citation["translation"]["translator"] == "openai:translator-model"
    people = run_ragox(home, *args)
    assert "translation (en -> de, by openai:translator-model; not the cited text)" in people.stdout
    shown = run_ragox(home, "answer", "show", data["answer_id"], "--json")
    assert json.loads(shown.stdout)["citations"][0]["translation"]["text"] == GERMAN
    bad = run_ragox(home, "ask", QUESTION, "--answer-language", "deutsch!")
    assert bad.code == 2


def test_api_ask_answer_language(home: Path, manual: Ragox, translator: ScriptedServer) -> None:
    """POST /v1/ask with answer_language: the server's generator answers in German with
    labelled translations; the extractive one adds its notice; a bad code is 422."""
    key = manual.create_key(STAFF)
    manual.close()
    spec = f"openai:{translator.url}#translator-model"
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home, "--generator", spec) as url:
        body = {"question": QUESTION, "answer_language": "de"}
        answer = httpx.post(f"{url}/v1/ask", json=body, headers=auth, timeout=30).json()
        assert answer["answer_language"] == "de" and answer["notices"] == []
        (citation,) = answer["citations"]
        assert citation["anchor"]["quote"]["exact"] == SENTENCE
        assert citation["translation"]["text"] == GERMAN
        extractive = httpx.post(
            f"{url}/v1/ask", json={**body, "generator": "extractive"}, headers=auth, timeout=30
        ).json()
        assert extractive["notices"][0].startswith("Nicht übersetzt")
        assert all("translation" not in c for c in extractive["citations"])
        bad = httpx.post(f"{url}/v1/ask", json={**body, "answer_language": "de-DE!"}, headers=auth)
        assert bad.status_code == 422
        replay = httpx.get(f"{url}/v1/answers/{answer['answer_id']}", headers=auth).json()
        assert replay["citations"][0]["translation"]["text"] == GERMAN


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_ask_page_labels_the_translation(
    home: Path, manual: Ragox, translator: ScriptedServer, kind: str
) -> None:
    """In the browser, asking in German shows the English quote marked as the cited
    text and, apart from it, the German rendering labelled as a translation by the
    translating generator."""
    from browser import CHROMIUM, VIEWPORTS, chromium

    pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("needs Debian's chromium")
    key = manual.create_key(STAFF)
    manual.close()
    spec = f"openai:{translator.url}#translator-model"
    with serving(home, "--generator", spec) as url, chromium() as browser:
        context = browser.new_context(**VIEWPORTS[kind])
        try:
            page = context.new_page()
            page.goto(f"{url}/view/ask#key={key}")
            page.select_option("#answer-language", "de")
            page.fill("#question", QUESTION)
            page.keyboard.press("Enter")
            page.wait_for_selector("#ragox-ask[data-ragox-state='ANSWERED']")
            card = page.locator("#conversation .card").first
            assert card.locator("mark").inner_text() == SENTENCE
            label = card.locator(".translation-label")
            assert label.is_visible()
            assert label.inner_text() == (
                "Translation (en → de) by openai:translator-model, not the cited text:"
            )
            assert card.locator(".translation-text").inner_text() == GERMAN
            assert card.locator(".translation-text").get_attribute("lang") == "de"
            assert GERMAN not in card.locator(".quote").inner_text()
            reply = page.locator("#conversation .turn .reply").first
            assert reply.get_attribute("lang") == "de"
        finally:
            context.close()


def test_deleting_the_document_removes_its_translations(
    manual: Ragox, translator: ScriptedServer
) -> None:
    """A translation is document text: deleting the document redacts it from the
    stored answer with the anchor it stood beside."""
    generator = OpenAIGenerator(translator.url, "translator-model")
    try:
        record = manual.ask(QUESTION, STAFF, generator, answer_language="de")
    finally:
        generator.close()
    assert record.citations[0].translation is not None
    manual.delete("manual.md")
    stored = manual.store.get_answer(record.answer_id)
    assert stored is not None
    dumped = json.dumps(stored, ensure_ascii=False)
    assert GERMAN not in dumped and SENTENCE not in dumped
    assert stored["citations"][0]["redacted"] is True


def test_a_failed_translation_leaves_the_quotes_untranslated(
    manual: Ragox, translator: ScriptedServer
) -> None:
    """A translation reply that misses a passage is BAD_RESPONSE: the answer keeps its
    verified English quotes without translations, and the trace names the code."""
    translator.drop_translations = True
    generator = OpenAIGenerator(translator.url, "translator-model")
    try:
        record = manual.ask(QUESTION, STAFF, generator, answer_language="de")
    finally:
        generator.close()
    (citation,) = record.citations
    assert citation.anchor.quote.exact == SENTENCE and citation.translation is None
    trace = manual.store.get_answer_trace(record.answer_id)
    assert trace is not None and trace["translation_error"] == "BAD_RESPONSE"


def test_chat_completions_answer_language(
    home: Path, manual: Ragox, translator: ScriptedServer
) -> None:
    """POST /v1/chat/completions with ragox's ``answer_language`` field: the server's
    generator answers in German, the annotation carries the English anchor with its
    labelled translation beside it; the extractive model appends its notice; a bad code
    is 422."""
    key = manual.create_key(STAFF)
    manual.close()
    spec = f"openai:{translator.url}#translator-model"
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home, "--generator", spec) as url:
        body = {
            "model": "ragox",
            "messages": [{"role": "user", "content": QUESTION}],
            "answer_language": "de",
        }
        reply = httpx.post(f"{url}/v1/chat/completions", json=body, headers=auth, timeout=30)
        assert reply.status_code == 200, reply.text
        data = reply.json()
        message = data["choices"][0]["message"]
        assert "Die Dichtung wird alle 500 Betriebsstunden ersetzt." in message["content"]
        (annotation,) = message["annotations"]
        assert annotation["ragox"]["anchor"]["quote"]["exact"] == SENTENCE
        assert annotation["ragox"]["translation"]["text"] == GERMAN
        assert data["ragox"]["answer_language"] == "de" and data["ragox"]["notices"] == []
        extractive = httpx.post(
            f"{url}/v1/chat/completions",
            json={**body, "model": "ragox-extractive"},
            headers=auth,
            timeout=30,
        ).json()
        content = extractive["choices"][0]["message"]["content"]
        assert SENTENCE in content and "Nicht übersetzt" in content
        assert extractive["ragox"]["notices"][0].startswith("Nicht übersetzt")
        plain = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "ragox-extractive", "messages": body["messages"]},
            headers=auth,
            timeout=30,
        ).json()
        assert "answer_language" not in plain["ragox"]
        assert "Nicht übersetzt" not in plain["choices"][0]["message"]["content"]
        bad = httpx.post(
            f"{url}/v1/chat/completions",
            json={**body, "answer_language": "de-DE!"},
            headers=auth,
            timeout=30,
        )
        assert bad.status_code == 422
