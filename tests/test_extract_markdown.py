"""Markdown extraction: verbatim block slices that map back to the decoded source exactly."""

from __future__ import annotations

import re
import time
import unicodedata
from pathlib import Path

import markdown_it
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragox.extract import BLOCK_SEPARATOR, BlockKind, ErrorCode, Extraction, ExtractionError
from ragox.extract.markdown import MARKDOWN_PARSER, extract_markdown
from ragox.text import BASE_PROFILE, Coordinates

MD_DATA = Path(__file__).parent / "data" / "md"
MANUAL = (MD_DATA / "manual.md").read_bytes()
#: the same document with CR LF line ends, a byte order mark, and more decomposed text
VARIANTS = {
    "lf": MANUAL,
    "crlf": MANUAL.replace(b"\n", b"\r\n"),
    "bom-crlf": b"\xef\xbb\xbf" + MANUAL.replace(b"\n", b"\r\n"),
    "nfd": unicodedata.normalize("NFD", MANUAL.decode("utf-8")).encode("utf-8"),
}


def extract(source: str | bytes) -> Extraction:
    data = source.encode("utf-8") if isinstance(source, str) else source
    return extract_markdown(data, BASE_PROFILE)


def texts(extraction: Extraction) -> list[str]:
    return [extraction.text[b.span.start : b.span.end] for b in extraction.blocks]


def by_text(extraction: Extraction, text: str) -> int:
    matches = [i for i, t in enumerate(texts(extraction)) if t == text]
    assert len(matches) == 1, (text, texts(extraction))
    return matches[0]


def assert_maps_back(extraction: Extraction, data: bytes) -> None:
    """Spans tile the text; every block's source range normalizes to the block's text."""
    decoded = data.decode("utf-8")
    alignment = extraction.source_alignment
    assert alignment is not None
    assert alignment.output_length == len(extraction.text)
    assert alignment.input_length == len(decoded)
    position = 0
    for index, block in enumerate(extraction.blocks):
        assert block.index == index
        gap = extraction.text[position : block.span.start]
        assert gap == (BLOCK_SEPARATOR if index else "")
        piece = extraction.text[block.span.start : block.span.end]
        assert piece.strip()
        source = block.source
        assert source is not None
        assert source.coordinates is Coordinates.SOURCE_CODEPOINT
        original = decoded[source.start : source.end]
        # the base profile is CR LF → LF, then NFC
        assert unicodedata.normalize("NFC", original.replace("\r\n", "\n")) == piece
        mapped = alignment.map_back(block.span.start, block.span.end)
        assert mapped.exact
        assert (mapped.start, mapped.end) == (source.start, source.end)
        first, last = (int(n) for n in block.locator.removeprefix("lines=").split("-"))
        lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n|$)", decoded)
        line_start = sum(len(line) for line in lines[: first - 1])
        line_end = sum(len(line) for line in lines[:last])
        assert line_start <= source.start < source.end <= line_end
        position = block.span.end
    assert position == len(extraction.text)


@pytest.fixture(scope="module")
def manual() -> Extraction:
    return extract(MANUAL)


def test_parser_identity_names_markdown_it_and_its_rules() -> None:
    """The parser id carries markdown-it-py's version; the config names the syntax."""
    assert MARKDOWN_PARSER.id == f"markdown-it@2+markdown-it-py-{markdown_it.__version__}"
    assert MARKDOWN_PARSER.config["syntax"] == "commonmark+gfm-tables"
    assert MARKDOWN_PARSER.config["inline"] == "verbatim"
    extraction = extract("# x")
    assert extraction.parser is MARKDOWN_PARSER
    assert extraction.media_type == "text/markdown"


def test_headings_lose_their_markers(manual: Extraction) -> None:
    """Setext and ATX headings (closing #'s too) become HEADING blocks of their text only."""
    for text, locator in [
        ("Pump Manual", "lines=1-1"),
        ("Installation", "lines=7-7"),
        ("Tools 🔧", "lines=48-48"),
    ]:
        block = manual.blocks[by_text(manual, text)]
        assert block.kind is BlockKind.HEADING
        assert block.locator == locator


