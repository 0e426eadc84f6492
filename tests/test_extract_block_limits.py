"""Text documents of very many blocks are refused before they cost gigabytes (a red-team
pass over the text formats): three megabytes of one-letter Markdown paragraphs took
2.5 GB and over a minute, a Markdown heading list or a 99-deep quote ran past two
minutes and left the revision EXTRACTING, a reStructuredText field list took 2.3 GB,
300,000 attributes on one HTML element ran for minutes in the parser, and a one-row
Markdown table of 20,000 columns took 277 s (each cell split its whole row again).

Each format counts its blocks (``MAX_BLOCKS``) before or while it parses, and refuses
more with ``TOO_COMPLEX``; a document just within the limit is read whole. The limit is
lowered here to test its edge on small inputs; the full-size hostile files check that
the real limit is in force."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.extract import ErrorCode, Extraction, ExtractionError
from ragox.extract import html as html_module
from ragox.extract import markdown as markdown_module
from ragox.extract import plain as plain_module
from ragox.extract import rst as rst_module
from ragox.extract.html import extract_html
from ragox.extract.markdown import extract_markdown
from ragox.extract.plain import extract_plain_text
from ragox.extract.rst import extract_rst
from ragox.service import Ragox
from ragox.store import RevisionState
from ragox.text import BASE_PROFILE

Extractor = Callable[[bytes, object], Extraction]

#: (extractor, its module, a document of ``n`` blocks)
FORMATS = {
    "markdown-paragraphs": (extract_markdown, markdown_module, lambda n: "a\n\n" * n),
    "markdown-list": (extract_markdown, markdown_module, lambda n: "- a\n" * (n - 1)),
    "markdown-headings": (extract_markdown, markdown_module, lambda n: "# a\n" * n),
    "markdown-quote": (extract_markdown, markdown_module, lambda n: "> a\n>\n" * (n - 1)),
    "plain": (extract_plain_text, plain_module, lambda n: "a\n\n" * n),
    "html-paragraphs": (extract_html, html_module, lambda n: "<p>a" * n),
    "html-items": (extract_html, html_module, lambda n: "<ul>" + "<li>a" * (n - 1)),
    "rst-fields": (extract_rst, rst_module, lambda n: ":a: b\n" * (n - 1)),
    "rst-definitions": (extract_rst, rst_module, lambda n: "a\n  b\n" * (n // 2)),
    "rst-paragraphs": (extract_rst, rst_module, lambda n: "a\n\n" * n),
    # one paragraph of n emphases: twice as many runs of markup as blocks are allowed
    "rst-emphasis": (extract_rst, rst_module, lambda n: "*a* " * n),
    # found by a red-team pass over the limits: a table's rows without pipes (markdown-it
    # takes them in one call), option lists and "#)" enumerators, standalone addresses,
    # the cells of many tables, stray end tags that each make a paragraph
    "markdown-table-rows": (
        extract_markdown,
        markdown_module,
        lambda n: "|a|\n|-|\n" + "a\n" * (n - 3),
    ),
    "rst-options": (extract_rst, rst_module, lambda n: "-a  b\n" * (n - 1)),
    "rst-enumerators": (extract_rst, rst_module, lambda n: "#) a\n" * (n - 1)),
    "rst-addresses": (extract_rst, rst_module, lambda n: "http://a " * n),
    "rst-references": (extract_rst, rst_module, lambda n: "a_ " * n),
    "html-stray-ends": (extract_html, html_module, lambda n: "</p>a" * n),
    # a third pass: a comment HTML closes at once ("<!-->") hid the page from the count
    # of what is shown, and a table's captions were not counted
    "html-after-empty-comment": (extract_html, html_module, lambda n: "<!-->" + "<p>a" * n),
    "html-captions": (
        extract_html,
        html_module,
        lambda n: "<table>" + "<caption>a" * n + "</table>",
    ),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_the_block_limit_holds_at_its_edge(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    extract, module, document = FORMATS[name]
    monkeypatch.setattr(module, "MAX_BLOCKS", 40)
    within = extract(document(40).encode(), BASE_PROFILE)
    assert 1 <= len(within.blocks) <= 40
    with pytest.raises(ExtractionError) as refused:
        extract(document(200).encode(), BASE_PROFILE)
    assert refused.value.code is ErrorCode.TOO_COMPLEX


HOSTILE = {
    "tiny.md": "a\n\n" * 1_000_000,
    "headings.md": "# a\n" * 750_000,
    "quotes.md": (">" * 99 + " a\n\n") * 29_000,
    "tiny.txt": "a\n\n" * 1_000_000,
    "open.html": "<p>a" * 750_000,
    "attributes.html": "<p " + " ".join(f"a{i}=1" for i in range(300_000)) + ">x</p>",
    "fields.rst": ":a: b\n" * 500_000,
    "emphasis.rst": "*a* **b** `c` " * 214_000,
}


def test_hostile_text_files_fail_too_complex_and_keep_what_is_stored(tmp_path: Path) -> None:
    """The red team's files, at full size, through ingestion: each revision fails
    TOO_COMPLEX (before: READY after gigabytes, or still EXTRACTING when killed), and the
    document's earlier revision stays current."""
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    try:
        for name, text in HOSTILE.items():
            path = folder / name
            path.write_text("A first revision that reads well.\n", encoding="utf-8")
            app.ingest_path(path, folder, tenant="default")
            path.write_text(text, encoding="utf-8")
            app.ingest_path(path, folder, tenant="default")
            revisions = app.store.revisions("default", name)
            assert [r.state for r in revisions] == [RevisionState.READY, RevisionState.FAILED]
            assert revisions[-1].error_code == ErrorCode.TOO_COMPLEX.value, name
        record = app.ask("What reads well?", OPERATOR)
        assert not record.abstained
    finally:
        app.close()


