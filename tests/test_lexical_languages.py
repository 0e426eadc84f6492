"""Lexical search in homes of mixed languages: stems are never dropped because a query
or a document has no recognisable language; stop words of the query's language do not
match."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import OPERATOR
from ragox.search import (
    LEXICAL_ANALYZER_VERSION,
    SearchMode,
    analyze_search_query,
    detect_language,
    index_terms,
)
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

#: document id → text; the comment says which language detection finds
DOCUMENTS = {
    # de
    "zeitzone": "Die Zeitzone des Systems ändern Sie mit dpkg-reconfigure tzdata. "
    "Alle Zeitzonen liegen unter /usr/share/zoneinfo.",
    "apt-de": "Die Paketverwaltung von Debian ist apt. Sie installiert und entfernt "
    "Pakete mit ihren Abhängigkeiten.",
    # en
    "upgrade": "To upgrade the whole system, run apt full-upgrade when the package lists "
    "are up to date.",
    "disks": "The disk has one partition table, and each partition is listed by lsblk.",
    "payroll": "The salaries of the staff are paid at the end of the month.",
    "basement": "The pump in the basement is checked by the caretaker in the spring.",
    "garden": "Old plants die when they get no water in the summer.",
    # ru
    "apt-ru": "Менеджер пакетов устанавливает и удаляет пакеты из репозитория.",
    # undetected: a copyright file and two three-word notes
    "copyright": "Copyright: 2019-2024 Example Project\nLicense: GPL-2+",
    "note-de": "Pumpen Ventile Dichtungen",
    "note-en": "partitions resized yesterday",
}
LANGUAGES = {
    "zeitzone": "de",
    "apt-de": "de",
    "upgrade": "en",
    "disks": "en",
    "payroll": "en",
    "basement": "en",
    "garden": "en",
    "apt-ru": "ru",
    "copyright": None,
    "note-de": None,
    "note-en": None,
}


@pytest.fixture
def mixed(app: Ragox) -> Ragox:
    """A home with German, English and Russian documents and undetectable ones."""
    # the tests below rely on what language detection finds
    assert {d: detect_language(t) for d, t in DOCUMENTS.items()} == LANGUAGES
    for document_id, text in DOCUMENTS.items():
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"{document_id}.txt", document_id, tenant="default"
        )
        assert outcome.error_code is None
    return app


def _found(app: Ragox, query: str) -> list[str]:
    return [hit.document_id for hit in app.search(query, OPERATOR, SearchMode.LEXICAL)]


def test_keywords_find_inflected_forms_beside_undetected_documents(mixed: Ragox) -> None:
    """Single keywords, whose language cannot be detected, find their documents through
    the stems of every language in scope although undetected documents are in scope."""
    cases = {
        "Zeitzone": "zeitzone",
        "Zeitzonen": "zeitzone",
        "Paketverwaltung": "apt-de",
        "upgrading": "upgrade",
        "upgrade": "upgrade",
        "partitions": "disks",
        "salary": "payroll",
        "pumps": "basement",
        "пакетов": "apt-ru",
        "пакет": "apt-ru",
    }
    missed = {query: _found(mixed, query) for query, want in cases.items()}
    missed = {query: found for query, found in missed.items() if cases[query] not in found}
    assert missed == {}


def test_undetected_documents_are_found_by_any_analysis(mixed: Ragox) -> None:
    """A three-word note of unknown language is found by an inflected keyword and by a
    question recognisably in English or German."""
    assert "note-en" in _found(mixed, "partition")
    assert "note-en" in _found(mixed, "How are the partitions resized?")
    assert "note-de" in _found(mixed, "Pumpe")
    assert "note-de" in _found(mixed, "Wie werden die Pumpen geprüft?")
    assert "copyright" in _found(mixed, "licenses")


def test_stop_words_of_the_query_language_do_not_match(mixed: Ragox) -> None:
    """ "die Zeitzone" finds the time zone, not an English text that has the word "die";
    a German question's function words find nothing by themselves; a query of nothing
    but function words is still searched as written."""
    assert _found(mixed, "die Zeitzone") == ["zeitzone"]
    question = _found(mixed, "Wie ändere ich die Zeitzone?")
    assert question[0] == "zeitzone" and "garden" not in question
    assert "garden" in _found(mixed, "Why do plants die?")
    assert "garden" in _found(mixed, "when they")


def test_unknown_language_documents_carry_every_stem() -> None:
    """Index terms of an unknown-language text hold each word and its en/de/ru stems once;
    a known language gets only its stems."""
    assert index_terms("Pumpen partitions", None).split() == [
        "pumpen",
        "pump",
        "partitions",
        "partit",
        "partition",
    ]
    assert index_terms("пакетов", None).split() == ["пакетов", "пакет"]
    assert index_terms("Pumpen partitions", "de").split() == ["pump", "partition"]
    assert LEXICAL_ANALYZER_VERSION == "3"


def test_query_analysis_by_scope() -> None:
    """A query is stemmed in every scope language and its own, stop words of its likely
    language dropped; words as written join only when unknown-language documents are in
    scope."""
    german = analyze_search_query("Wie ändere ich die Zeitzone?", {"de", "en", None})
    assert german.languages == ("de", "en") and german.stop_language == "de"
    assert set(german.terms) == {"and", "zeitzon", "ändere", "zeitzone"}
    english = analyze_search_query("How do I upgrade?", {"en"})
    assert english.languages == ("en",) and english.terms == ("upgrad",)
    cross = analyze_search_query("Wie ändere ich die Zeitzone?", {"en"})
    assert cross.languages == ("de", "en") and not cross.unstemmed
    short = analyze_search_query("die Zeitzone", {"de", "en"})
    assert short.languages == ("de", "en") and short.stop_language == "de"
    assert short.terms == ("zeitzon",)
    only_unknown = analyze_search_query("Pumpe", {None})
    assert only_unknown.languages == ("de", "en", "ru") and only_unknown.unstemmed
    assert set(only_unknown.terms) == {"pumpe", "pump"}


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_tokens_are_the_case_folded_words(text: str) -> None:
    """The ASCII fast path of ``tokens`` gives exactly the general path's tokens."""
    from ragox.search._analyze import _WORD, tokens

    assert tokens(text) == [m.group().casefold() for m in _WORD.finditer(text)]
