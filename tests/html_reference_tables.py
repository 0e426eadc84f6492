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
from dataclasses import dataclass, field
from typing import Final

from selectolax.lexbor import LexborNode

from ragox.extract._model import ErrorCode, ExtractionError

__all__ = ["MAX_SLOTS", "CellPlace", "table_cells"]

#: Grid slots one table may have (a hostile ``colspan=1000 rowspan=65534`` is refused).
MAX_SLOTS: Final = 500_000
_ASCII_WS: Final = " \t\n\f\r"


@dataclass(frozen=True, slots=True)
class CellPlace:
    """A ``td``/``th`` element's place in its table (keys are ``LexborNode.mem_id``)."""

    table: int
    row: int
    col: int
    row_span: int
    col_span: int
    header: bool
    #: ``mem_id`` of the header cells that apply, in the standard's order
    header_keys: tuple[int, ...]


@dataclass(slots=True)
class _Cell:
    key: int
    node: LexborNode
    x: int
    y: int
    width: int
    height: int
    header: bool
    scope: str
    grows: bool = False
    group: int = -1
    column_header: bool = False
    row_header: bool = False
    headers: list[int] = field(default_factory=list)


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
        for y, row in enumerate(rows, start=group_start):
            x = 0
            for cell in _children(row):
                if cell.tag not in ("td", "th"):
                    continue
                while (x, y) in self.slots:
                    x += 1
                attributes = cell.attributes
                width = _number(attributes.get("colspan"), 1, 1, 1000)
                rowspan = _number(attributes.get("rowspan"), 1, 0, 65534)
                grows = rowspan == 0
                height = group_end - y if grows else min(rowspan, group_end - y)
                scope = (attributes.get("scope") or "").strip(_ASCII_WS).lower()
                entry = _Cell(
                    cell.mem_id, cell, x, y, width, height, cell.tag == "th", scope, grows, group
                )
                self._place(entry)
                x += width
        self.height = group_end
        self.row_groups.append((group_start, group_end))

    def _place(self, cell: _Cell) -> None:
        self._slot_count += cell.width * cell.height
        if self._slot_count > MAX_SLOTS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"a table has over {MAX_SLOTS} slots")
        index = len(self.cells)
        self.cells.append(cell)
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


@dataclass(frozen=True, slots=True)
class _Run:
    """Consecutive slots of one line (a column or a row) covered by one header cell,
    or by data cells: the scan reacts to a run once, whatever its length."""

    last: int  # the run's slot nearest the start of the line
    first: int  # its slot farthest from the start
    cell: int  # a header cell's index, or -1 for data cells


def _runs(table: _Table, along_column: bool) -> list[tuple[list[int], list[_Run]]]:
    """Per column (or per row), its runs from the start of the line outwards, with the
    runs' nearest slots for bisection."""
    lines: list[tuple[list[int], list[_Run]]] = []
    count = table.width if along_column else table.height
    length = table.height if along_column else table.width
    for line in range(count):
        runs: list[_Run] = []
        for position in range(length):
            slot = (line, position) if along_column else (position, line)
            index = table.slots.get(slot)
            if index is None:
                continue
            cell = table.cells[index]
            marker = index if cell.header else -1
            if runs and runs[-1].cell == marker and runs[-1].first == position - 1:
                runs[-1] = _Run(runs[-1].last, position, marker)
            else:
                runs.append(_Run(position, position, marker))
        lines.append(([r.last for r in runs], runs))
    return lines


def _scan(
    table: _Table,
    principal: int,
    line: tuple[list[int], list[_Run]],
    start: int,
    along_column: bool,
    found: list[int],
) -> None:
    """The standard's "internal algorithm for scanning and assigning header cells",
    from slot ``start`` (the principal's) towards the line's start."""
    cell = table.cells[principal]
    in_block = cell.header
    current_block: list[int] = [principal] if cell.header else []
    opaque: list[int] = []
    lasts, runs = line
    k = bisect_right(lasts, start - 1) - 1
    while k >= 0:
        run = runs[k]
        k -= 1
        if run.cell == principal:
            continue
        if run.cell < 0:
            if in_block:
                in_block = False
                opaque.extend(current_block)
                current_block = []
            continue
        header = table.cells[run.cell]
        in_block = True
        current_block.append(run.cell)
        if along_column:
            blocked = not header.column_header or any(
                table.cells[o].x == header.x and table.cells[o].width == header.width
                for o in opaque
            )
        else:
            blocked = not header.row_header or any(
                table.cells[o].y == header.y and table.cells[o].height == header.height
                for o in opaque
            )
        if not blocked:
            found.append(run.cell)


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
        listed = cell.node.attributes.get("headers")
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


def _column_group(table: _Table, x: int) -> int | None:
    for number, (start, end) in enumerate(table.col_groups):
        if start <= x < end:
            return number
    return None


def table_cells(root: LexborNode) -> dict[int, CellPlace]:
    """Every ``td``/``th`` of every table under ``root``, by the element's ``mem_id``;
    tables are numbered in document order."""
    tables = [node for node in root.traverse() if node.tag == "table"]
    if not tables:
        return {}
    ids: dict[str, LexborNode] = {}
    if any(node.attributes.get("headers") is not None for node in root.css("td, th")):
        for node in root.traverse():
            element_id = node.id
            if element_id and element_id not in ids:
                ids[element_id] = node
    places: dict[int, CellPlace] = {}
    for number, node in enumerate(tables):
        table = _Table(node)
        _classify(table)
        _assign(table, ids)
        for cell in table.cells:
            places[cell.key] = CellPlace(
                table=number,
                row=cell.y,
                col=cell.x,
                row_span=cell.height,
                col_span=cell.width,
                header=cell.header,
                header_keys=tuple(table.cells[h].key for h in cell.headers),
            )
    return places
