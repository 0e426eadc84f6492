"""A PDF paragraph that MuPDF gives as one block per printed line, joined again.

Some producers (XeTeX among them) draw each line of a paragraph so that MuPDF's text
device makes a block of it. Blocks are paragraphs to ragox: they are joined with a
blank line, which ends sentences for the splitter and keeps a word hyphenated at a
line's end apart ("в ка-" / "талоге ∼/.instead/games"). A quote then started or
stopped mid-sentence, and "Нажмите f2/f3 … быстрым сохранением/" lost the keys on
its next line (a new user's questions over the INSTEAD manual).

A block goes on in the next one when the next one's first line is the paragraph's
next line, as typesetting shows it:

- both lines are set mostly in the same font, size and weight (a heading in bold, a
  code line in a monospace font are not the paragraph's), and the next one starts
  right below (a gap of at most :data:`_LINE_GAP` of the size);
- the line before runs the column's full width (it starts at the column's left edge
  or within a paragraph's indent of it, and ends at its right edge, not past it: a
  path too long to break sticks out, and says nothing of where its paragraph ends): a
  short line ends its paragraph;
- the next line starts at the column's left edge and not with white space: an
  indented one opens a paragraph;
- the line before ends no sentence (closing quotes and brackets after its mark
  included), and the next one is no list item ("•", "►", "2.", "a)", "(1)", a
  marker alone on its line) nor a numbered title ("9.4.1 Timing …"), the line before
  is no page number, and neither is a line of a table of contents (dot leaders).

The column's edges are where most of the page's lines start and end (a line sticking
out past them does not move them). A two-column page's right column never starts at
its left edge, so its lines stay blocks, as before.
Table cells (their own units) are never joined. Only the blocks change: every line
keeps its text and its character boxes, joined by a line feed as MuPDF's own
multi-line blocks are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ragox.extract._pdftables import CellRef

__all__ = ["join_paragraph_lines"]

#: the most space between two lines of one paragraph, per point of their size
_LINE_GAP: Final = 0.8
#: how far a line may miss an edge of the column and still reach it, per point of size
_EDGE: Final = 0.5
#: how far in a paragraph's first line may start, per point of size
_INDENT: Final = 3.0
#: how short of the right edge a line of a paragraph may end, per point of size
_SHORT: Final = 2.0

_SENTENCE_END: Final = tuple(".!?:;…。！？؟।")
#: closing quotes and brackets after a sentence's mark ('… end."', '… (see below.)')
_CLOSING: Final = "\"'”’»)]}›"
#: a list item's marker opening a line: a symbol, or a number or letter (up to three)
#: with a full stop or a bracket, then white space or the line's end
_ITEM: Final = re.compile(r"(?:[^\w\s\"'“„«‘(\[]|\(?\w{1,3}[.)]|\d+(?:\.\d+)+\.?)(?:\s|$)")
#: dot leaders: a line of a table of contents ("Timing a process . . . . 143")
_LEADERS: Final = re.compile(r"(?:\.\s?){4}")
_NUMBER_ONLY: Final = re.compile(r"[\d\s.]+")
#: a line's font, size and weight (bold: MuPDF's span flag 16)
_Style = tuple[str, float, bool]

#: a unit of a page: a MuPDF-like block dict and its table cell (None outside tables)
Unit = tuple[Any, CellRef | None]


def join_paragraph_lines(units: Sequence[Unit]) -> list[Unit]:
    """``units`` with each run of blocks that are the lines of one paragraph joined into
    one block (its lines, the first block's number, the union of their boxes)."""
    # (the rest of a block beside a table is cut into lines without boxes: never joined)
    boxes = [
        line["bbox"]
        for block, cell in units
        if cell is None
        for line in block["lines"]
        if "bbox" in line
    ]
    if len(boxes) < 2:
        return list(units)
    left = _edge([box[0] for box in boxes], min)
    right = _edge([box[2] for box in boxes], max)
    out: list[Unit] = []
    # blocks made here, whose list of lines grows as blocks join them (each block's
    # lines are added once: a page of 80,000 one-line blocks stays linear)
    made: set[int] = set()
    for block, cell in units:
        if out and cell is None and out[-1][1] is None and block["lines"]:
            previous = out[-1][0]
            if previous["lines"] and _goes_on(
                previous["lines"][-1], block["lines"][0], left, right
            ):
                if id(previous) not in made:
                    previous = {**previous, "lines": list(previous["lines"])}
                    made.add(id(previous))
                    out[-1] = (previous, None)
                _extend(previous, block)
                continue
        out.append((block, cell))
    return out


def _extend(block: dict[str, Any], following: Any) -> None:
    x0, y0, x1, y1 = block["bbox"]
    a0, b0, a1, b1 = following["bbox"]
    block["bbox"] = (min(x0, a0), min(y0, b0), max(x1, a1), max(y1, b1))
    block["lines"].extend(following["lines"])


def _edge(values: list[float], outer: Any) -> float:
    """Where most lines start (``min``) or end (``max``): of the positions (to half a
    point) shared by at least a tenth of the lines, the outermost; else the outermost
    of all (too few lines share one)."""
    counts: dict[float, int] = {}
    for value in values:
        key = round(value * 2) / 2
        counts[key] = counts.get(key, 0) + 1
    shared = [key for key, count in counts.items() if count >= max(2, len(values) // 10)]
    return float(outer(shared)) if shared else float(outer(values))


def _goes_on(last: Any, first: Any, left: float, right: float) -> bool:
    """``first`` is the next line of the paragraph that ``last`` is a line of."""
    if "bbox" not in last or "bbox" not in first:
        return False
    style = _style(last)
    if style is None or style != _style(first):
        return False
    size = style[1]
    gap = first["bbox"][1] - last["bbox"][3]
    if gap < -_EDGE * size or gap > _LINE_GAP * size:
        return False
    if abs(first["bbox"][0] - left) > _EDGE * size:
        return False  # indented: a paragraph's first line, or another column
    if (
        last["bbox"][0] > left + _INDENT * size
        or last["bbox"][2] < right - _SHORT * size
        or last["bbox"][2] > right + _EDGE * size
    ):
        return False  # not the column's full width: its paragraph ended, or it sticks out
    before = _text(last).rstrip()
    after = _text(first)
    return bool(
        before
        and after.strip()
        and not after[0].isspace()
        and not before.rstrip(_CLOSING).endswith(_SENTENCE_END)
        and _ITEM.match(after) is None
        and _NUMBER_ONLY.fullmatch(before) is None
        and _LEADERS.search(before) is None
        and _LEADERS.search(after) is None
    )


def _style(line: Any) -> _Style | None:
    """The font, size and weight most of the line's letters are set in (a symbol from
    another font, "∼" in "талоге ∼/.instead/games", may be larger); None for a line
    without letters or sizes."""
    counts: dict[_Style, int] = {}
    for span in line["spans"]:
        if "size" in span:
            letters = sum(not char["c"].isspace() for char in span["chars"])
            if letters:
                key = (
                    str(span.get("font", "")),
                    round(float(span["size"]), 1),
                    bool(int(span.get("flags", 0)) & 16),
                )
                counts[key] = counts.get(key, 0) + letters
    return max(counts, key=lambda key: (counts[key], key), default=None)


def _text(line: Any) -> str:
    return "".join(char["c"] for span in line["spans"] for char in span["chars"])
