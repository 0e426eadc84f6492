"""Word (DOCX) adapter: the body's paragraphs and table cells through python-docx.

python-docx opens the package and gives the body's XML and the style sheet; the body
is then walked in document order (iteratively, no recursion):

* a paragraph is one block. Its kind comes from its style (followed through
  ``basedOn``) or its own properties: an outline level 0–8 (Word's "Heading 1" to
  "Heading 9" carry one) or the "Title" style make a ``HEADING``; numbering
  (``numPr`` with a non-zero list) a ``LIST_ITEM``; else a ``PARAGRAPH``;
* a table cell is one ``TABLE_CELL`` block holding the cell's paragraphs joined by
  line feeds (a nested table's cells included, in order); a cell continuing a
  vertical merge holds no text and gives no block;
* content controls (``sdt``), smart tags and custom XML wrappers are transparent.

Locators name the place as a reader finds it: ``§ 2.1`` is the heading numbered by
its position in the outline (the first level-2 heading under the second level-1
heading, whatever numbering the document shows), ``§ 2.1 › paragraph 3`` the third
non-empty paragraph after it, ``§ 2.1 › table 1 › row 2, column 3`` a cell (the
column counts the table's grid, so a cell spanning columns 2–3 is column 2), and
``title`` a title. Before the first heading the ``§`` part is left out. Locators
hold numbers only, never document text.

Deliberate choices (recorded in the parser's configuration):

* tracked changes: the text is shown as if every change were accepted (insertions
  and moved-to text kept, deletions and moved-from text dropped), with the warning
  ``TRACKED_CHANGES_ACCEPTED``;
* comments are not document text: dropped, with the warning ``COMMENTS_DROPPED``;
* hidden text (``vanish``) is dropped, as Word prints it, with ``HIDDEN_TEXT_DROPPED``;
* text boxes and other drawings' text are dropped, with ``TEXT_BOXES_DROPPED``;
* headers, footers, footnotes and endnotes are not part of the representation;
* field codes are dropped (their shown results kept), as is a ruby's phonetic guide
  (its base text kept); a tab is ``\\t``, a line or column break ``\\n``, a
  non-breaking hyphen U+2011, a soft hyphen nothing.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import docx
from docx.oxml.ns import qn

from ragox.extract._model import (
    BlockKind,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.extract._office_types import DOCX_MEDIA_TYPE
from ragox.extract.office._build import MAX_GRID_SPAN, GridCell, Piece, build_extraction
from ragox.extract.office._package import MAX_XML_BYTES, open_package, parse_failure
from ragox.text import Profile

__all__ = ["DOCX_MEDIA_TYPE", "DOCX_PARSER", "extract_docx"]


DOCX_PARSER: Final = ParserInfo(
    "docx-python-docx",
    f"2+python-docx-{docx.__version__}",
    {
        "blocks": "paragraph,table-cell",
        "tables": "grid-cells;tblHeader-rows-else-first-row-head-columns",
        "kinds": "outline-level/title=heading,numbering=list-item",
        "tracked-changes": "accepted",
        "comments": "dropped",
        "hidden-text": "dropped",
        "text-boxes": "dropped",
        "headers-footers-notes": "dropped",
        "fields": "result",
        "locator": "outline-position+paragraph|table,row,column",
        "separator": "blank-line",
    },
)

#: markup compatibility (ECMA-376 Part 3): a drawing's alternative renderings
_MC_ALTERNATE: Final = (
    "{http://schemas.openxmlformats.org/markup-compatibility/2006}AlternateContent"
)
_W_P: Final = qn("w:p")
_W_TBL: Final = qn("w:tbl")
_W_TR: Final = qn("w:tr")
_W_TC: Final = qn("w:tc")
_W_SDT: Final = qn("w:sdt")
_W_SDT_CONTENT: Final = qn("w:sdtContent")
_W_R: Final = qn("w:r")
_W_T: Final = qn("w:t")
_W_VAL: Final = qn("w:val")
#: a count as Word writes one (a few ASCII digits; longer is no grid of Word's)
_DIGITS: Final = re.compile(r"[0-9]{1,9}")
_W_TYPE: Final = qn("w:type")
#: wrappers whose children belong to the body (or a cell) as if they stood there
_BODY_WRAPPERS: Final = frozenset(
    {qn("w:sdt"), qn("w:sdtContent"), qn("w:customXml"), qn("w:ins"), qn("w:moveTo")}
)
#: inside a paragraph: subtrees whose text is not shown (deletions, field codes,
#: text boxes, the fallback copy of a drawing)
_SKIPPED_IN_PARAGRAPH: Final = frozenset(
    {
        qn("w:del"),
        qn("w:moveFrom"),
        qn("w:delText"),
        qn("w:instrText"),
        qn("w:delInstrText"),
        qn("w:pPr"),
        qn("w:rPr"),
        qn("w:txbxContent"),
        qn("w:drawing"),
        qn("w:pict"),
        qn("w:object"),
        _MC_ALTERNATE,
        qn("w:footnoteReference"),
        qn("w:endnoteReference"),
        qn("w:rt"),  # a ruby's phonetic guide, printed above its base text
    }
)
_TRACKED: Final = (qn("w:ins"), qn("w:del"), qn("w:moveFrom"), qn("w:moveTo"))
#: what holds a text box's paragraphs (a drawing, its VML fallback, or both)
_TEXT_BOXES: Final = (qn("w:txbxContent"), qn("w:drawing"), qn("w:pict"), _MC_ALTERNATE)
_BREAKS: Final = frozenset({qn("w:br"), qn("w:cr")})
_CHARACTERS: Final = {
    qn("w:tab"): "\t",
    qn("w:noBreakHyphen"): "\u2011",
    qn("w:softHyphen"): "",
}


@dataclass(frozen=True, slots=True)
class _Style:
    outline: int | None  # 0–8 for headings
    numbered: bool
    title: bool


@dataclass(slots=True)
class _Walk:
    """The outline position and counters while walking the body."""

    styles: dict[str, _Style]
    outline: list[int] = field(default_factory=list)
    paragraphs: int = 0
    tables: int = 0
    #: tables of the whole document so far (``tables`` counts those under a heading)
    all_tables: int = 0
    warnings: set[str] = field(default_factory=set)

    def section(self) -> str:
        return "§ " + ".".join(str(n) for n in self.outline) if self.outline else ""

    def under(self, tail: str) -> str:
        section = self.section()
        return f"{section} › {tail}" if section else tail

    def heading(self, level: int) -> str:
        depth = level + 1
        while len(self.outline) < depth:
            self.outline.append(0)
        del self.outline[depth:]
        self.outline[-1] += 1
        self.paragraphs = 0
        self.tables = 0
        return self.section()


def extract_docx(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Paragraphs and table cells of a Word document's body, in reading order."""
    open_package(data, "DOCX", "word/document.xml", MAX_XML_BYTES)
    try:
        document = docx.Document(io.BytesIO(data))
        body = document.element.body
        styles = _styles(document.styles.element)
    except ExtractionError:
        raise
    except Exception as error:  # python-docx raises its own and lxml's errors
        raise parse_failure("DOCX", error) from None
    walk = _Walk(styles)
    pieces = list(_body_pieces(body, walk))
    if body.find(".//" + qn("w:commentReference")) is not None:
        walk.warnings.add("COMMENTS_DROPPED")
    return build_extraction(pieces, profile, DOCX_PARSER, DOCX_MEDIA_TYPE, walk.warnings)


