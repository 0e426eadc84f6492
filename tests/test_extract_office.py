"""Office files (DOCX, PPTX, XLSX): blocks, kinds and readable locators; the documented
handling of comments, tracked changes, hidden content and speaker notes; bad packages
refused with a code; and `ragox check` round trips on every test file."""

from __future__ import annotations

import datetime
import io
import random
import zipfile
from pathlib import Path

import docx
import openpyxl
import pptx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from openpyxl.comments import Comment
from pptx.util import Inches

from conftest import DATA, OPERATOR
from ragox.anchor import Refusal, ResolutionStatus
from ragox.extract import ErrorCode, Extraction, ExtractionError, detect_media_type
from ragox.extract.office import (
    DOCX_MEDIA_TYPE,
    PPTX_MEDIA_TYPE,
    XLSX_MEDIA_TYPE,
    _package,
    extract_docx,
    extract_pptx,
    extract_xlsx,
)
from ragox.service import Ragox
from ragox.service._check import check_representation
from ragox.store import RevisionState
from ragox.text import BASE_PROFILE

OFFICE = DATA / "office"
LIBREOFFICE_DOCX = OFFICE / "libreoffice-handbook.docx"


def _rows(extraction: Extraction) -> list[tuple[str, str, str]]:
    """(kind, locator, text) of every block."""
    return [
        (b.kind.value, b.locator, extraction.text[b.span.start : b.span.end])
        for b in extraction.blocks
    ]


# -- generated files -------------------------------------------------------------


def make_docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Pump handbook", 0)
    document.add_paragraph("Read this first.")
    document.add_heading("Pricing", 1)
    document.add_paragraph("The base price of the P-200 is 1,200 EUR.")
    document.add_paragraph("Delivery is free in Germany.", style="List Bullet")
    document.add_heading("Discounts", 2)
    paragraph = document.add_paragraph("Dealers get ten percent ")
    hidden = paragraph.add_run("(internal: up to 15)")
    hidden.font.hidden = True
    paragraph.add_run(" off.")
    table = document.add_table(rows=2, cols=3)
    for column, value in enumerate(("Model", "Price", "Stock")):
        table.cell(0, column).text = value
    for column, value in enumerate(("P-200", "1,200 EUR", "14")):
        table.cell(1, column).text = value
    merged = document.add_table(rows=1, cols=3)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Spanning two columns"
    merged.cell(0, 2).text = "Third column"
    document.add_heading("Returns", 1)
    document.add_paragraph("Returns are accepted within 30 days of delivery.")
    document.save(path)
    return path


def make_pptx(path: Path) -> Path:
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    assert first.shapes.title is not None
    first.shapes.title.text = "Safety first"
    body = first.placeholders[1].text_frame
    body.text = "Wear gloves when opening the housing"
    body.add_paragraph().text = "Close the suction valve"
    first.notes_slide.notes_text_frame.text = "Tell the story of the flooded basement."
    hidden = deck.slides.add_slide(deck.slide_layouts[5])
    assert hidden.shapes.title is not None
    hidden.shapes.title.text = "Draft prices, do not present"
    hidden.element.set("show", "0")
    third = deck.slides.add_slide(deck.slide_layouts[6])
    box = third.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
    box.text_frame.text = "Spare parts ship within two days"
    table = third.shapes.add_table(2, 2, Inches(1), Inches(3), Inches(4), Inches(2)).table
    for (row, column), value in {
        (0, 0): "Part",
        (0, 1): "Price",
        (1, 0): "Seal kit",
        (1, 1): "39 EUR",
    }.items():
        table.cell(row, column).text = value
    deck.save(path)
    return path


def make_xlsx(path: Path) -> Path:
    workbook = openpyxl.Workbook()
    prices = workbook.active
    assert prices is not None
    prices.title = "Prices"
    prices.append(["Item", "Price", "Since"])
    prices.append(["Pump P-200", 1200.5, datetime.date(2024, 3, 1)])
    prices.append(["Seal kit", 39, datetime.datetime(2024, 3, 1, 14, 30)])
    prices.append(["Secret rebate", 0.15, None])
    prices.row_dimensions[4].hidden = True
    prices["E1"] = "hidden column"
    prices.column_dimensions["E"].hidden = True
    prices["D1"] = "Remark"
    prices["D1"].comment = Comment("checked by purchasing", "anna")
    prices.merge_cells("A6:C6")
    prices["A6"] = "Prices include VAT"
    internal = workbook.create_sheet("Internal")
    internal["A1"] = "Margin 40 percent"
    internal.sheet_state = "hidden"
    other = workbook.create_sheet("Price list 2025")
    other["B2"] = True
    other["C3"] = 0.1
    workbook.save(path)
    return path


# -- DOCX --------------------------------------------------------------------------


def test_libreoffice_docx_blocks_locators_and_decisions() -> None:
    """A DOCX written by LibreOffice: outline-numbered headings, paragraphs, list items and
    table cells with readable locators; tracked changes accepted, comments dropped, both
    flagged."""
    extraction = extract_docx(LIBREOFFICE_DOCX.read_bytes(), BASE_PROFILE)
    assert _rows(extraction) == [
        ("heading", "§ 1", "Service handbook for the P-200 pump"),
        (
            "paragraph",
            "§ 1 › paragraph 1",
            "This handbook covers installation, maintenance and returns of the P-200 pump.",
        ),
        ("heading", "§ 1.1", "Installation"),
        (
            "paragraph",
            "§ 1.1 › paragraph 1",
            "Mount the pump on a level base and connect the suction line first.",
        ),
        ("list-item", "§ 1.1 › paragraph 2", "Check the seal before the first start."),
        ("list-item", "§ 1.1 › paragraph 3", "Fill the housing with water."),
        ("heading", "§ 1.2", "Maintenance"),
        (
            "paragraph",
            "§ 1.2 › paragraph 1",
            "Replace the impeller seal every twelve months or after 2,000 hours.",
        ),
        ("table-cell", "§ 1.2 › table 1 › row 1, column 1", "Part"),
        ("table-cell", "§ 1.2 › table 1 › row 1, column 2", "Interval"),
        ("table-cell", "§ 1.2 › table 1 › row 2, column 1", "Impeller seal"),
        ("table-cell", "§ 1.2 › table 1 › row 2, column 2", "12 months"),
        ("table-cell", "§ 1.2 › table 1 › row 3, column 1", "Bearings"),
        ("table-cell", "§ 1.2 › table 1 › row 3, column 2", "24 months"),
        ("heading", "§ 2", "Returns"),
        (
            "paragraph",
            "§ 2 › paragraph 1",
            "A pump may be returned within 30 days of delivery in its original packing.",
        ),
        ("paragraph", "§ 2 › paragraph 2", "Prüfung der Rücksendung: Müller, Oﬃce Köln."),
    ]
    assert "fourteen" not in extraction.text  # the tracked deletion
    assert "Confirm the interval" not in extraction.text  # the comment
    assert extraction.warnings == ("COMMENTS_DROPPED", "TRACKED_CHANGES_ACCEPTED")
    assert extraction.parser.id.startswith("docx-python-docx@2+python-docx-")
    assert extraction.parser.config["tracked-changes"] == "accepted"


