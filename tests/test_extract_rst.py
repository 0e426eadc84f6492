"""reStructuredText: docutils' blocks as verbatim slices, exact source provenance, no file
inclusion, bad input refused with its code, and citations that round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragox.access import Principal
from ragox.extract import BlockKind, ErrorCode, ExtractionError, detect_media_type, rst
from ragox.extract.rst import extract_rst
from ragox.search import SearchMode
from ragox.service import Ragox
from ragox.store import RevisionState
from ragox.text import BASE_PROFILE

GUIDE = """\
=====================
 Editor configuration
=====================

Debian picks the default editor through
the *alternatives* system.

Changing it
-----------

You can change it by the following::

    sudo update-alternatives --config editor

.. code-block:: sh

   dpkg-reconfigure tzdata

- install ``vim``
  from the archive
- or ``nano``

#. first step
#. second step

+--------+----------+
| key    | meaning  |
+========+==========+
| Ctrl-X | exit     |
+--------+----------+

.. a comment nobody reads

.. toctree::

   unknown/directive

  A quoted remark.
"""


def _blocks(source: str) -> list[tuple[BlockKind, str]]:
    extraction = extract_rst(source.encode(), BASE_PROFILE)
    return [
        (block.kind, extraction.text[block.span.start : block.span.end])
        for block in extraction.blocks
    ]


def test_blocks_are_verbatim_slices_with_their_kinds() -> None:
    """Titles without adornment, paragraphs as written, code lines whole, list items
    without markers, cells on their row; comments and unknown directives give nothing."""
    found = _blocks(GUIDE)
    assert found == [
        (BlockKind.HEADING, "Editor configuration"),
        (
            BlockKind.PARAGRAPH,
            "Debian picks the default editor through\nthe *alternatives* system.",
        ),
        (BlockKind.HEADING, "Changing it"),
        (BlockKind.PARAGRAPH, "You can change it by the following::"),
        (BlockKind.CODE, "    sudo update-alternatives --config editor"),
        (BlockKind.CODE, "   dpkg-reconfigure tzdata"),
        (BlockKind.LIST_ITEM, "install ``vim``\n  from the archive"),
        (BlockKind.LIST_ITEM, "or ``nano``"),
        (BlockKind.LIST_ITEM, "first step"),
        (BlockKind.LIST_ITEM, "second step"),
        (BlockKind.TABLE_CELL, "key"),
        (BlockKind.TABLE_CELL, "meaning"),
        (BlockKind.TABLE_CELL, "Ctrl-X"),
        (BlockKind.TABLE_CELL, "exit"),
    ]


def test_every_block_maps_back_to_the_same_source_characters() -> None:
    """Source spans slice the decoded source to exactly the block's text, CRLF included."""
    source = GUIDE.replace("\n", "\r\n")
    extraction = extract_rst(source.encode(), BASE_PROFILE)
    assert extraction.blocks
    for block in extraction.blocks:
        assert block.source is not None
        shown = extraction.text[block.span.start : block.span.end]
        assert source[block.source.start : block.source.end].replace("\r\n", "\n") == shown
        first, last = (int(n) for n in block.locator.removeprefix("lines=").split("-"))
        assert shown.split("\n")[0] in source.split("\r\n")[first - 1]
        assert last >= first


