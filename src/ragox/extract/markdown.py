"""Markdown adapter: CommonMark (plus GFM tables) blocks as verbatim slices of the text.

The bytes are decoded strictly and normalized with the profile first; the
normalized text is then parsed with markdown-it-py for its block structure only
(inline parsing is switched off: inline markup stays as written). Every block's
text is one contiguous slice of the normalized text, so the representation maps
back to the decoded source exactly through two alignments: blocks → normalized
text (built here) composed with normalized text → source (the profile's).

Blocks:

* ATX headings: the text after the ``#`` marker, without a closing sequence;
  setext headings: their text lines, without the underline.
* Paragraphs, from the first content character to the last. A paragraph in a
  list item is a ``LIST_ITEM`` block without its marker, one in a block quote a
  ``QUOTE`` block without its first ``>``; continuation lines are kept verbatim
  (with their indentation or ``>`` markers), which keeps the block contiguous.
* Fenced and indented code: the content lines, whole and verbatim (indentation
  included), without the fences and without blank lines at either end.
* Table cells: each non-empty cell of a GFM table, trimmed, escapes kept, with its
  place in the table (row 0 is the header row; a body cell's header is the header
  cell of its column, when that one is not empty).
* HTML blocks: their lines verbatim; a block of comments alone gives none (no
  renderer shows it, and the HTML adapter drops comments too).

Thematic breaks and link reference definitions give no block. markdown-it
silently drops content nested deeper than its ``maxNesting``; such input is
refused with ``TOO_COMPLEX`` instead.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, MutableMapping
from functools import cache
from itertools import accumulate
from typing import Any, Final

import markdown_it
from markdown_it import MarkdownIt
from markdown_it.common.utils import MD_TRIM_CHARS
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_block.table import table as table_rule
from markdown_it.token import Token

from ragox.extract._model import (
    MAX_BLOCKS,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
    TableCell,
)
from ragox.extract._slices import refuse_many_cell_walls, verbatim_slices
from ragox.extract.plain import normalize_text_file
from ragox.text import Profile

__all__ = ["MARKDOWN_PARSER", "extract_markdown"]

#: where a comment ends, as HTML parses it: ``-->``, or ``--!>``
_COMMENT_END: Final = re.compile(r"--!?>")


def _comments_only(html: str) -> bool:
    """Whether an HTML block is comments alone (``<!-- note -->``, one or several lines;
    ``<?php … ?>``, ``<!DOCTYPE …>`` and ``<![CDATA[…]]>``, which HTML reads as comments
    ending at the first ">"), hidden from every reader of the rendered page, so that it
    gives no block. Comments
    end where HTML ends them: ``<!-->`` and ``<!--->`` are whole (empty) comments, and
    ``--!>`` ends one too, so ``<!--> shown -->`` is not a comment alone (what follows
    the empty comment is shown by a browser, and kept)."""
    at = 0
    while True:
        while at < len(html) and html[at].isspace():
            at += 1
        if at == len(html):
            return at > 0 or bool(html)
        if html.startswith(("<?", "<!"), at) and not html.startswith("<!--", at):
            # a processing instruction, a declaration or CDATA: HTML reads each as a
            # comment that ends at the first ">" (a DOCTYPE in the body is dropped too)
            close = html.find(">", at + 2)
            if close < 0:
                return False
            at = close + 1
            continue
        if not html.startswith("<!--", at):
            return False
        at += 4
        if html.startswith(">", at):
            at += 1
        elif html.startswith("->", at):
            at += 2
        else:
            end = _COMMENT_END.search(html, at)
            if end is None:
                return False  # an unclosed comment: HTML hides the rest; keep it, as written
            at = end.end()


#: markdown-it's own guard against deep nesting (its "default" preset's value).
_MAX_NESTING: Final = 100

MARKDOWN_PARSER: Final = ParserInfo(
    "markdown-it",
    f"2+markdown-it-py-{markdown_it.__version__}",
    {
        "syntax": "commonmark+gfm-tables",
        "inline": "verbatim",
        "blocks": "heading,paragraph,list-item,blockquote,code,table-cell,html-block",
        "code": "content-lines-verbatim;blank-edge-lines-dropped",
        "continuation-lines": "verbatim",
        "max-nesting": _MAX_NESTING,
        "locator": "lines",
        "separator": "blank-line",
        "tables": "row-0-header;column-headers",
        "html-comments": "comment-only-blocks-dropped",
    },
)

_Tokenize = Callable[[StateBlock, int, int], None]


class _Marks:
    """The line marks of a token's lines as its rule saw them: per line, where the line
    begins inside its containers, where its text begins (indentation skipped) and where
    it ends, in markdown-it's offsets (three list slices, copied at C speed)."""

    __slots__ = ("_begins", "_ends", "_first", "_shifts")

    def __init__(self, state: StateBlock, first: int, after: int) -> None:
        self._first = first
        self._begins = state.bMarks[first:after]
        self._shifts = state.tShift[first:after]
        self._ends = state.eMarks[first:after]

    def __getitem__(self, line: int) -> tuple[int, int, int]:
        at = line - self._first
        if at < 0:
            raise IndexError(line)
        begin = self._begins[at]
        return begin, begin + self._shifts[at], self._ends[at]