def test_an_element_of_thousands_of_attributes_is_still_read() -> None:
    """Attributes are counted only to refuse tens of thousands; an inline image's long
    ``data:`` address is one attribute."""
    many = "<p " + " ".join(f"data-a{i}=1" for i in range(5000)) + ">kept</p>"
    assert extract_html(many.encode(), BASE_PROFILE).text == "kept"
    image = '<p>one</p><img alt="x" src="data:image/png;base64,' + "QUJD" * 50_000 + '"><p>two</p>'
    assert extract_html(image.encode(), BASE_PROFILE).text == "one\n\ntwo"


def test_a_markdown_table_row_is_split_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row of n cells was split n times (a 20,000-column row: 277 s)."""
    calls: list[int] = []
    split = markdown_module._split_row

    def counted(text: str, begin: int, end: int) -> list[tuple[int, int]]:
        calls.append(begin)
        return split(text, begin, end)

    monkeypatch.setattr(markdown_module, "_split_row", counted)
    columns = 300
    table = "|" + "a|" * columns + "\n|" + "-|" * columns + "\n|" + "b|" * columns + "\n"
    extraction = extract_markdown(table.encode(), BASE_PROFILE)
    assert len(extraction.blocks) == 2 * columns
    assert len(calls) == 2  # the header row and the body row


def test_the_attribute_limit_holds_at_its_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """The long start tags' attributes count together (one element of many costs
    Lexbor the square of their number, so many such elements add up)."""
    monkeypatch.setattr(html_module, "MAX_ATTRIBUTES", 10)
    value = "v" * 1000

    def element(count: int) -> str:
        names = " ".join(f'a{i}="{value}"' for i in range(count))
        return f"<p {names}>kept</p>"

    assert extract_html(element(10).encode(), BASE_PROFILE).text == "kept"
    quoted = "<p " + " ".join(f'a{i}=">{value}"' for i in range(11)) + ">kept</p>"
    # attributes without a value count too (the count went by "=": a red team's page of
    # 60,000 of them parsed for ten seconds)
    bare = "<p " + " ".join(f"a{i}" + "x" * 500 for i in range(11)) + ">kept</p>"
    # and the words of a long value are no attributes
    words = '<p a0=1 title="' + "word " * 2000 + '">kept</p>'
    assert extract_html(words.encode(), BASE_PROFILE).text == "kept"
    for refused_markup in (element(11), element(6) + element(5), quoted, bare):
        with pytest.raises(ExtractionError) as refused:
            extract_html(refused_markup.encode(), BASE_PROFILE)
        assert refused.value.code is ErrorCode.TOO_COMPLEX


def test_line_breaks_and_scripts_are_no_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """A log exported as HTML with a <br> per line is one paragraph, and the <div>s in
    a script's strings or a comment are no elements: none of them counts."""
    monkeypatch.setattr(html_module, "MAX_BLOCKS", 40)
    log = "<p>" + "line<br>" * 500 + "</p>"
    assert len(extract_html(log.encode(), BASE_PROFILE).blocks) == 1
    script = (
        "<script>var s = '" + "<div>x</div>" * 100 + "';</script>"
        "<!--" + "<p>old</p>" * 50 + "--><p>shown</p>"
    )
    assert extract_html(script.encode(), BASE_PROFILE).text == "shown"


