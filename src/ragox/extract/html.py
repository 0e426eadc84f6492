"""HTML adapter: the visible text of a real HTML5 parse, one block per block-level box.

The bytes are decoded strictly as UTF-8 and parsed with Lexbor (through
selectolax), which follows the HTML Standard's tree construction, so character
references, implied end tags and misnested markup come out as a browser builds
them. The tree is then walked iteratively (no recursion, so nesting depth is
bounded by ``ExtractOptions.max_depth`` and not by Python's stack):

* Elements a browser never renders as text are skipped with their subtrees:
  ``script``, ``style``, ``template``, ``noscript``, ``head``, ``svg`` and a few
  more (see ``_DROPPED``), elements with the ``hidden`` attribute, ``<input
  type=hidden>``, and elements whose inline style says ``display: none``.
  ``visibility: hidden`` hides the text of a subtree until a descendant says
  ``visibility: visible`` again, as CSS inherits it.
* Block-level elements (the HTML Standard's user-agent style sheet, §15.3,
  overridable by an inline ``display``) open a block; inline elements are
  transparent, so ``<b>Wo</b>rd`` stays one word. Text directly inside a
  container, outside its child blocks, forms anonymous blocks in reading order.
* White space follows CSS ``white-space: normal`` (runs of ASCII white space
  collapse to one space and are trimmed at block edges and around ``<br>``;
  U+00A0 is not white space); inside ``pre`` (and ``listing``, ``xmp``,
  ``plaintext``, ``textarea``) the text is kept verbatim. ``<br>`` is ``"\\n"``.

Each block's text is normalized with the profile; the representation is the
block texts joined with :data:`BLOCK_SEPARATOR`.

Lexbor's tree builder walks the stack of open elements for every block-level
start tag, so a document nested a hundred thousand levels deep costs it minutes.
A cheap scan of the markup estimates the nesting before parsing and refuses such
input with ``TOO_COMPLEX`` up front; the walk of the parsed tree then enforces
``max_depth`` exactly.
"""

from __future__ import annotations

import gc
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields
from typing import Final

import selectolax
from selectolax.lexbor import LexborHTMLParser, LexborNode

from ragox.extract._htmltables import MAX_SLOTS, CellPlace, table_cells
from ragox.extract._model import (
    BLOCK_SEPARATOR,
    MAX_BLOCKS,
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
    TableCell,
)
from ragox.extract.plain import reject_binary
from ragox.text import Coordinates, DecodeError, Profile, Span, decode_utf8_strict

__all__ = ["HTML_PARSER", "extract_html"]

HTML_PARSER: Final = ParserInfo(
    "html-selectolax",
    f"3+selectolax-{selectolax.__version__}",
    {
        "tree": "lexbor-html5;scripting-off",
        "dropped": "script,style,template,noscript,head,title,svg,iframe,noembed,noframes,"
        "frameset,canvas,video,audio,datalist,rp",
        "hidden": "attribute+inline-style;short-inline-alternatives-all-hidden:first-default-shown;"
        "switch-alternatives-any-length",
        "input-hidden": "dropped",
        "blocks": "html-ua-display+inline-style",
        "kinds": "h1-6,li/dt/dd,pre,td/th,blockquote;others-inherit",
        "navigation": "nav,role=navigation|contentinfo,page-footer,class=navheader|navfooter;"
        "subtree",
        "whitespace": "css-normal",
        "pre": "verbatim",
        "br": "newline",
        "empty-blocks": "skipped",
        "locator": "unique-id|xpath|xpath/text()[k]",
        "separator": "blank-line",
        "tables": "html-table-model;header-assignment",
    },
)


def _names(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# Never rendered as text (HTML Standard §15.3.1 "display: none" and raw-text
# elements whose content is not shown: iframe, noembed, noframes; media
# fallback content is not shown where the element is supported).
_DROPPED: Final = _names(
    "script style template noscript head title svg iframe noembed noframes frameset "
    "canvas video audio datalist rp"
)

# display: block, list-item or table-* in the user-agent style sheet (§15.3).
_BLOCK_TAGS: Final = _names(
    "html body address article aside blockquote center details dialog dir div dl dd "
    "dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr "
    "legend li listing main menu nav ol optgroup option p plaintext pre search "
    "section summary ul xmp table caption colgroup col thead tbody tfoot tr td th"
)

# Elements whose text keeps its white space (white-space: pre / pre-wrap).
_PRE_TAGS: Final = frozenset({"pre", "listing", "xmp", "plaintext", "textarea"})
_CELL_TAGS: Final = frozenset({"td", "th"})

# Elements that set the kind of the blocks inside them; others inherit it.
_ROLES: Final = {
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), BlockKind.HEADING),
    **dict.fromkeys(("li", "dt", "dd"), BlockKind.LIST_ITEM),
    **dict.fromkeys(("pre", "listing", "xmp", "plaintext"), BlockKind.CODE),
    **dict.fromkeys(("td", "th"), BlockKind.TABLE_CELL),
    "blockquote": BlockKind.QUOTE,
}

#: class names of a page's navigation links in the HTML of DocBook's style sheets
#: (Debian's manuals, many projects' documentation): "Prev", "Up", "Next" and the
#: titles of the pages around it, above and below the page's own text
_NAVIGATION_CLASSES: Final = frozenset({"navheader", "navfooter"})


#: the elements whose ``footer`` is their own, not the page's: sectioning content and
#: sectioning roots (a quotation's attribution, a figure's credit), and elements with
#: the roles that HTML-AAM names (a ``footer`` inside none of them is the page's
#: ``contentinfo`` landmark)
_SECTIONING: Final = frozenset(
    {"article", "aside", "main", "nav", "section", "blockquote", "details", "dialog"}
    | {"fieldset", "figure", "td", "th"}
)
_SECTIONING_ROLES: Final = frozenset({"main", "article", "complementary", "navigation", "region"})
#: ARIA landmarks of a page's furniture: its navigation, and its footer's information
#: about the page (copyright, contact, LibreOffice's help's hidden "Help content debug
#: info: This page is: …", which its external style sheet hides)
_FURNITURE_ROLES: Final = frozenset({"navigation", "contentinfo"})


