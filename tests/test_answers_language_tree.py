"""An untranslated page in another language's tree is not cited before the same page
in the tree of the question's language (issue 16, a new user's questions on KiCad's
manuals): the German manual's "kicad/de/pcbnew.html" holds the English text, and
English answers cited it first, with "kicad/en/pcbnew.html" under "also in"."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.search import path_language as _path_language
from ragox.service import Ragox

PAGE = (
    "# Zones\n\n"
    "To fill all copper zones of the board, choose Edit → Fill All Zones. The zones are "
    "filled with the clearance set in the board setup."
)


def _trees(tmp_path: Path, name: str, text: str, trees: tuple[str, ...]) -> Ragox:
    """A home with the same English page in each language tree of ``trees``
    ("manual/de/NAME" …), ingested in that order (the first is ranked first on ties)."""
    app = Ragox(tmp_path / "home")
    for language in trees:
        folder = tmp_path / "manual" / language
        folder.mkdir(parents=True)
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, tmp_path, language="en")
    return app


def test_the_copy_in_the_askers_tree_is_cited_first(tmp_path: Path) -> None:
    # the German tree first: its copy is ranked first
    app = _trees(tmp_path, "pcbnew.md", PAGE, ("de", "en"))
    record = app.ask("How do I fill all copper zones of the board?", OPERATOR)
    app.close()
    assert not record.abstained
    assert record.citations[0].anchor.document_id == "manual/en/pcbnew.md", record.citations


@pytest.mark.parametrize(
    ("document_id", "language"),
    [
        ("kicad/en/pcbnew.html", "en"),
        ("faq/faq.de.html", "de"),
        ("guide_ru.md", "ru"),
        ("docs/readme.md", None),
        # two codes: no telling
        ("de/en/page.html", None),
    ],
)
def test_the_language_a_path_names(document_id: str, language: str | None) -> None:
    assert _path_language(document_id) == language


HOTKEYS = (
    "<html><body><h1>Hotkeys</h1><table>"
    "<tr><th>Action</th><th>Default hotkey</th></tr>"
    "<tr><td>Fill All Zones</td><td>B</td></tr>"
    "<tr><td>Unfill All Zones</td><td>Ctrl+B</td></tr>"
    "<tr><td>Route Single Track</td><td>X</td></tr>"
    "</table></body></html>"
)


def test_a_cells_copy_in_the_askers_tree_is_cited_first(tmp_path: Path) -> None:
    """A cell quoted alone for a question naming its row and column: the same order."""
    app = _trees(tmp_path, "pcbnew.html", HOTKEYS, ("de", "en"))
    record = app.ask("What is the default hotkey for Fill All Zones?", OPERATOR)
    app.close()
    assert not record.abstained
    [citation] = record.citations
    assert citation.anchor.quote.exact == "B", record.citations
    assert citation.anchor.document_id == "manual/en/pcbnew.html", record.citations
    assert [c.anchor.document_id for c in citation.also_in] == ["manual/de/pcbnew.html"]


def test_search_shows_the_copy_in_the_askers_tree_first(tmp_path: Path) -> None:
    """`search` lists a passage found in several language trees under the query's copy
    (a new user's pass over GIMP's help: the German tree's untranslated page led an
    English query's hits)."""
    app = _trees(tmp_path, "pcbnew.md", PAGE, ("de", "en", "ru"))
    english = app.search("How do I fill all copper zones?", OPERATOR, collapse=True)
    german = app.search("Wie fülle ich alle Kupferzonen (copper zones)?", OPERATOR, collapse=True)
    app.close()
    [hit] = english
    assert hit.document_id == "manual/en/pcbnew.md"
    assert sorted(c.document_id for c in hit.also_in) == [
        "manual/de/pcbnew.md",
        "manual/ru/pcbnew.md",
    ]
    assert german[0].document_id == "manual/de/pcbnew.md"