def test_generated_docx_title_hidden_text_lists_and_merged_cells(tmp_path: Path) -> None:
    """python-docx's own file: the title, heading path, list item, hidden run dropped (and
    flagged), table cells by grid column (a merge spans columns 1–2)."""
    extraction = extract_docx(make_docx(tmp_path / "h.docx").read_bytes(), BASE_PROFILE)
    rows = _rows(extraction)
    assert rows[:5] == [
        ("heading", "title", "Pump handbook"),
        ("paragraph", "paragraph 1", "Read this first."),
        ("heading", "§ 1", "Pricing"),
        ("paragraph", "§ 1 › paragraph 1", "The base price of the P-200 is 1,200 EUR."),
        ("list-item", "§ 1 › paragraph 2", "Delivery is free in Germany."),
    ]
    assert ("paragraph", "§ 1.1 › paragraph 1", "Dealers get ten percent  off.") in rows
    assert "internal" not in extraction.text
    assert "HIDDEN_TEXT_DROPPED" in extraction.warnings
    assert ("table-cell", "§ 1.1 › table 1 › row 2, column 2", "1,200 EUR") in rows
    assert ("table-cell", "§ 1.1 › table 2 › row 1, column 1", "Spanning two columns") in rows
    assert ("table-cell", "§ 1.1 › table 2 › row 1, column 3", "Third column") in rows
    assert rows[-1] == (
        "paragraph",
        "§ 2 › paragraph 1",
        "Returns are accepted within 30 days of delivery.",
    )
    # The same bytes give the same representation (check compares by re-extraction).
    again = extract_docx((tmp_path / "h.docx").read_bytes(), BASE_PROFILE)
    assert (again.text, again.blocks) == (extraction.text, extraction.blocks)


# -- PPTX --------------------------------------------------------------------------


def test_pptx_slides_shapes_notes_tables_and_hidden_slide(tmp_path: Path) -> None:
    """Titles are headings, body paragraphs list items, notes kept under their slide, the
    hidden slide dropped (flagged) while the next slide keeps its number 3."""
    extraction = extract_pptx(make_pptx(tmp_path / "d.pptx").read_bytes(), BASE_PROFILE)
    assert _rows(extraction) == [
        ("heading", "slide 1 › shape 'Title 1'", "Safety first"),
        (
            "list-item",
            "slide 1 › shape 'Content Placeholder 2' › paragraph 1",
            "Wear gloves when opening the housing",
        ),
        (
            "list-item",
            "slide 1 › shape 'Content Placeholder 2' › paragraph 2",
            "Close the suction valve",
        ),
        ("paragraph", "slide 1 › notes", "Tell the story of the flooded basement."),
        ("paragraph", "slide 3 › shape 'TextBox 1'", "Spare parts ship within two days"),
        ("table-cell", "slide 3 › shape 'Table 2' › row 1, column 1", "Part"),
        ("table-cell", "slide 3 › shape 'Table 2' › row 1, column 2", "Price"),
        ("table-cell", "slide 3 › shape 'Table 2' › row 2, column 1", "Seal kit"),
        ("table-cell", "slide 3 › shape 'Table 2' › row 2, column 2", "39 EUR"),
    ]
    assert "Draft prices" not in extraction.text
    assert extraction.warnings == ("HIDDEN_SLIDES_DROPPED",)


# -- XLSX --------------------------------------------------------------------------


def test_xlsx_cells_sheets_hidden_parts_comments_and_values(tmp_path: Path) -> None:
    """Sheet names as headings, one block per cell with Sheet!A1 locators (a merge as its
    range, a spaced name quoted); hidden sheet, row and column dropped, the comment
    dropped, each flagged; values without number formats."""
    extraction = extract_xlsx(make_xlsx(tmp_path / "p.xlsx").read_bytes(), BASE_PROFILE)
    assert _rows(extraction) == [
        ("heading", "sheet Prices", "Prices"),
        ("table-cell", "Prices!A1", "Item"),
        ("table-cell", "Prices!B1", "Price"),
        ("table-cell", "Prices!C1", "Since"),
        ("table-cell", "Prices!D1", "Remark"),
        ("table-cell", "Prices!A2", "Pump P-200"),
        ("table-cell", "Prices!B2", "1200.5"),
        ("table-cell", "Prices!C2", "2024-03-01"),
        ("table-cell", "Prices!A3", "Seal kit"),
        ("table-cell", "Prices!B3", "39"),
        ("table-cell", "Prices!C3", "2024-03-01 14:30:00"),
        ("table-cell", "Prices!A6:C6", "Prices include VAT"),
        ("heading", "sheet Price list 2025", "Price list 2025"),
        ("table-cell", "'Price list 2025'!B2", "TRUE"),
        ("table-cell", "'Price list 2025'!C3", "0.1"),
    ]
    for dropped in ("Secret rebate", "hidden column", "Margin", "purchasing"):
        assert dropped not in extraction.text
    assert extraction.warnings == (
        "COMMENTS_DROPPED",
        "HIDDEN_COLUMNS_DROPPED",
        "HIDDEN_ROWS_DROPPED",
        "HIDDEN_SHEETS_DROPPED",
    )


