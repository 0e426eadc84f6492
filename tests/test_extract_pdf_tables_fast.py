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


def _ruled_grid(page: Any) -> None:
    """A ruled 4 x 4 grid at (100, 100) with "r{row}c{col}" in each cell."""
    for k in range(5):
        page.draw_line((100, 100 + 40 * k), (260, 100 + 40 * k))
        page.draw_line((100 + 40 * k, 100), (100 + 40 * k, 260))
    for row in range(4):
        for col in range(4):
            page.insert_text((105 + 40 * col, 125 + 40 * row), f"r{row}c{col}", fontsize=9)


def _ruling() -> bytes:
    """A ruled 4 x 4 grid with text in it, text beside it, and a line of text where
    the grid's mirror image lies (PyMuPDF tests some characters in bottom-up
    coordinates), over a second page holding a real table."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    _ruled_grid(page)
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


def test_chars_in_rect_is_pymupdfs_test() -> None:
    """The y0-sorted scan answers what PyMuPDF's ``chars_in_rect`` answers, also for
    characters with y0 > y1 or a NaN coordinate, and for a list that grew after
    it was indexed."""
    import random

    table = finder._install()
    if table is None:
        pytest.skip("another PyMuPDF: its own chars_in_rect")
    own = finder._INSTALLED["chars_in_rect"]
    rng = random.Random(15)
    nan = float("nan")
    for trial in range(40):
        chars: list[dict[str, float]] = []
        for _ in range(rng.randrange(0, 60)):
            x0, y0 = rng.uniform(0, 100), rng.uniform(0, 100)
            x1, y1 = x0 + rng.uniform(0, 10), y0 + rng.uniform(-30 if trial % 2 else 0, 10)
            box = [x0, y0, x1, y1]
            if rng.random() < 0.05:
                box[rng.randrange(4)] = nan
            chars.append(dict(zip(("x0", "y0", "x1", "y1"), box, strict=True)))
        for _ in range(30):
            left, top = rng.uniform(-5, 100), rng.uniform(-5, 100)
            rect = (left, top, left + rng.uniform(0, 60), top + rng.uniform(0, 60))
            assert table.chars_in_rect(chars, rect) == own(chars, rect), (trial, rect)
        chars.append({"x0": 1.0, "y0": 1.0, "x1": 2.0, "y1": 2.0})
        assert table.chars_in_rect(chars, (0.5, 0.5, 2.5, 2.5))


def test_the_finder_extracts_only_the_header_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the finder runs, ``Table._get_header`` reads row 0's texts: only row 0's
    cells are extracted (every row was), and its names are PyMuPDF's own."""
    table = finder._install()
    if table is None:
        pytest.skip("another PyMuPDF: its own Table.extract")
    calls: list[int] = []
    real = table.extract_text

    def counting(chars: Any, **kwargs: Any) -> Any:
        calls.append(len(chars))
        return real(chars, **kwargs)

    monkeypatch.setattr(table, "extract_text", counting)
    document = pymupdf.open(stream=_ruling(), filetype="pdf")
    for page in document:
        grid, region = _grid_like(page)
        assert grid
        calls.clear()
        found = finder.find_tables(page, region)
        assert found.tables
        row0 = sum(len([c for c in t.rows[0].cells if c is not None]) for t in found.tables)
        assert 0 < len(calls) <= row0, (page.number, len(calls), row0)
        own = page.find_tables(strategy="lines", use_layout=False)
        assert [t.header.names for t in found.tables] == [t.header.names for t in own.tables]
        assert [t.extract() for t in found.tables] == [t.extract() for t in own.tables]


def test_rows_sequence_indexes_like_a_list() -> None:
    """What ``Table.extract`` gives while the finder runs reads like PyMuPDF's list."""
    table = finder._install()
    if table is None:
        pytest.skip("another PyMuPDF")
    document = pymupdf.open(stream=_ruling(), filetype="pdf")
    page = document[1]
    _grid, region = _grid_like(page)
    found = finder.find_tables(page, region)
    whole = found.tables[0].extract()
    token = finder._ACTIVE.set((None,))
    try:
        lazy = found.tables[0].extract()
        assert len(lazy) == len(whole) > 2
        assert [lazy[k] for k in range(len(lazy))] == whole
        assert lazy[-1] == whole[-1]
        assert list(lazy[1:3]) == whole[1:3]
    finally:
        finder._ACTIVE.reset(token)


