"""A question after which version did something is answered with the version's name
(issue 16, a new user's questions on Debian's history): "Mit welcher Version hat
Debian zum ersten Mal systemd als Standard-Init eingesetzt?" quoted only "In dieser
Veröffentlichung wird erstmals das Init-System systemd als Standard eingesetzt.", which
never names the release: its head line ("Debian 8 Jessie (April 2015): …") is the
paragraph before, and the chunk began after it.

For such a question, a passage that opens by pointing back begins with the short
paragraph before it, and a best sentence that points back among its first words is
quoted with the sentence before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer import Evidence, score_sentences
from ragox.answer._context import _led
from ragox.answer._extractive import _version_heading
from ragox.answer._support import asks_which_version, points_back
from ragox.service import Ragox

#: a long release's paragraphs; each release's head line has enough words (12) to be a
#: chunk of its own, as it was in the manual, so the chunk that answers begins after it
_FILLER = {
    "en": "The installer, the desktop and the base system were updated in many ways. ",
    "de": "Der Installer, der Desktop und das Basissystem wurden vielfach erneuert. ",
    "ru": "Программа установки, рабочий стол и базовая система были во многом обновлены. ",
}
HISTORY = {
    "en": (
        "Debian 7 Wheezy (May 2013): named after the rubber toy penguin.\n\n"
        + _FILLER["en"] * 60
        + "\n\nDebian 8 Jessie (April 2015): named after the cowgirl doll of the film Toy "
        "Story 2.\n\n"
        "In this release systemd became the default init system for the first time. "
        "Two new architectures were added."
    ),
    "de": (
        "Debian 7 Wheezy (Mai 2013): benannt nach dem Gummi-Pinguin.\n\n"
        + _FILLER["de"] * 60
        + "\n\nDebian 8 Jessie (April 2015): benannt nach der Cowgirl-Puppe aus dem Film "
        "Toy Story 2.\n\n"
        "In dieser Veröffentlichung wird erstmals das Init-System systemd als Standard "
        "eingesetzt. Zwei neue Architekturen wurden eingeführt."
    ),
    "ru": (
        "Debian 7 Wheezy (май 2013): назван в честь резинового пингвина.\n\n"
        + _FILLER["ru"] * 60
        + "\n\nDebian 8 Jessie (апрель 2015): назван в честь куклы-ковбоя из фильма "
        "История игрушек 2.\n\n"
        "В этом выпуске systemd впервые стал системой инициализации по умолчанию. "
        "Были добавлены две новые архитектуры."
    ),
}
QUESTIONS = {
    "en": "Which release first made systemd the default init system?",
    "de": "Mit welcher Version hat Debian zum ersten Mal systemd als Standard-Init eingesetzt?",
    "ru": "В каком выпуске systemd впервые стал системой инициализации по умолчанию?",
}


def _home(tmp_path: Path, language: str) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "history.txt").write_text(HISTORY[language], encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "history.txt", folder, language=language)
    return app


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_the_release_is_named_beside_this_release(tmp_path: Path, language: str) -> None:
    app = _home(tmp_path, language)
    record = app.ask(QUESTIONS[language], OPERATOR)
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("systemd" in quote for quote in quotes), quotes
    assert any("Debian 8 Jessie" in quote for quote in quotes), quotes
    assert not any("Wheezy" in quote for quote in quotes), quotes


def test_another_question_does_not_take_the_paragraph_before(tmp_path: Path) -> None:
    """Not a question after a version: the passage and its quote stay as they were."""
    app = _home(tmp_path, "en")
    record = app.ask("Did systemd become the default init system?", OPERATOR)
    app.close()
    assert not record.abstained
    assert all("Jessie" not in c.anchor.quote.exact for c in record.citations), record.answer
    assert all("Jessie" not in e.text for e in record.evidence)


def test_only_a_short_paragraph_before_is_taken() -> None:
    """A release's head line, not the long paragraph of another section's text."""
    head = "Debian 8 Jessie (April 2015): named after the cowgirl doll.\n\n"
    text = head + "In this release systemd became the default."
    assert _led(text, len(head)) == 0
    long = "The installer was updated. " * 20 + "\n\n"
    text = long + "In this release systemd became the default."
    assert _led(text, len(long)) == len(long)
    # a passage that does not point back keeps its start
    text = head + "Systemd became the default."
    assert _led(text, len(head)) == len(head)
    # …and so does one that opens with a heading, which names what follows (a red
    # team's case: the last paragraph of the section before was taken in)
    text = "The old installer was removed.\n\nRequirements\n\nThis release needs Python 3."
    start = text.index("Requirements")
    assert _led(text, start) == start


@pytest.mark.parametrize(
    ("sentence", "points"),
    [
        ("In this release systemd became the default.", True),
        ("In dieser Veröffentlichung wird erstmals systemd eingesetzt.", True),
        ("Dies war auch die erste Veröffentlichung, die UEFI unterstützte.", True),
        ("Этот выпуск стал первым выпуском с UEFI.", True),
        # a conjunction, a relative pronoun, another thing pointed at (a red team's cases)
        ("Note that the exporter requires Python 3.8 or later.", False),
        ("The release that first shipped systemd was Debian 8 Jessie.", False),
        ("Этой программе нужна версия Python 3.8 или новее.", False),
    ],
)
def test_what_names_a_release_only_by_pointing_back(sentence: str, points: bool) -> None:
    assert points_back(sentence) is points


def test_an_unrelated_sentence_before_the_answer_is_not_quoted(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "readme.md").write_text(
        "# Exporter\n\nThe installation takes about five minutes on a typical laptop. "
        "Note that the exporter requires Python 3.8 or later.\n",
        encoding="utf-8",
    )
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "readme.md", folder, language="en")
    record = app.ask("Which version of Python does the exporter require?", OPERATOR)
    app.close()
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("Python 3.8" in quote for quote in quotes), quotes
    assert not any("five minutes" in quote for quote in quotes), quotes


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Which release first shipped systemd?", True),
        ("In welcher Veröffentlichung kam armhf hinzu?", True),
        ("С какой версии есть systemd?", True),
        ("Which packages are essential?", False),
        # a graduate ("выпускник"), not a release ("выпуск")
        ("Какой выпускник Гарварда стал премьер-министром?", False),
    ],
)
def test_questions_after_a_version(question: str, asks: bool) -> None:
    assert asks_which_version(question) is asks


RELEASE_NOTES = {
    "en": (
        "# Release notes\n\n## Version 3.0\n\n"
        "This release introduced the plugin manager and dropped support for Python 2.\n\n"
        "## Version 2.5\n\nThis release added the dark theme and a faster start.\n"
    ),
    "de": (
        "# Versionshinweise\n\n## Version 3.0\n\n"
        "In dieser Veröffentlichung kam der Plugin-Manager hinzu.\n\n"
        "## Version 2.5\n\nIn dieser Veröffentlichung kam das dunkle Design hinzu.\n"
    ),
    "ru": (
        "# Примечания к выпускам\n\n## Версия 3.0\n\n"
        "В этом выпуске появился менеджер плагинов.\n\n"
        "## Версия 2.5\n\nВ этом выпуске появилась тёмная тема.\n"
    ),
}
RELEASE_QUESTIONS = {
    "en": "Which version introduced the plugin manager?",
    "de": "In welcher Version kam der Plugin-Manager hinzu?",
    "ru": "В какой версии появился менеджер плагинов?",
}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_a_release_named_by_its_heading_is_quoted(tmp_path: Path, language: str) -> None:
    """A red team's case: "## Version 3.0" then "This release introduced …"; the
    heading is quoted with the sentence, which never names the release."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(RELEASE_NOTES[language], encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "notes.md", folder, language=language)
    record = app.ask(RELEASE_QUESTIONS[language], OPERATOR)
    other = app.ask("What did the plugin manager replace?", OPERATOR)
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert quotes[0] in ("Version 3.0", "Версия 3.0"), quotes
    assert any("lugin" in q or "плагинов" in q for q in quotes[1:]), quotes
    assert not any("2.5" in q for q in quotes), quotes
    # not for a question after something else
    assert all("3.0" not in c.anchor.quote.exact for c in other.citations), other.answer