def _styles(root: Any) -> dict[str, _Style]:
    """Paragraph styles by id, their outline level and numbering followed through
    ``basedOn`` (a style's own setting wins over its base's)."""
    raw: dict[str, tuple[str | None, int | None, bool | None, str]] = {}
    for style in root.iterchildren(qn("w:style")):
        style_id = style.get(qn("w:styleId"))
        if style_id is None:
            continue
        based = style.find(qn("w:basedOn"))
        name = style.find(qn("w:name"))
        own_outline, own_numbered = _paragraph_properties(style.find(qn("w:pPr")))
        raw[style_id] = (
            None if based is None else based.get(_W_VAL),
            own_outline,
            own_numbered,
            "" if name is None else (name.get(_W_VAL) or "").lower(),
        )
    resolved: dict[str, _Style] = {}
    for style_id in raw:
        outline: int | None = None
        numbered: bool | None = None
        title = False
        seen: set[str] = set()
        current: str | None = style_id
        while current is not None and current in raw and current not in seen:
            seen.add(current)
            based, own_outline, own_numbered, name = raw[current]
            if outline is None:
                outline = own_outline
            if numbered is None:
                numbered = own_numbered
            title = title or name == "title"
            current = based
        resolved[style_id] = _Style(
            outline if outline is not None and outline < 9 else None, bool(numbered), title
        )
    return resolved


