"""The table finder asked cheaply (``ragox.extract._pdffinder``) finds exactly what
PyMuPDF's own ``find_tables`` finds, and pages without a grid never ask it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from ragox.extract import Extraction
from ragox.extract import _pdffinder as finder
from ragox.extract._pdftables import _grid_like
from ragox.extract.pdf import extract_pdf
from ragox.text import BASE_PROFILE

DATA = Path(__file__).parent / "data"
TORQUE = DATA / "tables" / "fastener-torque.pdf"


def _variant(change: str) -> bytes:
    """The torque-table PDF with every page turned, or with a crop box or media box
    that does not start at the origin (another page matrix for the finder)."""
    document = pymupdf.open(TORQUE)
    for page in document:
        if change.startswith("rotate"):
            page.set_rotation(int(change.removeprefix("rotate")))
        elif change == "cropbox":
            r = page.rect
            page.set_cropbox(pymupdf.Rect(r.x0 + 10, r.y0 + 15, r.x1 - 5, r.y1 - 20))
        elif change == "mediabox":
            r = page.mediabox
            page.set_mediabox(pymupdf.Rect(r.x0 - 30, r.y0 - 40, r.x1 + 20, r.y1 + 10))
    data: bytes = document.tobytes()
    document.close()
    return data


def _ruling() -> bytes:
    """A ruled 4 x 4 grid with text in it, text beside it, and a line of text where
    the grid's mirror image lies (PyMuPDF tests some characters in bottom-up
    coordinates), over a second page holding a real table."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    for k in range(5):
        page.draw_line((100, 100 + 40 * k), (260, 100 + 40 * k))
        page.draw_line((100 + 40 * k, 100), (100 + 40 * k, 260))
    for row in range(4):
        for col in range(4):
            page.insert_text((105 + 40 * col, 125 + 40 * row), f"r{row}c{col}", fontsize=9)
    page.insert_text((300, 150), "Text to the right of the grid.", fontsize=11)
    page.insert_text((110, 842 - 180), "Text where the grid's mirror image lies.", fontsize=11)
    page.insert_text((72, 800), "Footer far from every drawing.", fontsize=11)
    css = "table {border-collapse: collapse} td, th {border: 0.5pt solid black; padding: 2pt}"
    body = (
        "<p>Codes of the pump.</p><table><tr><th>Code</th><th>Meaning</th></tr>"
        + "".join(f"<tr><td>E{i:02d}</td><td>fault {i}</td></tr>" for i in range(1, 6))
        + "</table><p>More text after the table.</p>"
    )
    second = document.new_page(width=595, height=842)
    second.insert_htmlbox(pymupdf.Rect(50, 50, 545, 800), body, css=css)
    data: bytes = document.tobytes()
    document.close()
    return data


def _documents() -> list[tuple[str, bytes]]:
    return [
        ("torque", TORQUE.read_bytes()),
        ("rotate90", _variant("rotate90")),
        ("rotate270", _variant("rotate270")),
        ("cropbox", _variant("cropbox")),
        ("mediabox", _variant("mediabox")),
        ("ruling", _ruling()),
    ]


def _characters(table: Any, page: Any, active: tuple[finder.Region | None] | None) -> list[Any]:
    """What the finder's ``make_chars`` puts in ``CHARS`` for ``page``."""
    table._CHARS_VAR.set([])
    small = bool(pymupdf.TOOLS.set_small_glyph_heights())
    pymupdf.TOOLS.set_small_glyph_heights(True)
    token = finder._ACTIVE.set(active)
    try:
        table.make_chars(page)
    finally:
        finder._ACTIVE.reset(token)
        pymupdf.TOOLS.set_small_glyph_heights(small)
    return list(table.CHARS)


def _tables(found: Any) -> list[str]:
    """Everything of a finder's result, as text (floats exactly)."""
    return [
        repr(
            (
                t.cells,
                t.bbox,
                t.header.external,
                t.header.names,
                tuple(t.header.bbox),
                t.extract(),
            )
        )
        for t in found.tables
    ]


