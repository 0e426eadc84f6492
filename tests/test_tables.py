"""Tables with their headers (seed 000: keep cell, header and page provenance apart):
cells of HTML, Markdown and PDF tables with row, column and header cells; header
text in the search text only; the round trip of every table document."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pymupdf
import pytest

from conftest import DATA, OPERATOR, copy_lexical_partitions, older_database
from ragox.anchor import Refusal
from ragox.extract import (
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    TableCell,
)
from ragox.extract._htmltables import MAX_SLOTS
from ragox.extract.html import extract_html
from ragox.extract.markdown import extract_markdown
from ragox.extract.pdf import extract_pdf
from ragox.ingest import _searchtext, build_search_text
from ragox.search import SearchMode
from ragox.service import Ragox
from ragox.store import RevisionState
from ragox.text import BASE_PROFILE

TABLES = DATA / "tables"
PDF = TABLES / "fastener-torque.pdf"
HTML = TABLES / "pump-specs.html"
MARKDOWN = TABLES / "parts.md"


def _texts(extraction: Extraction) -> dict[str, str]:
    return {b.block_id: extraction.text[b.span.start : b.span.end] for b in extraction.blocks}


def _cell(extraction: Extraction, text: str, nth: int = 0) -> tuple[Block, TableCell]:
    texts = _texts(extraction)
    found = [b for b in extraction.blocks if b.cell and texts[b.block_id] == text]
    block = found[nth]
    assert block.cell is not None
    return block, block.cell


def _headers(extraction: Extraction, cell: TableCell) -> list[str]:
    texts = _texts(extraction)
    return [texts[i] for i in cell.header_ids]


# -- HTML: the HTML Standard's table model ---------------------------------------


def test_html_cells_follow_the_table_model_with_spans_and_scopes() -> None:
    """Grid slots count row and column spans; headers come from scope=row, the column
    headers above (opaque blocks respected), scope=colgroup and scope=rowgroup."""
    extraction = extract_html(HTML.read_bytes(), BASE_PROFILE)
    block, cell = _cell(extraction, "230 V")
    assert block.kind is BlockKind.TABLE_CELL
    assert (cell.table, cell.row, cell.col, cell.row_span, cell.col_span) == (0, 3, 1, 1, 1)
    assert not cell.header
    assert _headers(extraction, cell) == ["P-100", "Voltage", "Electrical", "Surface pumps"]
    # rowspan=2: both rows' headers apply
    _, spanning = _cell(extraction, "400 V")
    assert (spanning.row, spanning.col, spanning.row_span) == (4, 1, 2)
    assert _headers(extraction, spanning) == [
        "P-150",
        "P-200",
        "Voltage",
        "Electrical",
        "Surface pumps",
    ]
    # after the rowspan the next cell of row 5 moves to column 2; colspan=2 takes both
    _, shifted = _cell(extraction, "5.0 A")
    assert (shifted.row, shifted.col) == (5, 2)
    _, wide = _cell(extraction, "on request")
    assert (wide.col, wide.col_span) == (3, 2)
    assert _headers(extraction, wide) == ["P-200", "Flow", "Head", "Hydraulic", "Surface pumps"]
    # the second row group has its own row-group header
    _, borehole = _cell(extraction, "96 m")
    assert _headers(extraction, borehole) == ["B-40", "Head", "Hydraulic", "Borehole pumps"]
    _, model = _cell(extraction, "Model")
    assert model.header and (model.row_span, model.header_ids) == (2, ())


def test_html_headers_attribute_names_the_header_cells() -> None:
    """A cell with ``headers=`` takes exactly the cells those ids name, in that order."""
    extraction = extract_html(HTML.read_bytes(), BASE_PROFILE)
    _, cell = _cell(extraction, "every 3 years")
    assert cell.table == 1
    assert _headers(extraction, cell) == ["Borehole", "Bearing"]


def test_html_hostile_spans_are_clamped_or_refused() -> None:
    """rowspan beyond its row group is clamped to it; a table of too many slots is
    refused with TOO_COMPLEX (no attempt to allocate them)."""
    clamped = b"<table><tr><td rowspan=65534>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
    extraction = extract_html(clamped, BASE_PROFILE)
    _, cell = _cell(extraction, "a")
    assert cell.row_span == 2
    _, moved = _cell(extraction, "c")
    assert (moved.row, moved.col) == (1, 1)
    rows = MAX_SLOTS // 1000 + 1
    hostile = b"<table>" + b"<tr><td colspan=1000>x</td></tr>" * rows + b"</table>"
    with pytest.raises(ExtractionError) as caught:
        extract_html(hostile, BASE_PROFILE)
    assert caught.value.code is ErrorCode.TOO_COMPLEX


# -- Markdown ---------------------------------------------------------------------


def test_markdown_header_row_heads_each_column() -> None:
    """Row 0 of a GFM table is its header row; each body cell takes its column's header."""
    extraction = extract_markdown(MARKDOWN.read_bytes(), BASE_PROFILE)
    _, header = _cell(extraction, "Price")
    assert header.header and (header.row, header.col) == (0, 3)
    _, cell = _cell(extraction, "Ball bearing 6203")
    assert (cell.table, cell.row, cell.col, cell.header) == (0, 3, 1, False)
    assert _headers(extraction, cell) == ["Description"]
    _, price = _cell(extraction, "12.50")
    assert _headers(extraction, price) == ["Price"]


