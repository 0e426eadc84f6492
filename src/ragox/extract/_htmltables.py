"""HTML's table model: every ``td``/``th`` with its grid slot and its header cells.

Follows the HTML Standard, §4.9.12 "Processing model": "forming a table" (rows of
``thead``/``tbody``/``tfoot`` and direct ``tr`` children in document order,
``colspan`` 1–1000, ``rowspan`` 0–65534 where 0 grows to the end of its row group,
column groups from ``colgroup``/``col``) and "forming relationships between data
cells and header cells" (the ``headers`` attribute, else the internal scan left
along each row and up along each column with opaque header blocks, then row-group
and column-group headers). ``scope`` decides whether a ``th`` is a column, row,
row-group or column-group header; ``auto`` follows the standard's rule (a column
header when its rows hold no data cell, else a row header when its columns hold
none).

A row span is clamped to the rows its row group has (browsers do the same), and a
table of more than :data:`MAX_SLOTS` grid slots is refused with ``TOO_COMPLEX``.
The scans walk runs of cells per column and per row, not slot by slot, so a
thousand-row table costs about one step per header cell above each cell.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import Final, NamedTuple

from selectolax.lexbor import LexborNode

from ragox.extract._model import ErrorCode, ExtractionError

__all__ = ["MAX_SLOTS", "CellPlace", "table_cells"]

#: Grid slots one table may have (a hostile ``colspan=1000 rowspan=65534`` is refused).
MAX_SLOTS: Final = 500_000
_ASCII_WS: Final = " \t\n\f\r"


class CellPlace(NamedTuple):
    """A ``td``/``th`` element's place in its table (keys are ``LexborNode.mem_id``)."""

    table: int
    row: int
    col: int
    row_span: int
    col_span: int
    header: bool
    #: ``mem_id`` of the header cells that apply, in the standard's order
    header_keys: tuple[int, ...]


class _Cell:
    __slots__ = (
        "column_header",
        "group",
        "grows",
        "header",
        "headers",
        "height",
        "key",
        "listed",
        "row_header",
        "scope",
        "width",
        "x",
        "y",
    )

    def __init__(
        self,
        key: int,
        listed: str | None,
        x: int,
        y: int,
        width: int,
        height: int,
        header: bool,
        scope: str,
        grows: bool,
        group: int,
    ) -> None:
        self.key = key
        #: the ``headers`` attribute
        self.listed = listed
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.header = header
        self.scope = scope
        self.grows = grows
        self.group = group
        self.column_header = False
        self.row_header = False
        self.headers: list[int] = []


def _children(node: LexborNode) -> Iterator[LexborNode]:
    child = node.first_child
    while child is not None:
        if child.is_element_node:
            yield child
        child = child.next


def _number(value: str | None, default: int, low: int, high: int) -> int:
    """An HTML non-negative integer (leading digits after white space), clamped."""
    if value is None:
        return default
    if len(value) <= 12 and value.isascii() and value.isdigit():
        return max(low, min(high, int(value)))
    text = value.lstrip(_ASCII_WS)
    digits = ""
    for ch in text:
        if not ch.isascii() or not ch.isdigit():
            break
        digits += ch
    if not digits:
        return default
    return max(low, min(high, int(digits[:12])))


