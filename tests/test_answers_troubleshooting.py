"""A reader who tells the symptom first and then asks how to fix it gets the fix
(issue 16, a new user's questions on GIMP's help): "My eraser paints white instead of
making things see-through. How do I fix that?" was taken for a question after a fact,
and the page's "How to tell: …" (which repeats the symptom) was quoted without its
"How to fix: Check the active layer …", whose "Check" was no imperative.

The page is made up for this test, after GIMP's "Getting Unstuck" pages."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox

PAGE = """<html><body>
<h2>2.12. Eraser does not make area transparent</h2>
<p>How to tell: You are trying to use the eraser to remove all color, but instead of a
transparent area appearing, the area turns white, the background color.</p>
<p>How to fix: Check the active layer in the Layers Dialog: right click on it to open a
menu and see if Add Alpha Channel is enabled. If it is, click that menu item to add an
alpha channel.</p>
<h2>2.13. Unexpected colors when painting</h2>
<p>How to tell: You paint with a brush, but a different color appears.</p>
<p>How to fix: Check whether the layer you are painting on has a layer mask.</p>
</body></html>"""


def test_the_fix_is_quoted_for_a_symptom_told_first(tmp_path: Path) -> None:
    (tmp_path / "stuck.html").write_text(PAGE, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(tmp_path / "stuck.html", tmp_path)
    record = app.ask(
        "My eraser paints white instead of making things transparent. How do I fix that?",
        OPERATOR,
    )
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("Check the active layer" in q for q in quotes), quotes
    assert not any("layer mask" in q for q in quotes), quotes
