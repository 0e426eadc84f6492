"""The PDF adapter: MuPDF's text layer as blocks, with a verified box per code point."""

from __future__ import annotations

import random
import re
import struct
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import pymupdf
import pytest

from ragox.extract import (
    BLOCK_SEPARATOR,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
)
from ragox.extract.pdf import PDF_PARSER, extract_pdf
from ragox.text import (
    BASE_PROFILE,
    Alignment,
    AlignmentBuilder,
    Coordinates,
    Profile,
    Step,
    step_by_name,
)

DATA = Path(__file__).parent / "data" / "pdf"
SAMPLES = (
    "multicolumn",
    "ligatures",
    "habibi-arabic",
    "habibi-rotated",
    "cyrillic",
    "tracemonkey",
    "geotopo-de",
)
PASSWORD = "openpassword"
NFKC_PROFILE = Profile((step_by_name("crlf-to-lf"), step_by_name("NFKC")))
#: How far our boxes may be from MuPDF's ``search_for`` rectangles, in points.
TOLERANCE = 2.0

Box = tuple[float, float, float, float]


@cache
def sample(name: str) -> bytes:
    return (DATA / f"{name}.pdf").read_bytes()


@cache
def extracted(name: str) -> Extraction:
    return extract_pdf(sample(name), BASE_PROFILE)


def boxes(extraction: Extraction) -> list[Box]:
    """The char boxes, read as the documented little-endian float32 quadruples."""
    assert extraction.char_boxes is not None
    return list(struct.iter_unpack("<4f", extraction.char_boxes))


def union(found: Sequence[Box]) -> Box:
    real = [b for b in found if b != (0.0, 0.0, 0.0, 0.0)]
    assert real, "no box to unite"
    return (
        min(b[0] for b in real),
        min(b[1] for b in real),
        max(b[2] for b in real),
        max(b[3] for b in real),
    )


def close(a: Sequence[float], b: Sequence[float], tolerance: float = TOLERANCE) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def inside(inner: Sequence[float], outer: Sequence[float], tolerance: float = TOLERANCE) -> bool:
    return (
        inner[0] >= outer[0] - tolerance
        and inner[1] >= outer[1] - tolerance
        and inner[2] <= outer[2] + tolerance
        and inner[3] <= outer[3] + tolerance
    )


def block_at(extraction: Extraction, offset: int) -> int:
    """The page of the block that holds code point ``offset``."""
    for block in extraction.blocks:
        if block.span.start <= offset < block.span.end:
            assert block.page is not None
            return block.page
    raise AssertionError(f"offset {offset} lies in no block")


def occurrences(text: str, quote: str) -> Iterator[int]:
    start = text.find(quote)
    while start >= 0:
        yield start
        start = text.find(quote, start + 1)


def make_pdf(pages: Sequence[Sequence[tuple[float, float, str]] | None]) -> bytes:
    """A PDF whose pages hold text lines at (x, y), or, for None, only an image."""
    document = pymupdf.open()
    for lines in pages:
        page = document.new_page(width=595, height=842)
        if lines is None:
            pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 32, 32), False)
            pixmap.clear_with(90)
            page.insert_image(pymupdf.Rect(72, 72, 400, 400), pixmap=pixmap)
            continue
        for x, y, text in lines:
            page.insert_text((x, y), text, fontname="helv", fontsize=11)
    data: bytes = document.tobytes()
    document.close()
    return data


def assert_refused(data: bytes, code: ErrorCode, options: ExtractOptions | None = None) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, BASE_PROFILE, options)
    assert caught.value.code is code


