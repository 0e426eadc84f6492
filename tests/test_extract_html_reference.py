"""The HTML extractor gives exactly what the reference walk gives (issue 15).

``tests/html_reference.py`` (with ``html_reference_tables.py``) is the extractor as
it was before it was made faster: a node-by-node walk with a frame per element. The
fast extractor must give byte-identical output (text, blocks, locators, table cells,
parser identity) and the same refusals, on committed odd and hostile files and on
generated markup, so stored documents never show as stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import html_reference
from ragox.extract import Extraction, ExtractionError, ExtractOptions
from ragox.extract.html import HTML_PARSER, _nesting_exceeds, extract_html
from ragox.text import BASE_PROFILE

DATA = Path(__file__).parent / "data"
FILES = sorted(
    [*DATA.glob("html/**/*.html"), *DATA.glob("tables/*.html"), *DATA.glob("rtl/*.html")]
)
OPTIONS = [None, ExtractOptions(max_depth=12)]


def outcome(extract: object, data: bytes, options: ExtractOptions | None) -> object:
    """The extraction, or the refusal's code and message."""
    try:
        result = extract(data, BASE_PROFILE, options)  # type: ignore[operator]
    except ExtractionError as error:
        return (error.code, error.message)
    assert isinstance(result, Extraction)
    return result


def assert_same(data: bytes, options: ExtractOptions | None = None) -> object:
    fast = outcome(extract_html, data, options)
    reference = outcome(html_reference.extract_html, data, options)
    if isinstance(fast, Extraction) and isinstance(reference, Extraction):
        assert fast.text == reference.text
        assert fast.blocks == reference.blocks
    assert fast == reference
    return fast


def test_the_committed_set_covers_the_hostile_cases() -> None:
    """The odd files are there and some of them are refusals of each kind."""
    names = {path.name for path in FILES}
    assert len(FILES) >= 30
    for expected in (
        "entities.html",
        "comments.html",
        "scripts-styles.html",
        "nested-tables.html",
        "pre.html",
        "br.html",
        "rtl.html",
        "invalid-utf8.html",
        "deep-nesting-refused.html",
        "deep-scan-refused.html",
        "misnested.html",
        "huge-attributes.html",
    ):
        assert expected in names


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "max-depth-12"])
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_output_is_byte_identical_to_the_reference(
    path: Path, options: ExtractOptions | None
) -> None:
    """Same representation, blocks, locators, cells and parser, or the same refusal."""
    assert_same(path.read_bytes(), options)


def test_refusals_keep_their_codes() -> None:
    """Deep, misnested, invalid and binary files are refused with their codes."""
    codes = {}
    for path in FILES:
        result = outcome(extract_html, path.read_bytes(), None)
        if not isinstance(result, Extraction):
            codes[path.name] = result[0].value  # type: ignore[index]
    assert codes["deep-nesting-refused.html"] == "TOO_COMPLEX"
    assert codes["deep-scan-refused.html"] == "TOO_COMPLEX"
    assert codes["deep-inline-refused.html"] == "TOO_COMPLEX"
    assert codes["deep-table-refused.html"] == "TOO_COMPLEX"
    # The nesting estimate before parsing refuses it, though the tree is shallow.
    assert codes["misnested.html"] == "TOO_COMPLEX"
    assert codes["invalid-utf8.html"] == "INVALID_UTF8"
    assert codes["utf16.html"] == "INVALID_UTF8"
    assert codes["binary.html"] == "BINARY_CONTENT"
    assert codes["empty-visible.html"] == "EMPTY_FILE"


def test_the_parser_identity_is_unchanged() -> None:
    """The identity is the reference's, so stored documents do not show as stale."""
    assert HTML_PARSER == html_reference.HTML_PARSER
    assert HTML_PARSER.config_sha256 == html_reference.HTML_PARSER.config_sha256


_PIECES = st.sampled_from(
    [
        "<p>",
        "</p>",
        "<div>",
        "</div>",
        "<div id=a>",
        "<div id=b>",
        "<p id=a>",
        "<span>",
        "</span>",
        "<b>",
        "</b>",
        "<a href=x>",
        "</a>",
        "<br>",
        "<br hidden>",
        "<pre>",
        "</pre>",
        "<textarea>",
        "</textarea>",
        "<table>",
        "</table>",
        "<tr>",
        "<td>",
        "<th>",
        "<th scope=row>",
        "<td colspan=2>",
        "<td rowspan=0>",
        "<td headers=a>",
        "<thead>",
        "<tbody>",
        "<caption>",
        "<li>",
        "<ul>",
        "<ol>",
        "<dl><dt>",
        "<dd>",
        "<h2>",
        "</h2>",
        "<h3>",
        "<blockquote>",
        "<nav>",
        "</nav>",
        "<div role='search navigation'>",
        "<span role=navigation>",
        "<div class='a navfooter'>",
        "<footer>",
        "</footer>",
        "<article>",
        "</article>",
        "<section>",
        "<div role=contentinfo>",
        "<footer style='display:inline'>",
        "<div role=main>",
        "<figure>",
        "<td role='region'>",
        "<td class=navheader>",
        "<span hidden id=default1>",
        "<span hidden class='x defaultinline'>",
        "<div hidden id=DEFAULT2>",
        "<span hidden id=mac1>",
        "<b hidden class=default>",
        "<i hidden id=default3>one two three four five six seven eight nine</i>",
        "<i hidden id=default5>Tools – Options… – Writer – View</i>",
        "<i hidden id=default4>Declined.</i>",
        "<!-- c -->",
        "<script>",
        "</script>",
        "<style>",
        "</style>",
        "<template>",
        "</template>",
        "<svg>",
        "<svg id=a>",
        "</svg>",
        "<math>",
        "<math id=b>",
        "<noscript>",
        "<template id=a>",
        "<span id=a hidden>",
        "<!--",
        "-->",
        "<!x>",
        "<x(y>",
        "<x-y>",
        "<input type=hidden>",
        "<p style='display:none'>",
        "<span style='display:block'>",
        "<div style='display:inline'>",
        "<div style='visibility:hidden'>",
        "<span style='visibility:visible'>",
        "<i hidden>",
        "<html style='display:inline'>",
        "<body>",
        "&amp;",
        "&nbsp;",
        "&#x1F527;",
        "&bogus;",
        "&#13;",
        "Mu\u0308ller",
        "\u05e9\u05dc\u05d5\u05dd",
        "word",
        "x",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "\u00a0",
        "<",
        ">",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60), st.sampled_from([None, ExtractOptions(max_depth=6)]))