def test_libreoffice_xlsx_shows_saved_formula_values() -> None:
    """An XLSX written by LibreOffice Calc: formulas show the values Calc saved (47.6 and
    143.4), never the formula; hidden row, hidden sheet and comment dropped and flagged."""
    extraction = extract_xlsx((OFFICE / "libreoffice-prices.xlsx").read_bytes(), BASE_PROFILE)
    assert _rows(extraction) == [
        ("heading", "sheet Prices", "Prices"),
        ("table-cell", "Prices!A1", "Part"),
        ("table-cell", "Prices!B1", "Net"),
        ("table-cell", "Prices!C1", "Gross"),
        ("table-cell", "Prices!A2", "Impeller seal"),
        ("table-cell", "Prices!B2", "40"),
        ("table-cell", "Prices!C2", "47.6"),
        ("table-cell", "Prices!A4", "Bearing set"),
        ("table-cell", "Prices!B4", "120.5"),
        ("table-cell", "Prices!C4", "143.4"),
        ("table-cell", "Prices!A5:C5", "Prices valid from 1 March 2024"),
    ]
    assert extraction.warnings == (
        "COMMENTS_DROPPED",
        "HIDDEN_ROWS_DROPPED",
        "HIDDEN_SHEETS_DROPPED",
    )


def test_libreoffice_pptx_files_keep_notes_and_drop_the_hidden_slide() -> None:
    """PPTX written by LibreOffice Impress: its renamed placeholders, a deck of unnamed
    shapes (located by id) whose notes sit in a text box, each hidden slide dropped."""
    training = extract_pptx((OFFICE / "libreoffice-training.pptx").read_bytes(), BASE_PROFILE)
    assert _rows(training)[:4] == [
        ("heading", "slide 1 › shape 'PlaceHolder 1'", "Safety first"),
        (
            "list-item",
            "slide 1 › shape 'PlaceHolder 2' › paragraph 1",
            "Wear gloves when opening the housing",
        ),
        ("list-item", "slide 1 › shape 'PlaceHolder 2' › paragraph 2", "Close the suction valve"),
        ("paragraph", "slide 1 › notes", "Tell the story of the flooded basement."),
    ]
    assert ("table-cell", "slide 3 › shape 'Table 2' › row 2, column 2", "39 EUR") in _rows(
        training
    )
    assert training.warnings == ("HIDDEN_SLIDES_DROPPED",)
    boxes = extract_pptx((OFFICE / "libreoffice-textboxes.pptx").read_bytes(), BASE_PROFILE)
    assert _rows(boxes) == [
        ("paragraph", "slide 1 › shape 47", "Pump safety training"),
        (
            "list-item",
            "slide 1 › shape 48 › paragraph 1",
            "Switch off the power before opening the housing",
        ),
        ("list-item", "slide 1 › shape 48 › paragraph 2", "Wear gloves and goggles"),
        ("paragraph", "slide 1 › notes", "Ask who has seen a pump run dry."),
        ("paragraph", "slide 3 › shape 50", "Service intervals"),
        ("paragraph", "slide 3 › shape 51", "The impeller seal is replaced every twelve months."),
    ]
    assert boxes.warnings == ("HIDDEN_SLIDES_DROPPED",)


# -- dispatch ----------------------------------------------------------------------


def test_media_types_by_suffix_and_by_content(tmp_path: Path) -> None:
    """Office suffixes name their types; a DOCX, PPTX or XLSX without a suffix is
    recognized by its package's part names."""
    files = {
        DOCX_MEDIA_TYPE: make_docx(tmp_path / "a.docx"),
        PPTX_MEDIA_TYPE: make_pptx(tmp_path / "a.pptx"),
        XLSX_MEDIA_TYPE: make_xlsx(tmp_path / "a.xlsx"),
    }
    for media_type, path in files.items():
        assert detect_media_type(path.name, b"") == media_type
        assert detect_media_type("upload", path.read_bytes()) == media_type
    assert detect_media_type("legacy.doc", b"\xd0\xcf\x11\xe0") is None


# -- bad input ---------------------------------------------------------------------