def test_include_directive_reads_no_file(tmp_path: Path) -> None:
    """Text in documents is data: `.. include::` of a local file inserts nothing."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-PAYROLL\n")
    source = f"Title\n=====\n\n.. include:: {secret}\n\n.. raw:: html\n\n   <b>raw</b>\n\nEnd.\n"
    extraction = extract_rst(source.encode(), BASE_PROFILE)
    assert "TOP-SECRET" not in extraction.text
    assert "<b>" not in extraction.text
    assert "End." in extraction.text


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", ErrorCode.EMPTY_FILE),
        (b"   \n\n", ErrorCode.EMPTY_FILE),
        (b"Title\n=====\n\nbad \xff byte\n", ErrorCode.INVALID_UTF8),
        (b".. only a comment\n", ErrorCode.EMPTY_FILE),
        (b"text\x00\x01\x02 binary", ErrorCode.BINARY_CONTENT),
        (b"\xef\xbb\xbf", ErrorCode.EMPTY_FILE),  # a byte order mark alone
        # what docutils would parse for minutes or in gigabytes (red-team): hyperlink
        # targets past 10,000, a line indented past 100 columns (spaces or tabs), more
        # table cell walls than HTML's slots of one table
        (b"Para.\n\n" + b".. _r: http://x\n\n" * 10_001, ErrorCode.TOO_COMPLEX),
        (b"Para.\n\n" + b" " * 101 + b"deep\n", ErrorCode.TOO_COMPLEX),
        (b"Para.\n\n" + b"\t" * 13 + b"deep\n", ErrorCode.TOO_COMPLEX),
        (b"Para.\n\n" + b"| a " * 500_001 + b"\n", ErrorCode.TOO_COMPLEX),
        # a simple table of 250,001 rows of two cells (no "|" in it)
        (b"===  ===\n" + b"a    b\n" * 250_001 + b"===  ===\n", ErrorCode.TOO_COMPLEX),
    ],
)
def test_bad_input_is_refused_with_its_code(data: bytes, code: ErrorCode) -> None:
    """Empty, invalid UTF-8, comment-only and binary input each get their own code, and
    input too costly to parse is refused before docutils reads it."""
    with pytest.raises(ExtractionError) as refused:
        extract_rst(data, BASE_PROFILE)
    assert refused.value.code is code


def test_a_long_line_empties_no_document() -> None:
    """docutils replaces a whole document by one error past its line limit (10,000
    characters): a long comment line made 100 paragraphs "no text blocks", and a long
    paragraph line was refused as EMPTY_FILE (red-team); both are parsed now, and a line
    indented up to 100 columns is a block quote like any other."""
    paragraphs = "Normal paragraph here.\n\n" * 100
    commented = extract_rst(f"{paragraphs}.. {'x' * 12_500}\n".encode(), BASE_PROFILE)
    assert commented.text.count("Normal paragraph here.") == 100
    long_line = "word " * 2_500
    assert long_line.strip() in extract_rst(long_line.encode(), BASE_PROFILE).text
    indented = extract_rst(b"Para.\n\n" + b" " * 100 + b"deep\n", BASE_PROFILE)
    assert "deep" in indented.text
    # simple tables of ordinary size, with and without a header, and text between them
    tables = (
        "=====  =====\nA      B\n=====  =====\nx1     y1\nx2     y2\n=====  =====\n\n"
        "Between the tables.\n\n=====  =====\nz1     w1\n=====  =====\n"
    )
    extraction = extract_rst(tables.encode(), BASE_PROFILE)
    assert all(cell in extraction.text for cell in ("y2", "Between the tables.", "w1"))


def test_a_text_over_the_parse_bound_is_too_large_before_docutils_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docutils' tree takes about 20 times the text, and a list nested under the
    indentation bound costs seconds a megabyte: past MAX_RST_CHARS code points (not
    bytes) a text is TOO_LARGE at once; the real bound refuses a 16 Mi + 1 text."""
    over = b"a" * (rst.MAX_RST_CHARS + 1)
    with pytest.raises(ExtractionError) as refused:
        extract_rst(over, BASE_PROFILE)
    assert refused.value.code is ErrorCode.TOO_LARGE
    assert b"aaaa" not in str(refused.value).encode()  # no text of the file in the message
    monkeypatch.setattr(rst, "MAX_RST_CHARS", 1_000)
    at_bound = "ё" * 999 + "\n"  # 1,000 code points in 2,000 bytes: parsed
    assert "ёёё" in extract_rst(at_bound.encode(), BASE_PROFILE).text
    with pytest.raises(ExtractionError) as refused:
        extract_rst(("ё" * 1_000 + "\n").encode(), BASE_PROFILE)
    assert refused.value.code is ErrorCode.TOO_LARGE