def _paragraph_properties(ppr: Any) -> tuple[int | None, bool | None]:
    """Outline level and numbering set in a ``pPr`` (None: not set there)."""
    if ppr is None:
        return None, None
    outline: int | None = None
    found = ppr.find(qn("w:outlineLvl"))
    if found is not None:
        try:
            outline = int(found.get(_W_VAL, "9"))
        except ValueError:
            outline = None
    numbered: bool | None = None
    numbering = ppr.find(qn("w:numPr"))
    if numbering is not None:
        num_id = numbering.find(qn("w:numId"))
        numbered = num_id is None or num_id.get(_W_VAL, "0") != "0"
    return outline, numbered


def _body_pieces(body: Any, walk: _Walk) -> Iterator[Piece]:
    for element in _flatten(body):
        if element.tag == _W_P:
            yield from _paragraph_piece(element, walk)
        elif element.tag == _W_TBL:
            walk.tables += 1
            walk.all_tables += 1
            yield from _table_pieces(element, walk.under(f"table {walk.tables}"), walk)


def _flatten(container: Any) -> Iterator[Any]:
    """Paragraphs and tables of a body or cell, wrappers opened, in document order."""
    stack = [iter(container.iterchildren())]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        if element.tag in _BODY_WRAPPERS:
            stack.append(iter(element.iterchildren()))
        elif element.tag in (_W_P, _W_TBL):
            yield element


def _paragraph_piece(paragraph: Any, walk: _Walk) -> Iterator[Piece]:
    text = _paragraph_text(paragraph, walk)
    if not text.strip():
        return
    style_id = None
    ppr = paragraph.find(qn("w:pPr"))
    if ppr is not None:
        style_ref = ppr.find(qn("w:pStyle"))
        if style_ref is not None:
            style_id = style_ref.get(_W_VAL)
    style = walk.styles.get(style_id or "", _Style(None, False, False))
    own_outline, own_numbered = _paragraph_properties(ppr)
    outline = own_outline if own_outline is not None else style.outline
    numbered = own_numbered if own_numbered is not None else style.numbered
    if outline is not None and outline < 9:
        yield Piece(BlockKind.HEADING, text, walk.heading(outline))
    elif style.title:
        yield Piece(BlockKind.HEADING, text, "title")
    else:
        walk.paragraphs += 1
        kind = BlockKind.LIST_ITEM if numbered else BlockKind.PARAGRAPH
        yield Piece(kind, text, walk.under(f"paragraph {walk.paragraphs}"))


def _paragraph_text(paragraph: Any, walk: _Walk) -> str:
    """The shown text of one paragraph (tracked changes accepted, hidden runs dropped)."""
    out: list[str] = []
    stack = [iter(paragraph.iterchildren())]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        tag = element.tag
        if not isinstance(tag, str):
            continue  # comments and processing instructions in the XML
        if tag in _TRACKED:
            walk.warnings.add("TRACKED_CHANGES_ACCEPTED")
        if tag in _TEXT_BOXES and element.find(".//" + _W_T) is not None:
            walk.warnings.add("TEXT_BOXES_DROPPED")
        if tag in _SKIPPED_IN_PARAGRAPH:
            continue
        if tag == _W_R and _hidden(element):
            walk.warnings.add("HIDDEN_TEXT_DROPPED")
            continue
        if tag == _W_T:
            out.append(element.text or "")
        elif tag in _BREAKS:
            if element.get(_W_TYPE) != "page":
                out.append("\n")
        elif tag in _CHARACTERS:
            out.append(_CHARACTERS[tag])
        else:
            stack.append(iter(element.iterchildren()))
    return "".join(out)


