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

import re
from collections import Counter
from typing import Final

import selectolax
from selectolax.lexbor import LexborHTMLParser, LexborNode

from html_reference_tables import CellPlace, table_cells
from ragox.extract._model import (
    BLOCK_SEPARATOR,
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


def _page_footer(node: LexborNode) -> bool:
    """A ``footer`` inside no sectioning content or root, nor an element with the role
    of one: the page's ``contentinfo`` landmark."""
    parent = node.parent
    while parent is not None:
        if parent.tag in (
            "article", "aside", "main", "nav", "section", "blockquote", "details",
            "dialog", "fieldset", "figure", "td", "th",
        ):  # fmt: skip
            return False
        role = parent.attributes.get("role") if parent.is_element_node else None
        roles = set((role or "").lower().split())
        if roles & {"main", "article", "complementary", "navigation", "region"}:
            return False
        parent = parent.parent
    return True


def _navigation(tag: str, attributes: dict[str, str | None]) -> bool:
    """A block element that holds the page's navigation: ``nav``, an ARIA
    ``role="navigation"`` landmark, or a DocBook page's header or footer links."""
    if tag == "nav":
        return True
    role = attributes.get("role")
    if role and not {"navigation", "contentinfo"}.isdisjoint(role.lower().split()):
        return True
    classes = attributes.get("class")
    # (the substring test first: most elements of a page have a class, few a nav one)
    if not classes or "nav" not in classes:
        return False
    return not _NAVIGATION_CLASSES.isdisjoint(classes.split())


def _shown_default(node: LexborNode) -> bool:
    """The first of two or more inline elements, all hidden, each of at most eight words
    that end no sentence, and the only element children of their parent, whose ``id``
    or a class starts with "default" (the alternative a page's script shows when it
    knows no better)."""

    def named_default(element: LexborNode) -> bool:
        names = [
            element.attributes.get("id") or "",
            *(element.attributes.get("class") or "").split(),
        ]
        return any(name.lower().startswith("default") for name in names)

    parent = node.parent
    if parent is None or not named_default(node):
        return False
    siblings = []
    child = parent.first_child
    while child is not None:
        if child.is_element_node:
            siblings.append(child)
        child = child.next
    # (inside LibreOffice's switch, of any length)
    switch = {"switch", "switchinline"} & set((parent.attributes.get("class") or "").split())
    for sibling in siblings:
        text = sibling.text(deep=True)
        if (
            "hidden" not in sibling.attributes
            or (sibling.tag or "") in _BLOCK_TAGS
            or (
                not switch
                and (len(re.findall(r"\w+", text)) > 8 or text.rstrip().endswith((".", "!", "?")))
            )
        ):
            return False
    if len(siblings) < 2:
        return False
    first = next(sibling for sibling in siblings if named_default(sibling))
    return first.mem_id == node.mem_id


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
#: A tag's locator segment name (itself, or ``*``), remembered for the first tags seen.
_SEGMENT_NAMES: Final[dict[str, str]] = {}
_SEGMENT_NAMES_KEPT: Final = 1024
_CSS_COMMENT: Final = re.compile(r"/\*.*?\*/", re.S)

# A piece of a text run: text in normal or preserved white-space mode, or a <br>.
_NORMAL: Final = 0
_PRESERVE: Final = 1
_BREAK: Final = 2


class _Frame:
    """One element on the walk: its place in the tree and the state it passes down."""

    __slots__ = (
        "block_count",
        "box",
        "cell",
        "depth",
        "element_id",
        "invisible",
        "kind",
        "parent",
        "path",
        "pieces",
        "preserve",
        "segment",
    )

    def __init__(
        self,
        parent: _Frame | None,
        segment: str,
        element_id: str | None,
        depth: int,
        *,
        block: bool,
        kind: BlockKind,
        preserve: bool,
        invisible: bool,
        cell: int | None = None,
    ) -> None:
        self.parent = parent
        #: ``mem_id`` of the nearest ``td``/``th`` of a table around this element
        self.cell = cell
        self.segment = segment
        self.element_id = element_id
        self.depth = depth
        # The nearest block-level frame: where this element's text goes.
        self.box: _Frame = self if block or parent is None else parent.box
        self.kind = kind
        self.preserve = preserve
        self.invisible = invisible
        self.pieces: list[tuple[str, int]] = []
        self.block_count = 0
        self.path: str | None = None


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
    source = source.removeprefix("\ufeff")
    if _nesting_exceeds(source, 2 * options.max_depth + 64):
        raise ExtractionError(
            ErrorCode.TOO_COMPLEX, f"element nesting deeper than {options.max_depth}"
        )
    tree = LexborHTMLParser(source)
    root = tree.root
    if root is None or not root.is_element_node:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no visible text")
    places = table_cells(root)
    runs = _walk(root, options.max_depth, places)

    raw = [(frame, _render(pieces)) for frame, pieces in runs]
    raw = [(frame, text) for frame, text in raw if text.strip()]
    texts = _normalize_blocks([text for _, text in raw], profile)
    owners: list[_Frame] = []
    kept: list[str] = []
    for (frame, _), text in zip(raw, texts, strict=True):
        if not text.strip():
            continue
        kept.append(text)
        owners.append(frame)
        frame.block_count += 1
    texts = kept
    if not texts:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "document has no visible text")

    id_counts = _id_counts(root) if any(f.element_id for f in owners) else Counter[str]()
    blocks: list[Block] = []
    ordinals: dict[int, int] = {}
    position = 0
    block_ids: dict[int, list[str]] = {}
    for index, frame in enumerate(owners):
        if frame.cell is not None:
            block_ids.setdefault(frame.cell, []).append(f"b{index}")
    for index, (text, frame) in enumerate(zip(texts, owners, strict=True)):
        if index:
            position += len(BLOCK_SEPARATOR)
        if frame.block_count == 1:
            if frame.element_id and id_counts[frame.element_id] == 1:
                locator = f"#{frame.element_id}"
            else:
                locator = _path(frame)
        else:
            k = ordinals.get(id(frame), 0) + 1
            ordinals[id(frame)] = k
            locator = f"{_path(frame)}/text()[{k}]"
        blocks.append(
            Block(
                index=index,
                kind=frame.kind,
                span=Span(Coordinates.CODEPOINT, position, position + len(text)),
                locator=locator,
                cell=None if frame.cell is None else _cell(places[frame.cell], block_ids),
            )
        )
        position += len(text)
    return Extraction(
        text=BLOCK_SEPARATOR.join(texts),
        blocks=tuple(blocks),
        parser=HTML_PARSER,
        media_type="text/html",
    )