def test_paragraph_keeps_inline_markup_and_line_breaks_verbatim(manual: Extraction) -> None:
    """Inline markup stays as written; a soft line break stays a line break."""
    index = by_text(
        manual,
        "Intro paragraph with **bold**, `code` and a [link](https://example.com/manual).\n"
        "It continues on a second line.",
    )
    assert manual.blocks[index].kind is BlockKind.PARAGRAPH
    assert manual.blocks[index].locator == "lines=4-5"
    assert manual.text.endswith("Last line without newline")


def test_nested_list_items_drop_their_markers(manual: Extraction) -> None:
    """Ordered, bullet and nested items are LIST_ITEM blocks without "1." or "-"."""
    items = [
        manual.text[b.span.start : b.span.end]
        for b in manual.blocks
        if b.kind is BlockKind.LIST_ITEM
    ]
    assert items == [
        "Unpack the pump.",
        "Connect the hoses:",
        "inlet first",
        "outlet second",
        "tighten clamps",
        "Fill with water.",
        "Loose item one",
        "Second paragraph of item one.",
    ]
    assert manual.blocks[by_text(manual, "tighten clamps")].locator == "lines=13-13"


def test_code_blocks_keep_content_lines_verbatim_without_fences(manual: Extraction) -> None:
    """Fenced code loses its fences and info string; its spaces stay; indented code stays."""
    fenced = manual.blocks[by_text(manual, 'def check():\n    return  "ok"   # keep spaces')]
    assert fenced.kind is BlockKind.CODE
    assert fenced.locator == "lines=26-27"
    indented = manual.blocks[by_text(manual, "    indented code line\n      second line")]
    assert indented.kind is BlockKind.CODE
    assert "```" not in manual.text


def test_block_quote_paragraphs_drop_the_first_marker(manual: Extraction) -> None:
    """A one-line quote loses its ">"; a longer one keeps later lines verbatim (contiguous)."""
    assert manual.blocks[by_text(manual, "Safety first.")].kind is BlockKind.QUOTE
    assert manual.blocks[by_text(manual, "A quote over\n> two lines.")].kind is BlockKind.QUOTE


def test_table_cells_are_blocks_with_escapes_kept(manual: Extraction) -> None:
    """Each non-empty GFM table cell is a TABLE_CELL block; an escaped pipe stays escaped."""
    cells = [
        manual.text[b.span.start : b.span.end]
        for b in manual.blocks
        if b.kind is BlockKind.TABLE_CELL
    ]
    assert cells == ["Part", "Price", "Seal kit", "12,50 €", "Pipe \\| clamp", "3 €"]


def test_html_blocks_are_kept_verbatim_and_breaks_and_references_dropped(
    manual: Extraction,
) -> None:
    """A raw HTML block is one verbatim block; "---" and a reference definition give none."""
    by_text(manual, '<div class="note">\nRaw HTML block\n</div>')
    assert "---" not in manual.text
    assert "[manual]:" not in manual.text