# -- PDF: PyMuPDF's table finder -------------------------------------------------------


def test_pdf_table_over_three_pages_recognizes_its_repeated_header_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One table over three pages: its rows count on, the header row repeated at the top
    of pages 2 and 3 is header again, and the cells below take the header of their page."""
    extraction = extract_pdf(PDF.read_bytes(), BASE_PROFILE)
    cells = [b for b in extraction.blocks if b.cell is not None]
    assert {b.cell.table for b in cells if b.cell} == {0}
    assert {b.page for b in cells} == {1, 2, 3}
    headers = [b for b in cells if b.cell and b.cell.header]
    texts = _texts(extraction)
    assert [(b.page, texts[b.block_id]) for b in headers] == [
        (page, name) for page in (1, 2, 3) for name in ("Part", "Torque", "Mass", "Material")
    ]
    assert [b.cell.row for b in headers if b.cell][::4] == [0, 31, 62]
    by_id = {b.block_id: b for b in extraction.blocks}
    for page, part in ((1, "P-07"), (2, "P-48"), (3, "P-75")):
        block, cell = _cell(extraction, part)
        assert block.page == page
        torque = by_id[f"b{block.index + 1}"].cell
        assert torque is not None
        assert _headers(extraction, cell) == ["Part"]
        assert _headers(extraction, torque) == ["Torque"]
        assert all(by_id[i].page == page for i in cell.header_ids + torque.header_ids)
    assert "Consider" not in capsys.readouterr().out  # nothing of PyMuPDF's on stdout
    _, last = _cell(extraction, "P-75")
    assert last.row == 62 + 15  # rows 0-30, 31 header + 30 rows, 62 header + 15 rows
    assert texts[f"b{len(extraction.blocks) - 1}"].startswith("Values apply")


def _continued_pdf(path: Path) -> bytes:
    """A table whose second page continues it without repeating the header row."""
    css = "table {border-collapse: collapse} td, th {border: 0.5pt solid black; padding: 2pt}"
    document = pymupdf.open()
    bodies = [
        "<table><tr><th>Code</th><th>Meaning</th></tr>"
        + "".join(f"<tr><td>E{i:02d}</td><td>fault {i}</td></tr>" for i in range(1, 4))
        + "</table>",
        "<table>"
        + "".join(f"<tr><td>E{i:02d}</td><td>fault {i}</td></tr>" for i in range(4, 7))
        + "</table>",
    ]
    for body in bodies:
        page = document.new_page(width=595, height=842)
        page.insert_htmlbox(pymupdf.Rect(50, 50, 545, 800), body, css=css)
    data: bytes = document.tobytes()
    document.close()
    return data


def test_pdf_continued_table_without_repeated_header_takes_the_first_pages(
    tmp_path: Path,
) -> None:
    """Without a repeated header row the next page's first row is data, and its cells
    take the header cells of the table's first page."""
    extraction = extract_pdf(_continued_pdf(tmp_path), BASE_PROFILE)
    block, cell = _cell(extraction, "E05")
    assert block.page == 2 and not cell.header and cell.table == 0
    assert _headers(extraction, cell) == ["Code"]
    _, continued = _cell(extraction, "E04")
    assert not continued.header and continued.row == 4
    by_id = {b.block_id: b for b in extraction.blocks}
    assert by_id[cell.header_ids[0]].page == 1