def _page_footer(node: LexborNode) -> bool:
    """A ``footer`` element that is the page's (inside no sectioning element, and no
    element with such a role: ``<div role="main">``)."""
    parent = node.parent
    while parent is not None:
        if parent.tag in _SECTIONING:
            return False
        role = parent.attributes.get("role") if parent.is_element_node else None
        if role and not _SECTIONING_ROLES.isdisjoint(role.lower().split()):
            return False
        parent = parent.parent
    return True


def _navigation(tag: str, attributes: dict[str, str | None]) -> bool:
    """A block element that holds the page's furniture: ``nav``, an ARIA
    ``role="navigation"`` or ``role="contentinfo"`` landmark, or a DocBook page's header
    or footer links. (A page's own ``footer`` is found by :func:`_page_footer`.)"""
    if tag == "nav":
        return True
    role = attributes.get("role")
    if role and not _FURNITURE_ROLES.isdisjoint(role.lower().split()):
        return True
    classes = attributes.get("class")
    # (the substring test first: most elements of a page have a class, few a nav one)
    if not classes or "nav" not in classes:
        return False
    return not _NAVIGATION_CLASSES.isdisjoint(classes.split())


def _default_of(parent: LexborNode) -> int | None:
    """The ``mem_id`` of the alternative that a page's script shows by default among the
    children of ``parent``, or None.

    LibreOffice's help hides both of a platform's variants ("Command" and "Ctrl",
    "LibreOffice - Preferences" and "Tools - Options") until its script shows one: the
    system's, else the first whose id starts with "default". Dropped, its steps read
    "Press +Enter." and "Choose - Load/Save - General." Alternatives are two inline
    elements or more, every element child of ``parent``, all hidden, each a few words
    that end no sentence (a key, a menu's path); the default is the first of them whose
    ``id`` or a class starts with "default". A form's hidden error messages, a quiz's
    answer, a dialog, and any beside a shown element stay hidden. Inside LibreOffice's
    own switch (a parent of class ``switch`` or ``switchinline``) an alternative may be
    any length: the steps "Press Insert to toggle between overwrite mode and insert mode.
    …" are a system's default (a new-user pass over its help, nu19, found about ten
    English pages without their answer).
    """
    chosen: int | None = None
    alternatives = 0
    classes = parent.attributes.get("class") if parent.is_element_node else None
    switch = bool(classes) and not _SWITCH_CLASSES.isdisjoint((classes or "").split())
    child = parent.first_child
    while child is not None:
        if child.is_element_node:
            attributes = child.attributes
            if (
                "hidden" not in attributes
                or (child.tag or "") in _BLOCK_TAGS
                or not (switch or _few_words(child.text(deep=True)))
            ):
                return None
            alternatives += 1
            if chosen is None and _named_default(attributes):
                chosen = child.mem_id
        child = child.next
    return chosen if alternatives >= 2 else None


#: the class names of LibreOffice's help's switches between a system's alternatives
_SWITCH_CLASSES: Final = frozenset({"switch", "switchinline"})
#: the most words of one of a page's alternatives ("LibreOffice – Einstellungen –
#: LibreOffice Calc – Berechnen": five; LibreOffice's help has none of more than eight)
_ALTERNATIVE_WORDS: Final = 8
_WORD: Final = re.compile(r"\w+")


def _few_words(text: str) -> bool:
    """A key or a menu's path, not a message: a few words, no sentence's end."""
    return len(_WORD.findall(text)) <= _ALTERNATIVE_WORDS and not text.rstrip().endswith(
        (".", "!", "?")
    )


def _named_default(attributes: dict[str, str | None]) -> bool:
    """The element's ``id`` or one of its classes starts with "default"."""
    element_id = attributes.get("id") or ""
    return element_id[:7].lower() == "default" or any(
        name[:7].lower() == "default" for name in (attributes.get("class") or "").split()
    )


def _shown_default(node: LexborNode, defaults: dict[int, int | None]) -> bool:
    """``node`` is the default its parent's alternatives show (:func:`_default_of`),
    decided once per parent (``defaults``: by the parent's ``mem_id``)."""
    parent = node.parent
    if parent is None:
        return False
    key = parent.mem_id
    if key not in defaults:
        defaults[key] = _default_of(parent)
    return defaults[key] == node.mem_id


_BLOCK_DISPLAYS: Final = _names(
    "block flow-root flex grid list-item table table-row table-cell table-caption "
    "table-row-group table-header-group table-footer-group"
)
_INLINE_DISPLAYS: Final = frozenset(
    {"inline", "inline-block", "inline-flex", "inline-grid", "inline-table", "contents", "ruby"}
)