def test_a_block_of_comments_alone_gives_no_text() -> None:
    """``<!-- … -->`` blocks (one or several lines, several comments) are hidden from
    every reader of the rendered page and give no block, as in the HTML adapter (before:
    a reviewer's hidden note was searchable and quotable); HTML around a comment, and
    the text after it, stay."""
    source = (
        b"# Pumps\n\n<!-- TODO: zzzsecret margin for the Q3 quote -->\n\n"
        b"<!--\nreviewer: zzzsecret\n-->\n<!-- two -->\n\n"
        b"The seal is checked weekly.\n\n"
        b'<div class="note"><!-- zzzinside --> Kept HTML</div>\n'
    )
    extraction = extract(source)
    assert "zzzsecret" not in extraction.text and "<!--" not in extraction.text.split("<div")[0]
    by_text(extraction, "The seal is checked weekly.")
    # comments end where HTML ends them: "<!-->" and "<!--->" are empty comments and
    # "--!>" ends one, so what follows is shown by a browser and kept (found by a red team)
    shown = (
        b"<!--> The shutdown code is 7734. -->\n\n"
        b"<!-- r --!> Valve V-9 must stay open. <!-- end -->\n\n"
        b"<!--->Pressure limit is 12 bar.<!-- x -->\n"
    )
    kept = extract(shown)
    for sentence in ("shutdown code is 7734", "Valve V-9 must stay open", "limit is 12 bar"):
        assert sentence in kept.text
    assert_maps_back(kept, shown)
    # HTML reads a processing instruction, a declaration and CDATA as comments that end
    # at the first ">": hidden blocks too; what follows such an end is shown, and kept
    hidden = (
        b"Shown first.\n\n<?php zzzpi ?>\n\n<!DOCTYPE zzzdecl>\n\n"
        b"<![CDATA[ zzzcdata ]]>\n\n<![CDATA[ a > b is shown ]]>\n"
    )
    read = extract(hidden)
    assert "zzz" not in read.text and "b is shown" in read.text
    assert_maps_back(read, hidden)
    by_text(extraction, '<div class="note"><!-- zzzinside --> Kept HTML</div>')
    assert_maps_back(extraction, source)


def test_decomposed_umlauts_are_composed(manual: Extraction) -> None:
    """NFD umlauts in the file appear NFC in the representation."""
    assert "Mu\u0308ller" in MANUAL.decode("utf-8")
    by_text(manual, "Inspected by Müller and König.")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_block_maps_back_to_its_source(name: str) -> None:
    """NFC(decoded[source]) == representation[span] for every block (CR LF, BOM, NFD too)."""
    data = VARIANTS[name]
    extraction = extract(data)
    assert_maps_back(extraction, data)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variants_give_the_same_representation(name: str, manual: Extraction) -> None:
    """Line ends, a byte order mark or decomposition change the sources, not the text."""
    extraction = extract(VARIANTS[name])
    assert extraction.text == manual.text
    assert [b.span for b in extraction.blocks] == [b.span for b in manual.blocks]
    assert [b.locator for b in extraction.blocks] == [b.locator for b in manual.blocks]


def test_crlf_source_ranges_cover_the_carriage_returns() -> None:
    """A two-line paragraph in a CR LF file maps to a source range that holds the CR LF."""
    data = b"# T\r\n\r\nline one\r\nline two\r\n"
    extraction = extract(data)
    block = extraction.blocks[1]
    assert extraction.text[block.span.start : block.span.end] == "line one\nline two"
    assert block.source is not None
    assert data.decode()[block.source.start : block.source.end] == "line one\r\nline two"


def test_decomposed_block_edges_map_to_whole_characters() -> None:
    """A block that starts and ends with decomposed letters maps to the full sequences."""
    source = "# U\u0308ber\n\nA\u0308rger u\u0308ber o\u0308\n"
    extraction = extract(source)
    assert texts(extraction) == ["Über", "Ärger über ö"]
    block = extraction.blocks[1]
    assert block.source is not None
    assert source[block.source.start : block.source.end] == "A\u0308rger u\u0308ber o\u0308"


# -- refusals -------------------------------------------------------------------------


def test_invalid_utf8_names_the_byte_offset() -> None:
    """Bytes that are not UTF-8 give INVALID_UTF8 with the offset of the first bad byte."""
    data = b"# Title\n\nPr\xc3\xbcfung \xfc ok\n"
    with pytest.raises(ExtractionError) as caught:
        extract(data)
    assert caught.value.code is ErrorCode.INVALID_UTF8
    offset = data.index(b"\xfc")
    assert offset == 18
    assert caught.value.message.endswith(f"at byte {offset}")


