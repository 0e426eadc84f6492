"""A name a Russian question writes in Cyrillic is found as the documents write it
(new-user passes over the Apache manual, nu15, and Debian's history, nu16): "как
поставить апаче на убунту" abstained with "Ни один доступный вам фрагмент не
упоминает: апаче" over manuals that said "Apache" on every page, and "дебиан" never
met "Debian"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from ragox.access import Principal
from ragox.search import latin_spellings, readable_terms, respell
from ragox.service import Ragox


@pytest.mark.parametrize(
    ("word", "spelling"),
    [
        ("апаче", "apache"),
        ("убунту", "ubuntu"),
        ("дебиан", "debian"),
        ("докер", "docker"),
        ("питон", "python"),
        ("линукс", "linux"),
        ("джава", "java"),
        ("постгрес", "postgres"),
        # after a case ending, which may replace the name's own vowel
        ("апачем", "apache"),
        ("убунте", "ubuntu"),
        ("линуксе", "linux"),
        ("докера", "docker"),
    ],
)
def test_a_cyrillic_name_has_its_latin_spelling(word: str, spelling: str) -> None:
    assert spelling in latin_spellings(word)


def test_a_word_in_latin_letters_has_no_other_spelling() -> None:
    assert latin_spellings("apache") == []
    assert latin_spellings("апаче1") == []


def _held(vocabulary: set[str]) -> Callable[[Sequence[str]], set[str]]:
    def held(terms: Sequence[str]) -> set[str]:
        return {term for term in terms if term in vocabulary}

    return held


def test_only_a_word_no_passage_holds_is_respelt() -> None:
    # "сервер" is held as it is written (its stem): kept, though "server" is held too
    respelt = respell("как перезапустить сервер апаче", _held({"сервер", "server", "apache"}))
    assert respelt.question == "как перезапустить сервер apache"
    assert respelt.words == (("апаче", "apache"),)
    # an English manual holds Porter's stem, "apach"
    assert respell("как запустить апаче", _held({"apach"})).question == "как запустить apache"


def test_a_spelling_counts_only_as_a_term_of_its_own() -> None:
    """Not by its stem: the German stem of "pereneste" is "peren"; not as a function
    word ("mir"); and a verb is no name."""
    assert respell("Как перенести пакет?", _held({"peren", "perenest"})).words == ()
    assert respell("Какая валюта самая стабильная в мире?", _held({"mir"})).words == ()
    assert respell("Как перенести пакет?", _held({"pereneste", "perenesti"})).words == ()


def test_a_word_no_spelling_of_which_is_held_stays() -> None:
    respelt = respell("как настроить фреймбуфер", _held({"apach"}))
    assert respelt.question == "как настроить фреймбуфер"
    assert respelt.words == ()


def test_short_words_and_function_words_are_not_respelt() -> None:
    # "гит" would be "git", but three letters match too many terms by chance
    assert respell("где гит", _held({"git"})).words == ()
    # "тоже" is a function word, whatever a passage holds
    assert respell("тоже", _held({"toje", "tozhe"})).words == ()


APACHE = (
    "Запуск Apache\n\n"
    "Чтобы запустить Apache, выполните apachectl -k start от имени root. Затем сервер "
    "читает файл настроек httpd.conf."
)
RUSSIAN = (
    "Сервер\n\n"
    "Сервер читает файл настроек при запуске. Перезапустите сервер после изменения "
    "настроек."
)
SECRET = "Kubernetes\n\nThe cluster runs on Kubernetes 1.29 with three nodes."


@pytest.fixture
def docs(app: Ragox, tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text, language, group in (
        ("apache.txt", APACHE, "ru", "staff"),
        ("server-ru.txt", RUSSIAN, "ru", "staff"),
        ("cluster.txt", SECRET, "en", "ops"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language, groups=frozenset({group}))
    return app


STAFF = Principal("sam", groups=frozenset({"staff"}))
OPS = Principal("olga", groups=frozenset({"ops"}))


@pytest.mark.both_backends
def test_a_name_in_cyrillic_is_asked_as_the_documents_write_it(docs: Ragox) -> None:
    record = docs.ask("как запустить апаче?", STAFF)
    assert not record.abstained, record.answer
    assert "apachectl -k start" in record.answer
    # the reader's question is kept as written; the trace says what was respelt
    assert record.question == "как запустить апаче?"
    assert record.trace["respelled"] == {"апаче": "apache"}


@pytest.mark.both_backends
def test_search_finds_a_name_written_in_cyrillic(docs: Ragox) -> None:
    hits = docs.search("апаче", STAFF)
    assert [hit.document_id for hit in hits] == ["apache.txt"]


@pytest.mark.both_backends
def test_a_name_only_another_group_may_read_is_not_respelt(docs: Ragox) -> None:
    """Respelling reads only what the reader may read: a word that only a passage of
    another group's holds is not respelt, so the answer says nothing of it."""
    held = readable_terms(docs.store.index, STAFF)
    assert respell("сколько нод у кубернетес", held).words == ()
    record = docs.ask("сколько нод у кубернетес", STAFF)
    assert record.abstained
    assert "respelled" not in record.trace
    # the group that may read it gets it respelt
    assert respell("кубернетес", readable_terms(docs.store.index, OPS)).question == "kubernetes"


@pytest.mark.both_backends
def test_a_respelt_word_is_no_name_the_answer_must_write(app: Ragox, tmp_path: Path) -> None:
    """ "старте" is no name: respelt "starte" (a German manual's word), it helps find
    passages but the answer need not write it (it had abstained over the Russian FAQ's
    answer, which says nothing of "starte")."""
    folder = tmp_path / "faq"
    folder.mkdir()
    for name, text, language in (
        (
            "console-ru.txt",
            "Шрифт консоли\n\nЧтобы поменять шрифт консоли, установите пакет kbd и "
            "отредактируйте файл /etc/kbd/config.",
            "ru",
        ),
        ("dienst-de.txt", "Dienste\n\nStarte den Dienst nach jeder Änderung neu.", "de"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language, groups=frozenset({"staff"}))
    record = app.ask("Как поменять шрифт консоли при старте?", STAFF)
    assert record.trace["respelled"] == {"старте": "starte"}
    assert not record.abstained, record.answer
    assert "/etc/kbd/config" in record.answer


def test_a_respelt_word_weighs_as_the_word_no_passage_holds(
    docs: Ragox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scorer weighs "apache" as it weighed "апаче", which no passage holds: a
    sentence without it answers no better than before respelling ("антенны" respelt
    "antenna" after an English manual had made a Russian manual's calculator list
    pass for an answer on antennas, where the reader's unanswerable question had been
    refused)."""
    held = docs.term_weights(STAFF)(["apache", "сервер"])
    unseen = docs.term_weights(STAFF, frozenset({"apache"}))(["apache", "сервер", "zzz"])
    assert unseen["apache"] == unseen["zzz"] > held["apache"]
    assert unseen["сервер"] == held["сервер"]
    asked: list[frozenset[str]] = []
    weights = docs.term_weights

    def spy(
        principal: Principal, unseen: frozenset[str] = frozenset()
    ) -> Callable[[Sequence[str]], dict[str, float]]:
        asked.append(unseen)
        return weights(principal, unseen)

    monkeypatch.setattr(docs, "term_weights", spy)
    docs.ask("как запустить апаче?", STAFF)
    assert asked and "apache" in asked[0]