def test_only_the_verified_pymupdf_gets_the_fast_characters() -> None:
    """The fast characters are used exactly when this PyMuPDF's table.py is the one they
    were checked against (its SHA-256); any other PyMuPDF (a newer 1.x a fresh machine
    installs) keeps its own make_chars, so its tables are found as before, at the old
    cost. Here, with the checked PyMuPDF (1.28.2 when this was written), the fast path
    is on; after an upgrade compare again (this file's tests) and update the hash."""
    import hashlib
    from pathlib import Path

    import pymupdf.table

    source = Path(pymupdf.table.__file__).read_bytes()
    verified = hashlib.sha256(source).hexdigest() == finder.VERIFIED_TABLE_PY
    assert finder.fast_chars_available() is verified
    if pymupdf.VersionBind == "1.28.2":
        assert verified


@pytest.mark.parametrize(("name", "data"), _documents())
def test_characters_are_pymupdfs_own(name: str, data: bytes) -> None:
    """Every character dict (all 23 fields, floats bit for bit, the order) equals the
    one PyMuPDF's make_chars builds, on every page."""
    table = finder._install()
    document = pymupdf.open(stream=data, filetype="pdf")
    compared = 0
    for page in document:
        own = _characters(table, page, None)
        fast = _characters(table, page, (None,))
        assert repr(fast) == repr(own), (name, page.number)
        compared += len(own)
    assert compared > 100


@pytest.mark.parametrize(("name", "data"), _documents())
def test_tables_found_with_the_region_are_the_full_finders(name: str, data: bytes) -> None:
    """With only the characters near the drawings, the finder returns the same tables,
    cells, headers and cell texts as PyMuPDF's own finder over all of them."""
    document = pymupdf.open(stream=data, filetype="pdf")
    found = 0
    for page in document:
        grid, region = _grid_like(page)
        if not grid:
            continue
        own = _tables(page.find_tables(strategy="lines", use_layout=False))
        assert _tables(finder.find_tables(page, region)) == own, (name, page.number)
        found += len(own)
    assert found >= 2


def test_region_keeps_the_mirror_image_and_leaves_out_far_text() -> None:
    """PyMuPDF tests cells' bold text and rectangles against bottom-up ``y0``/``y1``:
    characters at the grid's mirror image stay; a footer far from both goes."""
    table = finder._install()
    document = pymupdf.open(stream=_ruling(), filetype="pdf")
    page = document[0]
    grid, region = _grid_like(page)
    assert grid and region is not None
    kept = "".join(c["text"] for c in _characters(table, page, (region,)))
    every = "".join(c["text"] for c in _characters(table, page, None))
    assert "r0c0" in kept and "mirror" in kept
    assert "Footer" in every and "Footer" not in kept


def _extract_both(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Extraction, Extraction]:
    fast = extract_pdf(data, BASE_PROFILE, workers=1)
    with monkeypatch.context() as patched:
        patched.setitem(finder._INSTALLED, "table", None)  # PyMuPDF's own finder
        own = extract_pdf(data, BASE_PROFILE, workers=1)
    return fast, own


@pytest.mark.parametrize(("name", "data"), _documents())
def test_extraction_is_the_one_pymupdfs_finder_gives(
    name: str, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole extraction (text, blocks, table cells, boxes) is byte-identical."""
    fast, own = _extract_both(data, monkeypatch)
    assert fast == own
    assert fast.char_boxes == own.char_boxes
    if name in ("torque", "ruling"):
        assert any(b.cell is not None for b in fast.blocks), name


def test_pages_without_a_drawn_grid_never_ask_the_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page without drawings skips find_tables; a page with a ruled table asks it
    and its table is still found."""
    asked: list[int] = []
    real = pymupdf.Page.find_tables

    def counting(page: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(int(page.number))
        return real(page, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "find_tables", counting)
    text_pdf = (DATA / "pdf" / "multicolumn.pdf").read_bytes()
    text_only = extract_pdf(text_pdf, BASE_PROFILE, workers=1)
    assert asked == []
    assert all(b.cell is None for b in text_only.blocks)
    ruled = extract_pdf(_ruling(), BASE_PROFILE, workers=1)
    assert asked == [0, 1]
    cells = {ruled.text[b.span.start : b.span.end] for b in ruled.blocks if b.cell is not None}
    assert {"r0c0", "r3c3", "Code", "E05", "fault 5"} <= cells