def test_a_sentence_ending_a_paragraph_is_no_heading() -> None:
    """The line above "This release …" is another paragraph's end, not a heading."""
    text = "The next steps were planned for 2024.\n\nThis release added the dark theme."
    evidence = Evidence("S1", "doc1", "r1", "m1", ("c1",), 0, len(text), text)
    [best] = [
        s
        for s in score_sentences("Which release added the dark theme?", [evidence]).sentences
        if "dark" in text[s.start : s.end]
    ]
    assert _version_heading(best) is None


@pytest.mark.parametrize(
    ("text", "question"),
    [
        # the sentence names what it speaks of: the heading above is no release's
        (
            "# Exporter\n\n## Step 2\n\nThe exporter requires Python 3.8 or later.\n",
            "Which version of Python does the exporter require?",
        ),
        # a heading with no number names no release
        (
            "# Notes\n\n## New features\n\nThis release introduced the plugin manager.\n",
            "Which version introduced the plugin manager?",
        ),
        # …nor do a numbered section's heading or a count (a red team's cases)
        (
            "# Notes\n\n## 3.2 Upgrading the server\n\nThis release removes the sync daemon.\n",
            "Which release removes the sync daemon?",
        ),
        (
            "# Notes\n\n## Known issues (2 open)\n\nThis version crashes when the cache is full.\n",
            "Which version crashes when the cache is full?",
        ),
        # …nor the line before in the same paragraph
        (
            "Before upgrading, did you back up all 12 projects?\nThis release deletes the old "
            "cache folders during the upgrade.\n",
            "Which release deletes the old cache folders?",
        ),
    ],
)
def test_a_heading_that_names_no_release_is_not_quoted(
    tmp_path: Path, text: str, question: str
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(text, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "notes.md", folder, language="en")
    record = app.ask(question, OPERATOR)
    app.close()
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert not any(
        q.startswith(("Step", "New features", "3.2", "Known", "Before")) for q in quotes
    ), quotes
