"""Words a reader adds that say when or what for, or give an example number, do not
refuse an answer by their absence (issue 16, a new-user pass over LibreOffice's help,
nu18): "was bringt die zielwertsuche in calc?" was refused naming "bringt", "when i type
a 2 digit year like 20 does calc read it as 1920 or 2020?" naming "1920", though the
page that answers each was the first search hit. A word of the question proper that no
passage holds still refuses ("Welche Währung …")."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._extractive import _incidental_capped
from ragox.answer._incidental import incidental_words
from ragox.answer._support import AnswerKind, answer_kind
from ragox.service import Ragox

XQUAD = Path(__file__).parent / "data" / "xquad"


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "how do i make the header row repeat when my table spills over to the next page?",
            {"my", "table", "spills", "over", "to", "the", "next", "page"},
        ),
        (
            "wie sperr ich zellen, damit die kollegen nix ändern?",
            {"die", "kollegen", "nix", "ändern"},
        ),
        ("как поставить фильтр, чтобы видеть нужные строки", {"видеть", "нужные", "строки"}),
        ("does calc read 20 as 1920 or 2020?", {"1920", "2020"}),
        ("how do i type a number like 0123?", {"0123"}),
        ("was bringt die zielwertsuche?", {"bringt"}),
        ("wozu ist bedingter text gut", {"gut"}),
        ("what is a master document good for?", {"good"}),
    ],
)
def test_words_that_say_when_or_what_for(question: str, words: set[str]) -> None:
    assert incidental_words(question) == words


@pytest.mark.parametrize(
    "question",
    [
        # the question's own first word, and a clause that is what is asked
        "When was the first version released?",
        "How do I check if my CPU supports virtualization?",
        "Какая валюта самая стабильная в мире?",
        # digits of a version or a name are no example number
        "What changed in version 2.6.32?",
        "What is ext4?",
        # a number the question is about
        "What was the revenue in 2019?",
    ],
)
def test_the_question_proper_is_no_incidental_word(question: str) -> None:
    assert incidental_words(question) == frozenset()


GOAL_SEEK = (
    "Zielwertsuche anwenden\n\n"
    "Mit Hilfe der Zielwertsuche ermitteln Sie einen Wert, der als Teil einer Formel zu "
    "einem vorgegebenen Ergebnis der Formel führt. Sie definieren die Formel mit festen "
    "Werten und einem variablen Wert.\n"
)
GOAL_SEEK_STEPS = (
    "Beispiel für die Zielwertsuche\n\n"
    "Setzen Sie den Cursor in die Zelle mit dem Zins, dann wählen Sie Extras - "
    "Zielwertsuche. Geben Sie den Zielwert in das Textfeld ein und klicken Sie auf OK.\n"
)
GOAL_SEEK_MENU = (
    "Extras\n\n"
    "Das Menü Extras enthält die Zielwertsuche, die Solver-Funktion und die "
    "Rechtschreibprüfung.\n"
)
YEARS = (
    "Date Conversion\n\n"
    "Two-digit years are read by the setting under Tools - Options - General. All lower "
    "two-digit years apply to the 20xx century, so 1/1/20 is converted into 1/1/2020.\n"
)
YEARS_OPTIONS = (
    "General options\n\n"
    "The Year (two digits) box sets the range of two-digit years that are read in the "
    "20th century.\n"
)
REVENUE = "Annual report\n\nRevenue in 2021 was 4.2 million euros.\n"
FORMATS = (
    "Number formats\n\n"
    "Calc shows a number in the format of its cell. Choose Format - Cells to change the "
    "format of a cell.\n"
)
#: XQuAD paragraphs beside the help pages: an index of some hundred passages, in which a
#: word that none holds weighs as the rarest do
BACKGROUND = 60


@pytest.fixture(scope="module")
def help_pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ragox]:
    folder = tmp_path_factory.mktemp("help")
    app = Ragox(tmp_path_factory.mktemp("home"))
    pages = [
        ("goalseek.txt", GOAL_SEEK, "de"),
        ("goalseek-example.txt", GOAL_SEEK_STEPS, "de"),
        ("tools-menu.txt", GOAL_SEEK_MENU, "de"),
        ("years.txt", YEARS, "en"),
        ("years-options.txt", YEARS_OPTIONS, "en"),
        ("formats.txt", FORMATS, "en"),
        ("revenue.txt", REVENUE, "en"),
    ]
    for language in ("de", "en"):
        data = json.loads((XQUAD / f"xquad.{language}.json").read_text(encoding="utf-8"))
        paragraphs = [p["context"] for a in data["data"] for p in a["paragraphs"]]
        pages += [
            (f"xquad-{language}-{n}.txt", text, language)
            for n, text in enumerate(paragraphs[:BACKGROUND])
        ]
    for name, text, language in pages:
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, tenant="default", language=language)
    yield app
    app.close()


def test_a_word_that_asks_what_for_refuses_nothing(help_pages: Ragox) -> None:
    record = help_pages.ask("was bringt die zielwertsuche?", OPERATOR)
    assert not record.abstained, record.answer
    assert "ermitteln Sie einen Wert" in record.answer


def test_an_example_number_refuses_nothing(help_pages: Ragox) -> None:
    record = help_pages.ask(
        "when i type a 2 digit year like 20 does calc read it as 1920 or 2020?", OPERATOR
    )
    assert not record.abstained, record.answer
    assert "20xx century" in record.answer


def test_a_word_of_the_question_proper_still_refuses(help_pages: Ragox) -> None:
    """ "Welche Währung …": no passage says "Währung", and it is what is asked; nor
    does any say 2019, which a red team's question asked about ("Revenue in 2021 was
    4.2 million euros." had been quoted)."""
    record = help_pages.ask("Welche Währung gilt als die stabilste?", OPERATOR)
    assert record.abstained and "Währung" in (record.missing or "")
    revenue = help_pages.ask("what was the revenue in 2019?", OPERATOR)
    assert revenue.abstained and "2019" in (revenue.missing or ""), revenue.answer


def test_only_an_absent_incidental_word_weighs_less() -> None:
    """A clause's word that passages hold keeps its weight ("calc" below, though it
    weighs more than the question proper's words); one that none holds ("spills")
    weighs as the weightiest other term; the question proper's words keep theirs."""
    weights = {"header": 3.0, "repeat": 2.0, "spill": 9.0, "calc": 7.0, "proprietari": 5.0}
    capped = _incidental_capped(
        weights,
        frozenset({"spill"}),
        "how do i repeat the proprietary header when calc spills it?",
        ["en"],
    )
    assert capped == {**weights, "spill": 7.0}
    # a word the question proper says too is no incidental word
    weights = {"header": 9.0, "repeat": 2.0, "calc": 3.0}
    question = "how do i repeat the header when calc spills the header?"
    assert _incidental_capped(weights, frozenset({"header"}), question, ["en"]) == weights


@pytest.mark.parametrize(
    "question",
    [
        "was ist eigentlich eine pivot tabelle?",
        "what is actually a pivot table?",
        "что такое вообще сводная таблица?",
    ],
)
def test_a_filler_leaves_a_definition_question_one(question: str) -> None:
    """ "was ist eigentlich eine pivot tabelle?" (nu18) was no definition question: the
    filler made the term four words long."""
    assert answer_kind(question) is AnswerKind.DEFINITION