# -- every sample ---------------------------------------------------------------


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_structure(name: str) -> None:
    """Blocks tile the text in page order with the fixed separator and one box per code point."""
    extraction = extracted(name)
    page_count = pymupdf.open(stream=sample(name)).page_count
    assert extraction.page_count == page_count
    assert extraction.parser == PDF_PARSER
    assert extraction.media_type == "application/pdf"
    assert extraction.source_alignment is None
    assert extraction.char_boxes is not None
    assert len(extraction.char_boxes) == 16 * len(extraction.text)
    assert extraction.blocks
    assert extraction.blocks[0].span.start == 0
    assert extraction.blocks[-1].span.end == len(extraction.text)
    previous_end = None
    previous_page = 0
    for index, block in enumerate(extraction.blocks):
        assert block.index == index
        assert block.span.coordinates is Coordinates.CODEPOINT
        assert block.page is not None
        assert previous_page <= block.page <= page_count
        if block.cell is None:
            assert block.kind is BlockKind.PDF_BLOCK
            assert re.fullmatch(rf"page={block.page};block=\d+", block.locator)
        else:  # a cell of a table PyMuPDF's table finder found
            assert block.kind is BlockKind.TABLE_CELL
            assert block.locator == (
                f"page={block.page};table={block.cell.table};"
                f"row={block.cell.row};col={block.cell.col}"
            )
        if previous_end is not None:
            assert extraction.text[previous_end : block.span.start] == BLOCK_SEPARATOR
        assert not extraction.text[block.span.start : block.span.end].isspace()
        previous_end = block.span.end
        previous_page = block.page


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_boxes(name: str) -> None:
    """Newlines and separators have zero boxes; every other code point has one inside its block."""
    extraction = extracted(name)
    found = boxes(extraction)
    text = extraction.text
    zero = (0.0, 0.0, 0.0, 0.0)
    covered = 0
    for block in extraction.blocks:
        assert block.bbox is not None
        outer = (block.bbox.x0, block.bbox.y0, block.bbox.x1, block.bbox.y1)
        for offset in range(block.span.start, block.span.end):
            if text[offset] == "\n":
                assert found[offset] == zero
            else:
                assert found[offset] != zero
                assert inside(found[offset], outer, 0.5)
            covered += 1
    separators = [k for k in range(len(text)) if found[k] == zero]
    assert len(separators) == text.count("\n")
    assert covered + len(BLOCK_SEPARATOR) * (len(extraction.blocks) - 1) == len(text)


@pytest.mark.parametrize(
    "name",
    ["multicolumn", "ligatures", "habibi-arabic", "habibi-rotated", "cyrillic", "tracemonkey"],
)
def test_blocks_come_from_their_page(name: str) -> None:
    """Every block's text is part of MuPDF's own plain-text output of the page it names."""
    # geotopo-de is left out: MuPDF's "text" output orders a few lines of its
    # commutative diagrams differently from "rawdict", so the check does not apply.
    extraction = extracted(name)
    document = pymupdf.open(stream=sample(name))
    flags = int(PDF_PARSER.config["flags"])
    page_texts = [
        BASE_PROFILE.normalize_text(page.get_text("text", flags=flags, sort=False)).text
        for page in document
    ]
    for block in extraction.blocks:
        assert block.page is not None
        block_text = extraction.text[block.span.start : block.span.end]
        assert block_text in page_texts[block.page - 1], block.locator


def test_parser_identity() -> None:
    """The parser id and config name MuPDF, MuPDF's reading order and the text flags."""
    assert PDF_PARSER.name == "pdf-pymupdf"
    assert PDF_PARSER.version == f"4+mupdf-{pymupdf.VersionBind}"  # 3: lines; 4: misencoded
    config = PDF_PARSER.config
    assert config["sort"] is False
    flags = config["flags"]
    assert isinstance(flags, int) and not isinstance(flags, bool)
    assert flags & pymupdf.TEXT_PRESERVE_LIGATURES
    assert flags & pymupdf.TEXT_PRESERVE_WHITESPACE
    assert flags & pymupdf.TEXT_MEDIABOX_CLIP
    assert not flags & pymupdf.TEXT_DEHYPHENATE
    assert len(PDF_PARSER.config_sha256) == 64