_LINE_BREAK: Final = re.compile(r"\r\n?|\n")
#: the key under which a wrapped block rule stores the line marks it used
_MARKS: Final = "ragox_marks"


#: The tokens whose line marks ``_blocks`` reads (and the inline token of a table cell).
_MARKED: Final = frozenset(
    {"paragraph_open", "heading_open", "fence", "code_block", "html_block", "tr_open"}
)
_CELL_OPEN: Final = frozenset({"th_open", "td_open"})


def _recording(tokenize: _Tokenize) -> _Tokenize:
    """Wrap markdown-it's block tokenizer so the leaf tokens of each call carry the line
    offsets their rules worked with.

    Inside block quotes and list items markdown-it moves each line's begin mark
    past the container markers while the nested call runs, then restores it; the
    marks as that call returns are the ones its rules saw (a container nested deeper
    has restored its own by then), which gives the content's exact position. A token
    keeps the marks of the innermost call that made it.
    """

    def recorded(state: StateBlock, start_line: int, end_line: int) -> None:
        first_token = len(state.tokens)
        tokenize(state, start_line, end_line)
        tokens = state.tokens
        for position in range(first_token, len(tokens)):
            token = tokens[position]
            if token.map is None or _MARKS in token.meta:
                continue
            if token.type not in _MARKED and not (
                token.type == "inline" and tokens[position - 1].type in _CELL_OPEN
            ):
                continue
            first, after = token.map
            token.meta[_MARKS] = _Marks(state, first, after) if after > first else None

    return recorded


#: the key in the parse's ``env`` that counts the blocks begun so far
_BEGUN: Final = "ragox_blocks_begun"


def _block_budget(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """The first block rule: counts each block begun (at every level of nesting) and
    refuses a document of more than :data:`MAX_BLOCKS` of them ``TOO_COMPLEX`` while it
    is parsed, before its tokens (a few per block) take gigabytes; it never matches."""
    if not silent:
        _spend(state, 1)
    return False


def _spend(state: StateBlock, blocks: int) -> None:
    """Count ``blocks`` more against the parse's budget; past it, ``TOO_COMPLEX``."""
    begun = state.env.get(_BEGUN, 0) + blocks
    if begun > MAX_BLOCKS:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} blocks")
    state.env[_BEGUN] = begun


