"""What issue 15's faster HTML path changed outside the extractor gives what it gave
before: each piece beside the code it replaced, on real and hostile input."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragox.extract import ExtractionError
from ragox.extract.plain import control_count, reject_binary

# -- control characters: counted on UTF-8 bytes instead of by a regular expression

_CONTROLS = "".join(chr(c) for c in range(32) if chr(c) not in "\t\n\r\f")
#: how the count was made before (a regular expression's runs)
_CONTROL_RUN = re.compile("[" + re.escape(_CONTROLS) + "]+")


def _previous_count(text: str) -> int:
    return sum(len(run) for run in _CONTROL_RUN.findall(text))


_OTHERS = ["\t", "\n", "\r", "\f", " ", "a", "\x7f", "\x80", "\x85", "\xa0", "é", "\u0400"]
_CHARS = st.sampled_from([*_CONTROLS, *_OTHERS, "\u2028", "\ud800", "\udfff", "\U0001f527"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, max_size=200))
def test_control_count_counts_what_the_regular_expression_counted(chars: list[str]) -> None:
    """ASCII, other scripts, astral characters and lone surrogates alike."""
    text = "".join(chars)
    assert control_count(text) == _previous_count(text)


@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("filler", ["a", "я", "\U0001f527"])
def test_reject_binary_refuses_at_the_same_count(extra: int, filler: str) -> None:
    """The limit is one control character in a hundred characters (at least 8), in
    characters whatever their UTF-8 length: one more than it is refused."""
    text = filler * 2000 + "\x01" * (20 + extra)
    refused = _previous_count(text[:65536]) > max(8, len(text[:65536]) // 100)
    assert refused == bool(extra)
    if refused:
        with pytest.raises(ExtractionError) as caught:
            reject_binary(text)
        assert caught.value.code.value == "BINARY_CONTENT"
    else:
        reject_binary(text)


# -- simple tables: header cells in one pass down each column ----------------------

_CELLS = st.sampled_from(["<td>d", "<th>h", "<td>", "<th>"])
_ODD_CELLS = st.sampled_from(
    [
        "<td colspan=2>d",
        "<td rowspan=2>d",
        "<td rowspan=0>d",
        "<th scope=col>h",
        "<th scope=row>h",
        "<th scope=rowgroup>h",
        "<td headers=x>d",
        "<th id=x>h",
    ]
)
_ROW = st.lists(_CELLS, max_size=5).map(lambda cells: "<tr>" + "".join(cells))


@st.composite
def _tables(draw: st.DrawFn) -> str:
    groups = draw(st.lists(st.lists(_ROW, max_size=4), min_size=1, max_size=3))
    parts = [
        draw(st.sampled_from(["<thead>", "<tbody>", "<tfoot>", ""])) + "".join(rows)
        for rows in groups
    ]
    if draw(st.booleans()):
        # one cell that makes the table not simple (or not simple to decide)
        where = draw(st.integers(0, len(parts) - 1))
        parts[where] += "<tr>" + draw(_ODD_CELLS)
    return "<table>" + "".join(parts) + "</table>"


@settings(max_examples=400, deadline=None)
@given(_tables())
def test_simple_tables_get_the_header_cells_of_the_general_scan(markup: str) -> None:
    """One pass down each column gives every cell of a simple table the header cells
    that the standard's scans give it, in the same order; other tables are left to
    the scans."""
    from selectolax.lexbor import LexborHTMLParser

    from ragox.extract import _htmltables as tables

    root = LexborHTMLParser(markup).root
    assert root is not None
    node = root.css_first("table")
    assert node is not None
    fast = tables._Table(node)
    general = tables._Table(node)
    tables._classify(general)
    tables._assign(general, {})
    simple = not any(
        cell.width != 1 or cell.height != 1 or cell.listed is not None or cell.scope
        for cell in general.cells
    ) and not (
        {c.y for c in general.cells if c.header} & {c.y for c in general.cells if not c.header}
    )
    headers = tables._simple_headers(fast)
    assert (headers is not None) == simple
    if simple:
        assert headers == [cell.headers for cell in general.cells]


# -- long start tags: found in the UTF-8 bytes ------------------------------------

_MARKUP_PIECES = st.sampled_from(
    [
        *["<a", "<B ", "<p title=", '"', "'", ">", "<", "</", " x=", "y", "=", "/", "\n"],
        *["\t", "é", "\u20ac", "\U0001f527", "<!--", "-->", "<\u00e9", "x" * 50, "\u00e9" * 30],
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_MARKUP_PIECES, max_size=80))
def test_start_tags_in_the_bytes_are_the_start_tags_of_the_text(pieces: list[str]) -> None:
    """The start tags found in the UTF-8 bytes are the text's own, encoded (so one
    shorter than a long tag in bytes is shorter in characters too)."""
    from ragox.extract.html import _START_TAG, _START_TAG_BYTES

    text = "".join(pieces)
    found = [tag.decode("utf-8") for tag in _START_TAG_BYTES.findall(text.encode("utf-8"))]
    assert found == _START_TAG.findall(text)


def test_a_start_tag_long_in_bytes_only_has_no_attributes_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Non-ASCII values make a tag long in bytes but not in characters: it is not a
    long tag, and its attributes are not counted."""
    from ragox.extract import html as html_module
    from ragox.extract.html import extract_html
    from ragox.text import BASE_PROFILE

    monkeypatch.setattr(html_module, "MAX_ATTRIBUTES", 10)
    names = " ".join(f"a{i}=\u00e9" for i in range(1500))  # 4,094 characters in all
    tag = f"<p {names[: html_module._LONG_TAG_CHARS - 5]}"
    assert len(tag) < html_module._LONG_TAG_CHARS <= len(tag.encode("utf-8"))
    short = f"{tag}>kept</p>"
    assert extract_html(short.encode("utf-8"), BASE_PROFILE).text == "kept"
    long = f"<p {names} b=1 c=2>kept</p>"
    with pytest.raises(ExtractionError) as refused:
        extract_html(long.encode("utf-8"), BASE_PROFILE)
    assert refused.value.code.value == "TOO_COMPLEX"