# -- reading order ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "gutter"),
    [("multicolumn", 306.0), ("tracemonkey", 305.0)],
)
def test_columns_do_not_interleave(name: str, gutter: float) -> None:
    """On every page the left column's blocks come before the right column's, band by band."""
    extraction = extracted(name)
    for page in range(1, (extraction.page_count or 0) + 1):
        columns = ""
        for block in extraction.blocks:
            if block.page != page or block.bbox is None:
                continue
            if block.bbox.x1 < gutter:
                columns += "L"
            elif block.bbox.x0 > gutter:
                columns += "R"
            else:
                columns += "C"  # spans the gutter: title, figure, page number
        # Full-width blocks may separate bands; within a band, no R before an L.
        assert re.fullmatch(r"C*L*R*(C+L*R*)*C*", columns), (page, columns)


@pytest.mark.parametrize(
    ("name", "sentence", "page"),
    [
        (
            "multicolumn",
            "Nam dui ligula, fringilla a, euismod sodales, sollic-\nitudin vel, wisi.",
            1,
        ),
        (
            "tracemonkey",
            "Dynamic languages such as JavaScript are more difﬁcult to com-\n"
            "pile than statically typed ones.",
            1,
        ),
    ],
)
def test_wrapped_sentence_is_contiguous(name: str, sentence: str, page: int) -> None:
    """A sentence wrapped inside one column comes out whole, hyphen and line break kept."""
    extraction = extracted(name)
    start = extraction.text.find(sentence)
    assert start >= 0
    assert block_at(extraction, start) == page
    assert block_at(extraction, start + len(sentence) - 1) == page


def test_right_column_follows_left_column() -> None:
    """multicolumn.pdf page 1: the right column starts only after the left one has ended."""
    text = extracted("multicolumn").text
    left_last = text.index("Nulla malesuada porttitor diam.")
    right_first = text.index("pellentesque ante. Phasellus adipiscing semper elit.")
    assert left_last < right_first
    # Lines of the two columns do not alternate: the left column's lines stay together.
    assert "Lorem ipsum dolor sit amet, consectetuer adip-\niscing elit." in text


# -- characters -------------------------------------------------------------------


def test_ligatures_are_kept() -> None:
    """NFC keeps ligature code points: ﬀ ﬁ ﬂ ﬃ ﬄ stay single code points."""
    assert "ﬀﬁﬂﬃﬄ" in extracted("ligatures").text
    assert "difﬁcult" in extracted("tracemonkey").text
    assert "ﬁ" in extracted("multicolumn").text
    assert "oﬀen" in extracted("geotopo-de").text


def test_nfkc_expansion_shares_the_ligature_box() -> None:
    """Under NFKC both letters of an expanded ligature get the ligature's own box."""
    nfc = extracted("ligatures")
    nfkc = extract_pdf(sample("ligatures"), NFKC_PROFILE)
    assert "ﬁ" not in nfkc.text
    assert len(nfkc.char_boxes or b"") == 16 * len(nfkc.text)
    ligature_box = boxes(nfc)[nfc.text.index("ﬃ")]
    start = nfkc.text.index("ffiffl")  # ﬃ then ﬄ
    expanded = boxes(nfkc)[start : start + 3]
    assert expanded == [ligature_box] * 3


def test_composition_unites_boxes() -> None:
    """NFC merges e + U+0301 into é; its box is the union of both characters' boxes."""
    document = pymupdf.open()
    page = document.new_page()
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 100), "Cafe\u0301 Mu\u0308ller", font=pymupdf.Font(language="de"))
    writer.write_text(page)
    data = document.tobytes()
    raw = pymupdf.open(stream=data)[0].get_text("rawdict")
    chars = [c for s in raw["blocks"][0]["lines"][0]["spans"] for c in s["chars"]]
    assert [c["c"] for c in chars[3:5]] == ["e", "\u0301"]  # MuPDF keeps them apart
    extraction = extract_pdf(data, BASE_PROFILE)
    assert extraction.text == "Café Müller"
    found = boxes(extraction)
    assert close(found[3], union([tuple(chars[3]["bbox"]), tuple(chars[4]["bbox"])]), 0.01)
    assert close(found[4], tuple(chars[5]["bbox"]), 0.01)  # the space after é


