"""A question's fillers are no terms, and an abstention names words as the question
writes them (issue 16, a new-user pass over the Debian FAQ): "Was ist *eigentlich*
eine conffile?" abstained while "Was ist eine conffile?" was answered, since no passage
says "eigentlich" and it weighed as much as "conffile"; and a missing "RAID" was
named "raid"."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._model import Evidence
from ragox.answer._pipeline import missing_terms
from ragox.service import Ragox

CONFFILES = (
    "Konfigurationsdateien\n\n"
    "»Conffiles« ist eine Liste von Konfigurationsdateien, meist unter /etc. Diese "
    "Dateien werden bei einer Paketaktualisierung nicht überschrieben.\n\n"
    "Ein Paket bringt seine Dateien mit, die dpkg in seiner Datenbank verzeichnet."
)
PRIORITY = (
    "Priorities\n\n"
    "A package of priority required is necessary for the proper functioning of the "
    "system.\n\n"
    "Packages are installed with apt, which resolves their dependencies."
)
SAY = (
    "Произношение\n\n"
    "Официально Debian произносится как 'дэбиан' или 'дэбиэн'.\n\n"
    "Название было образовано от имён создателя Debian и его жены.\n\n"
    "Синтезатор речи правильно произносит слово, если словарь установлен правильно."
)
ADOPT = (
    "Пакеты без сопровождающего\n\n"
    "Чтобы взять пакет без сопровождающего, отправьте сообщение об ошибке O: в WNPP.\n\n"
    "Сопровождающий отвечает за пакет в архиве."
)


@pytest.fixture
def home(tmp_path: Path) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    for name, text, language in (
        ("conffiles.txt", CONFFILES, "de"),
        ("priority.txt", PRIORITY, "en"),
        ("adopt.txt", ADOPT, "ru"),
        ("say.txt", SAY, "ru"),
    ):
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language)
    return app


@pytest.mark.parametrize(
    ("plain", "filled", "quoted"),
    [
        ("Was ist eine conffile?", "Was ist eigentlich eine conffile?", "Conffiles"),
        (
            "What does priority required mean?",
            "What does priority required actually mean?",
            "priority required",
        ),
        (
            "Как взять пакет без сопровождающего?",
            "Как вообще взять пакет без сопровождающего?",
            "WNPP",
        ),
        (
            "Как произносить слово Debian?",
            "Как правильно произносить слово Debian?",
            "дэбиан",
        ),
    ],
)
def test_a_filler_changes_no_answer(home: Ragox, plain: str, filled: str, quoted: str) -> None:
    try:
        answers = [home.ask(question, OPERATOR) for question in (plain, filled)]
    finally:
        home.close()
    for record in answers:
        assert not record.abstained, record.answer
        assert any(quoted in c.anchor.quote.exact for c in record.citations)
    assert answers[0].answer == answers[1].answer


def test_an_abstention_names_a_word_as_written(home: Ragox) -> None:
    try:
        record = home.ask("Wie richte ich bei der Installation ein RAID ein?", OPERATOR)
    finally:
        home.close()
    assert record.abstained
    assert "erwähnt: " in record.answer
    assert "RAID" in record.answer and "raid" not in record.answer, record.answer


@pytest.mark.parametrize(
    ("question", "named", "left_out"),
    [
        # what the question is about, not what it asks be done with it (a new-user
        # pass over KiCad's manuals: "erwähnt: kriege, Firmenlogo")
        ("Wie kriege ich unser Firmenlogo in den Titelblock?", "Firmenlogo", "kriege"),
        ("Как залить медью все зоны на плате?", "медью", "залить"),
    ],
)
def test_an_abstention_names_the_things_before_the_verbs(
    question: str, named: str, left_out: str
) -> None:
    text = "Der Titelblock zeigt das Datum. Зоны на плате показаны серым."
    evidence = [Evidence("S1", "doc", "r1", "m1", ("c1",), 0, len(text), text)]
    message = missing_terms(question, evidence)
    assert named in message, message
    assert left_out not in message, message


def test_an_abstention_names_a_verb_when_nothing_else_is_missing() -> None:
    text = "Der Titelblock zeigt das Firmenlogo."
    evidence = [Evidence("S1", "doc", "r1", "m1", ("c1",), 0, len(text), text)]
    message = missing_terms("Wie kriege ich unser Firmenlogo in den Titelblock?", evidence)
    assert "kriege" in message, message