#: ASCII white space as CSS and HTML define it; U+00A0 is deliberately absent.
_ASCII_WS: Final = " \t\n\f\r"
_WS_RUN: Final = re.compile(r"[ \t\n\f\r]+")
_SAFE_TAG: Final = re.compile(r"[a-z][a-z0-9._-]*")
#: What ``str.split`` takes for white space besides the ASCII white space (its
#: whole set, ``str.isspace``, is fixed by the Unicode database Python ships).
_OTHER_SPACES: Final = (
    "\x0b\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_OTHER_SPACE: Final = re.compile(f"[{_OTHER_SPACES}]")
#: the other spaces that are ASCII (controls)
_ASCII_OTHER_SPACES: Final = tuple(space for space in _OTHER_SPACES if space.isascii())
#: A tag's locator segment name (itself, or ``*``), remembered for the first tags seen.
_SEGMENT_NAMES: Final[dict[str, str]] = {}
_SEGMENT_NAMES_KEPT: Final = 1024
_CSS_COMMENT: Final = re.compile(r"/\*.*?\*/", re.S)

# A piece of a text run: text in normal or preserved white-space mode, or a <br>.
_NORMAL: Final = 0
_PRESERVE: Final = 1
_BREAK: Final = 2
_LINE_BREAK: Final = ("\n", _BREAK)


#: An element's place: ``[parent's chain, name, k, the parent's name counts, path]``;
#: its locator segment is ``name`` when it is its parent's only child element of that
#: name, else ``name[k]``; the path is filled in when a block needs it.
_Chain = list[object]
#: A block-level element (or the document), whose text runs are its blocks: its chain
#: followed by ``element_id, kind, cell, block_count`` (``cell``: the ``mem_id`` of the
#: nearest ``td``/``th`` of a table around it). A list, as a chain is: twenty thousand
#: of them on a large page.
_Box = list[object]
_ELEMENT_ID: Final = 5
_KIND: Final = 6
_CELL: Final = 7
_BLOCK_COUNT: Final = 8
#: A piece of a run: normal text, or (text, _PRESERVE), or (newline, _BREAK).
_Piece = str | tuple[str, int]
#: what ``LexborNode.tag`` names the nodes that are no elements
_NON_ELEMENTS: Final = frozenset({"-text", "-comment", "-doctype", "-document"})


def extract_html(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """Visible text of an HTML document, one block per block-level box."""
    options = options or ExtractOptions()
    if not data:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "file is empty")
    try:
        source = decode_utf8_strict(data)
    except DecodeError as error:
        raise ExtractionError(
            ErrorCode.INVALID_UTF8, _invalid_utf8_message(data, error.byte_offset)
        ) from None
    reject_binary(source)
    # The HTML Standard's encoding sniffing consumes a UTF-8 byte order mark.
    if source.startswith("\ufeff"):
        source = source[1:]
        data = data[3:]
    brackets = source.count("<")
    if _nesting_exceeds(source, 2 * options.max_depth + 64, brackets):
        raise ExtractionError(
            ErrorCode.TOO_COMPLEX, f"element nesting deeper than {options.max_depth}"
        )
    _refuse_many_elements(source, data, brackets)
    # Lexbor reads bytes as UTF-8: the checked bytes, not the text encoded again.
    tree = LexborHTMLParser(data)
    root = tree.root
    if root is None or not root.is_element_node:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no visible text")
    with _collector_paused():
        return _extract(root, profile, options)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while the records of one page are built,
    on the main thread only (a command's or a worker process's ingestion).

    The walk and the blocks allocate a few container objects per node, none of
    them in a reference cycle; each allocation burst would otherwise set off
    collections that traverse every object of the process (22% of extraction CPU
    in a fresh process, 8% with 200k live objects, none with a million). The
    collector is process-wide: a server extracts uploads on its request threads,
    which leave it alone, and one that finds it disabled never re-enables it.
    """
    if not gc.isenabled() or threading.current_thread() is not threading.main_thread():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _extract(root: LexborNode, profile: Profile, options: ExtractOptions) -> Extraction:
    places = table_cells(root)
    boxes, candidates, normal = _walk(root, options.max_depth, places)
    # Runs of normal text only are collapsed together (the others were rendered).
    if normal:
        for index, text in zip(
            normal, _collapse_each([candidates[i] for i in normal]), strict=True
        ):
            candidates[index] = text
    # (a text with a character that is not white space: what ``text.strip()`` keeps)
    owners: list[_Box] = []
    rendered: list[str] = []
    for box, text in zip(boxes, candidates, strict=True):
        if text and not text.isspace():
            owners.append(box)
            rendered.append(text)
    texts: list[str] = []
    kept: list[_Box] = []
    for box, text in zip(owners, _normalize_blocks(rendered, profile), strict=True):
        if text and not text.isspace():
            texts.append(text)
            kept.append(box)
            box[_BLOCK_COUNT] += 1  # type: ignore[operator]
    if not texts:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no visible text")
    return Extraction(
        text=BLOCK_SEPARATOR.join(texts),
        blocks=_blocks(root, texts, kept, places),
        parser=HTML_PARSER,
        media_type="text/html",
    )


def _collapse_each(texts: list[str]) -> list[str]:
    """CSS ``white-space: normal`` of each text: runs of ASCII white space collapsed
    to one space, the edges trimmed (``_WS_RUN.sub(" ", text).strip(" ")``).

    ``" ".join(text.split())`` is the same for a text without any of the other
    characters that ``str.split`` takes for white space (U+00A0 among them), and
    several times faster than the regular expression. When the texts together hold
    one, each text is searched for one, and collapsed by the regular expression if
    it holds one; an ASCII text can hold one only among the ASCII controls, so
    without any of those anywhere, only the texts that are not ASCII are searched
    (``str.isascii`` reads a flag).
    """
    joined = "\n".join(texts)
    if _OTHER_SPACE.search(joined) is None:
        return [" ".join(text.split()) for text in texts]
    search = _OTHER_SPACE.search
    collapse = _WS_RUN.sub
    if not any(space in joined for space in _ASCII_OTHER_SPACES):
        return [
            " ".join(text.split())
            if text.isascii() or search(text) is None
            else collapse(" ", text).strip(" ")
            for text in texts
        ]
    return [
        " ".join(text.split()) if search(text) is None else collapse(" ", text).strip(" ")
        for text in texts
    ]


def _blocks(
    root: LexborNode, texts: list[str], owners: list[_Box], places: dict[int, CellPlace]
) -> tuple[Block, ...]:
    """One block per text, with its locator and table cell."""
    id_counts = _id_counts(root) if any(box[_ELEMENT_ID] for box in owners) else Counter[str]()
    # the blocks of each table cell, by the cell's key
    cell_blocks: dict[int, list[int]] = {}
    for index, box in enumerate(owners):
        key = box[_CELL]
        if key is not None:
            found = cell_blocks.get(key)  # type: ignore[call-overload]
            if found is None:
                cell_blocks[key] = [index]  # type: ignore[index]
            else:
                found.append(index)
    blocks: list[Block] = []
    ordinals: dict[int, int] = {}
    position = 0
    separator = len(BLOCK_SEPARATOR)
    codepoint = Coordinates.CODEPOINT
    block_type = Block
    span_type = Span
    cell_type = TableCell
    block_twin = _BLOCK_TWIN
    span_twin = _SPAN_TWIN
    cell_twin = _CELL_TWIN
    named: dict[tuple[int, ...], tuple[str, ...]] = {}
    for index, (text, box) in enumerate(zip(texts, owners, strict=True)):
        path: str | None = box[4]  # type: ignore[assignment]
        if path is None:
            parent_path = box[0][4]  # type: ignore[index]
            if parent_path is None:
                path = _path(box)
            else:
                # (the parent's path is known: the box's own segment, as _path makes it)
                name = box[1]
                counts = box[3]
                if counts is None or counts[name] == 1:  # type: ignore[index]
                    path = f"{parent_path}/{name}"
                else:
                    path = f"{parent_path}/{name}[{box[2]}]"
                box[4] = path
        if box[_BLOCK_COUNT] == 1:
            element_id = box[_ELEMENT_ID]
            unique = element_id and id_counts[element_id] == 1  # type: ignore[index]
            locator = f"#{element_id}" if unique else path or "/"
        else:
            k = ordinals[id(box)] = ordinals.get(id(box), 0) + 1
            locator = f"{path or '/'}/text()[{k}]"
        end = position + len(text)
        key = box[_CELL]
        if key is None:
            cell = None
        else:
            table, row, col, row_span, col_span, header, keys = places[key]  # type: ignore[index]
            # (the cells under one header share its ids: named once per header keys)
            header_ids = named.get(keys)
            if header_ids is None:
                header_ids = named[keys] = _header_ids(keys, cell_blocks)
            if cell_twin is None:
                cell = cell_type(table, row, col, row_span, col_span, header, header_ids)
            else:
                cell = cell_twin()
                cell.table = table
                cell.row = row
                cell.col = col
                cell.row_span = row_span
                cell.col_span = col_span
                cell.header = header
                cell.header_ids = header_ids
                cell.__class__ = cell_type
        if block_twin is None or span_twin is None:
            block = block_type(
                index,
                box[_KIND],  # type: ignore[arg-type]
                span_type(codepoint, position, end),
                locator,
                cell=cell,
            )
        else:
            # (a code point span of the walk is never negative nor reversed: Span's
            # check is not needed)
            span = span_twin()
            span.coordinates = codepoint
            span.start = position
            span.end = end
            span.__class__ = span_type
            block = block_twin()
            block.index = index
            block.kind = box[_KIND]
            block.span = span
            block.locator = locator
            block.page = None
            block.bbox = None
            block.source = None
            block.ocr = False
            block.cell = cell
            block.__class__ = block_type
        blocks.append(block)
        position = end + separator
    return tuple(blocks)


def _header_ids(header_keys: tuple[int, ...], cell_blocks: dict[int, list[int]]) -> tuple[str, ...]:
    """A cell's header cells named by their blocks (a header cell without visible text
    has none and drops out, as the standard drops empty cells)."""
    if not header_keys:
        return ()
    return tuple([f"b{i}" for key in header_keys for i in cell_blocks.get(key, ())])


# -- building the frozen records -------------------------------------------------
#
# Tens of thousands of blocks, spans and table cells per large page: a frozen
# dataclass's __init__ sets each field through object.__setattr__, several times
# slower than a plain object's slots. The records are built as instances of a plain
# class with the same slots (a "twin"), then given their class by ``__class__``
# assignment, which Python allows between classes of the same layout: the same
# objects field for field, as a check at import confirms for each class (with
# exactly the fields this module knows); otherwise through their constructors.


def _twin(cls: type, sample: object, values: dict[str, object]) -> type | None:
    """A plain class with the slots of the frozen dataclass ``cls`` whose instance,
    given ``values`` and then the class ``cls``, equals ``sample`` (made by ``cls``'s
    constructor from the same values); else None."""
    slots = vars(cls).get("__slots__")
    if (
        not isinstance(slots, tuple)
        or tuple(f.name for f in fields(cls)) != slots
        or tuple(values) != slots
    ):
        return None
    twin = type(f"_{cls.__name__}Fields", (), {"__slots__": slots})
    try:
        made = twin()
        for name, value in values.items():
            setattr(made, name, value)
        made.__class__ = cls
    except TypeError:  # (a layout that ``__class__`` assignment refuses)
        return None
    if type(made) is not type(sample) or made != sample or repr(made) != repr(sample):
        return None
    return twin


def _block_twins() -> tuple[type | None, type | None, type | None]:
    span_values: dict[str, object] = {"coordinates": Coordinates.CODEPOINT, "start": 2, "end": 9}
    span = Span(Coordinates.CODEPOINT, 2, 9)
    cell_values: dict[str, object] = {
        "table": 1,
        "row": 2,
        "col": 3,
        "row_span": 4,
        "col_span": 5,
        "header": True,
        "header_ids": ("b0",),
    }
    cell = TableCell(1, 2, 3, 4, 5, True, ("b0",))
    block_values: dict[str, object] = {
        "index": 3,
        "kind": BlockKind.HEADING,
        "span": span,
        "locator": "#a",
        "page": None,
        "bbox": None,
        "source": None,
        "ocr": False,
        "cell": cell,
    }
    # (the fields that this module does not set must keep their defaults)
    block = Block(3, BlockKind.HEADING, span, "#a", cell=cell)
    if "__post_init__" in vars(Block) or "__post_init__" in vars(TableCell):
        return None, None, None
    return (
        _twin(Block, block, block_values),
        _twin(Span, span, span_values),
        _twin(TableCell, cell, cell_values),
    )


_BLOCK_TWIN, _SPAN_TWIN, _CELL_TWIN = _block_twins()


def _normalize_blocks(texts: list[str], profile: Profile) -> list[str]:
    """``profile.normalize_text`` of each block text, in one pass over the joined text.

    The profile's steps act locally and never across a line feed, so normalizing
    the joined text and cutting it at the mapped block edges gives each block's own
    normalization. A carriage return could pair with the separator's line feed, so
    texts containing one, or any edge that does not map exactly, go one by one.
    """
    if any("\r" in text for text in texts):
        return [profile.normalize_text(text).text for text in texts]
    joined = BLOCK_SEPARATOR.join(texts)
    normalized = profile.normalize_text(joined)
    if normalized.text == joined:
        return texts
    inverse = normalized.alignment
    result: list[str] = []
    position = 0
    for text in texts:
        mapped = inverse.map_forward(position, position + len(text))
        if not mapped.exact:
            return [profile.normalize_text(text).text for text in texts]
        result.append(normalized.text[mapped.start : mapped.end])
        position += len(text) + len(BLOCK_SEPARATOR)
    return result


def _invalid_utf8_message(data: bytes, offset: int) -> str:
    message = f"invalid UTF-8 at byte {offset}"
    declared = _declared_charset(data)
    if declared is not None:
        message += f"; the document declares {declared}, and only UTF-8 is supported"
    return message


_META_CHARSET: Final = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I
)
_XML_ENCODING: Final = re.compile(
    rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:-]{1,40})""", re.I
)
_UTF8_LABELS: Final = frozenset({"utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8"})