@pytest.mark.parametrize(
    "data",
    [b"", b" \n\t\r\n  ", b"---\n\n***\n", b"[ref]: https://example.com\n", b"\xef\xbb\xbf"],
    ids=["empty", "white-space", "only-breaks", "only-reference", "only-bom"],
)
def test_no_text_is_an_empty_file(data: bytes) -> None:
    """Empty input, white space, or only breaks and references give EMPTY_FILE."""
    with pytest.raises(ExtractionError) as caught:
        extract(data)
    assert caught.value.code is ErrorCode.EMPTY_FILE


def test_binary_content_is_refused() -> None:
    """NUL bytes give BINARY_CONTENT even when the bytes are valid UTF-8."""
    with pytest.raises(ExtractionError) as caught:
        extract(b"# Title\n\x00\x01\x02\x03binary")
    assert caught.value.code is ErrorCode.BINARY_CONTENT


@pytest.mark.parametrize(
    "source",
    [
        "> " * 100_000 + "deep",
        "- " * 100_000 + "deep",
        "\n".join(" " * i + "- x" for i in range(0, 600, 2)),
    ],
    ids=["quotes", "bullets", "indented-lists"],
)
def test_deep_nesting_is_refused_not_silently_dropped(source: str) -> None:
    """Nesting beyond markdown-it's limit is TOO_COMPLEX (it would drop text), quickly.

    The bound is on this process's CPU time, not wall time, so a loaded machine does
    not fail it while a quadratic walk (minutes of CPU) still does.
    """
    started = time.process_time()
    with pytest.raises(ExtractionError) as caught:
        extract(source)
    assert time.process_time() - started < 5.0
    assert caught.value.code is ErrorCode.TOO_COMPLEX


def test_nesting_within_the_limit_keeps_the_text() -> None:
    """Thirty nested quotes still give the innermost paragraph."""
    extraction = extract("> " * 30 + "deep")
    assert texts(extraction) == ["deep"]
    assert extraction.blocks[0].kind is BlockKind.QUOTE


# -- any input -------------------------------------------------------------------------

_MD_PIECES = st.sampled_from(
    [
        "# ",
        "## ",
        "#",
        "> ",
        ">",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "    ",
        "  ",
        "\t",
        "```",
        "~~~",
        "|",
        "\\|",
        "---",
        "===",
        ":-:",
        "<div>",
        "</div>",
        "[a]: /u",
        "**b**",
        "`c`",
        "word",
        "Mu\u0308ller",
        "\u00a0",
        "🔧",
        "\n",
        "\n\n",
        "\r\n",
        "\r",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MD_PIECES, max_size=40))
def test_any_markdown_maps_back_or_refuses_with_a_code(pieces: list[str]) -> None:
    """Arbitrary Markdown gives blocks that map back exactly, or EMPTY_FILE; nothing else."""
    data = "".join(pieces).encode("utf-8")
    try:
        extraction = extract(data)
    except ExtractionError as error:
        assert error.code is ErrorCode.EMPTY_FILE
        return
    decoded = data.decode("utf-8")
    alignment = extraction.source_alignment
    assert alignment is not None
    for block in extraction.blocks:
        assert block.source is not None
        piece = extraction.text[block.span.start : block.span.end]
        original = decoded[block.source.start : block.source.end]
        assert BASE_PROFILE.normalize_text(original).text == piece
        assert alignment.map_back(block.span.start, block.span.end).exact


def test_a_table_of_too_many_cells_is_refused_before_the_parse() -> None:
    """More cell walls ("|") than HTML's slots of one table: TOO_COMPLEX at once, where
    the parse took a minute and 2.4 GB for a million cells (red-team); a table of
    ordinary size stays."""
    rows = "".join(f"| a{n} | b{n} |\n" for n in range(170_000))
    with pytest.raises(ExtractionError) as refused:
        extract(("| A | B |\n|---|---|\n" + rows).encode())
    assert refused.value.code is ErrorCode.TOO_COMPLEX
    small = extract(b"| A | B |\n|---|---|\n| a1 | b1 |\n")
    assert "b1" in small.text