# -- white space that begins a run: Lexbor's own test -------------------------------


def test_an_empty_text_node_is_ascii_white_space_alone() -> None:
    """The walk leaves out a text node that Lexbor finds empty at the start of a run:
    empty is ASCII white space alone (CSS's), not the other spaces or controls."""
    from selectolax.lexbor import LexborHTMLParser

    from ragox.extract.html import _ASCII_WS

    for text in [" ", "\t\n\f", "&#13;", " \n ", "\x0b", "&nbsp;", "\x1c", "\u2003", " x "]:
        paragraph = LexborHTMLParser(f"<p><b>x</b>{text}<b>y</b></p>").css_first("p")
        assert paragraph is not None
        node = paragraph.first_child.next  # type: ignore[union-attr]
        assert node is not None
        content = node.text_content
        assert content
        assert node.is_empty_text_node == (not content.strip(_ASCII_WS)), repr(text)


# -- CSS white-space collapsing of normal text: str.split where it agrees ----------


def test_the_other_spaces_are_what_str_split_takes_for_white_space() -> None:
    """Every character ``str.split`` splits at, less ASCII white space (so a Python
    with another Unicode database fails here rather than collapsing differently)."""
    import sys

    from ragox.extract.html import _OTHER_SPACES

    spaces = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    assert spaces - set(" \t\n\f\r") == set(_OTHER_SPACES)


_ASCII_PIECES = [" ", "  ", "\t", "\n", "\r", "\f", "\r\n", "word", "x", "\x0b", "\x1c"]
_TEXT_PIECES = st.sampled_from(
    [*_ASCII_PIECES, "\xa0", "\x85", "\u2000", "\u2028", "\u3000", "\u202f", "é", "\u200b"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_TEXT_PIECES, max_size=12).map("".join), max_size=8))
def test_collapsing_together_gives_each_text_its_own_collapse(texts: list[str]) -> None:
    """Each text as the regular expression collapses it, whichever texts beside it
    hold a character that only str.split takes for white space."""
    from ragox.extract.html import _WS_RUN, _collapse_each

    assert _collapse_each(texts) == [_WS_RUN.sub(" ", text).strip(" ") for text in texts]


# -- a table cell's stored JSON, written directly ----------------------------------

_IDS = st.lists(st.text(max_size=6) | st.sampled_from(["b0", "b12", '"', "\\", "\ud800"]))


@settings(max_examples=300, deadline=None)
@given(
    st.tuples(*[st.integers(-(2**70), 2**70)] * 5),
    st.booleans(),
    _IDS.map(tuple),
)
def test_cell_json_is_what_json_dumps_wrote(
    numbers: tuple[int, int, int, int, int], header: bool, ids: tuple[str, ...]
) -> None:
    """Byte for byte, quotes, backslashes, non-ASCII and lone surrogates in the ids
    escaped alike (the stored column must not change)."""
    import json

    from ragox.extract import TableCell
    from ragox.store._rows import cell_json

    cell = TableCell(*numbers, header, ids)
    assert cell_json(cell) == json.dumps(cell.to_json(), sort_keys=True)


def test_cell_json_of_every_committed_html_cell() -> None:
    """The cells of the committed HTML files (tables, odd and hostile markup)."""
    import json
    from pathlib import Path

    from ragox.extract.html import extract_html
    from ragox.store._rows import cell_json
    from ragox.text import BASE_PROFILE

    data = Path(__file__).parent / "data"
    seen = 0
    for path in sorted([*data.glob("html/**/*.html"), *data.glob("tables/*.html")]):
        try:
            extraction = extract_html(path.read_bytes(), BASE_PROFILE)
        except ExtractionError:
            continue
        for block in extraction.blocks:
            if block.cell is not None:
                seen += 1
                assert cell_json(block.cell) == json.dumps(block.cell.to_json(), sort_keys=True)
    assert seen > 50
