"""A PDF paragraph that MuPDF gives as one block per printed line is one block again
(``ragox.extract._pdflines``): a new user's questions over the INSTEAD manual (XeTeX)
were answered with quotes that began or stopped mid-sentence, and "в ка-" / "талоге
∼/.instead/games" was never one word."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from conftest import OPERATOR
from ragox.extract._pdflines import join_paragraph_lines
from ragox.extract.pdf import extract_pdf
from ragox.service import Ragox
from ragox.text import BASE_PROFILE

INSTEAD = Path(__file__).parent / "data" / "pdf" / "instead-ru.pdf"


def _block_texts(path: Path) -> list[str]:
    extraction = extract_pdf(path.read_bytes(), BASE_PROFILE)
    return [extraction.text[b.span.start : b.span.end] for b in extraction.blocks]


def test_a_paragraphs_lines_are_one_block_and_paragraphs_stay_apart() -> None:
    texts = _block_texts(INSTEAD)
    games = next(t for t in texts if "ищет доступные игры" in t)
    assert "просматривает также игры в ка-\nталоге ∼/.instead/games." in games
    assert games.endswith("игры ищутся в каталоге ./appdata/games, если он существует.")
    # the next paragraph (its first line indented) is a block of its own
    assert any(t.startswith("В некоторых сборках INSTEAD") for t in texts)
    saving = next(t for t in texts if "быстрым сохранением" in t)
    assert saving.startswith("При отладке игры") and saving.endswith("(клавиши f8/f9).")
    # a code line stays a block: it ends no line of a paragraph
    assert "require ”dbg”" in texts
    raw = sum(
        1
        for page in pymupdf.open(INSTEAD)
        for block in page.get_text("rawdict")["blocks"]
        if block["type"] == 0
    )
    assert len(texts) < raw


def test_every_code_point_of_a_joined_block_keeps_its_box() -> None:
    extraction = extract_pdf(INSTEAD.read_bytes(), BASE_PROFILE)
    boxes = extraction.char_boxes
    assert boxes is not None
    games = next(
        b
        for b in extraction.blocks
        if "ищет доступные" in extraction.text[b.span.start : b.span.end]
    )
    start = extraction.text.index("талоге ∼", games.span.start)
    line_above = extraction.text.index("версия интерпретатора", games.span.start)

    def box(index: int) -> tuple[float, ...]:
        return struct.unpack_from("<4f", boxes, 16 * index)

    # "талоге" is drawn below the line above it, and inside the joined block's box
    assert box(start)[1] > box(line_above)[3] - 1
    assert games.bbox is not None and games.bbox.y1 >= box(start)[3] - 0.01
    assert len(boxes) == 16 * len(extraction.text)


def _line(
    text: str, x0: float, y0: float, x1: float, size: float = 10.0, **span: Any
) -> dict[str, Any]:
    chars = [{"c": c, "bbox": (x0, y0, x1, y0 + size)} for c in text]
    return {
        "bbox": (x0, y0, x1, y0 + size),
        "spans": [{"size": size, "font": "Serif", "flags": 0, "chars": chars, **span}],
    }


def _block(number: int, *lines: dict[str, Any]) -> dict[str, Any]:
    x0 = min(line["bbox"][0] for line in lines)
    return {
        "number": number,
        "bbox": (
            x0,
            lines[0]["bbox"][1],
            max(line["bbox"][2] for line in lines),
            lines[-1]["bbox"][3],
        ),
        "lines": list(lines),
    }


FULL = "a line that runs the column's whole width and goes on in the next one"


@pytest.mark.parametrize(
    ("before", "after", "joined"),
    [
        (_line(FULL, 100, 100, 500), _line("the next line", 80, 114, 300), True),
        (_line(FULL, 80, 100, 500), _line("the next line", 80, 114, 300), True),
        # indented: a paragraph's first line
        (_line(FULL, 80, 100, 500), _line("A new paragraph", 98, 114, 500), False),
        # the line before is short: its paragraph ended
        (_line("a short last line", 80, 100, 300), _line("next", 80, 114, 500), False),
        # …or ends a sentence
        (_line(FULL + ".", 80, 100, 500), _line("next", 80, 114, 500), False),
        # a list item, a numbered one
        (_line(FULL, 80, 100, 500), _line("• an item", 80, 114, 500), False),
        (_line(FULL, 80, 100, 500), _line("2. a step", 80, 114, 500), False),
        # another size, or far below
        (_line(FULL, 80, 100, 500), _line("next", 80, 114, 500, size=12.0), False),
        (_line(FULL, 80, 100, 500), _line("next", 80, 125, 500), False),
        # a page number
        (_line("12" + " " * 60, 80, 100, 500), _line("next", 80, 114, 500), False),
        # list markers of every kind, alone on their line or before the item
        *(
            (_line(FULL, 80, 100, 500), _line(marker, 80, 114, 500), False)
            for marker in ("2.", "a) the item", "(1) the item", "► the item", "\uf0b7", "iv.")
        ),
        # a numbered title, a table of contents' line
        (_line(FULL, 80, 100, 500), _line("9.4.1 Timing a process", 80, 114, 500), False),
        (_line("Timing a process . . . . . . 143", 80, 100, 500), _line("x", 80, 114, 500), False),
        # a sentence's end before a closing quote or bracket
        (_line(FULL + '."', 80, 100, 500), _line("next", 80, 114, 500), False),
        (_line(FULL + " (see below.)", 80, 100, 500), _line("next", 80, 114, 500), False),
        # a line that sticks out past the column (a path too long to break)
        (_line(FULL, 80, 100, 540), _line("next", 80, 114, 500), False),
        # a heading in bold, a code line in another font, an indent of white space
        (_line(FULL, 80, 100, 500), _line("Beispiel 33", 80, 114, 300, flags=16), False),
        (_line(FULL, 80, 100, 500), _line("require dbg", 80, 114, 300, font="Mono"), False),
        (_line(FULL, 80, 100, 500), _line("\u3000\u3000next", 80, 114, 500), False),
    ],
)
def test_lines_join_when_typesetting_says_they_are_one_paragraph(
    before: dict[str, Any], after: dict[str, Any], joined: bool
) -> None:
    """The column is the page's text from x=80 to x=500, set in 10 pt (where most of
    its lines start and end)."""
    column = [(_block(n, _line("A line.", 80, 600 + 30 * n, 500)), None) for n in range(10, 14)]
    units = [(_block(1, before), None), (_block(2, after), None), *column]
    out = join_paragraph_lines(units)[: -len(column)]
    assert len(out) == (1 if joined else 2)
    if joined:
        block = out[0][0]
        assert block["number"] == 1 and block["lines"] == [before, after]
        assert block["bbox"] == (80, 100, 500, 124)


def test_table_cells_are_never_joined() -> None:
    before = _block(1, _line(FULL, 80, 100, 500))
    after = _block(2, _line("next", 80, 114, 500))
    units = [(before, None), (after, "cell")]
    assert join_paragraph_lines(units) == units
    assert join_paragraph_lines([(before, "cell"), (after, None)]) == [
        (before, "cell"),
        (after, None),
    ]


@pytest.mark.both_backends
def test_a_quote_from_such_a_pdf_goes_on_past_its_line(app: Ragox, tmp_path: Path) -> None:
    """ "где instead ищет игры на линуксе" was answered "… также игры в ка-" without the
    path on the next line (new-user find)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / INSTEAD.name).write_bytes(INSTEAD.read_bytes())
    app.ingest_path(folder / INSTEAD.name, folder)
    record = app.ask("где instead ищет игры на линуксе?", OPERATOR)
    assert not record.abstained, record.answer
    quotes = " ".join(c.anchor.quote.exact for c in record.citations)
    assert "∼/.instead/games" in quotes, quotes


def test_a_line_sticking_out_does_not_move_the_columns_edges() -> None:
    """A margin note at x=40 and a path running to x=560 beside a column from 80 to 500:
    the column's lines still join (the edges are where most lines start and end)."""
    column = [(_block(n, _line("A line.", 80, 600 + 30 * n, 500)), None) for n in range(10, 14)]
    outliers = [
        (_block(20, _line("Note.", 40, 900, 70)), None),
        (_block(21, _line("/usr/share/doc/a-very-long-path.", 80, 950, 560)), None),
    ]
    before, after = _block(1, _line(FULL, 80, 100, 500)), _block(2, _line("next", 80, 114, 300))
    out = join_paragraph_lines([(before, None), (after, None), *column, *outliers])
    assert len(out) == 1 + len(column) + len(outliers)
    assert out[0][0]["lines"] == [*before["lines"], *after["lines"]]