def _join_th(text: str) -> tuple[str, Alignment]:
    """A test step: every "th" becomes "þ", one code point for two."""
    builder = AlignmentBuilder()
    pieces = text.split("th")
    for index, piece in enumerate(pieces):
        if index:
            builder.replace(1, 2)
        builder.copy(len(piece))
    return "þ".join(pieces), builder.build()


def test_replacement_gets_union_of_its_sources() -> None:
    """A code point a profile made from several characters is boxed by their union."""
    profile = Profile((Step("th-to-thorn", _join_th),))
    data = make_pdf([[(72, 72, "the north path")]])
    plain = extract_pdf(data, BASE_PROFILE)
    joined = extract_pdf(data, profile)
    assert joined.text == "þe norþ paþ"
    before, after = boxes(plain), boxes(joined)
    assert after[0] == union(before[0:2])
    assert after[0][0] == before[0][0] and after[0][2] == before[1][2]
    assert after[1:6] == before[2:7]  # "e nor": copies keep their own boxes
    assert after[6] == union(before[7:9])
    assert after[7:10] == before[9:12]
    assert after[10] == union(before[12:14])


def test_cyrillic_comes_out_as_cyrillic() -> None:
    """The real Cyrillic text of cyrillic.pdf (its footer) is extracted as Cyrillic letters."""
    extraction = extracted("cyrillic")
    footer = "Подготовлено с использованием системы КонсультантПлюс"
    starts = list(occurrences(extraction.text, footer))
    assert [block_at(extraction, s) for s in starts] == [2, 3, 4, 5, 6, 7, 8]
    assert all(unicodedata.name(ch).startswith("CYRILLIC") for ch in "КонсультантПлюс")


# -- positions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "quote", "page"),
    [
        ("tracemonkey", "Dynamic languages such as JavaScript are more", 1),
        ("tracemonkey", "difﬁcult to com", 1),
        ("tracemonkey", "Trace-based Just-in-Time Type Specialization", 1),
        ("multicolumn", "Nam dui ligula, fringilla a, euismod sodales", 1),
        ("multicolumn", "Quisque ullamcorper placerat ipsum", 1),
        ("multicolumn", "Suspendisse vitae elit. Aliquam arcu neq", 2),
        ("ligatures", "ﬀﬁﬂﬃﬄ", 1),
        ("geotopo-de", "Verkettungen stetiger Abbildungen sind stetig", 14),
    ],
)
def test_quote_boxes_match_search(name: str, quote: str, page: int) -> None:
    """The union of a one-line quote's char boxes is where MuPDF's search finds it."""
    extraction = extracted(name)
    (start,) = occurrences(extraction.text, quote)
    assert block_at(extraction, start) == page
    ours = union(boxes(extraction)[start : start + len(quote)])
    pdf_page = pymupdf.open(stream=sample(name))[page - 1]
    hits = pdf_page.search_for(quote)
    assert len(hits) == 1
    assert close(ours, tuple(hits[0] * pdf_page.rotation_matrix))
    assert inside(ours, tuple(pdf_page.rect))


def test_repeated_cyrillic_quote_is_located_on_each_page() -> None:
    """Each occurrence of a repeated quote has boxes where search finds it on its own page."""
    extraction = extracted("cyrillic")
    document = pymupdf.open(stream=sample("cyrillic"))
    found = boxes(extraction)
    quote = "КонсультантПлюс"
    for start in occurrences(extraction.text, quote):
        page = document[block_at(extraction, start) - 1]
        (hit,) = page.search_for(quote)
        assert close(union(found[start : start + len(quote)]), tuple(hit))


# -- rotation ---------------------------------------------------------------------


