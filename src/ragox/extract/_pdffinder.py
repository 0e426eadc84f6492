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

Both rest on this PyMuPDF's ``table.py``: the replacement is installed only when
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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Final

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
        # every character; the same test with the four values read once.
        left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
        for c in chars:
            if left <= c["x0"] and c["x1"] <= right and top <= c["y0"] and bottom >= c["y1"]:
                return True
        return False

    table.make_chars = make_chars
    table.chars_in_rect = chars_in_rect
    return table


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
            for span in sorted(line["spans"], key=_bbox_x0):
                shared = (
                    upright,
                    matrix,
                    span["font"],
                    span["size"],
                    bool(span["flags"] & bold_flag or span["char_flags"] & 8),
                    srgb_to_pdf(span["color"]),
                )
                for char in sorted(span["chars"], key=_bbox_x0):
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
    rounded = array("f", exact).tolist()
    at = 0
    for shared, char in picked:
        ctm_y0, ctm_y1, origin_x, origin_y = rounded[at : at + 4]
        at += 4
        bx0, by0, bx1, by1 = char["bbox"]
        if ((by0 < ry0 and by1 < ry0) or (by0 > ry1 and by1 > ry1)) and (
            (ctm_y0 < ry0 and ctm_y1 < ry0) or (ctm_y0 > ry1 and ctm_y1 > ry1)
        ):
            continue
        upright, matrix, fontname, fontsize, span_bold, color = shared
        chars.append(
            {
                "adv": bx1 - bx0 if upright else by1 - by0,
                "bottom": by1,
                "doctop": by0 + doctop_base,
                "fontname": fontname,
                "height": by1 - by0,
                "matrix": (*matrix, origin_x, origin_y),
                "ncs": "DeviceRGB",
                "non_stroking_color": color,
                "non_stroking_pattern": None,
                "object_type": "char",
                "page_number": page_number,
                "size": fontsize if upright else by1 - by0,
                "stroking_color": color,
                "stroking_pattern": None,
                "bold": span_bold,
                "text": char["c"],
                "top": by0,
                "upright": upright,
                "width": bx1 - bx0,
                "x0": bx0,
                "x1": bx1,
                "y0": ctm_y0,
                "y1": ctm_y1,
            }
        )
    return textpage


def _bbox_x0(item: Any) -> Any:
    return item["bbox"][0]


@contextmanager
def original_make_chars() -> Iterator[None]:
    """PyMuPDF's own ``make_chars`` inside the block (for comparisons in tests)."""
    token = _ACTIVE.set(None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