def _declared_charset(data: bytes) -> str | None:
    """A non-UTF-8 encoding the document declares (BOM or within its first 1024 bytes)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 (byte order mark)"
    head = data[:1024]
    for pattern in (_XML_ENCODING, _META_CHARSET):
        found = pattern.search(head)
        if found:
            label = found.group(1).decode("ascii").lower()
            if label not in _UTF8_LABELS:
                return f"charset {label}"
            return None
    return None


# -- nesting estimate before parsing -------------------------------------------

#: A comment's start, or a whole tag up to its first ``>`` (the group of ``>`` is
#: empty when there is none).
_TAG: Final = re.compile(r"<(?:(!--)|(/?)([A-Za-z][^\t\n\f\r />]*)[^>]*(>)?|[!?][^>]*(>)?)")
_RAW_TEXT: Final = frozenset(
    {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"}
)
_VOID: Final = _names(
    "area base basefont bgsound br col embed frame hr image img input keygen link "
    "meta param source track wbr"
)
# Closed implicitly by the tree builder (or singletons): they never pile up.
_IMPLIED: Final = _names(
    "html head body p li dt dd option optgroup tr td th thead tbody tfoot caption "
    "colgroup rb rt rtc rp form"
)
_FORMATTING: Final = _names("a b big code em font i nobr s small strike strong tt u")
_SCOPE_BARRIERS: Final = frozenset({"applet", "marquee", "object", "table", "template"})
_HEADINGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_NO_PUSH: Final = _VOID | _IMPLIED
#: how far below the top an end tag looks for its element (keeps the scan linear)
_END_TAG_REACH: Final = 64


_START_NAME: Final = re.compile(r"<([A-Za-z][^\t\n\f\r />]*)")


def _pushing_starts(text: str) -> int:
    """Start tags that may push an element: an upper bound on the nesting (each name
    counted in C, each distinct name looked up once)."""
    counts = Counter(_START_NAME.findall(text))
    return sum(n for name, n in counts.items() if name.lower() not in _NO_PUSH)


#: start tags of the elements that make blocks, and a paragraph's end tag (one without
#: its start makes an empty paragraph): what the walk's records grow with; a table's
#: cells are counted apart (``MAX_SLOTS`` for a page's tables together)
_BLOCK_START: Final = re.compile(
    r"</?(?:"
    + "|".join(
        sorted(
            _BLOCK_TAGS - _names("html body table colgroup col thead tbody tfoot tr")
            | {"td", "th"},
            key=len,
            reverse=True,
        )
    )
    + r")(?=[\s/>])",
    re.IGNORECASE,
)
#: a start tag, its quoted values read whole (a ">" inside one does not end it)
_START_TAG: Final = re.compile(r"<[A-Za-z](?:[^<>\"']++|\"[^\"]*+\"|'[^']*+')*+")
#: the same start tags in UTF-8 bytes, the loop unrolled (runs between quoted values)
_START_TAG_BYTES: Final = re.compile(
    rb"<[A-Za-z][^<>\"']*+(?:(?:\"[^\"]*+\"|'[^']*+')[^<>\"']*+)*+"
)
#: a start tag longer than this is read for its attributes (a real one is short, or
#: long for one value: an inline image's ``data:`` address)
_LONG_TAG_CHARS: Final = 4096
#: elements whose content is no markup (a script's strings, a style sheet) and comments:
#: what they hold makes no block
_RAW_OPEN: Final = re.compile(r"<(script|style|textarea|title|xmp|template)\b|<!--", re.IGNORECASE)
_RAW_CLOSE: Final = {
    name: re.compile(rf"</{name}", re.IGNORECASE)
    for name in ("script", "style", "textarea", "title", "xmp", "template")
}
#: an attribute's value: what its names are read without
_VALUE: Final = re.compile(r"=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'<>=]+)")
#: a name in a start tag read without its values: the tag's own, then its attributes'
#: (with a value or without one: ``<div a0 a1 a2 …>``)
_NAME: Final = re.compile(r"[^\s\"'<>/=]+")
#: most attributes the long start tags of a page may have together: Lexbor's parse
#: grows with the square of one element's attributes (300,000 on one element, a 3 MB
#: file, took minutes; 10,000 take a few tenths of a second)
MAX_ATTRIBUTES: Final = 10_000


def _refuse_many_elements(
    text: str, data: bytes | None = None, brackets: int | None = None
) -> None:
    """Refuse ``TOO_COMPLEX`` markup, before it is parsed, of more block elements than
    :data:`_TAGS_PER_BLOCK` times :data:`MAX_BLOCKS` (wrappers such as a ``div`` around
    an entry's heading and paragraphs count too) in what a browser shows, or twice that
    in the whole text (the estimate of what is shown can be fooled: HTML closes
    ``<!-->`` at once, and ``<!--`` inside an attribute's value opens no comment); of
    more than ``MAX_SLOTS`` table cells (all the page's tables together); or of more
    than :data:`MAX_ATTRIBUTES` attributes in its long start tags.

    Every tag count is bounded by the text's "<": a page with fewer than a limit
    cannot pass it and is not scanned for tags (a third of a real page's extraction
    time). Its start tags are always read for their length: first in ``data``, the
    text's UTF-8 bytes when given (a start tag is the same there, in as many bytes as
    characters or more), where a regular expression finds them all at once; they are
    counted only when one is as long as a long one. ``brackets`` is the text's count
    of "<" when known."""
    if brackets is None:
        brackets = text.count("<")
    if brackets > min(_TAGS_PER_BLOCK * MAX_BLOCKS, MAX_SLOTS):
        shown, _ = _tag_counts(_without_raw_text(text))
        blocks, cells = _tag_counts(text)
        if shown > _TAGS_PER_BLOCK * MAX_BLOCKS or blocks > 2 * _TAGS_PER_BLOCK * MAX_BLOCKS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_BLOCKS} block elements")
        if cells > MAX_SLOTS:
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"more than {MAX_SLOTS} table cells")
    if (
        data is not None
        and max(map(len, _START_TAG_BYTES.findall(data)), default=0) < _LONG_TAG_CHARS
    ):
        return
    attributes = 0
    for tag in _START_TAG.finditer(text):
        if tag.end() - tag.start() < _LONG_TAG_CHARS:
            continue
        attributes += len(_NAME.findall(_VALUE.sub(" ", tag.group()))) - 1
        if attributes > MAX_ATTRIBUTES:
            raise ExtractionError(
                ErrorCode.TOO_COMPLEX, f"elements with over {MAX_ATTRIBUTES} attributes"
            )


#: block elements' start tags counted per block a page may make (:func:`_refuse_many_elements`)
_TAGS_PER_BLOCK: Final = 2


def _tag_counts(markup: str) -> tuple[int, int]:
    """The block elements' start tags of ``markup`` (and its stray paragraph end tags:
    one without its start makes an empty paragraph), and its table cells' start tags."""
    starts = ends = cells = 0
    for found in _BLOCK_START.finditer(markup):
        tag = found.group().lower()
        if tag in ("<td", "<th"):
            cells += 1
        elif tag == "</p":
            ends += 1
        elif not tag.startswith("</"):
            starts += 1
    return starts + max(0, ends - starts), cells


def _without_raw_text(text: str) -> str:
    """The markup without the content of scripts, style sheets and the like, and without
    comments (an unclosed one hides the rest, as it does in a browser)."""
    kept: list[str] = []
    position = 0
    while True:
        found = _RAW_OPEN.search(text, position)
        if found is None:
            kept.append(text[position:])
            return "".join(kept)
        kept.append(text[position : found.start()])
        if found.group(1) is None:
            end = text.find("-->", found.end())
            after = None if end < 0 else end + 3
        else:
            closing = _RAW_CLOSE[found.group(1).lower()].search(text, found.end())
            after = None if closing is None else closing.end()
        if after is None:
            return "".join(kept)
        position = after


def _nesting_exceeds(text: str, limit: int, brackets: int | None = None) -> bool:
    """Whether the markup's element nesting would exceed ``limit`` (an estimate).

    A simplified tree builder: void and implicitly closed elements never nest,
    end tags pop to their element (formatting elements leave the blocks above
    them open, as the adoption agency algorithm does), raw text is skipped.
    It cannot be exact; the walk after parsing enforces the real limit.

    The tags are read by one iterator over the text, restarted only after a
    comment or raw text (where the scan jumps ahead); an end tag of the element on
    top of the stack pops it without a search. The scan stops as soon as the stack
    together with every start tag still ahead that may push stays within the limit.
    ``brackets`` is the text's count of "<" when known.
    """
    if (text.count("<") if brackets is None else brackets) <= limit:
        return False
    # Start tags ahead that may push (an upper bound): once the stack and they
    # together stay within the limit, nothing ahead can exceed it.
    unpushed = _pushing_starts(text)
    if unpushed <= limit:
        return False
    stack: list[str] = []
    open_counts: dict[str, int] = {}
    position = 0
    finditer = _TAG.finditer
    find = text.find
    no_push = _NO_PUSH
    raw_text = _RAW_TEXT
    headings = _HEADINGS
    while True:
        for found in finditer(text, position):
            comment, slash, name, closed, other_closed = found.groups()
            if name is None:
                if comment:
                    end = find("-->", found.end())
                    if end < 0:
                        return False
                    position = end + 3
                    break  # read on after the comment
                if other_closed is None:  # doctype, bogus comment, processing instruction
                    return False
                continue
            if closed is None:
                return False
            if slash:
                if stack:
                    name = name.lower()
                    if stack[-1] == name:
                        stack.pop()
                        open_counts[name] -= 1
                    elif open_counts.get(name):
                        _pop_to(name, stack, open_counts)
                continue
            name = name.lower()
            if name in no_push:
                continue
            if name in raw_text:
                closing = re.compile(rf"</{re.escape(name)}[\t\n\f\r />]", re.I).search(
                    text, found.end()
                )
                if closing is None:
                    return False
                position = closing.start()
                break  # read on at the raw text's end tag
            if name == "plaintext":
                return False
            end = found.end()
            if text[end - 2] == "/" and (open_counts.get("svg") or open_counts.get("math")):
                continue  # a self-closing element in foreign content
            if name == "a" and open_counts.get("a"):
                _pop_to("a", stack, open_counts)
            if name in headings and stack and stack[-1] in headings:
                open_counts[stack.pop()] -= 1
            stack.append(name)
            open_counts[name] = open_counts.get(name, 0) + 1
            if len(stack) > limit:
                return True
            unpushed -= 1
            if len(stack) + unpushed <= limit:
                return False
        else:
            return False


def _pop_to(name: str, stack: list[str], open_counts: dict[str, int]) -> None:
    if not open_counts.get(name):
        return
    bottom = max(-1, len(stack) - 1 - _END_TAG_REACH)
    for k in range(len(stack) - 1, bottom, -1):
        current = stack[k]
        if current == name:
            break
        if current in _SCOPE_BARRIERS:
            return
    else:
        return
    if name in _FORMATTING and k != len(stack) - 1:
        del stack[k]
        open_counts[name] -= 1
        return
    for popped in stack[k:]:
        open_counts[popped] -= 1
    del stack[k:]


# -- the walk -------------------------------------------------------------------


def _walk(
    root: LexborNode, max_depth: int, places: dict[int, CellPlace]
) -> tuple[list[_Box], list[str], list[int]]:
    """The text runs in reading order: their boxes (the block-level element that owns
    each run), their texts, and which texts are of normal text only.

    A run of normal text only is joined and left to be collapsed with the others
    (:func:`_collapse_each`), or dropped when it is white space alone; another is
    rendered (:func:`_render`). One pass over the tree by ``first_child``/``next``; the
    state an element passes down lives in local variables, saved on a stack while its
    children are walked.
    """
    boxes: list[_Box] = []
    texts: list[str] = []
    normal: list[int] = []
    top: _Box = [None, "", 0, None, "", None, BlockKind.PARAGRAPH, None, 0]
    box = top
    # The run's pieces: one list, emptied when its run is taken.
    pieces: list[_Piece] = []
    add = pieces.append
    mixed = False  # the run has preserved text or line breaks
    invisible = False
    preserve = False
    cell: int | None = None
    chain: _Chain = top
    counts: dict[str, int] | None = None  # name counts of the children walked
    stack: list[
        tuple[
            LexborNode,
            _Box,
            bool,
            bool,
            int | None,
            _Chain,
            dict[str, int] | None,
        ]
    ] = []
    push = stack.append
    pop = stack.pop
    segment_names = _SEGMENT_NAMES
    dropped = _DROPPED
    block_tags = _BLOCK_TAGS
    pre_tags = _PRE_TAGS
    cell_tags = _CELL_TAGS
    non_elements = _NON_ELEMENTS
    navigation = BlockKind.NAVIGATION
    roles = _ROLES
    # per style attribute, its display and visibility (a page repeats a few styles)
    styles: dict[str, tuple[str | None, str | None]] = {}
    # per parent of hidden alternatives, the one shown (:func:`_shown_default`)
    defaults: dict[int, int | None] = {}
    node: LexborNode | None = root
    while True:
        if node is None:
            # The children of the element on top of the stack are done: leave it.
            if not stack:
                break
            left = box
            node, box, invisible, preserve, cell, chain, counts = pop()
            if left is not box and pieces:
                _take_run(left, pieces, mixed, boxes, texts, normal)
                mixed = False
            if not stack:
                break  # the root element: its siblings are not part of the document
            node = node.next
            continue
        if not pieces and not preserve and node.is_empty_text_node:
            # ASCII white space that would begin a run renders to nothing in any run
            # (between a page's block elements): left out, read in C.
            node = node.next
            continue
        # (a text node's content is a string, any other node's None)
        content = node.text_content
        if content is not None:
            if content and not invisible:
                if preserve:
                    add((content, _PRESERVE))
                    mixed = True
                else:
                    add(content)
            node = node.next
            continue
        tag = node.tag
        if tag is None:
            if not node.is_element_node:
                node = node.next
                continue
            tag = ""
        elif tag in non_elements:  # a comment, the doctype, an empty text node
            node = node.next
            continue
        if counts is None:
            name = "html"
            k = 0
        else:
            name = segment_names.get(tag) or _segment_name(tag)
            k = counts[name] = counts.get(name, 0) + 1
        if tag in dropped:
            node = node.next
            continue
        attributes = node.attributes
        if attributes:
            if (
                "hidden" in attributes
                and not (_named_default(attributes) and _shown_default(node, defaults))
            ) or (
                tag == "input"
                and (attributes.get("type") or "").strip(_ASCII_WS).lower() == "hidden"
            ):
                node = node.next
                continue
            style = attributes.get("style")
        else:
            style = None
        if style:
            declared = styles.get(style)
            if declared is None:
                declared = styles[style] = _inline_style(style)
            display, visibility = declared
            if display == "none":
                node = node.next
                continue
            inner_invisible = invisible if visibility is None else visibility != "visible"
            if display is None:
                block = tag in block_tags
            elif display in _BLOCK_DISPLAYS:
                block = True
            elif display in _INLINE_DISPLAYS:
                block = False
            else:
                block = tag in block_tags
        else:
            inner_invisible = invisible
            block = tag in block_tags
        if len(stack) >= max_depth:  # the stack holds the element's ancestors
            raise ExtractionError(ErrorCode.TOO_COMPLEX, f"element nesting deeper than {max_depth}")
        if tag == "br":
            if not inner_invisible:
                add(_LINE_BREAK)
                mixed = True
            node = node.next
            continue
        child = node.first_child
        if not block and child is not None and counts is not None and child.next is None:
            content = child.text_content
            if content is not None:
                # An inline element around one text node (a link, a word of code): its
                # text joins the run as the walk into it would add it, without entering.
                if content and not inner_invisible:
                    if preserve or tag in pre_tags:
                        add((content, _PRESERVE))
                        mixed = True
                    else:
                        add(content)
                node = node.next
                continue
        push((node, box, invisible, preserve, cell, chain, counts))
        if tag in cell_tags:
            key = node.mem_id
            if key in places:
                cell = key
        if block:
            if pieces:
                _take_run(box, pieces, mixed, boxes, texts, normal)
                mixed = False
            element_id = attributes.get("id") if attributes else None
            if element_id is not None and (
                not element_id
                # (printable and without a space: no ASCII white space, found in C)
                or (
                    not (" " not in element_id and element_id.isprintable())
                    and any(c in _ASCII_WS for c in element_id)
                )
            ):
                element_id = None
            kind = box[_KIND]
            if kind is not navigation:
                if (
                    tag == "nav"
                    or (tag == "footer" and _page_footer(node))
                    or (
                        attributes
                        and (
                            # (:func:`_navigation`, whose role test a block without a
                            # role attribute does not need)
                            _navigation(tag, attributes)
                            if "role" in attributes
                            else (classes := attributes.get("class"))
                            and "nav" in classes
                            and not _NAVIGATION_CLASSES.isdisjoint(classes.split())
                        )
                    )
                ):
                    kind = navigation
                else:
                    kind = roles.get(tag, kind)
            chain = box = [chain, name, k, counts, None, element_id, kind, cell, 0]
        else:
            chain = [chain, name, k, counts, None]
        invisible = inner_invisible
        if not preserve and tag in pre_tags:
            preserve = True
        counts = {}
        node = child
    if pieces:
        _take_run(box, pieces, mixed, boxes, texts, normal)
    return boxes, texts, normal


def _take_run(
    owner: _Box,
    pieces: list[_Piece],
    mixed: bool,
    boxes: list[_Box],
    texts: list[str],
    normal: list[int],
) -> None:
    """Take the run in ``pieces`` for its block ``owner`` and empty them: a run of normal
    text is joined (its index kept in ``normal``, to be collapsed with the others), or
    dropped when it is white space alone; another is rendered (:func:`_render`)."""
    if mixed:
        boxes.append(owner)
        texts.append(_render(pieces, True))
    else:
        text = "".join(pieces)  # type: ignore[arg-type]
        if not text.isspace():
            normal.append(len(texts))
            boxes.append(owner)
            texts.append(text)
    pieces.clear()


def _segment_name(tag: str) -> str:
    """A tag's locator segment name: itself when it is a plain name, else ``*``."""
    name = tag if _SAFE_TAG.fullmatch(tag) else "*"
    if len(_SEGMENT_NAMES) < _SEGMENT_NAMES_KEPT:
        _SEGMENT_NAMES[tag] = name
    return name


def _inline_style(style: str | None) -> tuple[str | None, str | None]:
    """``display`` and ``visibility`` from an inline style attribute (last one wins)."""
    if not style:
        return None, None
    display: str | None = None
    visibility: str | None = None
    for declaration in _CSS_COMMENT.sub("", style).split(";"):
        name, colon, value = declaration.partition(":")
        if not colon:
            continue
        name = name.strip(_ASCII_WS).lower()
        words = value.lower().replace("!important", " ").split()
        if not words:
            continue
        if name == "display":
            display = words[0]
        elif name == "visibility":
            visibility = words[0]
    return display, visibility


def _render(pieces: list[_Piece], mixed: bool) -> str:
    """One block's text: CSS ``white-space: normal`` collapsing, preserved text verbatim."""
    if not mixed:
        # Only normal text: collapsing each piece and joining them at one space where
        # either side had white space is collapsing the joined text.
        return _WS_RUN.sub(" ", "".join(pieces)).strip(" ")  # type: ignore[arg-type]
    if all(piece is _LINE_BREAK or isinstance(piece, str) for piece in pieces):
        # Normal text and <br>: each line collapses on its own.
        lines: list[str] = []
        line: list[str] = []
        for piece in pieces:
            if isinstance(piece, str):
                line.append(piece)
            else:
                lines.append(_WS_RUN.sub(" ", "".join(line)).strip(" "))
                line = []
        lines.append(_WS_RUN.sub(" ", "".join(line)).strip(" "))
        return "\n".join(lines).strip("\n")
    out: list[str] = []
    pending_space = False
    line_start = True
    preserved = False
    for piece in pieces:
        if isinstance(piece, str):
            text, mode = piece, _NORMAL
        else:
            text, mode = piece
        if mode == _BREAK:
            out.append("\n")
            pending_space = False
            line_start = True
            continue
        if mode == _PRESERVE:
            if pending_space:
                out.append(" ")
                pending_space = False
            out.append(text)
            line_start = text.endswith("\n")
            preserved = True
            continue
        collapsed = _WS_RUN.sub(" ", text)
        if collapsed.startswith(" "):
            if not line_start:
                pending_space = True
            collapsed = collapsed[1:]
        if not collapsed:
            continue
        trailing = collapsed.endswith(" ")
        if trailing:
            collapsed = collapsed[:-1]
        if pending_space:
            out.append(" ")
        out.append(collapsed)
        line_start = False
        pending_space = trailing
    rendered = "".join(out)
    # Line breaks from <br> at the edges of a normal block add no text.
    return rendered if preserved else rendered.strip("\n")


# -- locators -------------------------------------------------------------------


def _path(chain: _Chain) -> str:
    """``/html/body/div[2]/p``, built once per element and shared with descendants."""
    pending: list[_Chain] = []
    current = chain
    while current[4] is None:
        pending.append(current)
        current = current[0]  # type: ignore[assignment]
    prefix: str = current[4]  # type: ignore[assignment]
    for item in reversed(pending):
        name: str = item[1]  # type: ignore[assignment]
        counts: dict[str, int] | None = item[3]  # type: ignore[assignment]
        if counts is None or counts[name] == 1:
            prefix = f"{prefix}/{name}"
        else:
            prefix = f"{prefix}/{name}[{item[2]}]"
        item[4] = prefix
    return prefix


def _id_counts(root: LexborNode) -> Counter[str]:
    """How often each id occurs among all elements, rendered or not (the elements
    with an ``id`` attribute found by Lexbor's selector engine, not by a walk)."""
    return Counter(element_id for node in root.css("[id]") if (element_id := node.id))
