"""PowerPoint (PPTX) adapter: slides, shapes, tables and speaker notes through python-pptx.

Slides are read in order; on each slide the shapes in their order on the slide
(group shapes opened), then the speaker notes:

* every non-empty paragraph of a shape's text is one block: a ``HEADING`` in a title
  placeholder, a ``LIST_ITEM`` where it is a bullet (in a body or content placeholder
  unless it says "no bullet", elsewhere where it has a bullet of its own), else a
  ``PARAGRAPH``;
* a table is one ``TABLE_CELL`` block per cell (a cell covered by a merge gives none);
* a line break inside a paragraph is ``\\n``; fields (slide number, date) keep their
  shown text.

Locators: ``slide 7 › shape 'Title 1'`` (the slide's number in the deck, hidden
slides counted, and the shape's name as the selection pane shows it; the shape id
is added when two shapes share a name, and stands alone, ``shape 47``, for a shape
without a name), with ``› paragraph 2`` when the shape holds
several paragraphs, ``› row 2, column 3`` for a table cell, and
``slide 7 › notes › paragraph 1`` for the speaker notes.

Deliberate choices (recorded in the parser's configuration):

* hidden slides are dropped with the warning ``HIDDEN_SLIDES_DROPPED`` (a reader of
  the deck does not see them when it is presented);
* speaker notes are kept: they are what the presenter says, and their locator says
  "notes";
* comments are dropped with ``COMMENTS_DROPPED``;
* date, footer and slide-number placeholders (the same on every slide), pictures,
  charts and SmartArt diagrams give no text.
"""

from __future__ import annotations

import io
import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

import pptx
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.oxml.ns import qn

