"""PyMuPDF's table finder, asked more cheaply for the same tables.

``page.find_tables()`` first turns every character of the page into a pdfplumber-like
dict (``pymupdf.table.make_chars``): a ``Rect``, a ``Point``, a ``Matrix`` and two
calls into MuPDF per character. That was most of the finder's time. While
:func:`find_tables` runs, ``make_chars`` is replaced by :func:`_make_chars`, which
builds the same dicts from the same text page with plain float arithmetic:

* MuPDF transforms rectangles and points in single precision. The page's matrix
  is axis-aligned with unit scale here (``(±1, 0, 0, ±1, e, f)``, any other page
  falls back to PyMuPDF's own function), so each transformed coordinate is one
  product by ±1 or 0 (exact) plus the offset, rounded once to float32, which
  ``array("f")`` does for a whole page at once.

* Only the characters that can meet the vector graphics are kept: with the
  ``lines`` strategy every place the finder looks for characters (the rectangles
  of ``make_edges``' ``clean_graphics``, a table's text probe, its rows and cells in
  ``Table.extract``, the bold test of the header rows) lies inside the bounding box
  of the page's drawings. Two of those tests read ``y0``/``y1``, which PyMuPDF
  takes from the PDF's bottom-up coordinates, so a character also stays when that
  mirrored box meets the drawings. A character outside both cannot pass any test,
  so the tables, cells and headers are the ones the full list gives.

* ``chars_in_rect`` (asked once per joined rectangle of the drawings) looks only at
  the characters whose ``y0`` can pass, in the page's characters sorted by ``y0``
  once; and while the finder runs, ``Table.extract`` (which ``Table._get_header``
  calls for row 0's texts alone) extracts a row when it is indexed, by PyMuPDF's own
  steps, instead of every row of every table.

All of this rests on this PyMuPDF's ``table.py``: the replacement is installed only when
that file is the one these arguments were checked against (:data:`VERIFIED_TABLE_PY`,
a SHA-256 of its text); another PyMuPDF gets its own ``make_chars`` and the tables
are the same, found at the old cost. ``tests/test_extract_pdf_tables_fast.py``
compares both ways on real pages.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from operator import le
from pathlib import Path
from typing import Any, Final, overload

__all__ = ["VERIFIED_TABLE_PY", "Region", "fast_chars_available", "find_tables", "region_of"]

#: SHA-256 of the ``pymupdf/table.py`` whose ``make_chars`` and uses of ``CHARS``
#: :func:`_make_chars` reproduces.
VERIFIED_TABLE_PY: Final = "c6523e32da763bd2b84e7b0cb3d221c9938ff1dc06c19a2d0d97d3635999d6ca"

#: A rectangle of the page (x0, y0, x1, y1) that holds all its vector graphics.
Region = tuple[float, float, float, float]

#: The characters kept also reach this far past the drawings (PDF points): the
#: finder's tests compare exactly, so any margin is safe; this one covers the
#: difference between a path's ``rect`` and its items.
_MARGIN: Final = 2.0

#: While :func:`find_tables` runs: the region whose characters are kept, or
#: ``None`` for all of them (a rotated page, whose drawings move before the finder
#: reads them).
_ACTIVE: ContextVar[tuple[Region | None] | None] = ContextVar("ragox_pdf_find", default=None)

_INSTALLED: dict[str, Any] = {}
_INSTALLING: Final = threading.Lock()


def region_of(drawings: list[Any]) -> Region | None:
    """The bounding box of every point and rectangle of ``page.get_cdrawings()``."""
    xs: list[float] = []
    ys: list[float] = []
    for path in drawings:
        rect = path.get("rect")
        if rect is not None:
            xs += (rect[0], rect[2])
            ys += (rect[1], rect[3])
        for item in path.get("items", ()):
            kind = item[0]
            if kind == "re":
                x0, y0, x1, y1 = item[1]
                xs += (x0, x1)
                ys += (y0, y1)
            elif kind == "qu":
                for x, y in item[1]:
                    xs.append(x)
                    ys.append(y)
            else:
                for x, y in item[1:]:
                    xs.append(x)
                    ys.append(y)
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def fast_chars_available() -> bool:
    """Whether :func:`find_tables` builds the finder's characters itself (this
    PyMuPDF's ``table.py`` is the verified one)."""
    return _install() is not None


