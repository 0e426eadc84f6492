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
from ragox.search import (
    abbreviation_spellings,
    latin_spellings,
    readable_terms,
    respell,
    russian_terms,
)
from ragox.search._respell import MAX_LOOKED_AT, MAX_SPELLINGS
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
    held = _held({"сервер", "server", "apache"})
    respelt = respell("как перезапустить сервер апаче", held, _held({"server", "apache"}))
    assert respelt.question == "как перезапустить сервер apache"
    assert respelt.words == (("апаче", "apache"),)


def test_only_a_russian_passage_writes_a_name() -> None:
    """A word only an English or German manual holds is that language's word, not the
    reader's name for it (a red team's "что такое пакет?" quoted "A packet is a unit
    of data …"; "старте" became German "starte")."""
    english = _held({"packet", "bit", "starte", "apache"})
    assert respell("что такое пакет?", english, _held(set())).words == ()
    assert respell("Сколько байт занимает адрес?", english, _held(set())).words == ()
    assert respell("запуск апаче", english, _held({"apache"})).words == (("апаче", "apache"),)


def test_a_function_word_or_a_verb_is_no_name() -> None:
    spoken = _held({"mir", "pereneste", "perenesti"})
    assert respell("Какая валюта самая стабильная в мире?", spoken, spoken).words == ()
    assert respell("Как перенести пакет?", spoken, spoken).words == ()


def test_a_word_no_spelling_of_which_is_held_stays() -> None:
    respelt = respell("как настроить фреймбуфер", _held({"apache"}), _held({"apache"}))
    assert respelt.question == "как настроить фреймбуфер"
    assert respelt.words == ()


def test_short_words_and_function_words_are_not_respelt() -> None:
    # "гит" would be "git", "комп" "comp" (a Russian TeX manual's newsgroup), but
    # short words match too many terms by chance
    assert respell("где гит", _held({"git"}), _held({"git"})).words == ()
    assert respell("выключить комп", _held({"comp"}), _held({"comp"})).words == ()
    # …nor a stem of three letters once the ending goes ("льдами": "ld")
    assert respell("покрыто льдами", _held({"ld"}), _held({"ld"})).words == ()
    # …nor a spelling of four ("марки" as "mark": XQuAD's one respelling, after a
    # Russian paragraph's "Toyota Corona Mark II", had answered a question it refused)
    assert respell("какой марки", _held({"mark"}), _held({"mark"})).words == ()
    # "тоже" is a function word, whatever a passage holds
    assert respell("тоже", _held({"toje", "tozhe"}), _held({"toje", "tozhe"})).words == ()


def test_a_question_of_made_up_words_is_spelt_a_bounded_number_of_ways() -> None:
    """A red team's ten made-up words of fourteen letters had made 1,536 spellings each,
    looked up in every partition of the reader's: now at most three words, each at most
    ``MAX_SPELLINGS`` ways."""
    looked_up: list[int] = []

    def spoken(terms: Sequence[str]) -> set[str]:
        looked_up.append(len(terms))
        return set()

    question = " ".join("кстфхщцкстфхщц" + c + "ами" for c in "абвгдежзий")
    assert respell(question, _held(set()), spoken).words == ()
    assert looked_up and sum(looked_up) <= MAX_SPELLINGS
    # …and of a query of 380 made-up words, only the first few are looked up at all
    held: list[int] = []

    def counted(terms: Sequence[str]) -> set[str]:
        held.append(len(terms))
        return set()

    words = " ".join(f"слово{chr(0x430 + n % 32)}{chr(0x430 + n // 32)}" for n in range(380))
    assert respell(words, counted, spoken).words == ()
    assert held and sum(held) <= 2 * MAX_LOOKED_AT
    assert len(latin_spellings("кстфхщцкстфхщцаами")) <= MAX_SPELLINGS


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
SECRET = "Кластер\n\nКластер работает на Kubernetes 1.29 с тремя узлами."