class _Table:
    """One table's grid, built by the standard's "forming a table"."""

    def __init__(self, node: LexborNode) -> None:
        self.cells: list[_Cell] = []
        self.slots: dict[tuple[int, int], int] = {}
        self.width = 0
        self.height = 0
        self.row_groups: list[tuple[int, int]] = []
        self.col_groups: list[tuple[int, int]] = []
        self._slot_count = 0
        for child in _children(node):
            tag = child.tag
            if tag == "colgroup":
                self._column_group(child)
            elif tag in ("thead", "tbody", "tfoot"):
                self._row_group(list(_children(child)))
            elif tag == "tr":
                self._row_group([child])

    def _column_group(self, node: LexborNode) -> None:
        cols = [c for c in _children(node) if c.tag == "col"]
        span = (
            sum(_number(c.attributes.get("span"), 1, 1, 1000) for c in cols)
            if cols
            else _number(node.attributes.get("span"), 1, 1, 1000)
        )
        start = self.col_groups[-1][1] if self.col_groups else 0
        self.col_groups.append((start, start + span))

    def _row_group(self, children: list[LexborNode]) -> None:
        rows = [c for c in children if c.tag == "tr"]
        if not rows:
            return
        group_start = self.height
        group_end = group_start + len(rows)
        group = len(self.row_groups)
        slots = self.slots
        cells = self.cells
        for y, row in enumerate(rows, start=group_start):
            x = 0
            cell = row.first_child
            while cell is not None:
                tag = cell.tag
                if tag != "td" and tag != "th":  # noqa: PLR1714 (a set is slower here)
                    cell = cell.next
                    continue
                while (x, y) in slots:
                    x += 1
                attributes = cell.attributes
                width = rowspan = 1
                scope = ""
                listed = None
                if attributes:
                    get = attributes.get
                    value = get("colspan")
                    if value is not None:
                        width = _number(value, 1, 1, 1000)
                    value = get("rowspan")
                    if value is not None:
                        rowspan = _number(value, 1, 0, 65534)
                    value = get("scope")
                    if value:
                        scope = value.strip(_ASCII_WS).lower()
                    listed = get("headers")
                grows = rowspan == 0
                height = group_end - y if grows else min(rowspan, group_end - y)
                entry = _Cell(
                    cell.mem_id, listed, x, y, width, height, tag == "th", scope, grows, group
                )
                if width == 1 and height == 1:
                    # (the common case of _place, inline)
                    self._slot_count += 1
                    if self._slot_count > MAX_SLOTS:
                        raise ExtractionError(
                            ErrorCode.TOO_COMPLEX, f"a table has over {MAX_SLOTS} slots"
                        )
                    slots[x, y] = len(cells)  # (the slot is free: the loop above found it)
                    cells.append(entry)
                    if x >= self.width:
                        self.width = x + 1
                else:
                    self._place(entry)
                x += width
                cell = cell.next
        self.height = group_end
        self.row_groups.append((group_start, group_end))

    def _place(self, cell: _Cell) -> None:
        self._slot_count += cell.width * cell.height
        if self._slot_count > MAX_SLOTS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"a table has over {MAX_SLOTS} slots")
        index = len(self.cells)
        self.cells.append(cell)
        if cell.width == 1 and cell.height == 1:
            self.slots.setdefault((cell.x, cell.y), index)
            self.width = max(self.width, cell.x + 1)
            return
        for y in range(cell.y, cell.y + cell.height):
            for x in range(cell.x, cell.x + cell.width):
                # Overlapping cells are a table model error: the first keeps the slot.
                self.slots.setdefault((x, y), index)
        self.width = max(self.width, cell.x + cell.width)


def _classify(table: _Table) -> None:
    """Column and row headers (§4.9.12: ``scope`` and the ``auto`` state's rule)."""
    rows_with_data: set[int] = set()
    cols_with_data: set[int] = set()
    for cell in table.cells:
        if not cell.header:
            rows_with_data.update(range(cell.y, cell.y + cell.height))
            cols_with_data.update(range(cell.x, cell.x + cell.width))
    for cell in table.cells:
        if not cell.header:
            continue
        if cell.scope == "col":
            cell.column_header = True
        elif cell.scope == "row":
            cell.row_header = True
        elif cell.scope not in ("rowgroup", "colgroup"):
            cell.column_header = not any(
                y in rows_with_data for y in range(cell.y, cell.y + cell.height)
            )
            cell.row_header = not cell.column_header and not any(
                x in cols_with_data for x in range(cell.x, cell.x + cell.width)
            )


#: A line (a column or a row) as runs of consecutive slots covered by one header
#: cell, or by data cells: the scan reacts to a run once, whatever its length. Per
#: run: its slot nearest the start of the line (``lasts``, for bisection) and the
#: header cell's index, or -1 for data cells (``marks``).
_Line = tuple[list[int], list[int]]


def _runs(table: _Table, along_column: bool) -> list[_Line]:
    """Per column (or per row), its runs from the start of the line outwards."""
    lines: list[_Line] = []
    count = table.width if along_column else table.height
    length = table.height if along_column else table.width
    slots = table.slots
    headers = [cell.header for cell in table.cells]
    for line in range(count):
        lasts: list[int] = []
        marks: list[int] = []
        previous = -2  # the last slot of the current run
        for position in range(length):
            index = slots.get((line, position) if along_column else (position, line))
            if index is None:
                continue
            marker = index if headers[index] else -1
            if not (marks and marks[-1] == marker and previous == position - 1):
                lasts.append(position)
                marks.append(marker)
            previous = position
        lines.append((lasts, marks))
    return lines


def _scan(
    table: _Table,
    principal: int,
    line: _Line,
    start: int,
    along_column: bool,
    found: list[int],
) -> None:
    """The standard's "internal algorithm for scanning and assigning header cells",
    from slot ``start`` (the principal's) towards the line's start."""
    cells = table.cells
    cell = cells[principal]
    in_block = cell.header
    current_block: list[int] = [principal] if cell.header else []
    opaque: list[int] = []
    lasts, marks = line
    k = bisect_right(lasts, start - 1) - 1
    while k >= 0:
        mark = marks[k]
        k -= 1
        if mark == principal:
            continue
        if mark < 0:
            if in_block:
                in_block = False
                opaque.extend(current_block)
                current_block = []
            continue
        header = cells[mark]
        in_block = True
        current_block.append(mark)
        if along_column:
            blocked = not header.column_header or any(
                cells[o].x == header.x and cells[o].width == header.width for o in opaque
            )
        else:
            blocked = not header.row_header or any(
                cells[o].y == header.y and cells[o].height == header.height for o in opaque
            )
        if not blocked:
            found.append(mark)


