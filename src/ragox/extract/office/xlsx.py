"""Excel (XLSX) adapter: the visible sheets' cells through openpyxl.

Each visible worksheet gives a ``HEADING`` block with its name (locator
``sheet Prices``), then one ``TABLE_CELL`` block per non-empty cell, row by row
(locator ``Prices!B12``, the sheet name quoted as Excel quotes it; a merged cell's
locator is its range, ``Prices!A1:D1``).

Values are the ones the spreadsheet program saved: a formula shows its last
calculated value (openpyxl's ``data_only``), never the formula, and nothing is
recalculated; a file that was never calculated (one a library wrote) shows no value
for its formulas. Number formats are not applied: integers are written as digits,
other numbers as the shortest decimal that reads back the same (``0.1``), dates and
times in ISO 8601 (``2024-03-01``, ``2024-03-01 14:30:00``), booleans ``TRUE`` and
``FALSE``, and error values as Excel writes them (``#DIV/0!``).

Deliberate choices (recorded in the parser's configuration):

* hidden and very hidden sheets are dropped (``HIDDEN_SHEETS_DROPPED``), and so are
  hidden rows and columns (``HIDDEN_ROWS_DROPPED``, ``HIDDEN_COLUMNS_DROPPED``): a
  reader of the workbook does not see them;
* cell comments (notes) are dropped with ``COMMENTS_DROPPED``;
* a formula without a saved value (a file a library wrote and nothing calculated)
  shows no value, with ``FORMULAS_WITHOUT_VALUES``;
* chart sheets, charts, images and defined names give no text.
"""

from __future__ import annotations

import datetime
import io
import itertools
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from typing import Final