def ink_box(page: pymupdf.Page) -> Box:
    """The bounding box of the dark pixels of ``page`` rendered at 72 dpi (top-left origin)."""
    pixmap = page.get_pixmap(colorspace=pymupdf.csGRAY, dpi=72)
    dark = re.compile(rb"[\x00-\x7f]")
    rows = []
    xs = []
    for y in range(pixmap.height):
        row = pixmap.samples[y * pixmap.stride : y * pixmap.stride + pixmap.width]
        first = dark.search(row)
        if first is None:
            continue
        last = dark.search(row[::-1])
        assert last is not None
        rows.append(y)
        xs.extend((first.start(), pixmap.width - 1 - last.start()))
    return (min(xs), min(rows), max(xs) + 1, max(rows) + 1)


def test_rotated_pages_use_displayed_coordinates() -> None:
    """On /Rotate pages, boxes are in the displayed page: inside page.rect and over the ink."""
    extraction = extracted("habibi-rotated")
    assert "ROTATED_PAGES" in extraction.warnings
    document = pymupdf.open(stream=sample("habibi-rotated"))
    found = boxes(extraction)
    rotations = []
    for page in document:
        rotations.append(page.rotation)
        page_no = page.number + 1
        blocks = [b for b in extraction.blocks if b.page == page_no]
        assert len(blocks) == 1
        span = blocks[0].span
        text_box = union(found[span.start : span.end])
        assert inside(text_box, tuple(page.rect), 0.0)
        # What a viewer shows: the rendered ink lies within the text's boxes.
        assert inside(ink_box(page), text_box)
        start = extraction.text.index("habibi", span.start)
        (hit,) = page.search_for("habibi")  # unrotated page space
        assert close(union(found[start : start + 6]), tuple(hit * page.rotation_matrix))
    assert rotations == [90, 180, 270, 0]


def test_unrotated_samples_carry_no_rotation_warning() -> None:
    """ROTATED_PAGES appears only where a page has /Rotate."""
    assert "ROTATED_PAGES" not in extracted("multicolumn").warnings
    assert "ROTATED_PAGES" not in extracted("habibi-arabic").warnings


# -- right to left ------------------------------------------------------------------


def test_arabic_sample_is_logical_order() -> None:
    """habibi-arabic.pdf yields the logical-order word حَبيبي, not its reversal."""
    extraction = extracted("habibi-arabic")
    word = "حَبيبي"
    assert word in extraction.text
    assert word[::-1] not in extraction.text
    assert "RTL_TEXT" in extraction.warnings
    assert "RTL_VISUAL_ORDER" not in extraction.warnings


def hebrew_pdf(text: str, *, right_to_left: bool) -> bytes:
    document = pymupdf.open()
    page = document.new_page()
    writer = pymupdf.TextWriter(page.rect)
    writer.append(
        (100, 100), text, font=pymupdf.Font(script=5), fontsize=20, right_to_left=right_to_left
    )
    writer.write_text(page)
    data: bytes = document.tobytes()
    return data


def test_hebrew_drawn_left_to_right_comes_out_logical() -> None:
    """Hebrew whose glyphs are drawn in visual order is read back in logical order, unflagged."""
    word = "שלום עולם"
    data = hebrew_pdf(word, right_to_left=True)
    content = pymupdf.open(stream=data)[0].read_contents()
    assert b"TJ" in content
    extraction = extract_pdf(data, BASE_PROFILE)
    assert extraction.text == word
    assert extraction.warnings == ("RTL_TEXT",)
    found = boxes(extraction)
    # Logical order runs right to left on the page: the first letter is rightmost.
    assert found[0][0] > found[1][0] > found[2][0] > found[3][0]