def _assign(table: _Table, ids: dict[str, LexborNode]) -> None:
    by_key = {cell.key: index for index, cell in enumerate(table.cells)}
    columns = _runs(table, along_column=True)
    rows = _runs(table, along_column=False)
    group_headers = [
        (index, cell)
        for index, cell in enumerate(table.cells)
        if cell.header and cell.scope in ("rowgroup", "colgroup")
    ]
    for index, cell in enumerate(table.cells):
        found: list[int] = []
        listed = cell.listed
        if listed is not None:
            for token in listed.split():
                node = ids.get(token)
                target = None if node is None else by_key.get(node.mem_id)
                if target is not None and target != index:
                    found.append(target)
        else:
            for y in range(cell.y, cell.y + cell.height):
                _scan(table, index, rows[y], cell.x, False, found)
            for x in range(cell.x, cell.x + cell.width):
                _scan(table, index, columns[x], cell.y, True, found)
            right, bottom = cell.x + cell.width - 1, cell.y + cell.height - 1
            for other, header in group_headers:
                if header.x > right or header.y > bottom:
                    continue
                if header.scope == "rowgroup" and header.group == cell.group:
                    found.append(other)
                elif header.scope == "colgroup":
                    group = _column_group(table, cell.x)
                    if group is not None and group == _column_group(table, header.x):
                        found.append(other)
        seen: set[int] = set()
        for target in found:
            if target != index and target not in seen:
                seen.add(target)
                cell.headers.append(target)


def _assign_simple(table: _Table) -> bool:
    """The header cells of a simple table in one pass down each column, or False
    when the table is not simple.

    Simple: every cell one slot wide and high, no ``headers`` or ``scope``
    attribute, and no row that holds a header cell holds a data cell. Then every
    header cell is a column header and no row scan finds one, and the column scan
    of :func:`_scan` gives a data cell the nearest run of header cells above it
    (header cells not parted by a data cell; the runs above it are opaque), nearest
    first, and a header cell the header cells above it in its own run.
    """
    cells = table.cells
    header_rows: set[int] = set()
    data_rows: set[int] = set()
    columns: dict[int, list[int]] = {}
    for index, cell in enumerate(cells):
        if cell.width != 1 or cell.height != 1 or cell.listed is not None or cell.scope:
            return False
        (header_rows if cell.header else data_rows).add(cell.y)
        column = columns.get(cell.x)
        if column is None:
            columns[cell.x] = [index]
        else:
            column.append(index)
    if not header_rows.isdisjoint(data_rows):
        return False
    for column in columns.values():
        current: list[int] = []  # the run of header cells the walk down is in
        nearest: list[int] = current  # the last run of header cells seen
        for index in column:
            cell = cells[index]
            if cell.header:
                cell.headers = current[::-1]
                current.append(index)
                nearest = current
            else:
                cell.headers = nearest[::-1]
                current = []
    return True


def _column_group(table: _Table, x: int) -> int | None:
    for number, (start, end) in enumerate(table.col_groups):
        if start <= x < end:
            return number
    return None


def _element_ids(root: LexborNode) -> dict[str, LexborNode]:
    """The first element of each id in the document."""
    ids: dict[str, LexborNode] = {}
    for node in root.traverse():
        element_id = node.id
        if element_id and element_id not in ids:
            ids[element_id] = node
    return ids


def table_cells(root: LexborNode) -> dict[int, CellPlace]:
    """Every ``td``/``th`` of every table under ``root``, by the element's ``mem_id``;
    tables are numbered in document order."""
    tables = root.css("table")
    if not tables:
        return {}
    # The elements by id, for the cells' ``headers`` attributes: found the first time
    # a table has such a cell (most documents have none).
    ids: dict[str, LexborNode] | None = None
    places: dict[int, CellPlace] = {}
    make_place = CellPlace._make
    for number, node in enumerate(tables):
        table = _Table(node)
        # (Without header cells and ``headers`` attributes no cell has headers.)
        if any(
            cell.header or cell.listed is not None for cell in table.cells
        ) and not _assign_simple(table):
            _classify(table)
            if ids is None and any(cell.listed is not None for cell in table.cells):
                ids = _element_ids(root)
            _assign(table, ids or {})
        cells = table.cells
        for cell in cells:
            places[cell.key] = make_place(
                (
                    number,
                    cell.y,
                    cell.x,
                    cell.height,
                    cell.width,
                    cell.header,
                    tuple([cells[h].key for h in cell.headers]),
                )
            )
    return places