def test_the_cells_of_a_pages_tables_count_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each table's slots were bounded, not a page's: two tables of 450,000 cells took
    1.6 GB. A page's cells together are bounded by the same number."""
    monkeypatch.setattr(html_module, "MAX_SLOTS", 40)
    monkeypatch.setattr(html_module, "MAX_BLOCKS", 1000)
    tables = ("<table>" + "<tr><td>a<td>b" * 10 + "</table>") * 2
    assert len(extract_html(tables.encode(), BASE_PROFILE).blocks) == 40
    with pytest.raises(ExtractionError) as refused:
        extract_html((tables + "<table><tr><td>c</table>").encode(), BASE_PROFILE)
    assert refused.value.code is ErrorCode.TOO_COMPLEX


def test_a_code_blocks_lines_are_not_highlighted(monkeypatch: pytest.MonkeyPatch) -> None:
    """docutils made a node of every Pygments token of a ``code-block`` (a megabyte of C
    took 1.2 GB, five megabytes over 5 GB) that nothing reads: the code is kept as its
    lines, and Pygments is never asked for a lexer."""
    from docutils.utils import code_analyzer

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("Pygments was asked to highlight")

    monkeypatch.setattr(code_analyzer, "get_lexer_by_name", refused)
    code = "Title\n=====\n\n.. code-block:: c\n\n" + "   a = b(c, d) * 2 + e[f];\n" * 50
    extraction = extract_rst(code.encode(), BASE_PROFILE)
    assert extraction.text.endswith("   a = b(c, d) * 2 + e[f];")
    assert extraction.text.count("e[f];") == 50


def test_a_code_block_whose_lines_begin_alike_keeps_every_line() -> None:
    """A code block's first line was found by its first word: "int a = 1;", "int b =
    2;", "int c = 3;" all begin with "int", so the block was placed at its last line,
    the first two lines were lost from the text and the paragraph after it was taken
    for code (parser ``rst-docutils@3``)."""
    source = (
        "Title\n=====\n\n.. code-block:: c\n\n   int a = 1;\n   int b = 2;\n   int c = 3;\n"
        "\nAfter this.\n"
    )
    extraction = extract_rst(source.encode(), BASE_PROFILE)
    blocks = [(b.kind.value, extraction.text[b.span.start : b.span.end]) for b in extraction.blocks]
    assert blocks == [
        ("heading", "Title"),
        ("code", "   int a = 1;\n   int b = 2;\n   int c = 3;"),
        ("paragraph", "After this."),
    ]