def _cell(place: CellPlace, block_ids: dict[int, list[str]]) -> TableCell:
    """The block's table cell, its header cells named by their blocks (a header cell
    without visible text has none and drops out, as the standard drops empty cells)."""
    return TableCell(
        table=place.table,
        row=place.row,
        col=place.col,
        row_span=place.row_span,
        col_span=place.col_span,
        header=place.header,
        header_ids=tuple(i for key in place.header_keys for i in block_ids.get(key, ())),
    )


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

_TAG_START: Final = re.compile(r"<(?:(!--)|(/?)([A-Za-z][^\t\n\f\r />]*)|[!?])")
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
#: how far below the top an end tag looks for its element (keeps the scan linear)
_END_TAG_REACH: Final = 64


# Start tags that may push an element: an upper bound on the nesting, found in C.
_PUSHING_START: Final = re.compile(
    r"<(?!(?:{})[\t\n\f\r />])[A-Za-z]".format("|".join(sorted(_VOID | _IMPLIED))), re.I
)


def _nesting_exceeds(text: str, limit: int) -> bool:
    """Whether the markup's element nesting would exceed ``limit`` (an estimate).

    A simplified tree builder: void and implicitly closed elements never nest,
    end tags pop to their element (formatting elements leave the blocks above
    them open, as the adoption agency algorithm does), raw text is skipped.
    It cannot be exact; the walk after parsing enforces the real limit.
    """
    if len(_PUSHING_START.findall(text)) <= limit:
        return False
    stack: list[str] = []
    open_counts: Counter[str] = Counter()
    position = 0
    while True:
        found = _TAG_START.search(text, position)
        if found is None:
            return False
        if found.group(1):  # a comment
            end = text.find("-->", found.end())
            if end < 0:
                return False
            position = end + 3
            continue
        tag_end = text.find(">", found.end())
        if tag_end < 0:
            return False
        position = tag_end + 1
        name = found.group(3)
        if name is None:  # doctype, bogus comment, processing instruction
            continue
        name = name.lower()
        if found.group(2):
            _pop_to(name, stack, open_counts)
            continue
        if name in _RAW_TEXT:
            closing = re.compile(rf"</{re.escape(name)}[\t\n\f\r />]", re.I).search(text, position)
            if closing is None:
                return False
            position = closing.start()
            continue
        if name == "plaintext":
            return False
        if name in _VOID or name in _IMPLIED:
            continue
        in_foreign = open_counts["svg"] > 0 or open_counts["math"] > 0
        if in_foreign and text[tag_end - 1] == "/":
            continue
        if name == "a" and open_counts["a"]:
            _pop_to("a", stack, open_counts)
        if name in _HEADINGS and stack and stack[-1] in _HEADINGS:
            open_counts[stack.pop()] -= 1
        stack.append(name)
        open_counts[name] += 1
        if len(stack) > limit:
            return True