def _rezip(data: bytes, extra: dict[str, bytes], replace: dict[str, bytes] | None = None) -> bytes:
    """A copy of a package with parts added or replaced."""
    replace = replace or {}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            body = replace.get(item.filename, source.read(item.filename))
            target.writestr(item.filename, body, zipfile.ZIP_DEFLATED)
        for name, body in extra.items():
            target.writestr(name, body, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _bad_files(tmp_path: Path) -> list[tuple[str, bytes, str]]:
    good = make_docx(tmp_path / "good.docx").read_bytes()
    content_types = zipfile.ZipFile(io.BytesIO(good)).read("[Content_Types].xml")
    macro_types = content_types.replace(
        b"wordprocessingml.document.main+xml", b"ms-word.document.macroEnabled.main+xml"
    )
    document_xml = zipfile.ZipFile(io.BytesIO(good)).read("word/document.xml")
    with_dtd = document_xml.replace(
        b"?>",
        b'?>\n<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>',
        1,
    )
    # the same DTD behind 5,000 bytes of comment (a check of the first 4 KiB missed it)
    hidden_dtd = document_xml.replace(b"?>", b"?>\n<!-- " + b"x" * 5000 + b" -->", 1).replace(
        b"-->", b'-->\n<!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa">]>', 1
    )
    # a prolog past 1 MiB (letters that do not compress: no zip bomb)
    letters = random.Random(7).choices(b"abcdefghijklmnopqrstuvwxyz ", k=(1 << 20) + 10)
    long_prolog = document_xml.replace(b"?>", b"?><!-- " + bytes(letters) + b" -->", 1)
    deep = document_xml.replace(
        b"<w:body>",
        b"<w:body>"
        + b"<w:sdt><w:sdtContent>" * 150
        + b"<w:p><w:r><w:t>deep</w:t></w:r></w:p>"
        + b"</w:sdtContent></w:sdt>" * 150,
        1,
    )
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as archive:
        archive.writestr("[Content_Types].xml", content_types)
        archive.writestr("word/document.xml", document_xml)
        for number in range(_package.MAX_MEMBERS):
            archive.writestr(f"word/media/p{number}.xml", b"")
    return [
        ("truncated.docx", good[: len(good) // 2], "CORRUPT_OFFICE"),
        ("garbage.docx", b"PK\x03\x04" + b"\x00garbage" * 200, "CORRUPT_OFFICE"),
        ("text-named.xlsx", b"Item;Price\nPump;12\n", "CORRUPT_OFFICE"),
        ("no-main-part.pptx", _rezip(good, {}), "CORRUPT_OFFICE"),
        ("encrypted.docx", (OFFICE / "encrypted-handbook.docx").read_bytes(), "ENCRYPTED_OFFICE"),
        (
            "legacy.docx",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 1024,
            "UNSUPPORTED_TYPE",
        ),
        ("macros.docm", good, "MACRO_ENABLED"),
        ("macros.xlsm", make_xlsx(tmp_path / "m.xlsx").read_bytes(), "MACRO_ENABLED"),
        ("disguised.docx", _rezip(good, {}, {"[Content_Types].xml": macro_types}), "MACRO_ENABLED"),
        ("vba.docx", _rezip(good, {"word/vbaProject.bin": b"\x00" * 64}), "MACRO_ENABLED"),
        ("bomb.docx", _rezip(good, {"word/media/zeros.xml": b"\x00" * (8 << 20)}), "ZIP_BOMB"),
        ("many.docx", many.getvalue(), "ZIP_BOMB"),
        ("dtd.docx", _rezip(good, {}, {"word/document.xml": with_dtd}), "CORRUPT_OFFICE"),
        ("hidden-dtd.docx", _rezip(good, {}, {"word/document.xml": hidden_dtd}), "CORRUPT_OFFICE"),
        ("prolog.docx", _rezip(good, {}, {"word/document.xml": long_prolog}), "CORRUPT_OFFICE"),
        ("deep.docx", _rezip(good, {}, {"word/document.xml": deep}), "TOO_COMPLEX"),
        ("empty.pptx", b"", "EMPTY_FILE"),
    ]


@pytest.mark.both_backends
def test_bad_office_files_fail_with_a_code_and_stored_documents_stay(
    app: Ragox, tmp_path: Path
) -> None:
    """Each bad Office file is FAILED with its own code (never parsed further), and a
    document stored before still resolves."""
    good = make_docx(tmp_path / "kept.docx")
    item = app.ingest_path(good, tmp_path)
    assert item.outcome is not None and item.outcome.state is RevisionState.READY
    created = app.create_anchor("kept.docx", 0, 4, OPERATOR)
    assert not isinstance(created, Refusal)
    folder = tmp_path / "bad"
    folder.mkdir()
    outcomes = {}
    bad = _bad_files(tmp_path)
    for name, data, _ in bad:
        (folder / name).write_bytes(data)
        found = app.ingest_path(folder / name, folder)
        assert found.outcome is not None, name
        outcomes[name] = (found.outcome.state, found.outcome.error_code)
        assert "P-200" not in (found.outcome.error_message or "")
    expected = {name: (RevisionState.FAILED, code) for name, _, code in bad}
    assert outcomes == expected
    assert app.resolve(created.anchor, OPERATOR).status is ResolutionStatus.RESOLVED


def _main_part_with_dtd(package: bytes) -> bytes:
    """The package's ``word/document.xml`` with a DTD declaring one entity."""
    with zipfile.ZipFile(io.BytesIO(package)) as source:
        document_xml = source.read("word/document.xml")
    return document_xml.replace(b"?>", b'?>\n<!DOCTYPE w:document [<!ENTITY e "entity text">]>', 1)


def test_a_dtd_in_a_part_named_otherwise_is_refused(tmp_path: Path) -> None:
    """The main document may be any part a relationship names ("word/real.dat"): its
    DTD is refused like one in "word/document.xml" (red-team find: only parts named
    .xml or .rels were checked, so the file was READY with text after an entity
    silently lost). Images and other binary parts are not read as XML."""
    good = make_docx(tmp_path / "good.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(good)) as source:
        rels = source.read("_rels/.rels")
        types = source.read("[Content_Types].xml")
    with_dtd = _main_part_with_dtd(good)
    renamed = _rezip(
        good,
        {"word/real.dat": with_dtd, "word/media/picture.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64},
        {
            "_rels/.rels": rels.replace(b"word/document.xml", b"word/real.dat"),
            "[Content_Types].xml": types.replace(
                b'PartName="/word/document.xml"', b'PartName="/word/real.dat"'
            ),
        },
    )
    with pytest.raises(ExtractionError) as caught:
        extract_docx(renamed, BASE_PROFILE)
    assert caught.value.code is ErrorCode.CORRUPT_OFFICE
    assert "declares a DTD" in caught.value.message
    # the same with the content types in UTF-16 and the part named in other case
    types16 = (
        types.replace(b'PartName="/word/document.xml"', b'PartName="/WORD/Real.DAT"')
        .decode("utf-8")
        .replace('encoding="UTF-8"', 'encoding="UTF-16"')
        .encode("utf-16")
    )
    recased = _rezip(
        good,
        {"word/real.dat": with_dtd},
        {
            "_rels/.rels": rels.replace(b"word/document.xml", b"word/real.dat"),
            "[Content_Types].xml": types16,
        },
    )
    with pytest.raises(ExtractionError) as caught:
        extract_docx(recased, BASE_PROFILE)
    assert "declares a DTD" in caught.value.message
    # a binary part that does not start as XML is no reason to refuse
    with_picture = _rezip(good, {"word/media/picture.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64})
    assert extract_docx(with_picture, BASE_PROFILE).blocks


def test_a_sheet_of_too_many_cells_is_refused_before_openpyxl_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cell elements are counted in the package's XML before openpyxl loads it (it
    holds every cell: a 586 kB file of 16 million cells took gigabytes before the
    block limit refused it; red-team find). The workbook is never loaded."""
    from ragox.extract.office import xlsx as xlsx_module
    from ragox.extract.office._build import MAX_BLOCKS

    good = make_xlsx(tmp_path / "good.xlsx").read_bytes()
    # parts of under 1 MiB each (no ratio refusal), together past the block limit
    per_part = 200_000
    parts = {
        f"xl/worksheets/more{n}.xml": b'<?xml version="1.0"?><worksheet><sheetData><row>'
        + b"<c/>" * per_part
        + b"</row></sheetData></worksheet>"
        for n in range(MAX_BLOCKS // per_part + 1)
    }
    bomb = _rezip(good, parts)
    # the same cells in UTF-16, or under a prefix that is no ASCII name, and merged
    # ranges (openpyxl makes an object for every cell a range covers): counted too
    per_utf16 = 40_000  # parts under 1 MiB: no ratio refusal
    utf16 = {
        f"xl/worksheets/wide{n}.xml": (
            '<?xml version="1.0" encoding="UTF-16"?><é:worksheet xmlns:é="urn:x">'
            "<é:sheetData><é:row>" + "<é:c/>" * per_utf16 + "</é:row></é:sheetData>"
            "</é:worksheet>"
        ).encode("utf-16")
        for n in range(MAX_BLOCKS // per_utf16 + 1)
    }
    merged = {
        "xl/worksheets/merged.xml": b'<?xml version="1.0"?><worksheet><sheetData/>'
        b'<mergeCells count="1"><mergeCell ref="A1:CV20000"/></mergeCells></worksheet>'
    }
    others = [_rezip(good, utf16), _rezip(good, merged)]

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("openpyxl was asked to load the workbook")

    monkeypatch.setattr(xlsx_module.openpyxl, "load_workbook", never)
    for data in (bomb, *others):
        with pytest.raises(ExtractionError) as caught:
            extract_xlsx(data, BASE_PROFILE)
        assert caught.value.code is ErrorCode.TOO_COMPLEX


def test_xml_parts_past_the_limit_are_refused_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document whose XML parts expand past MAX_XML_BYTES together (many parts of
    1 MiB each, under the ratio and total limits) is ZIP_BOMB before python-docx parses
    them (240 such header parts in a 463 kB file took 3.7 GB; red-team find)."""
    from ragox.extract.office import docx as docx_module

    data = make_docx(tmp_path / "a.docx").read_bytes()
    xml = sum(
        i.file_size
        for i in zipfile.ZipFile(io.BytesIO(data)).infolist()
        if i.filename.endswith((".xml", ".rels"))
    )
    monkeypatch.setattr(docx_module, "MAX_XML_BYTES", xml - 1)
    with pytest.raises(ExtractionError) as caught:
        extract_docx(data, BASE_PROFILE)
    assert caught.value.code is ErrorCode.ZIP_BOMB
    monkeypatch.setattr(docx_module, "MAX_XML_BYTES", xml)
    assert extract_docx(data, BASE_PROFILE).blocks


def test_pictures_and_html_chunks_with_a_doctype_are_no_dtd_of_the_document(
    tmp_path: Path,
) -> None:
    """An SVG picture exported with its DOCTYPE, or an HTML chunk (altChunk) with
    "<!DOCTYPE html>", is not the document's XML: the file is read (red-team find: the
    check of every part that starts as XML refused such ordinary files)."""
    good = make_docx(tmp_path / "good.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(good)) as source:
        types = source.read("[Content_Types].xml")
    types = types.replace(
        b"</Types>",
        b'<Default Extension="svg" ContentType="image/svg+xml"/>'
        b'<Override PartName="/word/afchunk.htm" ContentType="application/xhtml+xml"/></Types>',
    )
    svg = (
        b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>'
    )
    html = b"<!DOCTYPE html><html><body><p>Chunk</p></body></html>"
    ordinary = _rezip(
        good,
        {"word/media/image1.svg": svg, "word/afchunk.htm": html},
        {"[Content_Types].xml": types},
    )
    assert extract_docx(ordinary, BASE_PROFILE).blocks


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be", "utf-16"])
def test_a_dtd_in_utf_32_or_utf_16_is_refused(tmp_path: Path, codec: str) -> None:
    """The main part in UTF-32 (with or without a byte-order mark) or UTF-16, declaring
    a DTD: refused as in UTF-8 (red-team find: UTF-32 was read as UTF-16 or not as XML,
    and the entity's text was silently lost)."""
    good = make_docx(tmp_path / "good.docx").read_bytes()
    encoded = _main_part_with_dtd(good).decode("utf-8").encode(codec)
    with pytest.raises(ExtractionError) as caught:
        extract_docx(_rezip(good, {}, {"word/document.xml": encoded}), BASE_PROFILE)
    assert "declares a DTD" in caught.value.message


def test_expansion_limit_is_checked_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package whose parts declare more than the total limit is ZIP_BOMB, read no further."""
    data = make_docx(tmp_path / "a.docx").read_bytes()
    declared = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    monkeypatch.setattr(_package, "MAX_UNCOMPRESSED_BYTES", declared - 1)
    with pytest.raises(ExtractionError) as caught:
        extract_docx(data, BASE_PROFILE)
    assert caught.value.code is ErrorCode.ZIP_BOMB
    monkeypatch.setattr(_package, "MAX_UNCOMPRESSED_BYTES", declared)
    assert extract_docx(data, BASE_PROFILE).blocks


# -- end to end: ingest, anchor, check ---------------------------------------------


def _office_files(tmp_path: Path) -> list[Path]:
    (tmp_path / "gen").mkdir(exist_ok=True)
    return [
        LIBREOFFICE_DOCX,
        OFFICE / "libreoffice-prices.xlsx",
        OFFICE / "libreoffice-training.pptx",
        OFFICE / "libreoffice-textboxes.pptx",
        make_docx(tmp_path / "gen" / "handbook.docx"),
        make_pptx(tmp_path / "gen" / "training.pptx"),
        make_xlsx(tmp_path / "gen" / "prices.xlsx"),
    ]


@pytest.mark.both_backends
def test_every_office_file_passes_check_and_anchors_resolve_to_their_block(
    app: Ragox, tmp_path: Path
) -> None:
    """Each test Office file is READY, `ragox check` finds 0 mismatches, and an anchor on a
    cell or paragraph resolves with that block's locator as its viewer target."""
    quotes = {
        "libreoffice-handbook.docx": ("twelve months or after 2,000 hours", "§ 1.2 › paragraph 1"),
        "libreoffice-prices.xlsx": ("143.4", "Prices!C4"),
        "libreoffice-training.pptx": (
            "Close the suction valve",
            "slide 1 › shape 'PlaceHolder 2' › paragraph 2",
        ),
        "libreoffice-textboxes.pptx": ("run dry", "slide 1 › notes"),
        "handbook.docx": ("Third column", "§ 1.1 › table 2 › row 1, column 3"),
        "training.pptx": ("flooded basement", "slide 1 › notes"),
        "prices.xlsx": ("Seal kit", "Prices!A3"),
    }
    for path in _office_files(tmp_path):
        item = app.ingest_path(path, path.parent)
        assert item.outcome is not None and item.outcome.state is RevisionState.READY, path
        doc = item.outcome.document_id
        report = app.check(doc, OPERATOR)
        assert report.fragments > 0 and report.mismatches == (), path.name
        quote, locator = quotes[path.name]
        text = app.text(doc, OPERATOR)
        start = text.index(quote)
        created = app.create_anchor(doc, start, start + len(quote), OPERATOR)
        assert not isinstance(created, Refusal)
        result = app.resolve(created.anchor, OPERATOR)
        assert result.status is ResolutionStatus.RESOLVED and result.target is not None
        assert [b.locator for b in result.target.blocks] == [locator]


@pytest.mark.both_backends
def test_check_sees_a_source_that_differs_from_the_representation(
    app: Ragox, tmp_path: Path
) -> None:
    """The check re-reads the source: against a DOCX whose paragraph was edited, the
    fragment from that paragraph is reported with its locator."""
    path = make_docx(tmp_path / "h.docx")
    item = app.ingest_path(path, tmp_path)
    assert item.outcome is not None
    record = app.store.get_revision("default", "h.docx", "r1")
    assert record is not None and record.manifest_id is not None
    edited = docx.Document(str(path))
    for paragraph in edited.paragraphs:
        if paragraph.text.startswith("Returns are"):
            paragraph.runs[0].text = "Returns are refused after 30 days of delivery."
    edited_path = tmp_path / "edited.docx"
    edited.save(edited_path)
    report = check_representation(
        app.store,
        "h.docx",
        "r1",
        record.manifest_id,
        DOCX_MEDIA_TYPE,
        BASE_PROFILE.id,
        edited_path.read_bytes(),
    )
    assert {m.locator for m in report.mismatches} == {"§ 2 › paragraph 1"}
    assert {m.reason for m in report.mismatches} == {"locator_text_differs"}


@pytest.mark.both_backends
def test_cli_check_round_trip_on_the_libreoffice_docx(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`ragox ingest` and `ragox check --json` on the LibreOffice DOCX: READY, 0 mismatches;
    `ragox status` names what the extractor dropped on purpose."""
    import json

    ingested = ragox_cli("ingest", str(LIBREOFFICE_DOCX), "--json")
    assert ingested.code == 0, ingested.stdout
    assert json.loads(ingested.stdout)["results"][0]["state"] == "READY"
    checked = ragox_cli("check", LIBREOFFICE_DOCX.name, "--json")
    body = json.loads(checked.stdout)
    assert checked.code == 0 and body["mismatches"] == [] and body["fragments"] > 0
    shown = ragox_cli("status", LIBREOFFICE_DOCX.name).stdout
    assert "notes: COMMENTS_DROPPED, TRACKED_CHANGES_ACCEPTED" in shown


_FUZZ_SOURCES: dict[str, tuple[bytes, object]] = {}


def _fuzz_source(kind: str) -> tuple[bytes, object]:
    """A small generated file of ``kind`` and its extractor (made once per run)."""
    if kind not in _FUZZ_SOURCES:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="ragox-office-fuzz-"))
        make, extract = {
            "docx": (make_docx, extract_docx),
            "pptx": (make_pptx, extract_pptx),
            "xlsx": (make_xlsx, extract_xlsx),
        }[kind]
        _FUZZ_SOURCES[kind] = (make(folder / f"f.{kind}").read_bytes(), extract)
    return _FUZZ_SOURCES[kind]


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["docx", "pptx", "xlsx"]),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), max_size=6),
    cut=st.one_of(st.none(), st.floats(0, 1)),
)
# a flipped "version needed to extract" byte: zipfile raised NotImplementedError
@example(kind="xlsx", flips=[(0.9891780457230731, 64)], cut=None)
def test_damaged_packages_give_a_code_never_another_exception(
    kind: str, flips: list[tuple[float, int]], cut: float | None
) -> None:
    """Bytes flipped or cut anywhere in a DOCX, PPTX or XLSX: the extractor either reads
    it or refuses it with an ExtractionError, never any other exception."""
    data, extract = _fuzz_source(kind)
    damaged = bytearray(data)
    for where, value in flips:
        damaged[int(where * len(damaged))] ^= value
    if cut is not None:
        damaged = damaged[: int(cut * len(damaged))]
    try:
        extraction = extract(bytes(damaged), BASE_PROFILE, None)  # type: ignore[operator]
    except ExtractionError as error:
        assert error.code in {
            ErrorCode.CORRUPT_OFFICE,
            ErrorCode.EMPTY_FILE,
            ErrorCode.ZIP_BOMB,
            ErrorCode.MACRO_ENABLED,
            ErrorCode.UNSUPPORTED_TYPE,
            ErrorCode.TOO_COMPLEX,
        }
    else:
        assert isinstance(extraction, Extraction)


def _declare_size(data: bytes, name: str, size: int) -> bytes:
    """A copy of a ZIP whose member ``name`` declares ``size`` uncompressed bytes (in its
    local header and its central directory entry) whatever it really inflates to."""
    import struct

    patched = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        offset = archive.getinfo(name).header_offset
    struct.pack_into("<I", patched, offset + 22, size)
    position = patched.find(b"PK\x01\x02")
    while position >= 0:
        (length,) = struct.unpack_from("<H", patched, position + 28)
        if patched[position + 46 : position + 46 + length] == name.encode():
            struct.pack_into("<I", patched, position + 24, size)
        position = patched.find(b"PK\x01\x02", position + 4)
    return bytes(patched)


def test_a_part_that_lies_about_its_size_is_never_inflated_past_it(tmp_path: Path) -> None:
    """A part declaring 100 bytes that inflates to 64 MiB passes the size checks, but is
    read no further than it declares: its CRC fails and the file is CORRUPT_OFFICE."""
    good = make_docx(tmp_path / "a.docx").read_bytes()
    bomb = _rezip(good, {"word/media/zeros.xml": b"\x00" * (64 << 20)})
    lying = _declare_size(bomb, "word/media/zeros.xml", 100)
    with zipfile.ZipFile(io.BytesIO(lying)) as archive:
        assert archive.getinfo("word/media/zeros.xml").file_size == 100
    with pytest.raises(ExtractionError) as caught:
        extract_docx(lying, BASE_PROFILE)
    assert caught.value.code is ErrorCode.CORRUPT_OFFICE
    with pytest.raises(ExtractionError) as honest:
        extract_docx(bomb, BASE_PROFILE)
    assert honest.value.code is ErrorCode.ZIP_BOMB


def test_docx_text_box_dropped_and_python_docx_comment_flagged(tmp_path: Path) -> None:
    """A text box (VML, as Word's fallback writes it) is dropped with TEXT_BOXES_DROPPED;
    a comment added by python-docx is dropped with COMMENTS_DROPPED; the commented text
    itself stays."""
    from docx.oxml import parse_xml

    document = docx.Document()
    paragraph = document.add_paragraph("The valve is closed before service.")
    document.add_comment(paragraph.runs, text="Which valve?", author="Ina")
    boxed = document.add_paragraph("Anchor text. ")
    boxed._p.append(
        parse_xml(
            '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
            ' xmlns:v="urn:schemas-microsoft-com:vml"><w:pict><v:shape><v:textbox>'
            "<w:txbxContent><w:p><w:r><w:t>Boxed warning</w:t></w:r></w:p></w:txbxContent>"
            "</v:textbox></v:shape></w:pict></w:r>"
        )
    )
    path = tmp_path / "boxes.docx"
    document.save(path)
    extraction = extract_docx(path.read_bytes(), BASE_PROFILE)
    assert [text for _, _, text in _rows(extraction)] == [
        "The valve is closed before service.",
        "Anchor text.",
    ]
    assert extraction.warnings == ("COMMENTS_DROPPED", "TEXT_BOXES_DROPPED")


def test_pptx_comments_part_flagged(tmp_path: Path) -> None:
    """A deck carrying a slide comments part: the comments give no text, and the
    extraction says COMMENTS_DROPPED."""
    data = make_pptx(tmp_path / "d.pptx").read_bytes()
    comment = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        b'<p:cmLst xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">'
        b'<p:cm authorId="0" idx="1"><p:pos x="10" y="10"/><p:text>Too long</p:text></p:cm>'
        b"</p:cmLst>"
    )
    extraction = extract_pptx(_rezip(data, {"ppt/comments/comment1.xml": comment}), BASE_PROFILE)
    assert "Too long" not in extraction.text
    assert extraction.warnings == ("COMMENTS_DROPPED", "HIDDEN_SLIDES_DROPPED")


@pytest.mark.both_backends
def test_folder_ingest_skips_office_owner_files(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The owner file Word keeps beside an open document (~$name.docx) is not a document:
    a folder ingest leaves it out instead of failing on it."""
    import json

    folder = tmp_path / "docs"
    folder.mkdir()
    make_docx(folder / "handbook.docx")
    (folder / "~$handbook.docx").write_bytes(b"\x05Maria" + b"\x00" * 156)
    result = ragox_cli("ingest", str(folder), "--json")
    body = json.loads(result.stdout)
    assert result.code == 0
    assert [r["document_id"] for r in body["results"]] == ["handbook.docx"]
    assert body["summary"] == {"ready": 1, "unchanged": 0, "skipped": 0, "failed": 0}


# -- tables: each cell's place and the header cells over it ------------------------


def _cell_heads(extraction: Extraction) -> dict[str, tuple[int, int, int, bool, list[str]]]:
    """Each table cell's text: (table, row, column, header?, texts of its header cells)."""
    text_of = {b.block_id: extraction.text[b.span.start : b.span.end] for b in extraction.blocks}
    return {
        text_of[b.block_id]: (
            b.cell.table,
            b.cell.row,
            b.cell.col,
            b.cell.header,
            [text_of[h] for h in b.cell.header_ids],
        )
        for b in extraction.blocks
        if b.cell is not None
    }


def test_office_table_cells_know_their_place_and_headers(tmp_path: Path) -> None:
    """DOCX, PPTX and XLSX cells carry their table, row and column and the header cells
    over them (before: none, so a table's header was unknown to search and answers):
    the first row of a Word or PowerPoint table, a sheet's first row of titles."""
    docx_cells = _cell_heads(
        extract_docx(make_docx(tmp_path / "h.docx").read_bytes(), BASE_PROFILE)
    )
    assert docx_cells["1,200 EUR"][:4] == (0, 1, 1, False)
    assert docx_cells["1,200 EUR"][4] and docx_cells["1,200 EUR"][4][0] != "1,200 EUR"
    assert docx_cells["Third column"][:3] == (1, 0, 2)  # the second table, after a merge
    pptx_cells = _cell_heads(
        extract_pptx(make_pptx(tmp_path / "d.pptx").read_bytes(), BASE_PROFILE)
    )
    assert pptx_cells["Price"] == (0, 0, 1, True, [])
    assert pptx_cells["39 EUR"] == (0, 1, 1, False, ["Price"])
    xlsx_cells = _cell_heads(
        extract_xlsx(make_xlsx(tmp_path / "p.xlsx").read_bytes(), BASE_PROFILE)
    )
    assert xlsx_cells["Item"] == (0, 0, 0, True, [])
    assert xlsx_cells["2024-03-01 14:30:00"] == (0, 2, 2, False, ["Since"])
    # a merged A6:C6 spans three columns, so three titles head it
    assert xlsx_cells["Prices include VAT"][4] == ["Item", "Price", "Since"]


def test_a_question_about_a_word_table_is_answered_from_its_cell(tmp_path: Path) -> None:
    """A value in a Word table is found and quoted through its row and column headers
    (before: "What torque does P-48 need?" abstained, "no passage mentions: need")."""
    document = docx.Document()
    document.add_heading("Pump specifications", 1)
    table = document.add_table(rows=3, cols=3)
    for r, values in enumerate(
        [
            ("Model", "Torque", "Max pressure"),
            ("P-48", "16 Nm", "6 bar"),
            ("P-72", "24 Nm", "8 bar"),
        ]
    ):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    path = tmp_path / "specs.docx"
    document.save(str(path))
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(path, tmp_path, tenant="default")
        record = app.ask("What torque does P-48 need?", OPERATOR)
    finally:
        app.close()
    assert not record.abstained
    assert [c.anchor.quote.exact for c in record.citations] == ["16 Nm"]


def test_a_formula_saved_without_its_value_is_flagged(tmp_path: Path) -> None:
    """A workbook a library wrote (openpyxl, pandas) holds its formulas without values:
    the cell shows nothing, and the document says so instead of dropping it unnoticed;
    a workbook Calc saved (values kept) is not flagged."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Item", "Price"])
    sheet.append(["Seal kit", 39])
    sheet.append(["Total", "=B2*2"])
    path = tmp_path / "total.xlsx"
    workbook.save(path)
    extraction = extract_xlsx(path.read_bytes(), BASE_PROFILE)
    assert "FORMULAS_WITHOUT_VALUES" in extraction.warnings
    assert "B2*2" not in extraction.text  # never the formula itself
    saved = extract_xlsx((OFFICE / "libreoffice-prices.xlsx").read_bytes(), BASE_PROFILE)
    assert "FORMULAS_WITHOUT_VALUES" not in saved.warnings


def test_a_huge_column_span_costs_nothing(tmp_path: Path) -> None:
    """A Word table whose header cell claims to span a hundred million columns (a 30 KB
    hostile file) is extracted in little memory, the span recorded as at most a real
    grid's width (before: one header entry per spanned column, gigabytes, MemoryError)."""
    import tracemalloc

    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    for r, values in enumerate([("Part", "Torque"), ("P-48", "16 Nm")]):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    span = OxmlElement("w:gridSpan")
    span.set(qn("w:val"), "100000000")
    table.cell(0, 0)._tc.get_or_add_tcPr().append(span)
    path = tmp_path / "span.docx"
    document.save(str(path))
    tracemalloc.start()
    try:
        extraction = extract_docx(path.read_bytes(), BASE_PROFILE)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50_000_000, peak
    cells = _cell_heads(extraction)
    assert cells["Part"][:4] == (0, 0, 0, True)
    assert cells["P-48"][4] == ["Part"]  # under the wide header
    assert all(b.cell.col_span <= 16_384 for b in extraction.blocks if b.cell is not None)


def test_a_word_row_that_starts_later_in_the_grid_keeps_its_columns(tmp_path: Path) -> None:
    """A row with ``gridBefore`` starts in a later grid column: its cells are under the
    headers Word shows them under (before: "12 bar" under Pressure was read as under
    Torque, and "What torque does P-50 need?" was answered "12 bar")."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=3, cols=3)
    for r, values in enumerate(
        [("Part", "Torque", "Pressure"), ("P-48", "16 Nm", "6 bar"), ("", "P-50", "12 bar")]
    ):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    row = table.rows[2]._tr
    row.remove(row.tc_lst[0])  # the row's first grid column holds no cell
    before = OxmlElement("w:gridBefore")
    before.set(qn("w:val"), "1")
    row.get_or_add_trPr().append(before)
    path = tmp_path / "before.docx"
    document.save(str(path))
    cells = _cell_heads(extract_docx(path.read_bytes(), BASE_PROFILE))
    assert cells["12 bar"] == (0, 2, 2, False, ["Pressure"])
    assert cells["P-50"][4] == ["Torque"]


def test_a_word_header_of_two_rows_heads_every_column(tmp_path: Path) -> None:
    """A header whose "Part" is merged down over a second header row ("min", "max"
    under "Torque"): each body cell is headed by the nearest header row that has a cell
    over it (before the fix, "P-48" lost its "Part" header); a grid count that is no
    number of Word's is read as none."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=3, cols=3)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "Part"
    table.cell(0, 1).merge(table.cell(0, 2)).text = "Torque"
    table.cell(1, 1).text = "min"
    table.cell(1, 2).text = "max"
    for c, value in enumerate(("P-48", "10 Nm", "16 Nm")):
        table.cell(2, c).text = value
    for row in table.rows[:2]:
        row._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    far = OxmlElement("w:gridBefore")
    far.set(qn("w:val"), "1000000000000")  # no grid of Word's: read as none
    table.rows[2]._tr.get_or_add_trPr().append(far)
    path = tmp_path / "two-rows.docx"
    document.save(str(path))
    cells = _cell_heads(extract_docx(path.read_bytes(), BASE_PROFILE))
    assert cells["P-48"] == (0, 2, 0, False, ["Part"])
    assert cells["10 Nm"][4] == ["min"] and cells["16 Nm"][4] == ["max"]
