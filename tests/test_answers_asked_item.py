"""A long introduced list is quoted to its last item that the question asks about
(issue 16, a new-user pass over the Debian FAQ): "What does it mean when a package is
essential or required priority?" quoted "The priorities are:" with all four priorities,
1,378 characters, for the first. A how-to question's list is steps, quoted whole: the
step that answers may share no word with the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._extractive import units
from ragox.service import Ragox

PRIORITIES = """<!DOCTYPE html>
<html lang="en"><head><title>Package priorities</title></head><body>
<h2>7.7. What is a Required, Important, Standard, Optional, or Extra package?</h2>
<p>Each Debian package is assigned a priority by the distribution maintainers, as an aid
to the package management system. The priorities are:</p>
<ul>
<li><p>Required: packages that are necessary for the proper functioning of the
system.</p><p>This includes all tools that are necessary to repair system defects. You
must not remove these packages or your system may become totally broken.</p></li>
<li><p>Important packages should be found on any Unix-like system.</p><p>Other packages
which the system will not run well or be usable without will be here. This does not
include Emacs or X or TeX or any other large application.</p></li>
<li><p>Standard packages are standard on any Linux system, including a reasonably small
but not too limited character-mode system.</p><p>This is what will be installed by
default if users do not select anything else.</p></li>
<li><p>Optional packages include all those that you might reasonably want to install if
you did not know what it was, or do not have special needs.</p></li>
</ul>
</body></html>
"""
SCREEN = """<!DOCTYPE html>
<html lang="en"><head><title>screen</title></head><body>
<h2>9.1. The screen program</h2>
<p>Here is a typical scenario for using screen after a lost connection:</p>
<ol>
<li>You log in to a remote machine and start screen on a simple console.</li>
<li>You run several programs in screen windows, created with ^A c, and switch between
the windows with ^A n.</li>
<li>Suddenly the network connection to the remote machine is lost while the session
keeps running there.</li>
<li>You log in to the same remote machine again.</li>
<li>You start screen with "screen -r" and every program is back as you left it.</li>
</ol>
</body></html>
"""


def _ask(tmp_path: Path, name: str, html: str, question: str) -> list[str]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / name).write_text(html, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / name, folder, language="en")
        record = app.ask(question, OPERATOR)
    finally:
        app.close()
    assert not record.abstained, record.answer
    return [c.anchor.quote.exact for c in record.citations]


def _first_quote(app: Ragox, html: str, name: str, question: str) -> str:
    """Ingest ``html`` as ``name`` and ask: the first citation's exact quote."""
    app.ingestor.ingest_bytes(html.encode(), name, name, tenant="default")
    record = app.ask(question, OPERATOR)
    assert not record.abstained, record.answer
    return record.citations[0].anchor.quote.exact


def test_a_list_of_things_is_quoted_to_the_item_asked_about(tmp_path: Path) -> None:
    quotes = _ask(
        tmp_path,
        "priorities.html",
        PRIORITIES,
        "What does it mean when a package has required priority?",
    )
    listed = next(q for q in quotes if "The priorities are:" in q)
    assert "repair system defects" in listed
    assert "Important packages" not in listed and "Optional packages" not in listed


def test_a_how_to_questions_list_is_quoted_whole(tmp_path: Path) -> None:
    quotes = _ask(
        tmp_path,
        "screen.html",
        SCREEN,
        "How do I resume the session after the connection was lost?",
    )
    assert any('"screen -r"' in q for q in quotes), quotes


CHARACTERS = """<!DOCTYPE html>
<html lang="de"><head><title>Tabelle umbenennen</title></head><body>
<h2 id="hd_1">Einschränkungen für Tabellennamen</h2>
<p id="par_1">Tabellennamen können nahezu jedes Zeichen enthalten. Als Einschränkungen
gelten die folgenden, nicht erlaubten Zeichen in Tabellennamen:</p>
<ul>
<li><p id="par_2">Doppelpunkt <span class="literal">:</span></p></li>
<li><p id="par_3">Rückstrich <span class="literal">\\</span></p></li>
<li><p id="par_4">Schrägstrich <span class="literal">/</span></p></li>
<li><p id="par_5">Fragezeichen <span class="literal">?</span></p></li>
</ul>
<p id="par_6">Ähnliche Zeichen des Apostrophs sind erlaubt.</p>
</body></html>
"""