def test_visual_order_vote() -> None:
    """Neighbouring RTL letters that advance along the line vote for visual order."""
    from ragox.extract.pdf import _RtlCounter  # the fallback MuPDF 1.28 never needed

    def block(xs: Sequence[float]) -> dict[str, object]:
        chars = [{"c": "ש", "bbox": (x, 0.0, x + 5.0, 10.0)} for x in xs]
        return {"lines": [{"dir": (1.0, 0.0), "spans": [{"chars": chars}]}]}

    visual = _RtlCounter()
    visual.inspect(block([0.0, 5.0, 10.0]))
    assert (visual.visual, visual.logical) == (2, 0)
    logical = _RtlCounter()
    logical.inspect(block([10.0, 5.0, 0.0]))
    assert (logical.visual, logical.logical) == (0, 2)


def test_words_in_drawing_order_are_flagged() -> None:
    """A line drawn glyph by glyph comes out with its words in drawing order: flagged
    RTL_VISUAL_ORDER (each word on its own reads logically, so only the word vote sees it)."""
    from rtl_pdfs import VISUAL_LINE, visual_order_pdf

    extraction = extract_pdf(visual_order_pdf(), BASE_PROFILE)
    assert extraction.text == " ".join(reversed(VISUAL_LINE.split(" ")))
    assert extraction.warnings == ("RTL_TEXT", "RTL_VISUAL_ORDER")


def test_rtl_words_inside_a_ltr_line_are_flagged() -> None:
    """Hebrew words inside an English paragraph: MuPDF reverses at least one of them
    (drawing order), and the extraction says so with RTL_VISUAL_ORDER."""
    from rtl_pdfs import embedded_pdf

    extraction = extract_pdf(embedded_pdf(), BASE_PROFILE)
    assert "מסנן קטן"[::-1] in extraction.text  # the words as drawn, not as read
    assert extraction.warnings == ("RTL_TEXT", "RTL_VISUAL_ORDER")


def test_laid_out_rtl_paragraphs_are_logical() -> None:
    """MuPDF's HTML layout of Hebrew and Arabic with numbers and Latin words reads back
    in logical order, unflagged."""
    from rtl_pdfs import laid_out_pdf

    extraction = extract_pdf(laid_out_pdf(), BASE_PROFILE)
    assert "יש לבדוק את המשאבה כל 500" in extraction.text
    assert "SAE 10W-40" in extraction.text
    assert extraction.warnings == ("RTL_TEXT",)


# -- refusals -----------------------------------------------------------------------


def test_encrypted_without_password() -> None:
    """An encrypted PDF without a password is ENCRYPTED_PDF."""
    assert_refused(sample("password-protected"), ErrorCode.ENCRYPTED_PDF)


def test_encrypted_with_wrong_password() -> None:
    """A wrong password is ENCRYPTED_PDF, and the message does not echo the password."""
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(sample("password-protected"), BASE_PROFILE, ExtractOptions(password="wrong!"))
    assert caught.value.code is ErrorCode.ENCRYPTED_PDF
    assert "wrong!" not in str(caught.value)


def test_encrypted_with_password() -> None:
    """The right password opens the encrypted PDF and its text is extracted."""
    extraction = extract_pdf(
        sample("password-protected"), BASE_PROFILE, ExtractOptions(password=PASSWORD)
    )
    assert extraction.page_count == 1
    assert extraction.text.startswith("Lorem ipsum dolor sit amet, consetetur sadipscing elitr")
    assert len(extraction.char_boxes or b"") == 16 * len(extraction.text)


def test_empty_file() -> None:
    """No bytes at all is EMPTY_FILE."""
    assert_refused(b"", ErrorCode.EMPTY_FILE)


@pytest.mark.parametrize(
    "data",
    [
        random.Random(7).randbytes(4096),
        b"%PDF-1.7\n" + random.Random(8).randbytes(4096),
        b"%PDF-1.4\n",
        b"just some text, not a PDF\n",
    ],
    ids=["random", "header-then-random", "header-only", "plain-text"],
)
def test_not_a_pdf(data: bytes) -> None:
    """Bytes that are not a PDF are CORRUPT_PDF."""
    assert_refused(data, ErrorCode.CORRUPT_PDF)