def test_pdf_figure_ruling_with_a_few_labels_stays_text() -> None:
    """A ruled diagram (a 4 x 4 grid with two labels in it) is no table: its labels
    stay ordinary text blocks, not cells."""
    document = pymupdf.open()
    page = document.new_page(width=595, height=842)
    for k in range(5):
        page.draw_line((100, 100 + 40 * k), (260, 100 + 40 * k))
        page.draw_line((100 + 40 * k, 100), (100 + 40 * k, 260))
    page.insert_text((110, 125), "A", fontsize=11)
    page.insert_text((230, 245), "B", fontsize=11)
    page.insert_text((72, 300), "Figure 1: a grid with two points.", fontsize=11)
    data: bytes = document.tobytes()
    document.close()
    extraction = extract_pdf(data, BASE_PROFILE)
    assert [b.cell for b in extraction.blocks] == [None] * len(extraction.blocks)
    assert {"A", "B"} <= set(_texts(extraction).values())


# -- search text, chunks, anchors ------------------------------------------------------


def _ingest(app: Ragox, path: Path, doc: str | None = None) -> str:
    item = app.ingest_path(path, path.parent, document_id=doc)
    assert item.outcome is not None and item.outcome.state is RevisionState.READY, item
    return item.outcome.document_id


def _manifest(app: Ragox, doc: str) -> str:
    manifest_id = app.store.revisions("default", doc)[-1].manifest_id
    assert manifest_id is not None
    return manifest_id


@pytest.mark.parametrize("path", [PDF, HTML, MARKDOWN], ids=lambda p: p.name)
@pytest.mark.both_backends
def test_every_chunk_carries_the_header_text_of_its_cells(app: Ragox, path: Path) -> None:
    """Each chunk's search text holds the text of every header cell of every cell in
    it (once, inserted where the header cell is not in the chunk itself); the
    representation, which anchors point into, holds the cells' own text only."""
    doc = _ingest(app, path)
    manifest_id = _manifest(app, doc)
    text = app.store.text(manifest_id)
    found = app.store.search_text(manifest_id)
    assert found is not None
    search, _ = found
    blocks = {b.index: b for b in app.store.blocks(manifest_id)}
    by_id = {b.block_id: b for b in blocks.values()}
    checked = inserted = 0
    for chunk in app.store.chunks(manifest_id):
        own = search[chunk.search_start : chunk.search_end]
        for part in chunk.blocks:
            cell = blocks[part.block_index].cell
            for header_id in cell.header_ids if cell else ():
                header = by_id[header_id]
                name = " ".join(text[header.span.start : header.span.end].split())
                assert name in own
                checked += 1
                if not chunk.start <= header.span.start < chunk.end:
                    assert f"{name}: " in own or f"{name} / " in own
                    assert f"{name}: " not in text and f"{name} / " not in text
                    inserted += 1
    assert checked
    assert inserted or path != PDF  # the small tables fit one chunk with their headers