@pytest.mark.both_backends
def test_a_list_whose_items_are_located_by_their_ids_is_quoted_whole(app: Ragox) -> None:
    """LibreOffice's help gives each list item's paragraph an id, so its blocks are
    located by their ids, not by a path through the list: "Welche Zeichen sind in
    Tabellennamen nicht erlaubt?" was answered with the introducing sentence and the
    first item alone ("Doppelpunkt :"; new-user find)."""
    first = _first_quote(
        app, CHARACTERS, "rename_table.html", "welche zeichen sind in tabellennamen nicht erlaubt?"
    )
    assert first.startswith("Als Einschränkungen"), first
    for item in ("Doppelpunkt :", "Rückstrich \\", "Schrägstrich /", "Fragezeichen ?"):
        assert item in first, first


PAGE_BREAKS = """<!DOCTYPE html>
<html lang="en"><head><title>Inserting and Deleting Page Breaks</title></head><body>
<h1 id="hd_1">Inserting and Deleting Page Breaks</h1>
<h2 id="hd_2">To Insert a Manual Page Break</h2>
<ol>
<li><p id="par_1">Click in your document where you want the new page to begin.</p></li>
<li><p id="par_2">Press Ctrl+Enter.</p></li>
</ol>
<h2 id="hd_3">To Delete a Manual Page Break</h2>
<ol>
<li><p id="par_3">Place the cursor before the first character on the page that follows
the manual page break.</p></li>
<li><p id="par_4">Press Backspace.</p></li>
</ol>
<h2>To Change the Text Flow of a Table</h2>
<ol>
<li>Right-click in the table, and choose Table Properties.</li>
<li>Click the Text Flow tab.</li>
<li>Clear the Break check box.</li>
</ol>
</body></html>
"""


@pytest.mark.both_backends
def test_a_how_to_questions_steps_under_their_title_are_quoted_together(app: Ragox) -> None:
    """Steps that no sentence introduces, under their section's title, are one block for
    a how-to question: "как убрать разрыв страницы" was answered with step 1 ("Place
    the cursor before …") without step 2 ("Press Backspace"; new-user find, LibreOffice's
    help). Items located by their ids or by a path alike."""
    first = _first_quote(
        app, PAGE_BREAKS, "page_break.html", "How do I delete a manual page break?"
    )
    assert first.startswith("Place the cursor") and first.endswith("Press Backspace."), first
    first = _first_quote(
        app, PAGE_BREAKS, "page_break.html", "How do I change the text flow of a table?"
    )
    assert first.startswith("Right-click") and first.endswith("Clear the Break check box."), first
    # a question of another kind is answered item by item, as before (here its
    # passage may introduce a block, so its lists are read)
    noted = PAGE_BREAKS.replace('<h1 id="hd_1">', "<p>Note: a break shows as a line.</p><h1>")
    first = _first_quote(app, noted, "noted.html", "Which key deletes a manual page break?")
    assert "Press Backspace." not in first, first


def _ANY_TITLE(title: str) -> bool:
    return True