def find_tables(page: Any, region: Region | None) -> Any:
    """``page.find_tables(strategy="lines", use_layout=False)``: the same result,
    with the characters outside ``region`` (a box holding all of the page's vector
    graphics; ``None``: keep every character) left out of the finder's list."""
    if _install() is None:
        return page.find_tables(strategy="lines", use_layout=False)
    token = _ACTIVE.set((region,))
    try:
        return page.find_tables(strategy="lines", use_layout=False)
    finally:
        _ACTIVE.reset(token)


def _install() -> Any:
    """PyMuPDF's table module with :func:`_make_chars` in place, or ``None``."""
    if "table" in _INSTALLED:
        return _INSTALLED["table"]
    with _INSTALLING:
        if "table" not in _INSTALLED:
            _INSTALLED["table"] = _replace_make_chars()
    return _INSTALLED["table"]


def _replace_make_chars() -> Any:
    table: Any = importlib.import_module("pymupdf.table")
    source = Path(table.__file__).read_bytes() if table.__file__ else b""
    if hashlib.sha256(source).hexdigest() != VERIFIED_TABLE_PY:
        return None
    original = table.make_chars
    _INSTALLED["original"] = original

    def make_chars(page: Any, clip: Any = None) -> Any:
        active = _ACTIVE.get()
        if active is None or clip is not None:
            return original(page, clip=clip)
        built = _make_chars(table, page, active[0])
        return original(page, clip=clip) if built is None else built

    def chars_in_rect(chars: Any, rect: Any) -> bool:
        # PyMuPDF's own reads rect[0..3] (a Rect builds a tuple per index) for
        # every character; the same test with the four values read once, over
        # the characters whose y0 can pass it (the page's characters sorted by y0
        # once, for all of clean_graphics' rectangles).
        left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
        ys, boxes, ordered = _y_index(chars)
        for k in range(bisect_left(ys, top), len(ys)):
            y0, x0, x1, y1 = boxes[k]
            if ordered and y0 > bottom:
                break  # y1 >= y0 > bottom here and below
            if left <= x0 and x1 <= right and bottom >= y1:
                return True
        return False

    original_extract = table.Table.extract

    def extract(self: Any, **kwargs: Any) -> Any:
        # While the finder runs, only ``Table._get_header`` asks, for row 0's texts
        # (``self.extract()[0]``): the rows are extracted when indexed, not all.
        if _ACTIVE.get() is None:
            return original_extract(self, **kwargs)
        return _Rows(table, self, kwargs, original_extract)

    _INSTALLED["chars_in_rect"] = table.chars_in_rect
    _INSTALLED["extract"] = original_extract
    table.make_chars = make_chars
    table.chars_in_rect = chars_in_rect
    table.Table.extract = extract
    return table


class _Rows(Sequence[Any]):
    """``Table.extract()``'s rows, each extracted when first indexed, by the same steps
    as PyMuPDF's loop over the rows (``table.py``'s ``Table.extract``, pinned by
    :data:`VERIFIED_TABLE_PY`); a slice or a negative index extracts them all."""

    def __init__(self, table: Any, owner: Any, kwargs: dict[str, Any], whole: Any) -> None:
        self._module = table
        self._owner = owner
        self._kwargs = kwargs
        self._whole = whole
        self._rows = owner.rows
        self._done: dict[int, list[Any]] = {}

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice) or index < 0:
            return self._whole(self._owner, **self._kwargs)[index]
        if index not in self._done:
            self._done[index] = self._row(self._rows[index])
        return self._done[index]

    def _row(self, row: Any) -> list[Any]:
        owner = self._owner
        chars = owner._chars if owner._chars is not None else self._module.CHARS
        extract_text = self._module.extract_text
        kwargs = dict(self._kwargs)
        row_chars = [char for char in chars if _char_in_bbox(char, row.bbox)]
        arr: list[Any] = []
        for cell in row.cells:
            if cell is None:
                cell_text = None
            else:
                cell_chars = [char for char in row_chars if _char_in_bbox(char, cell)]
                if cell_chars:
                    kwargs["x_shift"] = cell[0]
                    kwargs["y_shift"] = cell[1]
                    if "layout" in kwargs:
                        kwargs["layout_width"] = cell[2] - cell[0]
                        kwargs["layout_height"] = cell[3] - cell[1]
                    cell_text = extract_text(cell_chars, **kwargs)
                else:
                    cell_text = ""
            arr.append(cell_text)
        return arr