def test_chunk_starting_at_a_cell_takes_its_header_text() -> None:
    """A chunk that begins with a cell maps to a search range that includes the header
    text inserted at that cell's start."""
    extraction = extract_markdown(MARKDOWN.read_bytes(), BASE_PROFILE)
    search = build_search_text(extraction.text, extraction.blocks)
    block, _ = _cell(extraction, "SP-303")
    forward = search.alignment.map_forward(
        block.span.start, block.span.end, insertions_at_start=True
    )
    assert search.text[forward.start : forward.end] == "Part number: SP-303"
    plain = search.alignment.map_forward(block.span.start, block.span.end)
    assert search.text[plain.start : plain.end] == "SP-303"


@pytest.mark.both_backends
def test_blocks_of_some_tables_are_exactly_their_cells(app: Ragox, tmp_path: Path) -> None:
    """``Store.blocks(tables=...)`` (what an answer reads for the headers of the cells
    in its evidence): every cell block of those tables, header cells included, in
    reading order, and nothing else; the PDF's one table continues over three pages."""
    path = tmp_path / "fasteners.md"
    path.write_text(_two_tables(12), encoding="utf-8")
    for doc in (_ingest(app, path), _ingest(app, PDF)):
        manifest_id = _manifest(app, doc)
        every = app.store.blocks(manifest_id)
        numbers = sorted({b.cell.table for b in every if b.cell})
        assert numbers == ([0, 1] if doc == "fasteners.md" else [0])
        assert len({b.page for b in every if b.cell}) > 1 or doc == "fasteners.md"
        for wanted in [{n} for n in numbers] + [set(numbers), set()]:
            expected = [b for b in every if b.cell and b.cell.table in wanted]
            assert app.store.blocks(manifest_id, tables=wanted) == expected
            assert any(b.cell and b.cell.header for b in expected) or not wanted


def _two_tables(rows: int) -> str:
    """Two tables keyed by the same part codes; only their header rows say which value
    is which, far above most rows (the torque table's rows are a little longer)."""
    torque = "\n".join(f"| QX-{i} | {10 + i % 9} | hex |" for i in range(1, rows + 1))
    mass = "\n".join(f"| QX-{i} | {i % 7}.5 |" for i in range(1, rows + 1))
    return (
        "# Fastener data\n\n"
        "| Part | Tightening torque in newton metres | Drive |\n|---|---|---|\n"
        f"{torque}\n\n"
        "| Part | Mass in grams |\n|---|---|\n"
        f"{mass}\n"
    )


def _top_chunk_holds_the_cell(home: Path, tmp_path: Path) -> bool:
    """Ingest 30 XQuAD paragraphs and the two tables; ask for the torque of QX-140."""
    app = Ragox(home)
    try:
        data = json.loads((DATA / "xquad" / "xquad.en.json").read_text(encoding="utf-8"))
        paragraphs = [p["context"] for a in data["data"] for p in a["paragraphs"]][:30]
        for index, paragraph in enumerate(paragraphs):
            app.ingestor.ingest_bytes(
                paragraph.encode(), f"p{index}.txt", f"p{index}", tenant="default", language="en"
            )
        path = tmp_path / "fasteners.md"
        path.write_text(_two_tables(160), encoding="utf-8")
        doc = _ingest(app, path)
        manifest_id = _manifest(app, doc)
        text = app.store.text(manifest_id)
        target = text.index("QX-140\n")  # the torque table's cell (the first table)
        assert text.count("QX-140\n") == 2
        hits = app.search("tightening torque QX-140", OPERATOR, SearchMode.LEXICAL, limit=3)
        chunks = {c.chunk_id: c for c in app.store.chunks(manifest_id)}
        best = chunks.get(hits[0].chunk_id) if hits else None
        if best is None or not best.start <= target < best.end:
            return False
        assert "Tightening torque" not in text[best.start : best.end]  # far from the header
        return True
    finally:
        app.close()


