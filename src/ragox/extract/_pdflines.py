"""A PDF paragraph that MuPDF gives as one block per printed line, joined again.

Some producers (XeTeX among them) draw each line of a paragraph so that MuPDF's text
device makes a block of it. Blocks are paragraphs to ragox: they are joined with a
blank line, which ends sentences for the splitter and keeps a word hyphenated at a
line's end apart ("в ка-" / "талоге ∼/.instead/games"). A quote then started or
stopped mid-sentence, and "Нажмите f2/f3 … быстрым сохранением/" lost the keys on
its next line (a new user's questions over the INSTEAD manual).

A block goes on in the next one when the next one's first line is the paragraph's
next line, as typesetting shows it:

- both lines are set in the same size, and the next one starts right below (a gap of
  at most :data:`_LINE_GAP` of the size);
- the line before runs the column's full width (it starts at the column's left edge
  or within a paragraph's indent of it, and ends at its right edge): a short line ends
  its paragraph;
- the next line starts at the column's left edge: an indented one opens a paragraph;
- the line before ends no sentence, and the next one is no list item ("•", "1.") and
  the line before is no page number.

The column is the page's: its leftmost and rightmost text. A two-column page's right
column never starts at the page's left edge, so its lines stay blocks, as before.
Table cells (their own units) are never joined. Only the blocks change: every line
keeps its text and its character boxes, joined by a line feed as MuPDF's own
multi-line blocks are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

__all__ = ["join_paragraph_lines"]

#: the most space between two lines of one paragraph, per point of their size
_LINE_GAP: Final = 0.8
#: how far a line may miss an edge of the column and still reach it, per point of size
_EDGE: Final = 0.5
#: how far in a paragraph's first line may start, per point of size
_INDENT: Final = 3.0
#: how short of the right edge a line of a paragraph may end, per point of size
_SHORT: Final = 2.0
#: sizes of two lines that are one size
_SAME_SIZE: Final = 0.3

_SENTENCE_END: Final = tuple(".!?:;…")
_ITEM: Final = re.compile(r"[•◦▪·*–\-]|\d+[.)]?\s")
_NUMBER_ONLY: Final = re.compile(r"[\d\s.]+")

#: a unit of a page: a MuPDF-like block dict and its table cell (None outside tables)
Unit = tuple[Any, Any]


def join_paragraph_lines(units: Sequence[Unit]) -> list[Unit]:
    """``units`` with each run of blocks that are the lines of one paragraph joined into
    one block (its lines, the first block's number, the union of their boxes)."""
    # (the rest of a block beside a table is cut into lines without boxes: never joined)
    lines = [
        line["bbox"]
        for block, cell in units
        if cell is None
        for line in block["lines"]
        if "bbox" in line
    ]
    if len(lines) < 2:
        return list(units)
    left = min(box[0] for box in lines)
    right = max(box[2] for box in lines)
    out: list[Unit] = []
    for block, cell in units:
        if out and cell is None and out[-1][1] is None and block["lines"] and out[-1][0]["lines"]:
            previous = out[-1][0]
            if _goes_on(previous["lines"][-1], block["lines"][0], left, right):
                out[-1] = (_joined(previous, block), None)
                continue
        out.append((block, cell))
    return out


def _goes_on(last: Any, first: Any, left: float, right: float) -> bool:
    """``first`` is the next line of the paragraph that ``last`` is a line of."""
    if "bbox" not in last or "bbox" not in first:
        return False
    size = _size(last)
    if not size or abs(size - _size(first)) > _SAME_SIZE:
        return False
    gap = first["bbox"][1] - last["bbox"][3]
    if gap < -_EDGE * size or gap > _LINE_GAP * size:
        return False
    if abs(first["bbox"][0] - left) > _EDGE * size:
        return False  # indented: a paragraph's first line, or another column
    if last["bbox"][0] > left + _INDENT * size or last["bbox"][2] < right - _SHORT * size:
        return False  # not the column's full width: its paragraph ended
    before = _text(last).rstrip()
    after = _text(first).lstrip()
    return bool(
        before
        and after
        and not before.endswith(_SENTENCE_END)
        and _ITEM.match(after) is None
        and _NUMBER_ONLY.fullmatch(before) is None
    )


def _joined(block: Any, following: Any) -> dict[str, Any]:
    x0, y0, x1, y1 = block["bbox"]
    a0, b0, a1, b1 = following["bbox"]
    return {
        "number": block["number"],
        "bbox": (min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1)),
        "lines": [*block["lines"], *following["lines"]],
        **{key: value for key, value in block.items() if key not in ("number", "bbox", "lines")},
    }


def _size(line: Any) -> float:
    """The size most of the line's letters are set in (a symbol from another font,
    "∼" in "талоге ∼/.instead/games", may be larger)."""
    counts: dict[float, int] = {}
    for span in line["spans"]:
        if "size" in span:
            letters = sum(not char["c"].isspace() for char in span["chars"])
            if letters:
                size = float(span["size"])
                counts[size] = counts.get(size, 0) + letters
    return max(counts, key=lambda size: (counts[size], size), default=0.0)


def _text(line: Any) -> str:
    return "".join(char["c"] for span in line["spans"] for char in span["chars"])
