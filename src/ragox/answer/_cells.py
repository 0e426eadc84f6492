"""Answers from table cells: a question that names a row (its key, an identifier
such as ``P-48``) and a column (words of its header, "torque") is answered by
quoting that one cell (issue 12: the anchor is the cell's text only; its headers are
context, shown in the claim's wording, never quoted).

Sentence scoring cannot do this: a cell is no sentence, "P-48" falls apart into
"p" and "48", and a general verb of the question ("need") that no cell says makes it
abstain. Here a row matches when one of its cells (or its row header) is, as a
whole, a key the question names: an identifier-like token (``P-48``, ``ISO-9001``,
``eth0``, ``v2.3``) compared whole, or a cell text the question contains as whole
words; a column matches by the stems its header shares with the question. Only the
one best column of each matched row is quoted (ties: each), and nothing when no
header shares a word, so that a row named without a column asked for leaves the
question to the sentence path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import regex

from ragox.answer._model import Claim, Evidence
from ragox.extract import Block
from ragox.search import SUPPORTED_LANGUAGES, analyze_query, detect_language, is_stopword

__all__ = [
    "EvidenceCell",
    "TableCells",
    "answer_from_cells",
    "cells_from_blocks",
    "identifiers",
]

#: an identifier-like token: letters and digits joined by ``-``/``_``/``.``/``/``
#: (``P-48``, ``ISO-9001``, ``v2.3``) or run together (``eth0``), with at least one
#: digit and one letter
_IDENTIFIER: Final = regex.compile(
    r"(?<![\p{L}\p{N}])(?=[\p{L}\p{N}._/-]*\p{N})(?=[\p{L}\p{N}._/-]*\p{L})"
    r"[\p{L}\p{N}]+(?:[-_./][\p{L}\p{N}]+)*(?![\p{L}\p{N}])"
)
_SPACE: Final = regex.compile(r"\s+")
#: a path the question names ("/etc/group", "~/.ssh/config", "./configure"): a name as
#: a whole, whose words ("group") ask for no column
_PATH: Final = regex.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.+-]+(?:/[\w.+-]*)*")
#: most cells one answer quotes
MAX_CELLS: Final = 3


@dataclass(frozen=True, slots=True)
class EvidenceCell:
    """A table cell of a representation, with the text of the headers that apply."""

    start: int  # representation code points
    end: int
    text: str
    table: int
    row: int
    col: int
    #: the cell is itself a header cell
    header: bool
    #: header cells of its row (a row's ``th``), texts in the standard's order
    row_headers: tuple[str, ...]
    #: header cells above it (its column's, and column groups'), texts in order
    col_headers: tuple[str, ...]


#: ``cells(manifest_id, start, end) -> the table cells of that representation that
#: overlap [start, end)``
TableCells = Callable[[str, int, int], Sequence[EvidenceCell]]


def identifiers(text: str) -> list[str]:
    """The identifier-like tokens of ``text``, case-folded, each kept whole."""
    return [match.group().casefold() for match in _IDENTIFIER.finditer(text)]


def _folded(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def _names(cell_text: str, question: str, ids: set[str]) -> bool:
    """Whether the question (``question``: :func:`_folded`) names this cell's text as a
    whole (a row key)."""
    folded = _folded(cell_text)
    if not folded:
        return False
    if folded in ids:
        return True
    if folded not in question:
        return False  # the question does not hold it at all (most cells of most rows)
    cell_ids = identifiers(folded)
    if cell_ids and len(cell_ids) == 1 and cell_ids[0] == folded:
        return False  # an identifier cell is named only by that very identifier
    words = [w for w in regex.findall(r"\w+", folded) if not is_stopword(w)]
    if not words or all(w.isdigit() for w in words):
        return False  # a bare number or function word is no key
    # as whole words, not a piece of a path ("shadow" is not named by "/etc/shadow")
    pattern = r"(?<![\p{L}\p{N}/])" + regex.escape(folded) + r"(?![\p{L}\p{N}]|/\w)"
    return regex.search(pattern, question) is not None


def answer_from_cells(
    question: str, evidence: Sequence[Evidence], cells_of: TableCells
) -> tuple[Claim, ...]:
    """Claims quoting the cells of the evidence that answer a question naming a row
    and a column; empty when the evidence holds no such cell."""
    ids = set(identifiers(question))
    language = detect_language(question) or "en"
    languages = [language] if language in SUPPORTED_LANGUAGES else ["en"]
    # a path's words ask for no column, unless the question says them outside its
    # paths too ("Which group owns /etc/group?")
    outside = set(analyze_query(_PATH.sub(" ", question), languages))
    in_paths = {
        term
        for match in _PATH.finditer(question)
        for term in analyze_query(match.group(), languages)
    }
    asked = (set(analyze_query(question, languages)) - (in_paths - outside)) - {
        term for i in ids for term in analyze_query(i, languages)
    }
    if not asked:
        return ()
    claims: list[Claim] = []
    seen: set[tuple[str, int, int, int]] = set()
    folded = _folded(question)
    for item in evidence:
        inside = [
            c
            for c in cells_of(item.manifest_id, item.start, item.end)
            if item.start <= c.start and c.end <= item.end
        ]
        rows: dict[tuple[int, int], list[EvidenceCell]] = {}
        for cell in inside:
            rows.setdefault((cell.table, cell.row), []).append(cell)
        for row in rows.values():
            # the row's key: a cell the question names, else a row header it names
            named = [c for c in row if _names(c.text, folded, ids)]
            headers = [h for c in row for h in c.row_headers if _names(h, folded, ids)]
            if not named and not headers:
                continue
            key = named[0].text if named else headers[0]
            candidates = [
                (cell, set(analyze_query(" ".join(cell.col_headers), languages)))
                for cell in row
                if not cell.header and cell not in named and cell.text.strip()
            ]
            # a header over every column (a row group's "Surface pumps") tells none apart
            common = set.intersection(*(t for _, t in candidates)) if len(candidates) > 1 else set()
            scored: list[tuple[int, EvidenceCell]] = []
            for cell, header_terms in candidates:
                shared = len(asked & (header_terms - common))
                if shared:
                    scored.append((shared, cell))
            if not scored:
                continue
            best = max(shared for shared, _ in scored)
            for shared, cell in scored:
                place = (item.manifest_id, cell.table, cell.row, cell.col)
                if shared < best or place in seen or len(claims) >= MAX_CELLS:
                    continue
                seen.add(place)
                claims.append(_claim(item, cell, key))
    return tuple(claims)


def cells_from_blocks(text: str, blocks: Sequence[Block]) -> list[EvidenceCell]:
    """The table cells of a representation (its text and blocks) with their headers'
    texts: a header cell in the cell's own row is a row header, any other (above it,
    a column group's, a row group's) a column header."""
    by_id = {b.block_id: b for b in blocks}
    cells: list[EvidenceCell] = []
    for block in blocks:
        cell = block.cell
        if cell is None:
            continue
        row_headers: list[str] = []
        col_headers: list[str] = []
        for header_id in cell.header_ids:
            header = by_id.get(header_id)
            if header is None or header.cell is None:
                continue
            header_text = text[header.span.start : header.span.end]
            spans_row = header.cell.row <= cell.row < header.cell.row + header.cell.row_span
            (row_headers if spans_row else col_headers).append(header_text)
        cells.append(
            EvidenceCell(
                block.span.start,
                block.span.end,
                text[block.span.start : block.span.end],
                cell.table,
                cell.row,
                cell.col,
                cell.header,
                tuple(row_headers),
                tuple(col_headers),
            )
        )
    return cells


def _claim(item: Evidence, cell: EvidenceCell, key: str) -> Claim:
    """The cell's text is the quote; the claim says which row and column it is."""
    column = " / ".join(_SPACE.sub(" ", h).strip() for h in cell.col_headers if h.strip())
    row = _SPACE.sub(" ", key).strip()
    value = _SPACE.sub(" ", cell.text).strip()
    return Claim(
        text=f"{column} ({row}): {value}" if column else f"{row}: {value}",
        source_id=item.source_id,
        quote=cell.text,
        quote_start=cell.start - item.start,
    )