@pytest.mark.both_backends
def test_question_on_a_cell_finds_its_chunk_by_the_column_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, request: pytest.FixtureRequest
) -> None:
    """ "Tightening torque QX-140": both tables hold QX-140 far below their header rows;
    the torque table's chunk with that cell ranks first because its cells carry their
    column header's text, and does not without it (same corpus, headers left out)."""
    assert _top_chunk_holds_the_cell(tmp_path / "with", tmp_path)
    if backend == "postgres":  # the second home gets a database of its own
        monkeypatch.setenv("RAGOX_STORE", request.getfixturevalue("postgres_server").fresh())
    monkeypatch.setattr(_searchtext, "header_text", lambda *args, **kwargs: "")
    assert not _top_chunk_holds_the_cell(tmp_path / "without", tmp_path)


@pytest.mark.parametrize("path", [PDF, HTML, MARKDOWN], ids=lambda p: p.name)
@pytest.mark.both_backends
def test_table_documents_round_trip_in_ragox_check(app: Ragox, path: Path) -> None:
    """`ragox check` maps every sampled fragment of every table document back to its
    source with 0 mismatches."""
    doc = _ingest(app, path)
    report = app.check(doc, OPERATOR)
    assert report.fragments > 0
    assert report.mismatches == ()


@pytest.mark.both_backends
def test_anchor_on_a_cell_is_the_cell_text_only(app: Ragox) -> None:
    """An anchor made on a cell quotes the cell exactly, and resolves to its block, whose
    stored cell names its header blocks."""
    doc = _ingest(app, PDF)
    manifest_id = _manifest(app, doc)
    text = app.store.text(manifest_id)
    blocks = {b.block_id: b for b in app.store.blocks(manifest_id)}
    cell_block = next(
        b for b in blocks.values() if b.cell and text[b.span.start : b.span.end] == "P-48"
    )
    torque = blocks[f"b{cell_block.index + 1}"]
    created = app.create_anchor(doc, torque.span.start, torque.span.end, OPERATOR)
    assert not isinstance(created, Refusal)
    assert created.anchor.quote.exact == text[torque.span.start : torque.span.end]
    assert created.anchor.quote.exact.endswith(" Nm") and "Torque" not in created.anchor.quote.exact
    assert torque.cell is not None and torque.cell.header_ids
    header = blocks[torque.cell.header_ids[0]]
    assert text[header.span.start : header.span.end] == "Torque"
    assert header.page == torque.page == 2


def test_home_of_schema_17_upgrades_and_keeps_its_blocks(tmp_path: Path) -> None:
    """A home written before cells were stored opens: its blocks read back without a
    cell, and a new ingestion stores cells."""
    build = tmp_path / "build"
    app = Ragox(build)
    doc = _ingest(app, MARKDOWN)
    before = app.store.blocks(_manifest(app, doc))
    app.close()
    home = tmp_path / "old"
    home.mkdir()
    for name in ("blobs", "keys"):
        shutil.copytree(build / name, home / name)
    with older_database(build / "ragox.db", home / "ragox.db", 17) as old:
        assert "cell" not in [str(r[1]) for r in old.execute("PRAGMA main.table_info(blocks)")]
        copy_lexical_partitions(old)
    upgraded = Ragox(home)
    try:
        after = upgraded.store.blocks(_manifest(upgraded, doc))
        assert [(b.index, b.span, b.locator) for b in after] == [
            (b.index, b.span, b.locator) for b in before
        ]
        assert all(b.cell is None for b in after)
        again = _ingest(upgraded, HTML)
        assert any(b.cell for b in upgraded.store.blocks(_manifest(upgraded, again)))
        with sqlite3.connect(home / "ragox.db") as conn:
            assert conn.execute("SELECT COUNT(*) FROM blocks WHERE cell IS NOT NULL").fetchone()[0]
    finally:
        upgraded.close()
