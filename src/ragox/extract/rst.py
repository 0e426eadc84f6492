"""reStructuredText adapter: docutils' block structure over verbatim slices of the text.

The bytes are decoded strictly and normalized with the profile first, exactly as
for Markdown; docutils then parses the normalized text, and only tells which lines
hold which kind of block. Every block's text is one contiguous slice of the
normalized text (inline markup stays as written), so the representation maps back
to the decoded source through the same two alignments as Markdown's.

Blocks:

* section titles (and subtitles, rubrics, definition-list terms): their text line(s),
  without over- and underlines;
* paragraphs, from the first content character (list markers and indentation
  skipped) to the end of their last line; a paragraph inside a list item is a
  ``LIST_ITEM`` block, inside a block quote a ``QUOTE`` block;
* literal blocks (``::``, ``code-block``, doctest blocks): their lines, whole and
  verbatim, indentation included;
* table cells: the cell's text on its row line where docutils' text of the cell
  occurs there exactly once, else the whole row line.

Comments and what docutils could not parse (unknown directives, reported as system
messages) give no block. Document text is data: file inclusion and raw passthrough
are switched off, so ``.. include:: /etc/passwd`` reads nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final

import docutils
import docutils.frontend
import docutils.parsers.rst
import docutils.utils
from docutils import nodes

from ragox.extract._htmltables import MAX_SLOTS
from ragox.extract._model import (
    MAX_BLOCKS,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.extract._slices import refuse_many_cell_walls, verbatim_slices
from ragox.extract.plain import normalize_text_file
from ragox.text import Profile

__all__ = ["RST_PARSER", "extract_rst"]

RST_PARSER: Final = ParserInfo(
    "rst-docutils",
    f"3+docutils-{docutils.__version__}",
    {
        "blocks": "title,paragraph,list-item,blockquote,literal,table-cell,term",
        "inline": "verbatim",
        "include": "disabled",
        "raw": "disabled",
        "comments": "dropped",
        "system-messages": "dropped",
        "locator": "lines",
        "separator": "blank-line",
        # a code block's first line is where all of its lines match, not only its
        # first word (version 2 put "int a = 1; int b = 2; int c = 3;" at its last
        # line, losing the others)
        "code-lines": "whole-block-matched",
    },
)

_LINE_BREAK: Final = re.compile(r"\r\n?|\n")
#: a bullet or enumerator at the start of a list item's first line
_LIST_MARKER: Final = re.compile(
    r"[ \t]*(?:[-*+\u2022\u2023\u2043]|\(?(?:\d+|[a-zA-Z]|[ivxlcdmIVXLCDM]+|#)[.)])[ \t]+"
)
_TEXT_NODES: Final = (
    nodes.title,
    nodes.subtitle,
    nodes.rubric,
    nodes.term,
    nodes.paragraph,
    nodes.literal_block,
    nodes.doctest_block,
    nodes.line,
)
_WORD: Final = re.compile(r"\w+")
_CODE: Final = (nodes.literal_block, nodes.doctest_block)
#: what holds no document text of its own: comments, raw passthrough, and the
#: source of what docutils could not parse (unknown directives and roles)
_DROPPED: Final = (nodes.system_message, nodes.comment, nodes.raw)
_HEADINGS: Final = (nodes.title, nodes.subtitle, nodes.rubric, nodes.term)


#: the longest line docutils reads (any a file within the upload limit can hold)
_MAX_LINE: Final = 1 << 31


def _settings() -> docutils.frontend.Values:
    settings = docutils.frontend.get_default_settings(docutils.parsers.rst.Parser)
    settings.report_level = 5  # nothing on stderr
    settings.halt_level = 5  # never raise for a malformed document
    settings.warning_stream = False
    settings.file_insertion_enabled = False  # no `include`, `csv-table :file:`
    settings.raw_enabled = False  # no `raw` passthrough
    settings.input_encoding = "unicode"
    # docutils replaces the whole document by one error when a line is longer than its
    # limit (10,000 characters): a long line anywhere (a comment's, a table's) made a
    # file of many paragraphs "no text blocks"; the file's size is bounded at upload
    settings.line_length_limit = _MAX_LINE
    # code is kept as its lines: Pygments' tokens (a node each) are never read, and a
    # megabyte of C in one `code-block` took 1.2 GB in them (five: over 5 GB)
    settings.syntax_highlight = "none"
    return settings


class _Lines:
    """Line starts and ends in the normalized text."""

    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.ends: list[int] = []
        for found in _LINE_BREAK.finditer(text):
            self.ends.append(found.start())
            self.starts.append(found.end())
        self.ends.append(len(text))

    def __len__(self) -> int:
        return len(self.starts)

    def line_of(self, position: int) -> int:
        """1-based number of the line holding ``position``."""
        return bisect_right(self.starts, position)


#: the longest text docutils is given, in code points: its node tree takes about 20
#: times the text in memory, and a list nested under the indentation bound costs 3.5 s
#: and 60 MB a megabyte (a 64 MiB upload: four minutes and 4 GB); a larger text is
#: ``TOO_LARGE`` before it is parsed
MAX_RST_CHARS: Final = 16 * 1024 * 1024

#: explicit markup blocks (".. " lines: targets, directives, comments) a file may have:
#: docutils parses each with a state machine of its own, and time grows faster than
#: their number (8,000 targets: 6 s, 32,000: 32 s; a 9 MB file of them: 18 minutes)
MAX_EXPLICIT_MARKUP: Final = 10_000
_EXPLICIT_MARKUP: Final = re.compile(r"^[ \t]*\.\.(?:[ \t]|$)", re.MULTILINE)


#: the deepest indentation a line may have, in columns (a tab to the next multiple of
#: 8): docutils copies a nested block's lines at every level (a 9 MB list 3,000 deep
#: took 2.8 GB before its recursion failed; 90 levels of quote over 12 MB, 2.3 GB)
MAX_INDENT: Final = 100
_DEEP_INDENT: Final = re.compile(rf"^[ \t]{{{MAX_INDENT // 8 + 1},}}\S", re.MULTILINE)


#: a simple table's border: two or more runs of "=" (one run is a title's adornment)
_SIMPLE_BORDER: Final = re.compile(r"^[ \t]*=+(?:[ \t]+=+)+[ \t]*$", re.MULTILINE)


def _simple_table_cells(text: str) -> int:
    """At most how many cells the simple tables hold: every line between two border
    lines of the same columns counted as a row of that many cells (a table's top,
    header and bottom borders are one line drawn again)."""
    cells = 0
    previous: tuple[int, int] | None = None  # the last border's end and its columns
    for border in _SIMPLE_BORDER.finditer(text):
        columns = len(border.group().split())
        if previous is not None and previous[1] == columns:
            cells += columns * text.count("\n", previous[0], border.start())
        previous = (border.end(), columns)
    return cells


#: a line that opens a list item, an option, a field or a line block whatever stands
#: before it
_ITEM_LINE: Final = re.compile(
    r"^[ \t]*(?:[-*+\u2022\u2023\u2043][ \t]|--?\w|/\w"
    r"|\(?(?:\d+|[A-Za-z]|[ivxlcdmIVXLCDM]+|#)[.)][ \t]|:[^:\n]+:(?:[ \t]|$)|\|[ \t])",
    re.MULTILINE,
)
#: what docutils makes an inline node of: runs of emphasis, literal and interpreted
#: text marks, a substitution's opening bar, a reference's closing underscore, a
#: standalone address ("http://…") and an e-mail address
_INLINE_MARKS: Final = re.compile(r"[*`]+|\|(?=[^\s|])|\w_(?!\w)|://|\w@\w")


def _element_lines(text: str) -> int:
    """At most how many body elements the text makes: lines after a blank line, lines
    indented otherwise than the line before them (a definition, a quote), and lines
    that open an item, a field or a line block."""
    count = len(_ITEM_LINE.findall(text))
    blank = True
    indent = -1
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if not stripped:
            blank = True
            continue
        own = len(line) - len(stripped)
        count += blank or own != indent
        blank = False
        indent = own
    return count


def _refuse_costly(text: str) -> None:
    """Refuse, before docutils parses it, a text whose parse would take minutes or
    gigabytes: more table cells than HTML's slots of one table (grid tables' walls "|",
    simple tables' rows times columns; a simple table of a million cells took 80 s and
    2.6 GB), more blocks than :data:`MAX_BLOCKS` or twice as many runs of inline
    markup characters, more explicit markup blocks than :data:`MAX_EXPLICIT_MARKUP`,
    or a line indented deeper than :data:`MAX_INDENT` columns."""
    for deep in _DEEP_INDENT.finditer(text):
        if len(deep.group().expandtabs(8)) - 1 > MAX_INDENT:
            raise ExtractionError(
                ErrorCode.TOO_COMPLEX, f"a line indented deeper than {MAX_INDENT} columns"
            )
    refuse_many_cell_walls(text)
    if _simple_table_cells(text) > MAX_SLOTS:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_SLOTS} table cells")
    # docutils builds a few objects of a kilobyte or two for each element and each
    # piece of inline markup: a 3 MB field list took 2.3 GB, a paragraph of 640,000
    # emphases 1.2 GB
    if _element_lines(text) > MAX_BLOCKS:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} blocks")
    if len(_INLINE_MARKS.findall(text)) > 2 * MAX_BLOCKS:
        raise ExtractionError(
            ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} pieces of inline markup"
        )
    for markup, _ in enumerate(_EXPLICIT_MARKUP.finditer(text), start=1):
        if markup > MAX_EXPLICIT_MARKUP:
            raise ExtractionError(
                ErrorCode.TOO_COMPLEX,
                f"more than {MAX_EXPLICIT_MARKUP} explicit markup blocks ('.. ')",
            )


def extract_rst(data: bytes, profile: Profile, options: ExtractOptions | None = None) -> Extraction:
    """reStructuredText blocks as verbatim slices of the profile-normalized text."""
    normalized = normalize_text_file(data, profile)
    text = normalized.text
    if len(text) > MAX_RST_CHARS:
        raise ExtractionError(
            ErrorCode.TOO_LARGE,
            f"reStructuredText over {MAX_RST_CHARS // (1024 * 1024)} Mi characters is not parsed",
        )
    _refuse_costly(text)
    lines = _Lines(text)
    document = docutils.utils.new_document("<ragox>", _settings())
    try:
        docutils.parsers.rst.Parser().parse(_LINE_BREAK.sub("\n", text), document)
    except RecursionError:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, "reStructuredText nesting too deep") from None
    except Exception as error:  # docutils raises its own errors for hostile input
        raise ExtractionError(
            ErrorCode.TOO_COMPLEX, f"reStructuredText not parsed ({type(error).__name__})"
        ) from None
    found = _blocks(document, text, lines)
    return verbatim_slices(found, normalized, lines.line_of, RST_PARSER, "text/x-rst")


def _blocks(document: nodes.document, text: str, lines: _Lines) -> list[tuple[BlockKind, int, int]]:
    """``(kind, start, end)`` of every block in the normalized text, in order, without
    overlaps (a node docutils places inside another's lines is dropped)."""
    candidates: list[tuple[BlockKind, int, int]] = []
    for node in document.findall(nodes.Element):
        if not isinstance(node, _TEXT_NODES) or _inside(node, _DROPPED):
            continue
        if isinstance(node, nodes.paragraph) and _inside(node, (nodes.entry,)):
            span = _cell(node, text, lines)
            kind = BlockKind.TABLE_CELL
        else:
            span = _span(node, text, lines)
            kind = _kind(node)
        if span is not None and text[span[0] : span[1]].strip():
            candidates.append((kind, *span))
    candidates.sort(key=lambda item: (item[1], -item[2]))
    found: list[tuple[BlockKind, int, int]] = []
    for kind, start, end in candidates:
        if found and start < found[-1][2]:
            continue
        found.append((kind, start, end))
    return found


def _inside(node: nodes.Node, kinds: tuple[type[nodes.Node], ...]) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent
    return False


def _kind(node: nodes.Element) -> BlockKind:
    if isinstance(node, _CODE):
        return BlockKind.CODE
    if isinstance(node, _HEADINGS):
        return BlockKind.HEADING
    if _inside(node, (nodes.list_item,)):
        return BlockKind.LIST_ITEM
    if _inside(node, (nodes.block_quote,)):
        return BlockKind.QUOTE
    return BlockKind.PARAGRAPH


def _first_line(node: nodes.Element, text: str, lines: _Lines) -> int | None:
    """0-based first source line of a node.

    docutils' line numbers are not uniform: a title gets its underline's line, a
    paragraph its own first line, a ``code-block`` the line after its content. The
    line given is a guess, confirmed by finding the node's first word on it, else on
    the lines just before it (the node's own length, and a little more) or after it.
    """
    line: int | None = node.line
    if line is None:
        return None
    body = _source(node)
    first_word = _WORD.search(body)
    if first_word is None:
        return None
    word = first_word.group()
    count = body.rstrip("\n").count("\n") + 1
    guess = line - 1
    candidates: list[int] = [guess, *range(guess - 1, guess - count - 3, -1), guess + 1]
    if isinstance(node, _CODE):
        # code repeats its first word from line to line ("int a = 1;", "int b = 2;"):
        # its first line is where every one of its lines matches
        code = [piece.strip() for piece in body.rstrip("\n").split("\n")]
        for candidate in candidates:
            if (
                candidate >= 0
                and candidate + len(code) <= len(lines)
                and all(
                    text[lines.starts[candidate + i] : lines.ends[candidate + i]].strip() == piece
                    for i, piece in enumerate(code)
                )
            ):
                return candidate
    for candidate in candidates:
        within = 0 <= candidate < len(lines)
        if within and word in text[lines.starts[candidate] : lines.ends[candidate]]:
            return candidate
    return None


def _span(node: nodes.Element, text: str, lines: _Lines) -> tuple[int, int] | None:
    first = _first_line(node, text, lines)
    if first is None:
        return None
    count = _source(node).rstrip("\n").count("\n") + 1
    last = min(first + count - 1, len(lines) - 1)
    start, end = lines.starts[first], lines.ends[last]
    if isinstance(node, _CODE):
        return start, end  # whole lines, indentation included
    if _is_first_in_item(node):
        marker = _LIST_MARKER.match(text, start, end)
        if marker is not None:
            start = marker.end()
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t":
        end -= 1
    return (start, end) if start < end else None


def _source(node: nodes.Element) -> str:
    """The node's text as the source writes it, where docutils keeps it (a paragraph's
    lines with their markup), else as docutils renders it. The rendered text can have
    fewer lines: an embedded link whose target is on the next line renders as its text
    alone ("`link\\n<https://…>`_ to track" as "link to track"), and counting those lost
    the paragraph's last lines."""
    raw = node.rawsource
    return raw if isinstance(raw, str) and raw.strip() else node.astext()


def _is_first_in_item(node: nodes.Element) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.list_item) and parent.index(node) == 0


def _cell(node: nodes.Element, text: str, lines: _Lines) -> tuple[int, int] | None:
    """A table cell's text where it occurs once on its row line, else the row line."""
    first = _first_line(node, text, lines)
    if first is None:
        return None
    start, end = lines.starts[first], lines.ends[first]
    content = node.astext().split("\n", 1)[0].strip()
    row = text[start:end]
    if content and row.count(content) == 1:
        at = start + row.index(content)
        return at, at + len(content)
    return start, end
