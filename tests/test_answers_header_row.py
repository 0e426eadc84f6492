"""A table's header row is no statement (issue 16, a new user's questions): "What is
the minimum recommended processor for a desktop installation?" quoted, after the
answer, "Install Type / RAM (minimum) / RAM (recommended) / Hard Drive", the header
row of the installation guide's requirements table, which shares "minimum" and
"recommended" with the question and says nothing."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox

REQUIREMENTS = """<html><body>
<h2>3.4. Meeting Minimum Hardware Requirements</h2>
<p>A Pentium 4, 1GHz system is the minimum recommended for a desktop system.</p>
<table>
<thead><tr><th>Install Type</th><th>RAM (minimum)</th><th>RAM (recommended)</th>
<th>Hard Drive</th></tr></thead>
<tbody>
<tr><td>No desktop</td><td>256 megabytes</td><td>512 megabytes</td><td>4 gigabytes</td></tr>
<tr><td>With Desktop</td><td>1 gigabyte</td><td>2 gigabytes</td><td>10 gigabytes</td></tr>
</tbody>
</table>
<p>The actual minimum memory requirements are a lot less than the numbers listed in
this table.</p>
</body></html>"""


def test_the_header_row_is_not_quoted(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "requirements.html").write_text(REQUIREMENTS, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "requirements.html", folder, language="en")
        record = app.ask(
            "What is the minimum recommended RAM and processor for a desktop installation?",
            OPERATOR,
        )
    finally:
        app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("Pentium 4" in quote for quote in quotes), quotes
    assert not any(quote.startswith("Install Type") for quote in quotes), quotes