#: The last character list, its length, and its ``(y0, x0, x1, y1)`` boxes: sorted
#: by :func:`_y_index` (with their y0 values and whether every y0 <= y1), or not yet
#: (``None``). The list is held so that its id is not reused while the entry is kept.
_Y_INDEX: ContextVar[tuple[Any, int, list[float] | None, list[Any], bool] | None] = ContextVar(
    "ragox_pdf_y_index", default=None
)


def _y_index(chars: Any) -> tuple[list[float], list[Any], bool]:
    """``chars`` (PyMuPDF's ``CHARS``, or a list of its dicts) as ``(y0, x0, x1, y1)``
    sorted by ``y0``, with their ``y0`` values; whether every ``y0 <= y1``. A
    character with a NaN coordinate passes no comparison and is left out. Built at
    the first call for a list (from the boxes :func:`_make_chars` kept, if it built
    the list)."""
    items = chars._list() if hasattr(chars, "_list") else chars
    cached = _Y_INDEX.get()
    if cached is not None and cached[0] is items and cached[1] == len(items):
        if cached[2] is not None:
            return cached[2], cached[3], cached[4]
        boxes = cached[3]
    else:
        boxes = [(c["y0"], c["x0"], c["x1"], c["y1"]) for c in items]
    kept = sorted(
        box
        for box in boxes
        if box[0] == box[0] and box[1] == box[1] and box[2] == box[2] and box[3] == box[3]
    )
    ys = [box[0] for box in kept]
    ordered = all(box[0] <= box[3] for box in kept)
    _Y_INDEX.set((items, len(items), ys, kept, ordered))
    return ys, kept, ordered


def _char_in_bbox(char: Any, bbox: Any) -> bool:
    """PyMuPDF's test in ``Table.extract``: the character's centre in ``bbox``
    (right and bottom edges excluded)."""
    v_mid = (char["top"] + char["bottom"]) / 2
    h_mid = (char["x0"] + char["x1"]) / 2
    x0, top, x1, bottom = bbox
    return bool((h_mid >= x0) and (h_mid < x1) and (v_mid >= top) and (v_mid < bottom))


