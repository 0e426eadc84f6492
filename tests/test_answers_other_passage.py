"""A sentence from another passage (another section of the manual) is quoted beside
the answer only when it scores near the best one and holds what makes the best one an
answer (issue 16, a new user's questions on KiCad's and aptitude's manuals):
"Which standard are the formulas in the KiCad track width calculator taken from?" got
"The Calculator has the following tools: …" from another section after "It uses
formulas from IPC-2221", and "Как запустить сапёра в aptitude?" got "Чтобы запустить
aptitude, откройте …" (the section on starting aptitude) after "Чтобы запустить её,
выберите Действия → Играть в сапёра"."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox

_FILLER_EN = "Each value can be typed in or copied from the board setup dialog. " * 30
CALCULATOR = (
    "# Calculator\n\n"
    "## Track width\n\n"
    "The Track Width tool calculates the trace width for printed circuit board "
    "conductors for a given current and temperature rise. It uses formulas from "
    "IPC-2221 (formerly IPC-D-275).\n\n"
    f"## Regulators\n\n{_FILLER_EN}\n\n"
    "## Tools\n\n"
    "The following tools are available: Regulators, Track Width, Electrical "
    "Spacing, Transmission Lines, Attenuators, Color Code and Board Classes.\n\n"
    f"## Board classes\n\n{_FILLER_EN}\n"
)
_FILLER_RU = "Каждый пакет можно пометить для установки или удаления клавишами. " * 30
MINESWEEPER = (
    "# aptitude\n\n"
    "## Запуск\n\n"
    "Чтобы запустить aptitude, откройте ваш любимый текстовый терминал и введите в "
    "командной строке aptitude.\n\n"
    # (minesweeper named once more elsewhere: "запустить", held by the best sentence
    # and by the other section's, weighs as much; "aptitude" weighs less)
    f"## Пакеты\n\n{_FILLER_RU}Игра в сапёра не меняет пакеты aptitude.\n\n"
    "## Игры\n\n"
    "Если вы устали от установки и удаления пакетов, aptitude включает в себя версию "
    "классической игры «Сапёр». Чтобы запустить её, выберите Действия → Играть в "
    "сапёра; появится исходная доска.\n"
)


def _ask(tmp_path: Path, text: str, language: str, question: str) -> list[str]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "manual.md").write_text(text, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "manual.md", folder, language=language)
    record = app.ask(question, OPERATOR)
    app.close()
    assert not record.abstained, record.answer
    return [c.anchor.quote.exact for c in record.citations]


def test_another_sections_weaker_sentence_is_not_quoted(tmp_path: Path) -> None:
    question = "Which standard are the formulas of the track width calculator taken from?"
    quotes = _ask(tmp_path, CALCULATOR, "en", question)
    assert any("IPC-2221" in quote for quote in quotes), quotes
    assert not any("following tools" in quote for quote in quotes), quotes


def test_another_sections_sentence_without_the_asked_thing_is_not_quoted(
    tmp_path: Path,
) -> None:
    quotes = _ask(tmp_path, MINESWEEPER, "ru", "Как запустить сапёра в aptitude?")
    assert any("Играть в сапёра" in quote for quote in quotes), quotes
    assert not any("текстовый терминал" in quote for quote in quotes), quotes