def test_truncated_pdf_without_pages() -> None:
    """tracemonkey.pdf cut in half: MuPDF's repair finds no page, so CORRUPT_PDF."""
    data = sample("tracemonkey")
    assert_refused(data[: len(data) // 2], ErrorCode.CORRUPT_PDF)


def test_truncated_pdf_that_mupdf_repairs() -> None:
    """habibi-arabic.pdf cut in half: MuPDF repairs it and the result says PDF_REPAIRED."""
    data = sample("habibi-arabic")
    extraction = extract_pdf(data[: len(data) // 2], BASE_PROFILE)
    assert extraction.page_count == 1
    assert "PDF_REPAIRED" in extraction.warnings
    assert len(extraction.char_boxes or b"") == 16 * len(extraction.text)
    # The font's Unicode map was in the lost half: the text differs from the whole file's.
    assert extraction.text != extracted("habibi-arabic").text


def test_damaged_pdfs_raise_only_extraction_errors() -> None:
    """Overwritten and truncated variants either extract or fail with ExtractionError."""
    data = sample("multicolumn")
    rng = random.Random(2024)
    variants = [data[:cut] for cut in rng.sample(range(1, len(data)), 12)]
    for _ in range(24):
        damaged = bytearray(data)
        for _ in range(16):
            position = rng.randrange(len(damaged))
            damaged[position : position + 8] = rng.randbytes(8)
        variants.append(bytes(damaged))
    outcomes = set()
    for variant in variants:
        try:
            extraction = extract_pdf(variant, BASE_PROFILE)
        except ExtractionError as error:
            assert error.code in (ErrorCode.CORRUPT_PDF, ErrorCode.NO_TEXT_LAYER)
            outcomes.add(error.code.value)
        else:
            assert len(extraction.char_boxes or b"") == 16 * len(extraction.text)
            outcomes.add("ok")
    assert "ok" in outcomes
    assert "CORRUPT_PDF" in outcomes


def test_image_only_pdf_has_no_text_layer() -> None:
    """A PDF whose every page is only an image is NO_TEXT_LAYER."""
    assert_refused(make_pdf([None, None]), ErrorCode.NO_TEXT_LAYER)


def test_blank_and_white_space_pages_have_no_text_layer() -> None:
    """Pages with nothing, or only white space, do not count as a text layer."""
    assert_refused(make_pdf([[], [(72, 72, "      ")]]), ErrorCode.NO_TEXT_LAYER)


def test_mixed_pdf_lists_pages_without_text() -> None:
    """Text pages around an image-only page extract; the image page is listed."""
    data = make_pdf([[(72, 72, "First page text.")], None, [(72, 72, "Third page text.")]])
    extraction = extract_pdf(data, BASE_PROFILE)
    assert extraction.page_count == 3
    assert extraction.pages_without_text == (2,)
    assert extraction.text == "First page text.\n\nThird page text."
    assert [b.page for b in extraction.blocks] == [1, 3]


def test_a_blank_page_is_no_page_without_text() -> None:
    """A separator page that shows nothing (no text, image or drawing) needs no look:
    the German Debian FAQ's five blank pages were reported as PAGES_WITHOUT_TEXT (a
    new-user pass). An image-only page among them still is."""
    data = make_pdf([[(72, 72, "First page text.")], [], None, [(72, 72, "Fourth page.")]])
    extraction = extract_pdf(data, BASE_PROFILE)
    assert extraction.page_count == 4
    assert extraction.pages_without_text == (3,)
    assert [b.page for b in extraction.blocks] == [1, 4]


def test_a_page_of_an_inline_image_or_a_shading_is_no_blank_page() -> None:
    """A red-team pass: a scan stored as an inline image (``BI … ID … EI``) or a page
    of a shading alone is in neither ``get_images`` nor ``get_drawings``; such pages
    were taken for blank and left out of ``pages_without_text``."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The first page has text.")
    scan = doc.new_page()
    pixels = bytes((x * 4) % 256 for _ in range(64) for x in range(64)).hex()
    inline = f"q 400 0 0 400 100 200 cm BI /W 64 /H 64 /CS /G /BPC 8 /F /AHx ID {pixels}> EI Q"
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(stream, inline.encode())
    doc.xref_set_key(scan.xref, "Contents", f"{stream} 0 R")
    shaded = doc.new_page()
    shading = doc.get_new_xref()
    doc.update_object(
        shading,
        "<< /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 600 0] /Function << "
        "/FunctionType 2 /Domain [0 1] /C0 [1 0 0] /C1 [0 0 1] /N 1 >> >>",
    )
    doc.xref_set_key(shaded.xref, "Resources", f"<< /Shading << /Sh1 {shading} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"q 0 0 600 800 re W n /Sh1 sh Q")
    doc.xref_set_key(shaded.xref, "Contents", f"{content} 0 R")
    doc.new_page()  # blank
    extraction = extract_pdf(doc.tobytes(), BASE_PROFILE)
    assert extraction.pages_without_text == (2, 3)


# -- layouts generated for the purpose ------------------------------------------------


def test_sentence_across_a_page_break() -> None:
    """A sentence split by a page break ends one page's block and starts the next page's."""
    data = make_pdf(
        [
            [(72, 72, "Chapter one."), (72, 780, "The ledger closes when the")],
            [(72, 72, "auditor signs the final page.")],
        ]
    )
    extraction = extract_pdf(data, BASE_PROFILE)
    assert "the\n\nauditor" in extraction.text
    crossing = extraction.text.index("the\n\nauditor")
    assert block_at(extraction, crossing) == 1
    assert block_at(extraction, crossing + len("the\n\n")) == 2
    assert extraction.pages_without_text == ()


def test_header_repeated_on_every_page() -> None:
    """A running header is kept on every page, each copy boxed at the same place on its page."""
    header = "ACME Pump Manual - Confidential"
    data = make_pdf([[(72, 40, header), (72, 120, f"Body of page {n}.")] for n in (1, 2, 3)])
    extraction = extract_pdf(data, BASE_PROFILE)
    starts = list(occurrences(extraction.text, header))
    assert [block_at(extraction, s) for s in starts] == [1, 2, 3]
    found = boxes(extraction)
    places = [union(found[s : s + len(header)]) for s in starts]
    assert places[0] == places[1] == places[2]
    document = pymupdf.open(stream=data)
    (hit,) = document[0].search_for(header)
    assert close(places[0], tuple(hit))


def test_passage_repeated_on_two_pages() -> None:
    """The same passage on two pages at different places is boxed where it is on each page."""
    passage = "Close the valve before maintenance."
    data = make_pdf([[(72, 100, passage)], [(200, 500, "Reminder:"), (200, 520, passage)]])
    extraction = extract_pdf(data, BASE_PROFILE)
    document = pymupdf.open(stream=data)
    found = boxes(extraction)
    starts = list(occurrences(extraction.text, passage))
    assert [block_at(extraction, s) for s in starts] == [1, 2]
    for start in starts:
        page = document[block_at(extraction, start) - 1]
        (hit,) = page.search_for(passage)
        assert close(union(found[start : start + len(passage)]), tuple(hit))


def test_char_boxes_are_little_endian_float32() -> None:
    """char_boxes is packed little-endian float32, whatever the machine's byte order."""
    extraction = extract_pdf(make_pdf([[(72, 72, "A")]]), BASE_PROFILE)
    assert extraction.char_boxes is not None
    assert len(extraction.char_boxes) == 16
    x0, y0, x1, y1 = struct.unpack("<4f", extraction.char_boxes)
    assert 71.0 < x0 < x1 < 82.0
    assert 55.0 < y0 < y1 < 76.0
    if sys.byteorder == "little":
        assert struct.unpack("=4f", extraction.char_boxes) == (x0, y0, x1, y1)