def _make_chars(table: Any, page: Any, region: Region | None) -> Any:
    """What ``table.make_chars(page)`` appends to ``CHARS`` (the characters near
    ``region`` only) and returns; ``None`` for a page whose matrix is not
    axis-aligned with unit scale (the caller then asks PyMuPDF's own)."""
    pymupdf = table.pymupdf
    # MuPDF reads the matrix as float32
    a, b, c, d, e, f = array("f", tuple(page.transformation_matrix)).tolist()
    if b != 0.0 or c != 0.0 or a not in (1.0, -1.0) or d not in (1.0, -1.0):
        return None
    chars = table.CHARS._list()
    page_number = page.number + 1
    page_height = page.rect.height
    textpage = page.get_textpage(clip=None, flags=table.FLAGS)
    blocks = page.get_text("rawdict", textpage=textpage)["blocks"]
    doctop_base = page_height * page.number
    bold_flag = pymupdf.TEXT_FONT_BOLD
    srgb_to_pdf = pymupdf.sRGB_to_pdf
    if region is None:
        rx0 = ry0 = float("-inf")
        rx1 = ry1 = float("inf")
    else:
        rx0, ry0 = region[0] - _MARGIN, region[1] - _MARGIN
        rx1, ry1 = region[2] + _MARGIN, region[3] + _MARGIN
    # First pass: the characters in make_chars' order with what they share with
    # their span, and the four coordinates MuPDF would transform.
    picked: list[tuple[Any, Any]] = []
    exact: list[float] = []
    for block in blocks:
        for line in block["lines"]:
            ldir = line["dir"]
            ldir = (round(ldir[0], 4), round(ldir[1], 4))
            upright = ldir[1] == 0
            matrix = (float(ldir[0]), float(-ldir[1]), float(ldir[1]), float(ldir[0]))
            for span in _by_x0(line["spans"]):
                shared = (
                    upright,
                    matrix,
                    span["font"],
                    span["size"],
                    bool(span["flags"] & bold_flag or span["char_flags"] & 8),
                    srgb_to_pdf(span["color"]),
                )
                for char in _by_x0(span["chars"]):
                    x0, y0, x1, y1 = char["bbox"]
                    if (x0 < rx0 and x1 < rx0) or (x0 > rx1 and x1 > rx1):
                        continue
                    # fz_transform_rect: with a or d negative the corners swap,
                    # then a corner's y is p.x*m.b + p.y*m.d + m.f, in float32
                    if a < 0:
                        x0, x1 = x1, x0
                    if d < 0:
                        y0, y1 = y1, y0
                    ox, oy = char["origin"]
                    picked.append((shared, char))
                    exact += (
                        x0 * b + y0 * d + f,
                        x1 * b + y1 * d + f,
                        ox * a + oy * c + e,
                        ox * b + oy * d + f,
                    )
    values = iter(array("f", exact).tolist())
    boxes: list[tuple[float, float, float, float]] = []
    for (shared, char), (ctm_y0, ctm_y1, origin_x, origin_y) in zip(
        picked, zip(values, values, values, values, strict=True), strict=True
    ):
        bx0, by0, bx1, by1 = char["bbox"]
        if ((by0 < ry0 and by1 < ry0) or (by0 > ry1 and by1 > ry1)) and (
            (ctm_y0 < ry0 and ctm_y1 < ry0) or (ctm_y0 > ry1 and ctm_y1 > ry1)
        ):
            continue
        upright, matrix, fontname, fontsize, span_bold, color = shared
        width = bx1 - bx0
        height = by1 - by0
        chars.append(
            {
                "adv": width if upright else height,
                "bottom": by1,
                "doctop": by0 + doctop_base,
                "fontname": fontname,
                "height": height,
                "matrix": (*matrix, origin_x, origin_y),
                "ncs": "DeviceRGB",
                "non_stroking_color": color,
                "non_stroking_pattern": None,
                "object_type": "char",
                "page_number": page_number,
                "size": fontsize if upright else height,
                "stroking_color": color,
                "stroking_pattern": None,
                "bold": span_bold,
                "text": char["c"],
                "top": by0,
                "upright": upright,
                "width": width,
                "x0": bx0,
                "x1": bx1,
                "y0": ctm_y0,
                "y1": ctm_y1,
            }
        )
        boxes.append((ctm_y0, bx0, bx1, ctm_y1))
    # for chars_in_rect: sorted when first asked
    _Y_INDEX.set((chars, len(chars), None, boxes, False))
    return textpage


def _bbox_x0(item: Any) -> Any:
    return item["bbox"][0]


def _by_x0(items: list[Any]) -> list[Any]:
    """``sorted(items, key=bbox x0)``: the items themselves when their x0 never
    decreases (a stable sort would keep that order; NaN fails ``<=`` and sorts)."""
    xs = [item["bbox"][0] for item in items]
    if all(map(le, xs, islice(xs, 1, None))):
        return items
    return sorted(items, key=_bbox_x0)


@contextmanager
def original_make_chars() -> Iterator[None]:
    """PyMuPDF's own ``make_chars`` inside the block (for comparisons in tests)."""
    token = _ACTIVE.set(None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