def _hidden(run: Any) -> bool:
    rpr = run.find(qn("w:rPr"))
    if rpr is None:
        return False
    vanish = rpr.find(qn("w:vanish"))
    return _on(vanish)


def _grid_count(element: Any, default: int) -> int:
    """A count of grid columns (``gridSpan``, ``gridBefore``): its value in ASCII digits,
    at least the default and at most :data:`MAX_GRID_SPAN` (Word's grid has 63 columns),
    the default when absent or not such a number (Word reads no Arabic-Indic digits)."""
    value = None if element is None else element.get(_W_VAL)
    if value is None or not _DIGITS.fullmatch(value):
        return default
    return max(default, min(int(value), MAX_GRID_SPAN))


def _on(toggle: Any) -> bool:
    """A Word on/off property (``<w:vanish/>``, ``<w:tblHeader w:val="0"/>``) is set."""
    return toggle is not None and toggle.get(_W_VAL, "true") not in ("0", "false", "off")


def _table_pieces(table: Any, locator: str, walk: _Walk) -> Iterator[Piece]:
    """A table's cells row by row. The rows marked to repeat as the header on each page
    (``tblHeader``) head the columns; in a table with no such row, the first row does
    (as a Word table is written), unless the table has one row only."""
    rows = []
    for row in _children(table, _W_TR):
        trpr = row.find(qn("w:trPr"))
        if trpr is not None and trpr.find(qn("w:del")) is not None:
            walk.warnings.add("TRACKED_CHANGES_ACCEPTED")
            continue  # a deleted row
        rows.append((row, trpr is not None and _on(trpr.find(qn("w:tblHeader")))))
    if not any(marked for _, marked in rows) and len(rows) > 1:
        rows[0] = (rows[0][0], True)
    number = walk.all_tables - 1
    for row_number, (row, header) in enumerate(rows, start=1):
        # a row may start further right in the table's grid (``gridBefore``): its first
        # cell is then in a later column, under that column's header
        trpr = row.find(qn("w:trPr"))
        column = 1 + (0 if trpr is None else _grid_count(trpr.find(qn("w:gridBefore")), 0))
        for cell in _children(row, _W_TC):
            tcpr = cell.find(qn("w:tcPr"))
            span = 1 if tcpr is None else _grid_count(tcpr.find(qn("w:gridSpan")), 1)
            texts = [_paragraph_text(p, walk) for p in _cell_paragraphs(cell)]
            yield Piece(
                BlockKind.TABLE_CELL,
                "\n".join(t for t in texts if t.strip()),
                f"{locator} › row {row_number}, column {column}",
                GridCell(number, row_number - 1, column - 1, span, header),
            )
            column += span


def _cell_paragraphs(cell: Any) -> Iterator[Any]:
    """A cell's paragraphs in order, those of nested tables' cells included."""
    stack = [_flatten(cell)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
        elif element.tag == _W_P:
            yield element
        else:  # a nested table: its cells' paragraphs, row by row
            rows = _children(element, _W_TR)
            stack.append(_chain_flatten(c for r in rows for c in _children(r, _W_TC)))


def _chain_flatten(cells: Iterator[Any]) -> Iterator[Any]:
    for cell in cells:
        yield from _flatten(cell)


def _children(element: Any, tag: str) -> Iterator[Any]:
    """Children with ``tag``, content-control wrappers opened."""
    for child in element.iterchildren():
        if child.tag == tag:
            yield child
        elif child.tag in (_W_SDT, _W_SDT_CONTENT, qn("w:customXml")):
            yield from _children(child, tag)