def _counted_table(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's table rule, its rows counted against the budget: it takes every
    row of a table in one call (600,000 rows without a pipe took 2.2 GB), so it reads
    no further than the rows the budget has left."""
    if silent:
        return table_rule(state, start_line, end_line, silent)
    left = MAX_BLOCKS - state.env.get(_BEGUN, 0)
    found = table_rule(state, start_line, min(end_line, start_line + left + 2), silent)
    if found:
        _spend(state, state.line - start_line)
    return found


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": _MAX_NESTING}).enable("table")
    # Block structure only: inline markup stays verbatim in the representation.
    md.disable(["inline", "text_join"])
    # before every other rule ("table" is the first of CommonMark's with tables on)
    md.block.ruler.at("table", _counted_table, {"alt": ["paragraph", "reference"]})
    md.block.ruler.before("table", "ragox_budget", _block_budget)
    # This parser's own block tokenizer (an instance attribute; markdown-it's nested
    # calls go through ``state.md.block.tokenize``, so through it too).
    md.block.tokenize = _recording(md.block.tokenize)  # type: ignore[method-assign,assignment]
    return md


class _Lines:
    """Line starts and ends in the normalized text, and in markdown-it's copy of it."""

    starts: list[int]
    ends: list[int]
    md_starts: list[int]

    def __init__(self, text: str, parsed_from: int) -> None:
        if "\r" not in text:
            # Every break is one LF, as markdown-it sees it: the offsets differ by
            # ``parsed_from`` only (the same lists as the general walk below).
            lengths = [len(line) for line in text[parsed_from:].split("\n")]
            self.starts = list(accumulate((n + 1 for n in lengths[:-1]), initial=parsed_from))
            self.ends = [start + n for start, n in zip(self.starts, lengths, strict=True)]
            self.md_starts = [start - parsed_from for start in self.starts]
            return
        self.starts = [parsed_from]
        self.ends = []
        for found in _LINE_BREAK.finditer(text):
            self.ends.append(found.start())
            self.starts.append(found.end())
        self.ends.append(len(text))
        # markdown-it sees the text after ``parsed_from`` with every line break
        # as one "\n"; its offsets differ from ours by a per-line shift.
        self.md_starts = []
        position = 0
        for start, end in zip(self.starts, self.ends, strict=True):
            self.md_starts.append(position)
            position += end - start + 1

    def to_text(self, line: int, md_offset: int) -> int:
        return self.starts[line] + (md_offset - self.md_starts[line])

    def line_of(self, position: int) -> int:
        """1-based number of the line holding ``position``."""
        return bisect_right(self.starts, position)


def extract_markdown(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Markdown blocks as verbatim slices of the profile-normalized text."""
    options = options or ExtractOptions()
    normalized = normalize_text_file(data, profile)
    text = normalized.text

    refuse_many_cell_walls(text)
    parsed_from = 1 if text.startswith("\ufeff") else 0
    lines = _Lines(text, parsed_from)
    env: MutableMapping[str, Any] = {}
    try:
        source = text[parsed_from:]
        if "\r" in source:
            source = _LINE_BREAK.sub("\n", source)
        tokens = _parser().parse(source, env)
    except RecursionError:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, "Markdown nesting too deep") from None
    cells: dict[int, TableCell] = {}
    found = _blocks(tokens, text, lines, min(options.max_depth, _MAX_NESTING), cells)
    return verbatim_slices(
        found, normalized, lines.line_of, MARKDOWN_PARSER, "text/markdown", cells
    )


_CONTAINERS: Final = {
    "blockquote_open": BlockKind.QUOTE,
    "list_item_open": BlockKind.LIST_ITEM,
}


def _blocks(
    tokens: list[Token],
    text: str,
    lines: _Lines,
    max_nesting: int,
    cells: dict[int, TableCell],
) -> list[tuple[BlockKind, int, int]]:
    """``(kind, start, end)`` of every block, in the normalized text, in order; the
    table cells' places go into ``cells`` by block index."""
    found: list[tuple[BlockKind, int, int]] = []
    containers: list[BlockKind] = []
    row_cell = 0
    table = -1
    row = -1
    #: the block id of each column's header cell in the current table
    column_headers: dict[int, str] = {}
    split_rows: dict[int, list[tuple[int, int]]] = {}
    for position, token in enumerate(tokens):
        kind = token.type
        if kind in _CONTAINERS:
            # markdown-it skips, without a trace, what lies deeper than maxNesting.
            if token.level + 1 >= max_nesting:
                raise ExtractionError(
                    ErrorCode.TOO_COMPLEX, f"Markdown nesting deeper than {max_nesting}"
                )
            containers.append(_CONTAINERS[kind])
            continue
        if kind in ("blockquote_close", "list_item_close"):
            containers.pop()
            continue
        if kind == "table_open":
            table += 1
            row = -1
            column_headers = {}
            continue
        # Cell tokens carry no line map; the inline token after them does.
        located = tokens[position + 1] if kind in ("th_open", "td_open") else token
        marks: _Marks | None = located.meta.get(_MARKS)
        if located.map is None or marks is None:
            continue
        first, after = located.map
        span: tuple[int, int] | None = None
        block_kind = containers[-1] if containers else BlockKind.PARAGRAPH
        if kind == "paragraph_open":
            span = _content(text, lines, marks, first, after - 1)
        elif kind == "heading_open":
            block_kind = BlockKind.HEADING
            if token.markup.startswith("#"):
                span = _atx_heading(text, lines, marks, first, tokens[position + 1].content)
            else:  # setext: the last line is the underline
                span = _content(text, lines, marks, first, after - 2)
        elif kind in ("fence", "code_block"):
            block_kind = BlockKind.CODE
            span = _code(text, lines, marks, token)
        elif kind == "html_block":
            if _comments_only(token.content):
                continue  # a comment is not shown by any renderer (nor by the HTML adapter)
            span = _content(text, lines, marks, first, after - 1)
        elif kind == "tr_open":
            row_cell = 0
            row += 1
            continue
        elif kind in ("th_open", "td_open"):
            block_kind = BlockKind.TABLE_CELL
            span = _cell(text, lines, marks, first, row_cell, located.content, split_rows)
            if span is not None and text[span[0] : span[1]].strip():
                header = kind == "th_open"
                if header:
                    column_headers[row_cell] = f"b{len(found)}"
                cells[len(found)] = TableCell(
                    table=table,
                    row=row,
                    col=row_cell,
                    header=header,
                    header_ids=()
                    if header or row_cell not in column_headers
                    else (column_headers[row_cell],),
                )
            row_cell += 1
        if span is not None and text[span[0] : span[1]].strip():
            found.append((block_kind, *span))
    return found


def _content(
    text: str, lines: _Lines, marks: _Marks, first: int, last: int
) -> tuple[int, int] | None:
    """From the first content character of line ``first`` to the last one of ``last``."""
    if last < first:
        return None
    start = lines.to_text(first, marks[first][1])
    end = lines.to_text(last, marks[last][2])
    while start < end and text[start] in MD_TRIM_CHARS:
        start += 1
    while end > start and text[end - 1] in MD_TRIM_CHARS:
        end -= 1
    return (start, end) if start < end else None


def _atx_heading(
    text: str, lines: _Lines, marks: _Marks, line: int, content: str
) -> tuple[int, int] | None:
    if not content:
        return None
    begin, end = (lines.to_text(line, offset) for offset in marks[line][1:])
    after_marker = begin
    while after_marker < end and text[after_marker] == "#":
        after_marker += 1
    start = text.find(content, after_marker, end)
    if start < 0:
        raise ExtractionError(ErrorCode.INTERNAL, f"heading text not found on line {line + 1}")
    return start, start + len(content)


def _code(text: str, lines: _Lines, marks: _Marks, token: Token) -> tuple[int, int] | None:
    """The content lines of a code block, whole, without fences."""
    assert token.map is not None
    first, after = token.map
    last = after - 1
    if token.type == "fence":
        first += 1
        if last >= first and _closes_fence(text, lines, marks, last, token.markup):
            last -= 1
    # Blank lines at either end of the content carry no text.
    while first <= last and marks[first][1] >= marks[first][2]:
        first += 1
    while last >= first and marks[last][1] >= marks[last][2]:
        last -= 1
    if last < first:
        return None
    return lines.to_text(first, marks[first][0]), lines.to_text(last, marks[last][2])


def _closes_fence(text: str, lines: _Lines, marks: _Marks, line: int, markup: str) -> bool:
    begin, end = (lines.to_text(line, offset) for offset in marks[line][1:])
    candidate = text[begin:end].rstrip(" \t")
    return (
        len(candidate) >= len(markup)
        and candidate.startswith(markup)
        and candidate.strip(markup[0]) == ""
    )


def _cell(
    text: str,
    lines: _Lines,
    marks: _Marks,
    line: int,
    index: int,
    content: str,
    split_rows: dict[int, list[tuple[int, int]]],
) -> tuple[int, int] | None:
    """Cell ``index`` of a table row, split exactly as markdown-it's table rule splits it
    (``split_rows``: the rows split so far, by line)."""
    columns = split_rows.get(line)
    if columns is None:  # each row is split once, not once per cell
        begin, end = (lines.to_text(line, offset) for offset in marks[line][1:])
        while begin < end and text[begin] in MD_TRIM_CHARS:
            begin += 1
        while end > begin and text[end - 1] in MD_TRIM_CHARS:
            end -= 1
        columns = _split_row(text, begin, end)
        if columns and columns[0][0] == columns[0][1]:
            columns.pop(0)
        if columns and columns[-1][0] == columns[-1][1]:
            columns.pop()
        split_rows[line] = columns
    if index >= len(columns):
        return None  # a cell markdown-it added to fill the row
    start, stop = columns[index]
    while start < stop and text[start] in MD_TRIM_CHARS:
        start += 1
    while stop > start and text[stop - 1] in MD_TRIM_CHARS:
        stop -= 1
    if text[start:stop].replace("\\|", "|") != content:
        raise ExtractionError(ErrorCode.INTERNAL, f"table cell not found on line {line + 1}")
    return start, stop


def _split_row(text: str, begin: int, end: int) -> list[tuple[int, int]]:
    """Column ranges between unescaped pipes (markdown-it's ``escapedSplit``)."""
    columns: list[tuple[int, int]] = []
    column_start = begin
    escaped = False
    for position in range(begin, end):
        char = text[position]
        if char == "|" and not escaped:
            columns.append((column_start, position))
            column_start = position + 1
        escaped = char == "\\"
    columns.append((column_start, end))
    return columns
