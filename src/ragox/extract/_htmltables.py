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


#: A cell as the grid is formed: ``key`` (the element's ``mem_id``), ``listed`` (its
#: ``headers`` attribute), ``x``, ``y``, ``width``, ``height``, ``header`` (a ``th``),
#: ``scope`` and ``group`` (its row group's number). A tuple: a page's tables have
#: thousands of cells, and most need nothing more.
_Record = tuple[int, str | None, int, int, int, int, bool, str, int]


class _Cell:
    """A cell of a table that the standard's scans read (:func:`_classify` sets
    ``column_header`` and ``row_header`` of its header cells, :func:`_assign` its
    ``headers``)."""

    __slots__ = (
        "column_header",
        "group",
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

    def __init__(self, record: _Record) -> None:
        (
            self.key,
            self.listed,
            self.x,
            self.y,
            self.width,
            self.height,
            self.header,
            self.scope,
            self.group,
        ) = record
        self.column_header = False
        self.row_header = False
        self.headers: list[int] = []


def _children(node: LexborNode) -> Iterator[LexborNode]:
    """The element children of ``node`` (Lexbor's own iteration skips the text nodes;
    the few others it gives, comments, have no element's tag)."""
    return node.iter()


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
        #: the cells in the order the grid is formed
        self.records: list[_Record] = []
        #: each slot's cell (its index), kept once a cell of more slots than one is
        #: placed: before, the cells are each the next slot of their row, and the
        #: slots are made from them when asked for (:meth:`grid`)
        self.slots: dict[tuple[int, int], int] = {}
        self._spanned = False
        self.width = 0
        self.height = 0
        self.row_groups: list[tuple[int, int]] = []
        self.col_groups: list[tuple[int, int]] = []
        #: a header cell or a ``headers`` attribute: the cells may have header cells
        self.headed = False
        #: every cell one slot, without ``headers`` and ``scope`` attributes
        self.plain = True
        self._cells: list[_Cell] | None = None
        self._slot_count = 0
        for child in _children(node):
            tag = child.tag
            if tag == "colgroup":
                self._column_group(child)
            elif tag in ("thead", "tbody", "tfoot"):
                self._row_group(list(_children(child)))
            elif tag == "tr":
                self._row_group([child])

    @property
    def cells(self) -> list[_Cell]:
        """The cells as objects for the standard's scans (made once, when asked for)."""
        if self._cells is None:
            self._cells = [_Cell(record) for record in self.records]
        return self._cells

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
        records = self.records
        limit = MAX_SLOTS
        # (the table's counts in local variables while its rows are read)
        slot_count = self._slot_count
        width_so_far = self.width
        headed = self.headed
        plain = self.plain
        spanned = self._spanned
        for y, row in enumerate(rows, start=group_start):
            x = 0
            for cell in row.iter():
                tag = cell.tag
                if tag != "td" and tag != "th":  # noqa: PLR1714 (a set is slower here)
                    continue
                if spanned:
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
                    if listed is not None:
                        headed = True
                if rowspan == 1:
                    height = 1
                elif rowspan == 0:  # grows to the end of its row group
                    height = group_end - y
                else:
                    height = min(rowspan, group_end - y)
                header = tag == "th"
                if header:
                    headed = True
                entry = (cell.mem_id, listed, x, y, width, height, header, scope, group)
                if width == 1 and height == 1:
                    if scope or listed is not None:
                        plain = False
                    # (the common case of _place, inline)
                    slot_count += 1
                    if slot_count > limit:
                        raise ExtractionError(
                            ErrorCode.TOO_COMPLEX, f"a table has over {MAX_SLOTS} slots"
                        )
                    if spanned:
                        slots[x, y] = len(records)  # (free: the loop above found it)
                    records.append(entry)
                    if x >= width_so_far:
                        width_so_far = x + 1
                else:
                    plain = False
                    if not spanned:
                        slots = self.grid()
                        self._spanned = spanned = True
                    self._slot_count = slot_count
                    self.width = width_so_far
                    self._place(entry)
                    slot_count = self._slot_count
                    width_so_far = self.width
                x += width
        self._slot_count = slot_count
        self.width = width_so_far
        self.headed = headed
        self.plain = plain
        self.height = group_end
        self.row_groups.append((group_start, group_end))

    def grid(self) -> dict[tuple[int, int], int]:
        """Each slot's cell (its index in :attr:`records`)."""
        if not self._spanned and len(self.slots) != len(self.records):
            # (every cell one slot, each its own: the first keeps nothing from another)
            self.slots = {
                (record[2], record[3]): index for index, record in enumerate(self.records)
            }
        return self.slots

    def _place(self, record: _Record) -> None:
        _, _, cell_x, cell_y, width, height, _, _, _ = record
        self._slot_count += width * height
        if self._slot_count > MAX_SLOTS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"a table has over {MAX_SLOTS} slots")
        index = len(self.records)
        self.records.append(record)
        for y in range(cell_y, cell_y + height):
            for x in range(cell_x, cell_x + width):
                # Overlapping cells are a table model error: the first keeps the slot.
                self.slots.setdefault((x, y), index)
        self.width = max(self.width, cell_x + width)


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
    slots = table.grid()
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


