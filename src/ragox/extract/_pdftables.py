"""PDF tables: PyMuPDF's table finder turns the characters inside a table into cells.

A page is asked ``page.find_tables(strategy="lines", use_layout=False)`` only when
its vector graphics hold enough horizontal and vertical rules to draw a grid
(:data:`MIN_RULES` each, of one extent; the finder costs about ten times a text
extraction). The
characters of MuPDF's ``rawdict`` whose centre lies inside a cell become that cell's
text, in MuPDF's order, a new line wherever MuPDF's line changes; everything else
stays in its text block. A table's cells enter the reading order, row by row, where
the first of its characters would have been.

A table that a text line crosses into (letters in its cells and in no cell on one
MuPDF line), or whose cells hold text in fewer than half of them, is taken for a
figure's ruling and left as text.

Headers (PyMuPDF decides a table's header row: its first row unless it finds an
external header above the table, which stays ordinary text):

* a table's first row is its header row, unless PyMuPDF found the header outside;
* a table at the top of the next page (the first table there) with the same number
  of columns at the same positions as the last table of the page before continues
  that table: it keeps the table's number and its rows count on. A first row whose
  texts equal the header row's is the repeated header row: header cells again, and
  the cells below on that page take them as headers (shown on the same page);
  without one, the cells take the header cells of the table's first page.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from ragox.extract._model import TableCell
from ragox.extract._pdffinder import Region, find_tables, region_of

__all__ = ["MIN_RULES", "CellRef", "CellShape", "GridShape", "TableTracker", "split_page"]

#: Horizontal and vertical rules (each, of one extent) a page needs before the finder
#: is asked.
MIN_RULES: Final = 3
_MIN_RULE_LENGTH: Final = 5.0
#: Column edges of a continued table agree within this share of the table's width.
_EDGE_TOLERANCE: Final = 0.03
_SPACES: Final = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class CellRef:
    """A cell of a table found on the current page (an index into the tracker's page)."""

    grid: int
    cell: int


@dataclass(slots=True)
class _Cell:
    row: int
    col: int
    row_span: int
    col_span: int
    bbox: tuple[float, float, float, float]
    #: MuPDF character dicts per line of the cell, with each line's direction
    lines: list[tuple[Any, list[Any]]] = field(default_factory=list)
    last_line: int = -1

    def text(self) -> str:
        joined = " ".join("".join(c["c"] for c in chars) for _, chars in self.lines)
        return _SPACES.sub(" ", joined).strip()


@dataclass(slots=True)
class _Grid:
    bbox: tuple[float, float, float, float]
    xs: list[float]  # column left edges
    ys: list[float]  # row top edges
    cells: list[_Cell]
    slots: dict[tuple[int, int], int]
    external_header: bool
    rows: int

    def locate(self, x: float, y: float) -> int | None:
        x0, y0, x1, y1 = self.bbox
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return None
        col = bisect_right(self.xs, x) - 1
        row = bisect_right(self.ys, y) - 1
        if col < 0 or row < 0:
            return None
        return self.slots.get((row, col))

    def relative_edges(self) -> list[float]:
        x0, _, x1, _ = self.bbox
        width = max(x1 - x0, 1e-6)
        return [(x - x0) / width for x in self.xs]


@dataclass(slots=True)
class _Table:
    """One logical table, possibly over several pages."""

    number: int
    columns: int
    edges: list[float]
    header_names: tuple[str, ...]
    #: block ids of the first page's header cells, per column
    header_ids: dict[int, list[str]] = field(default_factory=dict)
    rows: int = 0


@dataclass(frozen=True, slots=True)
class CellShape:
    """A cell's place in its page's grid."""

    row: int
    col: int
    row_span: int
    col_span: int


@dataclass(frozen=True, slots=True)
class GridShape:
    """What numbering and linking need of one table found on a page: no page objects,
    so a page read in another process can send it back."""

    #: column left edges relative to the table's width (0 at its left edge)
    edges: tuple[float, ...]
    #: the texts of the cells of its first row, in cell order
    first_row: tuple[str, ...]
    external_header: bool
    rows: int
    cells: tuple[CellShape, ...]


@dataclass(slots=True)
class _Linked:
    """A page's grid once numbered: its table and where its rows start."""

    shape: GridShape
    table: _Table
    first_row: int
    header_row: bool
    #: block ids of this page's header cells, per column
    header_ids: dict[int, list[str]] = field(default_factory=dict)


#: a page drawing more paths than this (a CAD drawing, a map: millions of them) is
#: read as text alone: the finder would hold every path, gigabytes for a 300 kB file
MAX_TABLE_PATHS: Final = 20_000


def _drawings(page: Any) -> list[Any] | None:
    """The page's vector paths (``page.get_cdrawings()``), or None when there are more
    than :data:`MAX_TABLE_PATHS`: they are taken one at a time, and not kept past the
    limit, so memory stays bounded however many the page draws. (The callback must
    not raise: PyMuPDF 1.28 crashes if it does.)"""
    kept: list[Any] = []
    too_many = False

    def take(path: Any) -> None:
        nonlocal too_many
        if too_many:
            return
        if len(kept) >= MAX_TABLE_PATHS:
            too_many = True
            kept.clear()
            return
        kept.append(path)

    page.get_cdrawings(callback=take)
    return None if too_many else kept


def _grid_like(page: Any) -> tuple[bool, Region | None]:
    """Whether the page's vector graphics could draw a grid: at least
    :data:`MIN_RULES` horizontal rules of one extent (the rows of one table) and as
    many vertical rules of one extent (its columns); rectangle sides count as rules,
    rules shorter than :data:`_MIN_RULE_LENGTH` (ticks, underlines of a letter) not.
    With it, the box that holds all of the graphics (``None`` on a rotated page,
    whose graphics the finder reads turned)."""
    horizontal: Counter[tuple[int, int]] = Counter()
    vertical: Counter[tuple[int, int]] = Counter()
    drawings = _drawings(page)
    if drawings is None:
        return False, None
    for path in drawings:
        for item in path.get("items", ()):
            if item[0] == "re":
                x0, y0, x1, y1 = item[1]
                segments = [(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)]
            elif item[0] == "l":
                (a, b), (c, d) = item[1], item[2]
                segments = [(a, b, c, d)]
            else:
                continue
            for a, b, c, d in segments:
                if abs(b - d) < 1 and abs(a - c) >= _MIN_RULE_LENGTH:
                    horizontal[(round(min(a, c)), round(max(a, c)))] += 1
                elif abs(a - c) < 1 and abs(b - d) >= _MIN_RULE_LENGTH:
                    vertical[(round(min(b, d)), round(max(b, d)))] += 1
    grid = (
        max(horizontal.values(), default=0) >= MIN_RULES
        and max(vertical.values(), default=0) >= MIN_RULES
    )
    return grid, (region_of(drawings) if grid and not page.rotation else None)


def _grid(table: Any) -> _Grid | None:
    boxes = [tuple(float(v) for v in box) for box in table.cells if box is not None]
    if len(boxes) < 2:
        return None
    xs = sorted({round(b[0], 1) for b in boxes})
    ys = sorted({round(b[1], 1) for b in boxes})
    cells: list[_Cell] = []
    slots: dict[tuple[int, int], int] = {}
    for box in sorted(boxes, key=lambda b: (round(b[1], 1), round(b[0], 1))):
        x0, y0, x1, y1 = box
        col = xs.index(round(x0, 1))
        row = ys.index(round(y0, 1))
        col_span = max(1, sum(1 for x in xs if x0 - 0.5 <= x < x1 - 0.5))
        row_span = max(1, sum(1 for y in ys if y0 - 0.5 <= y < y1 - 0.5))
        index = len(cells)
        cells.append(_Cell(row, col, row_span, col_span, (x0, y0, x1, y1)))
        for r in range(row, row + row_span):
            for c in range(col, col + col_span):
                slots.setdefault((r, c), index)
    header = table.header
    return _Grid(
        bbox=tuple(float(v) for v in table.bbox),  # type: ignore[arg-type]
        xs=xs,
        ys=ys,
        cells=cells,
        slots=slots,
        external_header=bool(header is not None and header.external),
        rows=len(ys),
    )


def _trim(cell: _Cell) -> None:
    """Drop the white space at a cell's edges: the gaps between cells, not its text."""
    while cell.lines:
        chars = cell.lines[0][1]
        while chars and chars[0]["c"].isspace():
            del chars[0]
        if chars:
            break
        del cell.lines[0]
    while cell.lines:
        chars = cell.lines[-1][1]
        while chars and chars[-1]["c"].isspace():
            chars.pop()
        if chars:
            break
        cell.lines.pop()


def _plausible(grids: list[_Grid], blocks: list[Any]) -> list[_Grid]:
    """The grids no text line crosses into (a MuPDF line with letters both in a cell
    and in no cell is prose running through a figure's ruling, not a row of a table,
    and splitting it would scatter the line over two blocks), and
    whose cells hold text at least half of them, in two rows or more (a diagram's
    labels fill few)."""
    rejected: set[int] = set()
    filled: list[set[int]] = [set() for _ in grids]
    for block in blocks:
        for line in block["lines"]:
            inside: set[int] = set()
            outside = False
            for span in line["spans"]:
                for char in span["chars"]:
                    if char["c"].isspace():
                        continue
                    x0, y0, x1, y1 = char["bbox"]
                    x, y = (x0 + x1) / 2, (y0 + y1) / 2
                    for number, grid in enumerate(grids):
                        cell = grid.locate(x, y)
                        if cell is not None:
                            inside.add(number)
                            filled[number].add(cell)
                            break
                    else:
                        outside = True
            if outside and inside:
                rejected |= inside
    for number, grid in enumerate(grids):
        rows = {grid.cells[cell].row for cell in filled[number]}
        if 2 * len(filled[number]) < len(grid.cells) or len(rows) < 2:
            rejected.add(number)
    return [grid for number, grid in enumerate(grids) if number not in rejected]


def split_page(
    page: Any, raw_blocks: list[Any]
) -> tuple[list[tuple[Any, CellRef | None]], tuple[GridShape, ...]]:
    """The page's text blocks in reading order, each table cell as a block of its own
    (a MuPDF-like block dict: ``number``, ``bbox``, ``lines``), with its ref; and the
    shapes of the page's tables, for :meth:`TableTracker.page`."""
    text_blocks = [b for b in raw_blocks if b["type"] == 0]
    grids = _find(page) if text_blocks else []
    if grids:
        grids = _plausible(grids, text_blocks)
    if not grids:
        return [(b, None) for b in text_blocks], ()
    units: list[tuple[Any, CellRef | None]] = []
    placed: set[int] = set()
    for block in text_blocks:
        rest: dict[str, Any] | None = None
        for line_no, line in enumerate(block["lines"]):
            rest_line: list[Any] | None = None
            for span in line["spans"]:
                for char in span["chars"]:
                    x0, y0, x1, y1 = char["bbox"]
                    found = _locate(grids, (x0 + x1) / 2, (y0 + y1) / 2)
                    if found is None:
                        if rest is None:
                            rest = {"number": block["number"], "bbox": block["bbox"]}
                            rest["lines"] = []
                            units.append((rest, None))
                        if rest_line is None:
                            rest_line = []
                            rest["lines"].append(
                                {"dir": line["dir"], "spans": [{"chars": rest_line}]}
                            )
                        rest_line.append(char)
                        continue
                    grid_no, cell_no = found
                    if grid_no not in placed:
                        placed.add(grid_no)
                        units.append(({"grid": grid_no}, None))
                    cell = grids[grid_no].cells[cell_no]
                    key = block["number"] * 100_000 + line_no
                    if cell.last_line != key:
                        cell.last_line = key
                        cell.lines.append((line["dir"], []))
                    cell.lines[-1][1].append(char)
    # The first row's texts before trimming (the text collapses white space anyway).
    shapes = tuple(_shape(grid) for grid in grids)
    expanded: list[tuple[Any, CellRef | None]] = []
    for unit, ref in units:
        if "grid" not in unit:
            # What is left of a text block: the box of its own glyphs only.
            boxes = [c["bbox"] for ln in unit["lines"] for c in ln["spans"][0]["chars"]]
            unit["bbox"] = (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            expanded.append((unit, ref))
            continue
        grid_no = unit["grid"]
        for cell_no, cell in enumerate(grids[grid_no].cells):
            _trim(cell)
            if cell.lines:
                # The cell's rectangle, widened to glyphs that stick out of it.
                x0, y0, x1, y1 = cell.bbox
                for _, chars in cell.lines:
                    for char in chars:
                        a, b, c, d = char["bbox"]
                        x0, y0, x1, y1 = min(x0, a), min(y0, b), max(x1, c), max(y1, d)
                pseudo = {
                    "number": -1,
                    "bbox": (x0, y0, x1, y1),
                    "lines": [
                        {"dir": direction, "spans": [{"chars": chars}]}
                        for direction, chars in cell.lines
                    ],
                }
                expanded.append((pseudo, CellRef(grid_no, cell_no)))
    return expanded, shapes


def _shape(grid: _Grid) -> GridShape:
    return GridShape(
        edges=tuple(grid.relative_edges()),
        first_row=tuple(c.text() for c in grid.cells if c.row == 0),
        external_header=grid.external_header,
        rows=grid.rows,
        cells=tuple(CellShape(c.row, c.col, c.row_span, c.col_span) for c in grid.cells),
    )


def _find(page: Any) -> list[_Grid]:
    grid, region = _grid_like(page)
    if not grid:
        return []
    try:
        found = find_tables(page, region)
    except Exception:  # the finder's own failures leave the page as text blocks
        return []
    if found is None:  # PyMuPDF's finder gives None where it failed inside
        return []
    grids = [g for g in map(_grid, found.tables) if g is not None]
    return sorted(grids, key=lambda g: (g.bbox[1], g.bbox[0]))


def _locate(grids: list[_Grid], x: float, y: float) -> tuple[int, int] | None:
    for number, grid in enumerate(grids):
        cell = grid.locate(x, y)
        if cell is not None:
            return number, cell
    return None


class TableTracker:
    """Numbers the tables of the pages (given in page order, as :func:`split_page`
    shaped them) over the document and links a table continued on the next page."""

    def __init__(self) -> None:
        self._count = 0
        self._previous: _Table | None = None
        self._grids: list[_Linked] = []

    def page(self, shapes: tuple[GridShape, ...]) -> None:
        """Number the next page's tables; the first may continue the previous page's
        last."""
        self._grids = []
        for position, shape in enumerate(shapes):
            columns = len(shape.edges)
            previous = self._previous if position == 0 else None
            if previous is not None and self._continues(previous, shape):
                linked = _Linked(
                    shape,
                    previous,
                    first_row=previous.rows,
                    header_row=bool(previous.header_names)
                    and shape.first_row == previous.header_names,
                )
            else:
                header_row = not shape.external_header and shape.rows > 1
                linked = _Linked(
                    shape,
                    _Table(
                        number=self._count,
                        columns=columns,
                        edges=list(shape.edges),
                        header_names=shape.first_row if header_row else (),
                    ),
                    first_row=0,
                    header_row=header_row,
                )
                self._count += 1
            linked.table.rows = linked.first_row + shape.rows
            self._grids.append(linked)
        self._previous = self._grids[-1].table if self._grids else None

    @staticmethod
    def _continues(previous: _Table, shape: GridShape) -> bool:
        if len(shape.edges) != previous.columns:
            return False
        return all(
            abs(a - b) <= _EDGE_TOLERANCE for a, b in zip(shape.edges, previous.edges, strict=True)
        )

    def cell(self, ref: CellRef, block_id: str) -> TableCell:
        """The table cell of block ``block_id`` on the current page (header cells are
        registered, so call in reading order)."""
        grid = self._grids[ref.grid]
        table = grid.table
        cell = grid.shape.cells[ref.cell]
        header = grid.header_row and cell.row == 0
        if header:
            for col in range(cell.col, cell.col + cell.col_span):
                grid.header_ids.setdefault(col, []).append(block_id)
                if grid.first_row == 0:
                    table.header_ids.setdefault(col, []).append(block_id)
            ids: list[str] = []
        else:
            source = grid.header_ids if grid.header_row else table.header_ids
            ids = []
            for col in range(cell.col, cell.col + cell.col_span):
                for found in source.get(col, ()):
                    if found not in ids:
                        ids.append(found)
        return TableCell(
            table=table.number,
            row=grid.first_row + cell.row,
            col=cell.col,
            row_span=cell.row_span,
            col_span=cell.col_span,
            header=header,
            header_ids=tuple(ids),
        )
