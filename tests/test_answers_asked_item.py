"""A long introduced list is quoted to its last item that the question asks about
(issue 16, a new-user pass over the Debian FAQ): "What does it mean when a package is
essential or required priority?" quoted "The priorities are:" with all four priorities,
1,378 characters, for the first. A how-to question's list is steps, quoted whole: the
step that answers may share no word with the question."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
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