def test_characters_by_x0_are_sorted_like_pymupdf() -> None:
    """Spans and characters in PyMuPDF's order: sorted by x0, ties in their order."""
    import random

    rng = random.Random(3)
    for _ in range(200):
        items = [{"bbox": (float(rng.randrange(5)), 0.0), "n": k} for k in range(rng.randrange(8))]
        if rng.random() < 0.5:
            items.sort(key=lambda item: item["bbox"][0])
        assert finder._by_x0(items) == sorted(items, key=lambda item: item["bbox"][0])


def _debian_pages() -> bytes | None:
    """Pages of the Debian reference (``scripts/fetch_realdocs``) with tables, code
    boxes and a page with neither, as one PDF."""
    path = (
        Path(__file__).parent.parent
        / ".cache/realdocs/debian-reference-en/usr/share/debian-reference/debian-reference.en.pdf"
    )
    if not path.exists():
        return None
    source = pymupdf.open(path)
    document = pymupdf.open()
    for number in (0, 20, 21, 60, 61, 100, 140, 141, 200, 230):
        if number < source.page_count:
            document.insert_pdf(source, from_page=number, to_page=number)
    data: bytes = document.tobytes()
    return data


@pytest.mark.parametrize("name", ["geotopo-de", "tracemonkey", "debian-reference"])
def test_real_documents_extract_as_with_pymupdfs_finder(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real PDFs (geotopo-de's figure rulings and tables, two-column tracemonkey, and
    pages of the Debian reference when it is in .cache) extract byte for byte as with
    PyMuPDF's own finder."""
    data = (
        _debian_pages()
        if name == "debian-reference"
        else (DATA / "pdf" / f"{name}.pdf").read_bytes()
    )
    if data is None:
        pytest.skip("the Debian reference is not in .cache (scripts/fetch_realdocs)")
    fast, own = _extract_both(data, monkeypatch)
    assert fast == own
    assert fast.char_boxes == own.char_boxes
    if name == "debian-reference":
        assert any(b.cell is not None for b in fast.blocks)


def test_a_page_of_more_paths_than_the_limit_is_read_as_text() -> None:
    """A page that draws more than MAX_TABLE_PATHS vector paths (a CAD drawing, a map)
    is not given to the table finder, which holds every path (3 million rectangles in a
    300 kB PDF took 3.8 GB and ended in an internal error; red-team find): its text is
    extracted as text blocks, the ruled grid on it is not read as a table, and a page
    under the limit still is."""
    from ragox.extract import BlockKind
    from ragox.extract._pdftables import MAX_TABLE_PATHS

    def grid_page(dots: int) -> bytes:
        document = pymupdf.open()
        page = document.new_page(width=595, height=842)
        _ruled_grid(page)
        page.insert_text((72, 400), "The valve drawing follows.", fontsize=11)
        shape = page.new_shape()
        for i in range(dots):  # one path each
            x, y = 300 + (i % 250), 450 + (i // 250) * 1.5
            shape.draw_rect(pymupdf.Rect(x, y, x + 0.5, y + 0.5))
            shape.finish(fill=(0, 0, 0))
        shape.commit()
        data: bytes = document.tobytes()
        document.close()
        return data

    many = extract_pdf(grid_page(MAX_TABLE_PATHS + 100), BASE_PROFILE)
    assert "The valve drawing follows." in many.text and "r2c3" in many.text
    assert not any(b.kind is BlockKind.TABLE_CELL for b in many.blocks)
    few = extract_pdf(grid_page(10), BASE_PROFILE)
    assert any(b.kind is BlockKind.TABLE_CELL for b in few.blocks)