def _simple_headers(table: _Table) -> list[list[int]] | None:
    """The header cells of each cell of a simple table (as cell indexes) in one pass
    down each column, or None when the table is not simple.

    Simple: every cell one slot wide and high, no ``headers`` or ``scope``
    attribute, and no row that holds a header cell holds a data cell. Then every
    header cell is a column header and no row scan finds one, and the column scan
    of :func:`_scan` gives a data cell the nearest run of header cells above it
    (header cells not parted by a data cell; the runs above it are opaque), nearest
    first, and a header cell the header cells above it in its own run.
    """
    if not table.plain:
        return None
    records = table.records
    header_rows: set[int] = set()
    data_rows: set[int] = set()
    columns: dict[int, list[int]] = {}
    for index, record in enumerate(records):
        (header_rows if record[6] else data_rows).add(record[3])
        column = columns.get(record[2])
        if column is None:
            columns[record[2]] = [index]
        else:
            column.append(index)
    if not header_rows.isdisjoint(data_rows):
        return None
    headers: list[list[int]] = [[]] * len(records)
    for column in columns.values():
        current: list[int] = []  # the run of header cells the walk down is in
        nearest: list[int] = current  # the last run of header cells seen
        for index in column:
            if records[index][6]:
                headers[index] = current[::-1]
                current.append(index)
                nearest = current
            else:
                headers[index] = nearest[::-1]
                current = []
    return headers


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


def _shape(table: _Table) -> tuple[object, ...]:
    """What the standard's scans read of a table without ``headers`` attributes: its
    size, column groups and cells (in order: the first of overlapping cells keeps the
    slot), so tables of one shape get the same header cells (as cell indexes)."""
    return (
        table.width,
        table.height,
        tuple(table.col_groups),
        tuple([record[2:] for record in table.records]),
    )


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
    # header cells (as cell indexes) by the shape of a table (:func:`_shape`)
    shapes: dict[tuple[object, ...], list[list[int]]] = {}
    # (a named tuple made as the tuple it is: its ``_make`` is a Python call per cell)
    new_place = tuple.__new__
    place_type = CellPlace
    for number, node in enumerate(tables):
        table = _Table(node)
        records = table.records
        if not table.headed:
            # (Without header cells and ``headers`` attributes no cell has headers.)
            for key, _, x, y, width, height, _, _, _ in records:
                places[key] = new_place(place_type, (number, y, x, height, width, False, ()))
            continue
        headers = _simple_headers(table)
        if headers is None:
            cells = table.cells
            if any(cell.listed is not None for cell in cells):
                if ids is None:
                    ids = _element_ids(root)
                _classify(table)
                _assign(table, ids)
                headers = [cell.headers for cell in cells]
            else:
                # The standard's scans read the grid alone: a table shaped as one
                # before (a page's navigation tables) takes its header cells.
                shape = _shape(table)
                headers = shapes.get(shape)
                if headers is None:
                    _classify(table)
                    _assign(table, {})
                    headers = shapes[shape] = [cell.headers for cell in cells]
        for (key, _, x, y, width, height, header, _, _), found in zip(
            records, headers, strict=True
        ):
            places[key] = new_place(
                place_type,
                (
                    number,
                    y,
                    x,
                    height,
                    width,
                    header,
                    tuple([records[index][0] for index in found]) if found else (),
                ),
            )
    return places