def _pop_to(name: str, stack: list[str], open_counts: Counter[str]) -> None:
    if not open_counts[name]:
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
) -> list[tuple[_Frame, list[tuple[str, int]]]]:
    """Text runs in reading order, each with the block-level frame that owns it."""
    runs: list[tuple[_Frame, list[tuple[str, int]]]] = []
    top = _Frame(
        None,
        "",
        None,
        0,
        block=True,
        kind=BlockKind.PARAGRAPH,
        preserve=False,
        invisible=False,
    )
    # Entries: (node, parent frame, path segment) to enter, or (None, frame, "") to leave.
    stack: list[tuple[LexborNode | None, _Frame, str]] = [(root, top, "html")]
    while stack:
        node, parent, segment = stack.pop()
        if node is None:
            _close_run(parent, runs)
            continue
        if node.is_text_node:
            if not parent.invisible:
                content = node.text_content
                if content:
                    mode = _PRESERVE if parent.preserve else _NORMAL
                    parent.box.pieces.append((content, mode))
            continue
        frame = _enter(node, parent, segment, max_depth, places)
        if frame is None:
            continue
        if frame.box is frame:
            _close_run(parent.box, runs)
            stack.append((None, frame, ""))
        stack.extend(_children(node, frame))
    _close_run(top, runs)
    return runs


def _enter(
    node: LexborNode,
    parent: _Frame,
    segment: str,
    max_depth: int,
    places: dict[int, CellPlace],
) -> _Frame | None:
    """The frame for an element, or None when it and its subtree are not rendered."""
    tag = node.tag or ""
    if tag in _DROPPED:
        return None
    attributes = node.attributes
    if "hidden" in attributes and not _shown_default(node):
        return None
    if tag == "input" and (attributes.get("type") or "").strip(_ASCII_WS).lower() == "hidden":
        return None
    display, visibility = _inline_style(attributes.get("style"))
    if display == "none":
        return None
    depth = parent.depth + 1
    if depth > max_depth:
        raise ExtractionError(ErrorCode.TOO_COMPLEX, f"element nesting deeper than {max_depth}")
    invisible = parent.invisible if visibility is None else visibility != "visible"
    if tag == "br":
        if not invisible:
            parent.box.pieces.append(("\n", _BREAK))
        return None
    if display in _BLOCK_DISPLAYS:
        block = True
    elif display in _INLINE_DISPLAYS:
        block = False
    else:
        block = tag in _BLOCK_TAGS
    element_id = attributes.get("id")
    if element_id is not None and (not element_id or any(c in _ASCII_WS for c in element_id)):
        element_id = None
    return _Frame(
        parent,
        segment,
        element_id,
        depth,
        block=block,
        kind=(
            parent.box.kind
            if parent.box.kind is BlockKind.NAVIGATION
            else BlockKind.NAVIGATION
            if block and (_navigation(tag, attributes) or (tag == "footer" and _page_footer(node)))
            else _ROLES.get(tag, parent.box.kind)
        ),
        preserve=parent.preserve or tag in _PRE_TAGS,
        invisible=invisible,
        cell=node.mem_id if tag in ("td", "th") and node.mem_id in places else parent.cell,
    )


def _children(node: LexborNode, frame: _Frame) -> list[tuple[LexborNode, _Frame, str]]:
    """Element and text children, last first, with XPath-like segments (``p``, ``div[2]``)."""
    children: list[tuple[LexborNode, str]] = []
    name_counts: dict[str, int] = {}
    child = node.first_child
    while child is not None:
        if child.is_element_node:
            tag = child.tag or ""
            name = _SEGMENT_NAMES.get(tag)
            if name is None:
                name = tag if _SAFE_TAG.fullmatch(tag) else "*"
                if len(_SEGMENT_NAMES) < _SEGMENT_NAMES_KEPT:
                    _SEGMENT_NAMES[tag] = name
            name_counts[name] = name_counts.get(name, 0) + 1
            children.append((child, name))
        elif child.is_text_node:
            children.append((child, ""))
        child = child.next
    entries: list[tuple[LexborNode, _Frame, str]] = []
    remaining = dict(name_counts)
    for child_node, name in reversed(children):
        if not name:
            entries.append((child_node, frame, ""))
        elif name_counts[name] == 1:
            entries.append((child_node, frame, name))
        else:
            entries.append((child_node, frame, f"{name}[{remaining[name]}]"))
            remaining[name] -= 1
    return entries


def _close_run(box: _Frame, runs: list[tuple[_Frame, list[tuple[str, int]]]]) -> None:
    if box.pieces:
        runs.append((box, box.pieces))
        box.pieces = []


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


def _render(pieces: list[tuple[str, int]]) -> str:
    """One block's text: CSS ``white-space: normal`` collapsing, preserved text verbatim."""
    out: list[str] = []
    pending_space = False
    line_start = True
    preserved = False
    for text, mode in pieces:
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


def _path(frame: _Frame) -> str:
    """``/html/body/div[2]/p``, built once per frame and shared with descendants."""
    chain: list[_Frame] = []
    current: _Frame | None = frame
    while current is not None and current.path is None:
        chain.append(current)
        current = current.parent
    prefix = current.path if current is not None else ""
    for item in reversed(chain):
        prefix = f"{prefix}/{item.segment}" if item.segment else prefix
        item.path = prefix
    return frame.path or "/"


def _id_counts(root: LexborNode) -> Counter[str]:
    """How often each id occurs among all elements, rendered or not."""
    counts: Counter[str] = Counter()
    for node in root.traverse():
        element_id = node.id
        if element_id:
            counts[element_id] += 1
    return counts