from ragox.extract._model import (
    BlockKind,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.extract._office_types import PPTX_MEDIA_TYPE
from ragox.extract.office._build import GridCell, Piece, build_extraction, clean_name
from ragox.extract.office._package import MAX_XML_BYTES, open_package, parse_failure
from ragox.text import Profile

__all__ = ["PPTX_MEDIA_TYPE", "PPTX_PARSER", "extract_pptx"]


PPTX_PARSER: Final = ParserInfo(
    "pptx-python-pptx",
    f"2+python-pptx-{pptx.__version__}",
    {
        "blocks": "paragraph,table-cell,notes-paragraph",
        "tables": "grid-cells;header-row-option-heads-columns",
        "kinds": "title=heading,bullet=list-item",
        "hidden-slides": "dropped",
        "speaker-notes": "kept",
        "comments": "dropped",
        "furniture-placeholders": "dropped",
        "locator": "slide,shape-name(+id),paragraph|row,column",
        "separator": "blank-line",
    },
)

_TITLES: Final = frozenset(
    {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
)
_BULLETED: Final = frozenset(
    {
        PP_PLACEHOLDER.BODY,
        PP_PLACEHOLDER.OBJECT,
        PP_PLACEHOLDER.VERTICAL_BODY,
        PP_PLACEHOLDER.VERTICAL_OBJECT,
    }
)
_FURNITURE: Final = frozenset(
    {PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER}
)
_NOTES_FURNITURE: Final = frozenset(
    {
        PP_PLACEHOLDER.SLIDE_IMAGE,
        PP_PLACEHOLDER.SLIDE_NUMBER,
        PP_PLACEHOLDER.DATE,
        PP_PLACEHOLDER.FOOTER,
        PP_PLACEHOLDER.HEADER,
    }
)
_A_P: Final = qn("a:p")
_A_T: Final = qn("a:t")
_A_BR: Final = qn("a:br")
_A_PPR: Final = qn("a:pPr")
_OWN_BULLETS: Final = (qn("a:buChar"), qn("a:buAutoNum"), qn("a:buBlip"))


def extract_pptx(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Shape texts, table cells and speaker notes of the visible slides, in order."""
    package = open_package(data, "PPTX", "ppt/presentation.xml", MAX_XML_BYTES)
    warnings: set[str] = {"COMMENTS_DROPPED"} if package.has_comments else set()
    try:
        presentation = pptx.Presentation(io.BytesIO(data))
        pieces: list[Piece] = []
        tables = itertools.count()  # the presentation's tables, numbered from 0
        for number, slide in enumerate(presentation.slides, start=1):
            if slide.element.get("show") in ("0", "false"):
                warnings.add("HIDDEN_SLIDES_DROPPED")
                continue
            pieces.extend(_slide_pieces(slide, f"slide {number}", tables))
    except ExtractionError:
        raise
    except Exception as error:  # python-pptx raises its own and lxml's errors
        raise parse_failure("PPTX", error) from None
    return build_extraction(pieces, profile, PPTX_PARSER, PPTX_MEDIA_TYPE, warnings)


def _slide_pieces(slide: Any, where: str, tables: Iterator[int]) -> Iterator[Piece]:
    shapes = list(_shapes(slide.shapes))
    names = Counter(shape.name for shape in shapes)
    for shape in shapes:
        if not shape.name.strip():  # a writer that names no shapes: the id alone
            label = f"shape {shape.shape_id}"
        else:
            label = f"shape '{clean_name(shape.name)}'"
            if names[shape.name] > 1:
                label += f" (id {shape.shape_id})"
        locator = f"{where} › {label}"
        placeholder = _placeholder_type(shape)
        if placeholder in _FURNITURE:
            continue
        if getattr(shape, "has_table", False):
            yield from _table_pieces(shape.table, locator, next(tables))
        elif getattr(shape, "has_text_frame", False):
            if placeholder in _TITLES:
                kind, bulleted = BlockKind.HEADING, False
            else:
                kind, bulleted = BlockKind.PARAGRAPH, placeholder in _BULLETED
            yield from _paragraph_pieces([shape.text_frame._txBody], locator, kind, bulleted)
    if slide.has_notes_slide:
        # The notes placeholder, and any text box a writer put on the notes page instead
        # (LibreOffice does for a deck without a notes layout); not the slide's picture,
        # number, date, header or footer.
        bodies = [
            shape.text_frame._txBody
            for shape in _shapes(slide.notes_slide.shapes)
            if getattr(shape, "has_text_frame", False)
            and _placeholder_type(shape) not in _NOTES_FURNITURE
        ]
        yield from _paragraph_pieces(bodies, f"{where} › notes", BlockKind.PARAGRAPH)


def _shapes(shapes: Any) -> Iterator[Any]:
    """Shapes in slide order, group shapes opened (iteratively)."""
    stack = [iter(shapes)]
    while stack:
        shape = next(stack[-1], None)
        if shape is None:
            stack.pop()
        elif shape.shape_type is not None and shape.shape_type.name == "GROUP":
            stack.append(iter(shape.shapes))
        else:
            yield shape


def _placeholder_type(shape: Any) -> Any:
    if not shape.is_placeholder:
        return None
    try:
        return shape.placeholder_format.type
    except ValueError:  # a placeholder whose type python-pptx does not know
        return None


def _paragraph_pieces(
    bodies: list[Any], locator: str, kind: BlockKind, bulleted: bool = False
) -> Iterator[Piece]:
    """The non-empty paragraphs of ``bodies`` (text bodies read as one), numbered when
    there are several."""
    found: list[tuple[str, Any]] = []
    for body in bodies:
        for paragraph in body.iterchildren(_A_P):
            text = _paragraph_text(paragraph)
            if text.strip():
                found.append((text, paragraph))
    for number, (text, paragraph) in enumerate(found, start=1):
        where = locator if len(found) == 1 else f"{locator} › paragraph {number}"
        piece_kind = kind
        if kind is BlockKind.PARAGRAPH and _is_bullet(paragraph, bulleted):
            piece_kind = BlockKind.LIST_ITEM
        yield Piece(piece_kind, text, where)


def _is_bullet(paragraph: Any, bulleted: bool) -> bool:
    ppr = paragraph.find(_A_PPR)
    if ppr is None:
        return bulleted
    if ppr.find(qn("a:buNone")) is not None:
        return False
    return bulleted or any(ppr.find(tag) is not None for tag in _OWN_BULLETS)


def _paragraph_text(paragraph: Any) -> str:
    out: list[str] = []
    for element in paragraph.iter(_A_T, _A_BR):
        out.append("\n" if element.tag == _A_BR else element.text or "")
    return "".join(out)


def _table_pieces(table: Any, locator: str, number: int) -> Iterator[Piece]:
    """A table's cells row by row; the first row heads the columns when the table is
    formatted with a header row (PowerPoint's "Header Row", its default)."""
    header_row = bool(table.first_row) and len(table.rows) > 1
    for row_number, row in enumerate(table.rows, start=1):
        for column, cell in enumerate(row.cells, start=1):
            if cell.is_spanned:
                continue
            texts = [_paragraph_text(p) for p in cell.text_frame._txBody.iterchildren(_A_P)]
            span = max(1, int(cell.span_width)) if cell.is_merge_origin else 1
            yield Piece(
                BlockKind.TABLE_CELL,
                "\n".join(t for t in texts if t.strip()),
                f"{locator} › row {row_number}, column {column}",
                GridCell(number, row_number - 1, column - 1, span, header_row and row_number == 1),
            )
