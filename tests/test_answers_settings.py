"""How-to answers from a program's settings, described one by one (issue 16, a new
user's questions on KiCad's manuals).

"How can I limit how many backup copies of my project KiCad keeps?" abstained: its
answer is a setting in the manual's "Common preferences" section, "Maximum backups to
keep: When creating a new backup, the oldest backup file will be deleted to keep the
total number of backup files below this limit." A setting's label names what to set,
as an instruction does; elsewhere ("Note: …", a label outside a settings section) a
label instructs nothing.

The manual text is made up for these tests, after KiCad's."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer import Evidence, score_sentences
from ragox.answer._support import sets_a_setting
from ragox.service import Ragox

LABEL = (
    "Maximum backups to keep: When creating a new backup, the oldest backup file will be "
    "deleted to keep the total number of backup files below this limit."
)


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        (LABEL, "4.1. Common preferences"),
        ("Automatisch sichern: Wenn aktiviert, wird das Projekt archiviert.", "Einstellungen"),
        ("Размер шага сетки: Задаёт расстояние между точками сетки.", "Диалог настроек"),
        ("Line width (mm): Sets the width of new graphic lines.", "Board setup options"),
    ],
)
def test_a_settings_label_names_what_to_set(sentence: str, title: str) -> None:
    assert sets_a_setting(sentence, title)


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        # not in a section on settings
        (LABEL, "2.2. Migrating files from previous versions"),
        (LABEL, None),
        # a label in a section on something else than a program's settings, or with a
        # description that sets nothing (a red team's cases: hiring is "Einstellung",
        # and stock options are no program's)
        ("Probezeit: Die Probezeit dauert sechs Monate.", "Einstellung neuer Mitarbeiter"),
        ("Vesting schedule: Options vest over four years.", "Employee stock options"),
        # a note's label
        ("Note: the oldest backup file will be deleted.", "4.1. Common preferences"),
        ("Hinweis: Die älteste Sicherung wird gelöscht.", "Einstellungen"),
        # a sentence that only has a colon
        (
            "When creating a new backup, the oldest file goes: it is deleted first.",
            "4.1. Common preferences",
        ),
        # a label too long to be a setting's
        (
            "The backups KiCad makes on each save of a board: they pile up.",
            "4.1. Common preferences",
        ),
    ],
)
def test_other_labels_name_no_setting(sentence: str, title: str | None) -> None:
    assert not sets_a_setting(sentence, title)


PAGE = """<html><body>
<h2>2.2. Migrating files from previous versions</h2>
<p>In general, files created by one version of KiCad cannot be opened by older versions.
For this reason, it is important to keep backup copies of your projects when testing a
new KiCad release.</p>
<h2>4.1. Common preferences</h2>
<dl>
<dt>Automatically backup projects:</dt>
<dd>When enabled, KiCad projects will be archived to ZIP files automatically.</dd>
<dt>Maximum backups to keep:</dt>
<dd>When creating a new backup, the oldest backup file will be deleted to keep the
total number of backup files below this limit.</dd>
<dt>Icon scale:</dt>
<dd>Sets the size of the icons in the toolbars.</dd>
</dl>
</body></html>"""


def test_a_how_to_question_is_answered_by_the_setting(tmp_path: Path) -> None:
    (tmp_path / "kicad.html").write_text(PAGE, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(tmp_path / "kicad.html", tmp_path)
    record = app.ask("How can I limit how many backup copies of my project KiCad keeps?", OPERATOR)
    app.close()
    assert not record.abstained
    assert "Maximum backups to keep" in record.claims[0].text, record.claims


def test_only_a_setting_the_question_names_counts() -> None:
    """Another setting of the same section ("Icon scale: …" for a question on backups)
    does not instruct: the question's words must be in the label's sentence."""
    text = (
        "4.1. Common preferences\n\n"
        "Maximum backups to keep: The oldest backup is deleted to keep the total below "
        "this limit.\n\n"
        "Icon scale: Sets the size of the icons in the toolbars."
    )
    evidence = [Evidence("S1", "doc1", "r1", "m1", ("c1",), 0, len(text), text)]
    scoring = score_sentences("How can I limit how many backups KiCad keeps?", evidence)
    kinds = {
        text[s.start : s.end].split(":", maxsplit=1)[0]: s.support.answer_kind
        for s in scoring.sentences
    }
    assert kinds == {"Maximum backups to keep": True, "Icon scale": False}


@pytest.mark.parametrize(
    "question",
    [
        "How do I rename a backup file?",
        "How do I send my project backups to a cloud drive automatically?",
    ],
)
def test_a_setting_that_does_not_do_the_asked_action_answers_nothing(
    tmp_path: Path, question: str
) -> None:
    """A red team's cases: the backup settings share "backup" with these questions and
    answered them; a setting answers a how-to question only when it says what is to be
    done ("limit" in "… below this limit")."""
    (tmp_path / "kicad.html").write_text(PAGE, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(tmp_path / "kicad.html", tmp_path)
    record = app.ask(question, OPERATOR)
    app.close()
    assert record.abstained, record.answer