def test_steps_no_sentence_introduces_are_one_unit_for_a_how_to_question_only() -> None:
    """The units of a passage: a list of steps under a title is one block with ``steps``
    (a how-to question's), its items apart without; a page's contents (the aptitude
    manual's FAQ questions were quoted with an answer) are no steps."""
    text = "To Delete a Break\n\nPlace the cursor.\n\nPress Backspace.\n\nAfter."
    items = (
        (text.index("Place"), text.index("Place") + 17),
        (text.index("Press"), text.index("Press") + 16),
    )
    spans = [(s, e) for s, e, _ in units(text, (), (items,))]
    assert [text[s:e] for s, e in spans] == [
        "To Delete a Break",
        "Place the cursor.",
        "Press Backspace.",
        "After.",
    ]
    together = [(text[s:e], block) for s, e, block in units(text, (), (items,), steps=_ANY_TITLE)]
    assert together == [
        ("To Delete a Break", False),
        ("Place the cursor.\n\nPress Backspace.", True),
        ("After.", False),
    ]
    # …under a title that names nothing the question asks, its items stay apart
    apart = [(text[s:e], block) for s, e, block in units(text, (), (items,), steps=lambda t: False)]
    assert apart == [
        (t, False) for t in ("To Delete a Break", "Place the cursor.", "Press Backspace.", "After.")
    ]
    # a list under no title it can see (the passage opens inside it; a sentence, lines
    # or a long paragraph are before it) is no section's steps
    for before in (
        "",
        "Place the cursor where the page ends.\n\n",
        "apt update\napt upgrade\n\n",
        "A paragraph of prose that goes on for a while and never ends in a full stop "
        "or any other mark at all\n\n",
    ):
        bare = f"{before}Place the cursor.\n\nPress Backspace."
        found = (
            (bare.index("Place the cursor."), bare.index("Press") - 2),
            (bare.index("Press"), len(bare)),
        )
        assert all(not block for *_, block in units(bare, (), (found,), steps=_ANY_TITLE)), bare
    # a page's contents are no steps: numbered section titles, questions, link titles
    for first, second in (
        ("3.1. Как мне найти пакет по имени?", "3.2. Как я могу найти сломанные пакеты?"),
        ("How do I find a package?", "Why does aptitude keep the mouse?"),
        ("Defining Borders for Pages", "Defining Borders for Paragraphs"),
        ("3.1. Installing a package.", "3.2. Removing a package."),
        ("15 degrees (Shift)", "Rotates by steps of 15 degrees."),
    ):
        toc = f"Contents\n\n{first}\n\n{second}"
        spans = ((toc.index(first), toc.index(first) + len(first)), (toc.index(second), len(toc)))
        assert all(not block for *_, block in units(toc, (), (spans,), steps=_ANY_TITLE)), toc


TIPS = """<!DOCTYPE html>
<html lang="en"><head><title>Computer tips</title></head><body>
<h2>Computer tips</h2>
<ul>
<li>Back up your files to the network drive every Friday.</li>
<li>Keep your antivirus definitions up to date.</li>
<li>To reset your password, open Settings - Accounts and click Reset Password.</li>
<li>Lock your screen with Windows+L when you leave your desk.</li>
<li>Store recovery keys in the company vault, never on paper.</li>
</ul>
</body></html>
"""


@pytest.mark.both_backends
def test_a_list_under_a_title_the_question_does_not_name_is_quoted_item_by_item(
    app: Ragox,
) -> None:
    """A page of tips is no procedure for each of them: "How do I reset my password?"
    is answered by its tip, not by the list of every tip under "Computer tips", nor
    "… on Windows?" by every tip under "Windows" (red-team finds: the whole list was
    quoted)."""
    first = _first_quote(app, TIPS, "tips.html", "How do I reset my password?")
    assert first == "To reset your password, open Settings - Accounts and click Reset Password."
    # a title that shares one word with the question does not name what it asks
    windows = TIPS.replace("<h2>Computer tips</h2>", "<h2>Windows</h2>").replace(
        "Lock your screen", "To install the printer driver on Windows, run setup.exe. Lock"
    )
    first = _first_quote(
        app, windows, "windows.html", "How do I install the printer driver on Windows?"
    )
    assert first.startswith("To install the printer driver") and "Back up" not in first, first


BREAK_RU = """<!DOCTYPE html>
<html lang="ru"><head><title>Вставка и удаление разрывов страниц</title></head><body>
<h1 id="hd_1">Вставка и удаление разрывов страниц</h1>
<h2 id="hd_2">Удаление разрыва страницы вручную</h2>
<ol>
<li><p id="par_1">Установите курсор перед первым символом на странице, перед которой
находится жёсткий разрыв.</p></li>
<li><p id="par_2">Нажмите клавишу BACKSPACE.</p></li>
</ol>
</body></html>
"""


@pytest.mark.both_backends
def test_steps_under_a_title_holding_one_word_of_the_question_are_quoted_together(
    app: Ragox,
) -> None:
    """LibreOffice's Russian help: "как убрать разрыв страницы" shares one word with the
    title "Удаление разрыва страницы вручную" as the stemmer sees them ("разрыв" and
    "разрыва" stem apart), and its steps are the answer (new-user find)."""
    first = _first_quote(app, BREAK_RU, "page_break.html", "как убрать разрыв страницы?")
    assert first.startswith("Установите курсор") and first.endswith("BACKSPACE."), first
