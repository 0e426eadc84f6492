"""A question about a name that no passage the reader may read mentions is not
answered from its other words (issue 16, a new user's unanswerable questions): "What
TCP port does PostgreSQL listen on by default?" over manuals that never name
PostgreSQL quoted Apache's and SELinux's ports in English and VNC's in Russian, while
the German twin happened to abstain."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.access import Principal
from ragox.answer._names import asked_names, unmentioned_names
from ragox.answer._pipeline import _mentioned
from ragox.service import Ragox

PORTS_EN = (
    "Apache\n\n"
    "With its default configuration, the web server listens on TCP port 80, as "
    "configured in /etc/apache2/ports.conf.\n\n"
    "TCP and UDP ports are labeled so that only the corresponding daemons can listen "
    "to them: to let the web server listen on port 8080, run semanage port -a -t "
    "http_port_t -p tcp 8080."
)
PORTS_RU = (
    "VNC\n\n"
    "По умолчанию VNC использует порт 5900 для первого экрана.\n\n"
    "Если порт не задан, то портом по умолчанию является стандартный 514-й порт syslog."
)
PORTS_DE = (
    "Apache\n\n"
    "In der Standardkonfiguration verwendet der Webserver den TCP-Port 80.\n\n"
    "Standardmäßig verwendet der syslog-Dienst den Port 514."
)
DATABASE = (
    "PostgreSQL\n\n"
    "By default the PostgreSQL server listens on TCP port 5432 of the local host only."
)


def test_the_names_of_a_question() -> None:
    assert asked_names("What TCP port does PostgreSQL listen on by default?") == [
        "TCP",
        "PostgreSQL",
    ]
    # a capitalised word names in English, not where it opens a sentence
    assert asked_names("Printing fails. Why does Firefox not print?") == ["Firefox"]
    # German capitalises every noun: only a capital inside a word, or a digit, names
    assert asked_names("Welche Portnummer verwendet PostgreSQL auf ext4?") == [
        "PostgreSQL",
        "ext4",
    ]
    # Latin letters in a Cyrillic question
    assert asked_names("Как настроить программный RAID с помощью mdadm?") == ["RAID", "mdadm"]
    assert asked_names("how do i change the default editor?") == []


@pytest.fixture
def home(tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    for name, text, language in (
        ("ports-en.txt", PORTS_EN, "en"),
        ("ports-ru.txt", PORTS_RU, "ru"),
        ("ports-de.txt", PORTS_DE, "de"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language, groups=frozenset({"staff"}))
    (folder / "database.txt").write_text(DATABASE, encoding="utf-8")
    app.ingest_path(folder / "database.txt", folder, language="en", groups=frozenset({"dba"}))
    return app


STAFF = Principal("sam", groups=frozenset({"staff"}))


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What TCP port does PostgreSQL listen on by default?", "mentions: PostgreSQL."),
        ("Какой порт по умолчанию использует PostgreSQL?", "не упоминает: PostgreSQL."),
        ("Welche Portnummer verwendet PostgreSQL standardmäßig?", "erwähnt: PostgreSQL."),
    ],
)
def test_a_name_no_readable_passage_mentions_is_not_answered(
    home: Ragox, question: str, said: str
) -> None:
    try:
        record = home.ask(question, STAFF)
    finally:
        home.close()
    assert record.abstained
    assert not record.citations
    assert record.answer.endswith(said), record.answer
    # the passage the reader may not read is neither quoted nor hinted at
    assert "5432" not in record.answer


def test_the_same_question_is_answered_where_the_name_is_readable(home: Ragox) -> None:
    """A reader of the database manual gets its answer; a question naming only what the
    documents name ("Apache") is answered as before."""
    reader = Principal("dee", groups=frozenset({"staff", "dba"}))
    try:
        database = home.ask("What TCP port does PostgreSQL listen on by default?", reader)
        apache = home.ask("What TCP port does Apache listen on by default?", STAFF)
    finally:
        home.close()
    assert not database.abstained
    assert any("5432" in c.anchor.quote.exact for c in database.citations)
    assert not apache.abstained
    assert any("port 80" in c.anchor.quote.exact for c in apache.citations)


def test_an_operator_is_told_the_same(home: Ragox) -> None:
    """The operator reads every group: PostgreSQL is mentioned, the question answered."""
    try:
        record = home.ask("What TCP port does PostgreSQL listen on by default?", OPERATOR)
    finally:
        home.close()
    assert not record.abstained


def test_a_name_the_documents_write_apart_is_mentioned(tmp_path: Path) -> None:
    """ "SecureBoot" and "USB3" where the manual says "Secure Boot" and "USB 3" (a red-team
    pass): each part is mentioned, so the name is; the question is answered, and an
    abstention's note does not claim that no passage mentions it."""
    held = {"secur", "boot", "usb"}

    def mentioned(terms: Sequence[str]) -> set[str]:
        return {term for term in terms if term in held}

    assert unmentioned_names("Was ist SecureBoot?", mentioned) == []
    assert unmentioned_names("Does the installer support USB3 drives?", mentioned) == []
    assert unmentioned_names("Does it support PostgreSQL?", mentioned) == ["PostgreSQL"]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "uefi.txt").write_text(
        "Secure Boot is a feature of UEFI implementations that allows the firmware to "
        "load only code signed with known keys.",
        encoding="utf-8",
    )
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "uefi.txt", folder, language="en")
        record = app.ask("What is SecureBoot?", OPERATOR)
        other = app.ask("Как включить SecureBoot на сервере?", OPERATOR)
    finally:
        app.close()
    # whether answered or not, no note says that no passage mentions it
    for answer in (record, other):
        assert "secureboot" not in answer.answer.casefold(), answer.answer
    assert other.abstained


def test_a_long_russian_stem_is_looked_up_as_the_index_holds_it(tmp_path: Path) -> None:
    """The index keeps six letters of a Russian stem: "зашифрова" (of "зашифрованного"),
    looked up as it is, counted no row, and an abstention said no passage mentions a
    word the reader's manual holds (a second new-user pass)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "crypt.txt").write_text(
        "Для каждого зашифрованного тома программа установки запрашивает ключевую фразу.",
        encoding="utf-8",
    )
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "crypt.txt", folder, language="ru")
        held = _mentioned(app.store, OPERATOR)(["зашифрова", "брандмауэр"])
    finally:
        app.close()
    assert held == {"зашифрова"}