def test_generated_markup_gives_what_the_reference_gives(
    pieces: list[str], options: ExtractOptions | None
) -> None:
    """Any markup from odd pieces: the same extraction or the same refusal."""
    assert_same("".join(pieces).encode("utf-8"), options)


_TAGS = st.sampled_from(
    [
        "<div>",
        "</div>",
        "<span>",
        "</span>",
        "<b>",
        "</b>",
        "<a>",
        "</a>",
        "<h2>",
        "<h3>",
        "</h2>",
        "<p>",
        "</p>",
        "<br/>",
        "<table>",
        "</table>",
        "<svg>",
        "</svg>",
        "<math>",
        "<path/>",
        "<x/>",
        "<object>",
        "<script>",
        "</script>",
        "</SCRIPT >",
        "<title>",
        "</title>",
        "<plaintext>",
        "<!--",
        "-->",
        "<!doctype html>",
        "<?x?>",
        "<DIV class='a>b'>",
        "<div title='<b>'>",
        "<x<y>",
        "<",
        ">",
        "text",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TAGS, max_size=80))
def test_the_nesting_estimate_decides_as_the_reference(pieces: list[str]) -> None:
    """The estimate before parsing refuses exactly what the reference's refuses, at
    every limit (so its estimated depth is the same)."""
    text = "".join(pieces)
    for limit in range(16):
        assert _nesting_exceeds(text, limit) == html_reference._nesting_exceeds(text, limit)


# -- tables: the grid and header cells as the reference forms them ---------------

_GRID_CELLS = st.sampled_from(
    [
        "<td>d",
        "<th>h",
        "<td>",
        "<th>",
        "<td colspan=2>d",
        "<td colspan=3>d",
        "<td rowspan=2>d",
        "<td rowspan=0>d",
        "<th colspan=2>h",
        "<th rowspan=2>h",
        "<th scope=col>h",
        "<th scope=row>h",
        "<th scope=rowgroup>h",
        "<th scope=colgroup>h",
        "<td headers=x>d",
        "<th id=x>h",
        "<td hidden>d",
        "<td style='display:none'>d",
    ]
)
_GRID_ROW = st.lists(_GRID_CELLS, max_size=5).map(lambda cells: "<tr>" + "".join(cells))


@st.composite
def _grid_tables(draw: st.DrawFn) -> str:
    groups = draw(st.lists(st.lists(_GRID_ROW, max_size=4), min_size=1, max_size=3))
    columns = draw(st.sampled_from(["", "<colgroup span=2>", "<colgroup><col><col span=2>"]))
    return (
        "<table>"
        + columns
        + "".join(
            draw(st.sampled_from(["<thead>", "<tbody>", "<tfoot>", ""])) + "".join(rows)
            for rows in groups
        )
        + "</table>"
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(_grid_tables(), min_size=1, max_size=3), st.integers(1, 3))
def test_tables_give_what_the_reference_gives(tables: list[str], copies: int) -> None:
    """Cells that span slots anywhere in a row group (after cells of one slot, whose
    slots are made only then), header scopes, column groups and ``headers``
    attributes, and tables of one shape on one page (whose header cells are found
    once): the same cells, places and header cells as the reference."""
    assert_same(("<p>t</p>" + "".join(tables) * copies).encode("utf-8"))


def test_tables_of_one_grid_and_other_column_groups_keep_their_own_headers() -> None:
    """A column group's header covers its own group's columns: two tables with the
    same cells but other column groups are not of one shape."""
    cells = "<tr><th scope=colgroup>G<th>h<th>k<tr><td>a<td>b<td>c</table>"
    first = "<table><colgroup span=1><colgroup span=2>" + cells
    second = "<table><colgroup span=3>" + cells
    for page in (first + second, second + first, first + first + second):
        result = assert_same(page.encode("utf-8"))
        assert isinstance(result, Extraction)
    headers = {
        block.locator: block.cell.header_ids
        for block in result.blocks
        if block.cell is not None and not block.cell.header
    }
    assert len(set(headers.values())) > 1