def test_a_too_large_text_keeps_the_current_revision(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A revision refused as TOO_LARGE leaves the one before current and searchable."""
    path = tmp_path / "guide.rst"
    path.write_text("Guide\n=====\n\nThe pump is serviced monthly.\n", encoding="utf-8")
    first = app.ingest_path(path, tmp_path, document_id="guide").outcome
    assert first is not None and first.state is RevisionState.READY
    monkeypatch.setattr(rst, "MAX_RST_CHARS", 100)
    path.write_text("Guide\n=====\n\n" + "The valve is new. " * 20 + "\n", encoding="utf-8")
    second = app.ingest_path(path, tmp_path, document_id="guide").outcome
    assert second is not None
    assert (second.state, second.error_code) == (RevisionState.FAILED, "TOO_LARGE")
    document = app.store.get_document("default", "guide")
    assert document is not None and document.current_revision == first.revision
    hits = app.search("pump serviced", Principal.local_operator(), SearchMode.LEXICAL)
    assert [hit.document_id for hit in hits] == ["guide"]


def test_deep_nesting_is_refused_or_parsed_never_a_crash() -> None:
    """Hundreds of nested block quotes: a clear code or blocks, never another exception."""
    deep = "".join(" " * depth + "level\n\n" for depth in range(0, 600, 2))
    try:
        extraction = extract_rst(deep.encode(), BASE_PROFILE)
    except ExtractionError as error:
        assert error.code is ErrorCode.TOO_COMPLEX
    else:
        assert "level" in extraction.text


@pytest.mark.both_backends
def test_rst_files_are_ingested_and_round_trip(ragox_cli, tmp_path: Path) -> None:
    """`.rst` is a supported type: READY, `check` finds no mismatch, a cited command
    resolves strictly."""
    assert detect_media_type("guide.rst", b"") == "text/x-rst"
    path = tmp_path / "guide.rst"
    path.write_text(GUIDE)
    ingested = ragox_cli("ingest", str(path), "--json")
    assert ingested.code == 0, ingested.stdout
    assert json.loads(ingested.stdout)["results"][0]["state"] == "READY"
    checked = ragox_cli("check", "guide.rst", "--json")
    assert checked.code == 0 and json.loads(checked.stdout)["mismatches"] == []
    text = ragox_cli("text", "guide.rst").stdout
    start = text.index("sudo update-alternatives")
    end = start + len("sudo update-alternatives --config editor")
    made = ragox_cli("anchor", "guide.rst", "--start", str(start), "--end", str(end), "--json")
    resolved = ragox_cli("resolve", "-", "--json", stdin=made.stdout)
    assert json.loads(resolved.stdout)["status"] == "RESOLVED"


def test_inline_markup_across_lines_keeps_every_line_of_its_paragraph() -> None:
    """A paragraph is as long as its source lines, not as its rendered text: an embedded
    link whose target is on the next line renders as its text alone, one line fewer,
    and the paragraph's last line was lost (a real change log's roadmap sentence)."""
    source = (
        "Para with a `link\n<https://example.com/x>`_ to track\na roadmap of goals.\n\n"
        "* an item with `a target\n  <https://example.com/y>`_ and\n  its last line.\n\n"
        "See `the\nguide <https://example.com/z>`_\nfor details.\n"
    )
    assert _blocks(source) == [
        (
            BlockKind.PARAGRAPH,
            "Para with a `link\n<https://example.com/x>`_ to track\na roadmap of goals.",
        ),
        (
            BlockKind.LIST_ITEM,
            "an item with `a target\n  <https://example.com/y>`_ and\n  its last line.",
        ),
        (BlockKind.PARAGRAPH, "See `the\nguide <https://example.com/z>`_\nfor details."),
    ]