@pytest.fixture
def docs(app: Ragox, tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text, language, group in (
        ("apache.txt", APACHE, "ru", "staff"),
        ("server-ru.txt", RUSSIAN, "ru", "staff"),
        ("cluster.txt", SECRET, "ru", "ops"),
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
    spoken = russian_terms(docs.store.index, STAFF)
    assert respell("сколько нод у кубернетес", held, spoken).words == ()
    record = docs.ask("сколько нод у кубернетес", STAFF)
    assert record.abstained
    assert "respelled" not in record.trace
    # the group that may read it gets it respelt
    index = docs.store.index
    ops = respell("кубернетес", readable_terms(index, OPS), russian_terms(index, OPS))
    assert ops.question == "kubernetes"


@pytest.mark.both_backends
def test_a_respelt_word_is_no_name_the_answer_must_write(app: Ragox, tmp_path: Path) -> None:
    """A respelt word helps find and score passages, but the answer need not write it:
    the names an answer must be about come from the question as written ("старте",
    respelt "starte" after a manual's word, had made the Russian FAQ's answer on the
    console font off-topic)."""
    folder = tmp_path / "faq"
    folder.mkdir()
    for name, text in (
        (
            "console-ru.txt",
            "Шрифт консоли\n\nЧтобы поменять шрифт консоли, установите пакет kbd и "
            "отредактируйте файл /etc/kbd/config.",
        ),
        ("ubuntu-ru.txt", "Другие дистрибутивы\n\nUbuntu выпускается каждые полгода."),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language="ru", groups=frozenset({"staff"}))
    record = app.ask("Как поменять шрифт консоли в убунту?", STAFF)
    assert record.trace["respelled"] == {"убунту": "ubuntu"}
    assert not record.abstained, record.answer
    assert "/etc/kbd/config" in record.answer


@pytest.mark.both_backends
def test_an_english_manuals_word_is_not_the_russian_readers(app: Ragox, tmp_path: Path) -> None:
    """ "что такое пакет?" over an English note on network packets and a Russian manual
    on something else: "пакет" is not respelt "packet", and nothing is quoted about
    packets (a red team's case: the answer was "A packet is a unit of data that a router
    forwards.")."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name, text, language in (
        ("net-en.txt", "Packets\n\nA packet is a unit of data that a router forwards.", "en"),
        ("fonts-ru.txt", "Шрифты\n\nШрифт консоли задаётся в файле /etc/kbd/config.", "ru"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language, groups=frozenset({"staff"}))
    record = app.ask("что такое пакет?", STAFF)
    assert "respelled" not in record.trace
    assert "router" not in record.answer


@pytest.mark.both_backends
def test_a_respelt_name_is_what_the_answer_is_about(app: Ragox, tmp_path: Path) -> None:
    """ "Как работать в гноме?": the passage on GNOME, not one that shares "работать"
    (a red team's case: "Если хотите работать с самыми новыми версиями пакетов …")."""
    folder = tmp_path / "desktop"
    texts = (
        "Окружения рабочего стола\n\nВ Debian есть GNOME, KDE и Xfce. Их можно выбрать при "
        "установке.",
        "Обновление системы\n\nЧтобы обновить систему, выполните apt update и затем apt upgrade.",
        "Сеть\n\nНастройки сети хранятся в файле /etc/network/interfaces.",
        "Версии\n\nЕсли хотите работать с самыми новыми версиями пакетов, ставьте "
        "нестабильный выпуск.",
        "Шрифты\n\nШрифт консоли задаётся в файле /etc/default/console-setup.",
    )
    _ingest_russian(app, folder, texts)
    record = app.ask("Как работать в гноме?", STAFF)
    assert record.trace["respelled"] == {"гноме": "gnome"}
    assert "работать с самыми новыми" not in record.answer
    assert record.abstained or "GNOME" in record.answer


@pytest.mark.both_backends
def test_where_nothing_about_a_respelt_name_answers_the_question_is_asked_as_written(
    app: Ragox, tmp_path: Path
) -> None:
    """The passage on GNOME does not say how to work in it: the question as written
    ("гноме", which no passage holds) is answered as before respelling, and refused;
    asked with "gnome" weighed as a common word, the passage that shares "работать"
    had passed."""
    folder = tmp_path / "small"
    texts = (
        "Окружения\n\nВ Debian есть GNOME, KDE и Xfce. Их выбирают при установке.",
        "Версии\n\nЕсли хотите работать с самыми новыми версиями, ставьте sid.",
        "Сеть\n\nНастройки сети хранятся в файле /etc/network/interfaces.",
    )
    _ingest_russian(app, folder, texts)
    record = app.ask("Как работать в гноме?", STAFF)
    assert record.trace["respelled"] == {"гноме": "gnome"}
    assert "работать с самыми новыми" not in record.answer


def _ingest_russian(app: Ragox, folder: Path, texts: Sequence[str]) -> None:
    """Each text a Russian document of the staff's."""
    folder.mkdir()
    for number, text in enumerate(texts):
        (folder / f"doc{number}.txt").write_text(text, encoding="utf-8")
        app.ingest_path(
            folder / f"doc{number}.txt", folder, language="ru", groups=frozenset({"staff"})
        )


@pytest.mark.parametrize(
    ("word", "spelling"),
    [
        # without a vowel: no Russian word
        ("впн", "vpn"),
        ("ссд", "ssd"),
        ("днс", "dns"),
        ("хттп", "http"),
        # the names of Latin letters spelt out, in English or in Russian
        ("айпи", "ip"),
        ("юэсби", "usb"),
        ("эсэсдэ", "ssd"),
        ("дивиди", "dvd"),
    ],
)
def test_an_abbreviation_written_in_cyrillic_has_its_letters(word: str, spelling: str) -> None:
    assert abbreviation_spellings(word)[0] == spelling


@pytest.mark.parametrize(
    "word",
    # Russian words, names and syllables that read as letter names only with "и" or "ка"
    # ("иэн", "пика", "эми"), a soft sign ("ль"), a word with vowels of no letter names
    [
        *("иэн", "пика", "эми", "ль", "гит", "комп", "обои", "сервер", "в"),
        # a Russian abbreviation of two letters (a red team's "что такое цп" had quoted
        # "cp")
        *("цп", "тз", "лс", "пт"),
    ],
)
def test_a_russian_word_is_no_abbreviation(word: str) -> None:
    assert abbreviation_spellings(word) == []


def test_an_abbreviation_is_respelt_however_short() -> None:
    """ "что такое айпи адрес" abstained naming "айпи" over GNOME's page on IP addresses,
    and "как подключиться к впн" quoted a page on the wrong network (nu17)."""
    spoken = _held({"ip", "vpn", "адрес"})
    respelt = respell("что такое айпи адрес", _held({"ip", "адрес"}), spoken)
    assert respelt.question == "что такое ip адрес"
    assert respell("как подключиться к впн", spoken, spoken).words == (("впн", "vpn"),)
    # only where a Russian passage writes it, and no passage holds the word itself
    assert respell("что такое айпи", _held({"ip"}), _held(set())).words == ()
    assert respell("как подключиться к впн", _held({"впн", "vpn"}), spoken).words == ()


@pytest.mark.both_backends
def test_an_abbreviation_in_cyrillic_is_asked_as_the_documents_write_it(
    app: Ragox, tmp_path: Path
) -> None:
    folder = tmp_path / "net"
    texts = (
        "Что такое IP-адрес?\n\nIP-адрес — это уникальный набор цифр, который "
        "идентифицирует ваш компьютер в сети.",
        "Подключение к VPN\n\nЧтобы подключиться к VPN, откройте настройки сети и нажмите "
        "кнопку «Добавить».",
        "Беспроводная сеть\n\nЧтобы подключиться к беспроводной сети, выберите её в "
        "системном меню.",
    )
    _ingest_russian(app, folder, texts)
    record = app.ask("что такое айпи адрес", STAFF)
    assert record.trace["respelled"] == {"айпи": "ip"}
    assert not record.abstained, record.answer
    assert "уникальный набор цифр" in record.answer
    record = app.ask("как подключиться к впн", STAFF)
    assert record.trace["respelled"] == {"впн": "vpn"}
    assert "Добавить" in record.answer