import openpyxl
from openpyxl.cell.cell import Cell
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ragox.extract._model import (
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.extract._office_types import XLSX_MEDIA_TYPE
from ragox.extract.office._build import MAX_BLOCKS, GridCell, Piece, build_extraction, clean_name
from ragox.extract.office._package import open_package, parse_failure, xml_encoding
from ragox.text import Profile

__all__ = ["XLSX_MEDIA_TYPE", "XLSX_PARSER", "extract_xlsx"]


XLSX_PARSER: Final = ParserInfo(
    "xlsx-openpyxl",
    f"2+openpyxl-{openpyxl.__version__}",
    {
        "blocks": "sheet-name,cell",
        "tables": "sheet-is-table;first-row-of-two-cells-heads-columns",
        "kinds": "sheet=heading,cell=table-cell",
        "values": "saved-values;iso-dates;shortest-float;no-number-formats",
        "hidden-sheets": "dropped",
        "hidden-rows-columns": "dropped",
        "comments": "dropped",
        "locator": "sheet!cell|sheet!range",
        "separator": "blank-line",
    },
)


def extract_xlsx(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Sheet names and non-empty cells of the visible sheets, row by row."""
    open_package(data, "XLSX", "xl/workbook.xml")
    warnings: set[str] = set()
    try:
        if (cells := _cells_declared(data)) > MAX_BLOCKS:
            # before openpyxl, which holds every cell (about 640 bytes each): a 586 kB
            # file of 16 million cells took gigabytes before the limit below was reached
            raise ExtractionError(
                ErrorCode.TOO_COMPLEX, f"{cells} cells, the limit is {MAX_BLOCKS}"
            )
        workbook = openpyxl.load_workbook(
            io.BytesIO(data), data_only=True, keep_vba=False, keep_links=False
        )
        pieces: list[Piece] = []
        tables = itertools.count()  # each visible sheet is a table, numbered from 0
        for sheet in workbook.worksheets:
            if sheet.sheet_state != "visible":
                warnings.add("HIDDEN_SHEETS_DROPPED")
                continue
            pieces.extend(_sheet_pieces(sheet, warnings, tables))
            if len(pieces) > MAX_BLOCKS:
                raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} cells")
        if _formulas_without_values(data):
            warnings.add("FORMULAS_WITHOUT_VALUES")
    except ExtractionError:
        raise
    except Exception as error:  # openpyxl raises its own, zipfile's and XML errors
        raise parse_failure("XLSX", error) from None
    return build_extraction(pieces, profile, XLSX_PARSER, XLSX_MEDIA_TYPE, warnings)


#: a formula cell whose saved value is empty or missing: ``<f>B2+B3</f><v></v>`` (as
#: openpyxl and other libraries write a formula), ``<f …/></c>`` (a shared formula)
_UNCALCULATED: Final = re.compile(rb"(?:</f>|<f\b[^>]{0,200}/>)\s*(?:<v\s*/>|<v>\s*</v>|</c>)")
_SCAN_CHUNK: Final = 1 << 20
_SCAN_OVERLAP: Final = 512


#: a cell element of SpreadsheetML, with or without a namespace prefix (any XML name)
_CELL: Final = re.compile(r"<(?:[^\s<>/:=\"']{1,64}:)?c[\s>/]")
#: a merged range: openpyxl makes an object for every cell it covers
_MERGE: Final = re.compile(
    r"<(?:[^\s<>/:=\"']{1,64}:)?mergeCell\b[^>]{0,200}?\bref\s*=\s*[\"']"
    r"([A-Za-z]{1,3})(\d{1,7}):([A-Za-z]{1,3})(\d{1,7})[\"']"
)
#: longer than any match of the two: what a chunk keeps for the next one
_COUNT_TAIL: Final = 512


def _column(letters: str) -> int:
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


def _cells_declared(data: bytes) -> int:
    """How many cells openpyxl would make objects of: the cell elements and the cells
    of merged ranges in every part that starts as XML (a relationship may name any part
    as a sheet; UTF-8, UTF-16 or UTF-32), read a chunk at a time."""
    cells = 0
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for member in archive.infolist():
            if member.is_dir() or member.file_size == 0:
                continue
            with archive.open(member) as raw:
                encoding = xml_encoding(raw.read(64))
            if encoding is None:
                continue
            with archive.open(member) as raw:
                part = io.TextIOWrapper(raw, encoding=encoding, errors="replace")
                tail = ""
                while chunk := part.read(_SCAN_CHUNK):
                    window = tail + chunk
                    cut = max(0, len(window) - _COUNT_TAIL)
                    cells += _counted(window, cut)
                    tail = window[cut:]
                cells += _counted(tail, len(tail))
            if cells > MAX_BLOCKS:
                break
    return cells


def _counted(window: str, cut: int) -> int:
    """The cells of the matches that start before ``cut`` (the rest are counted with
    the next chunk, whole)."""
    cells = sum(1 for m in _CELL.finditer(window) if m.start() < cut)
    for m in _MERGE.finditer(window):
        if m.start() < cut:
            columns = abs(_column(m.group(3)) - _column(m.group(1))) + 1
            rows = abs(int(m.group(4)) - int(m.group(2))) + 1
            cells += columns * rows
    return cells


def _formulas_without_values(data: bytes) -> bool:
    """Whether a worksheet holds a formula without a saved value (a workbook a library
    wrote and no spreadsheet program calculated): such a cell shows no value, and the
    document says so (``FORMULAS_WITHOUT_VALUES``) instead of dropping it unnoticed.
    Each sheet's XML is streamed (the package was checked for size before)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
                continue
            with archive.open(name) as part:
                tail = b""
                while chunk := part.read(_SCAN_CHUNK):
                    window = tail + chunk
                    if _UNCALCULATED.search(window):
                        return True
                    tail = window[-_SCAN_OVERLAP:]
    return False


def _sheet_pieces(sheet: Worksheet, warnings: set[str], tables: Iterator[int]) -> Iterator[Piece]:
    """The sheet's name, then its shown cells row by row as one table, whose row of
    column titles heads the columns below it."""
    name = _quoted(sheet.title)
    number = next(tables)
    yield Piece(BlockKind.HEADING, sheet.title, f"sheet {clean_name(sheet.title)}")
    hidden_rows = {row for row, dim in sheet.row_dimensions.items() if dim.hidden}
    hidden_columns: set[int] = set()
    for dimension in sheet.column_dimensions.values():
        if dimension.hidden and dimension.min is not None and dimension.max is not None:
            hidden_columns.update(range(dimension.min, dimension.max + 1))
    merged = {(cells.min_row, cells.min_col): cells for cells in sheet.merged_cells.ranges}
    # The sheet's own store of cells, sorted: a sheet with one cell at XFD1048576 is
    # not walked cell by cell over its 17 billion positions.
    shown: list[tuple[int, int, Cell]] = []
    for (row, column), cell in sorted(sheet._cells.items()):
        if not isinstance(cell, Cell) or cell.value is None:
            continue
        if row in hidden_rows:
            warnings.add("HIDDEN_ROWS_DROPPED")
            continue
        if column in hidden_columns:
            warnings.add("HIDDEN_COLUMNS_DROPPED")
            continue
        shown.append((row, column, cell))
    first_row = shown[0][0] if shown else 0
    # the column titles: the first row of two cells or more (a title cell above them,
    # "Price list 2024", heads nothing), when rows follow it
    per_row = Counter(row for row, _, _ in shown)
    titles = next((row for row in sorted(per_row) if per_row[row] > 1), first_row)
    header = any(row > titles for row in per_row)
    first_column = min((column for _, column, _ in shown), default=1)
    for row, column, cell in shown:
        if cell.comment is not None:
            warnings.add("COMMENTS_DROPPED")
        span = merged.get((row, column))
        where = f"{get_column_letter(column)}{row}" if span is None else span.coord
        grid = GridCell(
            number,
            row - first_row,
            column - first_column,
            1 if span is None else span.max_col - span.min_col + 1,
            header and row == titles,
        )
        yield Piece(BlockKind.TABLE_CELL, _value_text(cell.value), f"{name}!{where}", grid)
    for cell in sheet._cells.values():
        if cell.value is None and cell.comment is not None:
            warnings.add("COMMENTS_DROPPED")


#: a sheet name Excel writes unquoted in a reference (letters, digits, "_", ".",
#: not starting with a digit); every other name is quoted
_PLAIN_SHEET_NAME: Final = re.compile(r"[^\W\d][\w.]*")


def _quoted(title: str) -> str:
    """The sheet name as a cell reference writes it: ``Prices``, ``'Price list'``."""
    if _PLAIN_SHEET_NAME.fullmatch(title):
        return title
    return "'" + title.replace("'", "''") + "'"


def _value_text(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return str(value)
