"""A table's header row is no statement (issue 16, a new user's questions): "What is
the minimum recommended processor for a desktop installation?" quoted, after the
answer, "Install Type / RAM (minimum) / RAM (recommended) / Hard Drive", the header
row of the installation guide's requirements table, which shares "minimum" and
"recommended" with the question and says nothing."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR, evidence_of
from ragox.answer import score_sentences
from ragox.answer._extractive import ExtractiveConfig, ScoredSentence
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


def test_a_row_is_read_under_its_header(tmp_path: Path) -> None:
    """The header row names each row's values: "How much RAM is recommended for a
    desktop installation?" is answered by the rows (a red-team pass found the table
    dropped once its header row was no longer quoted), never by the header alone."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "requirements.html").write_text(REQUIREMENTS, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "requirements.html", folder, language="en")
        record = app.ask("How much RAM is recommended for a desktop installation?", OPERATOR)
    finally:
        app.close()
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any(quote.startswith("With Desktop") for quote in quotes), quotes
    assert not any(quote.startswith("Install Type") for quote in quotes), quotes


HEADER = "Install Type\n\nRAM (minimum)\n\nRAM (recommended)\n\nHard Drive"
NO_DESKTOP = "No desktop\n\n256 megabytes\n\n512 megabytes\n\n4 gigabytes"


def _scored(rows: list[str], after: str = "") -> dict[str, ScoredSentence]:
    """The sentences of a table (``HEADER`` then ``rows``, each a row) and the prose
    ``after`` it, scored for "How much RAM is recommended?", by their text."""
    parts = [HEADER, *rows]
    text = "\n\n".join([*parts, after] if after else parts)
    spans = [(text.index(part), text.index(part) + len(part)) for part in parts]
    scoring = score_sentences(
        "How much RAM is recommended?",
        evidence_of(text),
        None,
        ExtractiveConfig(),
        [tuple(spans)],
        [frozenset(spans[:1])],
    )
    return {s.evidence.text[s.start : s.end]: s for s in scoring.sentences}


def test_every_row_of_a_table_has_its_header_as_title() -> None:
    """Not only the row right under the header (its neighbour): every row is read under
    the header's words, as a section's sentences under its title."""
    second = "With Desktop\n\n1 gigabyte\n\n2 gigabytes\n\n10 gigabytes"
    by_text = _scored([NO_DESKTOP, second])
    assert HEADER not in by_text  # never quoted
    assert by_text[second].support.heading > 0


def test_prose_after_a_table_is_not_under_its_header() -> None:
    """A sentence after the table is read under its section, not under the header's
    words: only rows are the header's."""
    after = "Swap space is set up by the installer on every system it installs."
    by_text = _scored([NO_DESKTOP], after)
    assert by_text[after].support.heading == 0
