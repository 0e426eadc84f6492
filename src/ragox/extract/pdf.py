"""The PDF adapter: MuPDF's text layer as blocks, with a box for every code point.

The representation is built from ``page.get_text("rawdict", sort=False)``, i.e.
MuPDF's own reading order, ligatures and white space kept, no dehyphenation,
characters outside the mediabox dropped:

- every text block becomes one :class:`Block` (``locator`` ``page=P;block=N`` with
  ``P`` 1-based and ``N`` MuPDF's 0-based block number on that page);
- the characters inside a table that PyMuPDF's table finder sees become one
  ``TABLE_CELL`` block per cell instead (``page=P;table=T;row=R;col=C``), with its
  place and header cells (see :mod:`ragox.extract._pdftables`);
- a block's text is its lines joined with ``"\\n"``, a line its spans' characters;
- each block is normalized on its own with the profile; blocks that are empty or
  white space only after that are dropped;
- the kept blocks are joined with :data:`BLOCK_SEPARATOR`, page by page.

``Extraction.char_boxes`` holds, for every code point of the text, four
little-endian float32 values ``x0, y0, x1, y1``: PDF points, origin top-left, in
the page as displayed (``/Rotate`` applied, like ``page.get_pixmap()``; MuPDF's
``rawdict`` and ``search_for`` give unrotated coordinates). A code point that
normalization produced from several characters gets the union of their boxes;
newlines and block separators get ``(0, 0, 0, 0)``.

Scanned pages (:class:`OcrMode`): under ``auto`` a page whose text layer has no
visible character and which shows an image is recognized by OCR (``_ocr``: the
``tesseract`` command's paragraphs in its reading order, as MuPDF-like blocks), its
blocks built the same way as a text layer's and marked ``ocr=True`` (character
boxes are estimates inside each word Tesseract boxed); under ``force``
every page is, its text layer ignored. An extraction in which OCR ran names the
engine in its parser identity (:func:`ocr_parser`); one without keeps
:data:`PDF_PARSER`, so text PDFs are not affected by the OCR engine.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import sys
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from operator import itemgetter
from typing import Any, Final

from ragox.anchor import Rect
from ragox.extract._model import (
    BLOCK_SEPARATOR,
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    OcrMode,
    ParserInfo,
)
from ragox.extract._ocr import LANGUAGES, OcrEngine, ocr_engine
from ragox.extract._pdflines import join_paragraph_lines
from ragox.extract._pdftables import MIN_RULES, CellRef, GridShape, TableTracker, split_page
from ragox.text import Alignment, Coordinates, Profile, Span

__all__ = [
    "PARALLEL_MIN_PAGES",
    "PDF_PARSER",
    "RENDER_PIXEL_BUDGET",
    "PageTextReader",
    "extract_pdf",
    "ocr_forced",
    "ocr_parser",
    "pdf_parsers",
    "render_page_png",
]

#: Most pixels one page render may hold (about 24 MB as RGB): a larger page is
#: drawn at a smaller zoom, so a 14400 pt page costs what an A4 poster does.
RENDER_PIXEL_BUDGET: Final = 8_000_000
#: Fewer pages than this are read in the calling process by default: starting
#: worker processes costs more than they save.
PARALLEL_MIN_PAGES: Final = 48


class _LazyMuPDF:
    """PyMuPDF, imported at the first attribute read: commands that open no PDF
    (``status``, ``search``, ``ask``) never pay for loading MuPDF."""

    _module: Any = None

    def __getattr__(self, name: str) -> Any:
        module = _LazyMuPDF._module
        if module is None:
            module = importlib.import_module("pymupdf")
            # MuPDF prints its errors and warnings about damaged files ("MuPDF error:
            # ...") on stdout, where they would corrupt `--json` output. They stay in
            # MuPDF's own buffer (``TOOLS.mupdf_warnings()``); PyMuPDF's own messages
            # go to Python logging.
            module.TOOLS.mupdf_display_errors(False)
            module.TOOLS.mupdf_display_warnings(False)
            module.set_messages(pylogging=True)
            # The table finder prints, once, a package recommendation with print().
            if hasattr(module, "_recommend_layout"):
                setattr(module, "_recommend_layout", False)  # noqa: B010 - untyped
            _LazyMuPDF._module = module
        return getattr(module, name)


# PyMuPDF ships py.typed with partial annotations; its objects are handled as
# ``Any`` here and typed where they leave this module.
_MUPDF: Any = _LazyMuPDF()

#: Ligatures and white space as drawn, text outside the mediabox dropped:
#: TEXT_PRESERVE_LIGATURES (1) | TEXT_PRESERVE_WHITESPACE (2) | TEXT_MEDIABOX_CLIP (64),
#: written out so that the parser identity needs no MuPDF (a test holds them to
#: PyMuPDF's constants). Not set: TEXT_DEHYPHENATE (would join "adip-" + "iscing"
#: and move code points), TEXT_PRESERVE_IMAGES (image blocks carry no text),
#: TEXT_CID_FOR_UNKNOWN_UNICODE (a glyph without a Unicode mapping stays U+FFFD
#: instead of an arbitrary code).
_FLAGS: Final[int] = 1 | 2 | 64

#: A page whose text layer is Cyrillic bytes read as Latin-1 ("Íå î÷åíü êðàòêîå
#: ââåäåíèå â LaTeX" for "Не очень краткое введение в LaTeX": a TeX font's Cyrillic
#: (T2A, as Windows-1251) without a Unicode map) writes words whose every letter is in
#: Latin-1's upper half (À to ÿ), which no word of a Latin-script language is ("été",
#: "Öl", "où" hold a letter below; a table of accents, "àâä", "éèêë", is one letter's
#: forms): at least this many such words of three letters or more, holding at least
#: this share of the page's letters, and Russian's short words standing alone ("è" и,
#: "â" в, "íå" не, "÷òî" что), at least two of them (Italian's "è" alone is one)
MISENCODED_WORDS: Final = 3
MISENCODED_SHARE: Final = 0.1
MISENCODED_SHORT_WORDS: Final = 2
#: …or, without them (a table of contents: "ÎÃËÀÂËÅÍÈÅ", "Åùå î äëèíàõ"), this many
#: such words holding this share of its letters
MISENCODED_MANY_WORDS: Final = 10
MISENCODED_MANY_SHARE: Final = 0.3
_MISREAD_WORD: Final = re.compile(
    "(?<![^\\W\\d_])[\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff]{3,}(?![^\\W\\d_])"
)
#: и, в, с, к, у, не, на, по, из, за, от, до, что, как, это, для, или, так as Latin-1
_MISREAD_SHORT: Final = re.compile(
    "(?<![^\\W\\d_])(?:è|â|ñ|ê|ó|íå|íà|ïî|èç|çà|îò|äî|÷òî|êàê|ýòî|äëÿ|èëè|òàê)(?![^\\W\\d_])"
)
_LETTER: Final = re.compile(r"[^\W\d_]")

#: Everything that changes the text, the blocks or the boxes (DESIGN §5: the
#: manifest records a hash of this).
PDF_PARSER: Final = ParserInfo(
    "pdf-pymupdf",
    # PyMuPDF's ``VersionBind`` is its package version (a test holds them equal)
    f"4+mupdf-{importlib.metadata.version('pymupdf')}",
    config={
        "output": "rawdict",
        "sort": False,
        "flags": _FLAGS,
        "dehyphenate": False,
        "clip": "mediabox",
        "line_separator": "LF",
        "block_separator": "LF LF",
        "paragraph_lines": "joined:same-font-size-weight;gap<=0.8em;"
        "full-width-before(majority-edges,not-past-right);flush-left-after(no-space-indent);"
        "no-sentence-end(closing-quotes);no-list-item-or-numbered-title;no-toc-leaders;"
        "no-page-number;not-cells;not-ocr",
        "skip_blank_blocks": True,
        "misencoded_pages": f"words-all-latin1-upper-half>={MISENCODED_WORDS}-of-3-letters"
        f"-not-one-letters-accents;>={MISENCODED_SHARE}-of-letters;"
        f"cp1251-short-words>={MISENCODED_SHORT_WORDS},or-{MISENCODED_MANY_WORDS}-words-"
        f">={MISENCODED_MANY_SHARE};ocr-else-blocks-without-such-words",
        "char_boxes": "float32le-x0y0x1y1-page-rotated-top-left",
        "multi_source_box": "union",
        "tables": f"find_tables-lines;no-layout;grid-rules={MIN_RULES}-of-one-extent-min-5pt;"
        "no-line-crossing-the-edge;half-the-cells-filled-in-2-rows;cells-by-char-centre;"
        "row0-header;continued-by-column-edges;repeated-header-by-text",
    },
)

_MEDIA_TYPE: Final = "application/pdf"
_ZERO_BOX: Final = (0.0, 0.0, 0.0, 0.0)
_SEPARATOR_BOXES: Final = _ZERO_BOX * len(BLOCK_SEPARATOR)
_SEPARATOR_BYTES: Final = array("f", _SEPARATOR_BOXES).tobytes()
_CHAR: Final = itemgetter("c")
_BBOX: Final = itemgetter("bbox")
_CHARS: Final = itemgetter("chars")
#: Stands for the LF between two lines of a block: no glyph, so a zero box.
_NEWLINE: Final = {"c": "\n", "bbox": _ZERO_BOX}
_NEWLINE_GROUP: Final = (_NEWLINE,)

# Letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, ...,
# presentation forms, and the RTL blocks of the supplementary planes).
_RTL_HINT: Final = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
# A pair of neighbouring characters closer than this along the line says nothing
# about direction (ActualText spreads replacement text over zero-width boxes).
_RTL_EPSILON: Final = 0.01

if array("f").itemsize != 4:  # pragma: no cover - every CPython platform has 4-byte floats
    raise ImportError("array('f') is not float32 on this platform")


def extract_pdf(
    data: bytes,
    profile: Profile,
    options: ExtractOptions | None = None,
    *,
    workers: int | None = None,
) -> Extraction:
    """MuPDF's text layer of ``data`` as a representation with blocks and char boxes.

    Pages without a text layer are recognized with OCR (``options.ocr``, see
    :class:`OcrMode`); their blocks say ``ocr=True``.

    A PDF of :data:`PARALLEL_MIN_PAGES` pages or more is read by ``workers``
    readers, this process and ``workers - 1`` others (default: ``$RAGOX_PDF_WORKERS``,
    else the CPUs this process may use; see :mod:`ragox.extract._pdfpool`); an
    explicit ``workers`` above one reads any PDF of two pages or more so. The
    extraction is the same either way.

    Raises :class:`ExtractionError` (``EMPTY_FILE``, ``CORRUPT_PDF``,
    ``ENCRYPTED_PDF``, ``NO_TEXT_LAYER``, ``OCR_UNAVAILABLE``, ``OCR_FAILED``) for
    input it refuses, never anything else.
    """
    if not data:
        raise ExtractionError(ErrorCode.EMPTY_FILE, "file is empty")
    password = options.password if options is not None else None
    mode = options.ocr if options is not None else OcrMode.AUTO
    language = options.language if options is not None else None
    document = _open(data, password)
    try:
        page_count: int = document.page_count
        if workers is None:
            from ragox.extract._pdfpool import default_workers  # noqa: PLC0415

            count = default_workers() if page_count >= PARALLEL_MIN_PAGES else 1
        else:
            count = workers
        if count > 1 and page_count > 1 and _rebuildable(profile):
            return _extract_parallel(
                document, data, password, page_count, profile, mode, language, count
            )
        return _extract(document, profile, mode, language)
    finally:
        document.close()


def _rebuildable(profile: Profile) -> bool:
    """Whether a worker can make ``profile`` from its id (named steps only)."""
    try:
        return Profile.from_id(profile.id) == profile
    except (ValueError, KeyError):
        return False


def _extract_parallel(
    document: Any,
    data: bytes,
    password: str | None,
    page_count: int,
    profile: Profile,
    mode: OcrMode,
    language: str | None,
    workers: int,
) -> Extraction:
    from ragox.extract._pdfpool import page_ranges, read_pages  # noqa: PLC0415 - processes

    engine = ocr_engine(language) if mode is not OcrMode.OFF else None
    repaired = False

    def read_here(pages: range) -> tuple[_Page, ...]:
        return tuple(_read_page(document, index, profile, mode, engine) for index in pages)

    def pages() -> Iterator[_Page]:
        nonlocal repaired
        ranges = page_ranges(page_count, workers)
        for read, worker_repaired in read_pages(
            data, password, profile.id, mode, language, ranges, workers, read_here
        ):
            repaired = repaired or worker_repaired
            yield from read

    return _assemble(
        pages(), page_count, lambda: repaired or bool(document.is_repaired), mode, engine
    )


def _open(data: bytes, password: str | None) -> Any:
    try:
        document = _MUPDF.open(stream=data, filetype="pdf")
    except Exception:
        raise ExtractionError(ErrorCode.CORRUPT_PDF, "MuPDF cannot open the file as PDF") from None
    try:
        if document.needs_pass:
            if password is None:
                raise ExtractionError(ErrorCode.ENCRYPTED_PDF, "PDF is encrypted; no password")
            if not document.authenticate(password):
                raise ExtractionError(ErrorCode.ENCRYPTED_PDF, "PDF password is wrong")
        if document.page_count < 1:
            raise ExtractionError(ErrorCode.CORRUPT_PDF, "PDF has no readable pages")
    except ExtractionError:
        document.close()
        raise
    except Exception:
        document.close()
        raise ExtractionError(ErrorCode.CORRUPT_PDF, "MuPDF cannot read the PDF") from None
    return document


class _RtlCounter:
    """Votes, over neighbouring right-to-left letters, for logical or visual order.

    Two votes: letters next to each other (``logical``/``visual``), and the last
    letter of a word against the first of the next one when only neutral characters
    (spaces, punctuation) lie between them (``logical_words``/``visual_words``). A
    PDF that draws each glyph on its own can come out with every word in logical
    order but the words of a line in drawing order; only the second vote sees it.
    A line whose own votes (at least two) mostly say visual counts in ``visual_lines``:
    right-to-left words inside a left-to-right line can come out in drawing order
    while the rest of the document reads logically.
    """

    __slots__ = ("logical", "logical_words", "seen", "visual", "visual_lines", "visual_words")

    def __init__(self) -> None:
        self.seen = False
        self.logical = 0
        self.visual = 0
        self.logical_words = 0
        self.visual_words = 0
        self.visual_lines = 0

    @property
    def visual_order(self) -> bool:
        """Whether some of the text reads in drawing order rather than logical order."""
        return (
            self.visual > self.logical
            or self.visual_words > self.logical_words
            or self.visual_lines > 0
        )

    def votes(self) -> tuple[int, int, int, int, int]:
        """The counts, for :meth:`add` (a page's votes sent from another process)."""
        return (self.logical, self.visual, self.logical_words, self.visual_words, self.visual_lines)

    def add(self, votes: tuple[int, int, int, int, int]) -> None:
        """Count a page's votes in (an RTL letter was seen there)."""
        self.seen = True
        self.logical += votes[0]
        self.visual += votes[1]
        self.logical_words += votes[2]
        self.visual_words += votes[3]
        self.visual_lines += votes[4]

    def inspect(self, raw_block: Any) -> None:
        # In logical order each next RTL letter lies further *against* the line's
        # writing direction; in visual (drawing) order it lies further along it.
        # Unrotated coordinates, so that /Rotate does not flip the vote.
        self.seen = True
        for line in raw_block["lines"]:
            before = self.logical + self.logical_words, self.visual + self.visual_words
            self._line(line)
            logical = self.logical + self.logical_words - before[0]
            visual = self.visual + self.visual_words - before[1]
            if visual >= 2 and visual > logical:
                self.visual_lines += 1

    def _line(self, line: Any) -> None:
        """One line's votes (unrotated coordinates, along the line's direction)."""
        dx, dy = line["dir"]
        previous_rtl = False
        previous_pos: float | None = None  # of the last RTL letter, while no
        # strong left-to-right character or number has come since
        for span in line["spans"]:
            for char in span["chars"]:
                code = char["c"]
                bidi = unicodedata.bidirectional(code) if len(code) == 1 else ""
                if bidi in ("NSM", "BN"):
                    continue  # marks and format characters ride on their letter
                is_rtl = bidi in ("R", "AL")
                if not is_rtl:
                    if bidi in ("L", "EN", "AN"):
                        previous_pos = None
                    previous_rtl = False
                    continue
                x0, y0, x1, y1 = char["bbox"]
                if abs((x1 - x0) * dx + (y1 - y0) * dy) <= _RTL_EPSILON:
                    continue  # no width (ActualText spread over its glyph): no place
                pos = (x0 + x1) * dx + (y0 + y1) * dy
                if previous_pos is not None:
                    step = (pos - previous_pos) / 2
                    if step > _RTL_EPSILON:
                        if previous_rtl:
                            self.visual += 1
                        else:
                            self.visual_words += 1
                    elif step < -_RTL_EPSILON:
                        if previous_rtl:
                            self.logical += 1
                        else:
                            self.logical_words += 1
                previous_rtl = True
                previous_pos = pos


@dataclass(frozen=True, slots=True)
class _PageBlock:
    """One kept block of a page, placed in its page's text."""

    #: code points of the page's text (separators between the page's blocks included)
    start: int
    end: int
    #: MuPDF's block number (``-1`` for a table cell)
    number: int
    bbox: tuple[float, float, float, float]
    cell: CellRef | None


@dataclass(frozen=True, slots=True)
class _Page:
    """What one page contributes: its kept blocks joined with the block separator,
    their boxes (float32, native order), and what the document's warnings and tables
    need. Holds no MuPDF object, so a page read in a worker process can be sent back."""

    number: int
    text: str
    boxes: bytes
    blocks: tuple[_PageBlock, ...]
    tables: tuple[GridShape, ...]
    rotated: bool
    #: the page shows nothing: no text, image or drawing (a separator page), so no
    #: page without text to look at
    blank: bool
    #: the page was recognized by OCR
    ocr: bool
    #: the page needed OCR and no engine was there
    unrecognized: bool
    invisible: bool
    #: the right-to-left votes of the page's blocks, or None without RTL text
    rtl: tuple[int, int, int, int, int] | None
    #: the page's text layer was misencoded (:func:`_misencoded`): recognized by OCR,
    #: or without text
    misencoded: bool = False


def _extract(document: Any, profile: Profile, mode: OcrMode, language: str | None) -> Extraction:
    engine = ocr_engine(language) if mode is not OcrMode.OFF else None
    pages = (
        _read_page(document, index, profile, mode, engine) for index in range(document.page_count)
    )
    return _assemble(pages, document.page_count, lambda: bool(document.is_repaired), mode, engine)


def _assemble(
    pages: Iterable[_Page],
    page_count: int,
    repaired: Callable[[], bool],
    mode: OcrMode,
    engine: OcrEngine | None,
) -> Extraction:
    """The document from its pages, given in page order."""
    parts: list[str] = []
    boxes: list[bytes] = []
    blocks: list[Block] = []
    empty_pages: list[int] = []
    recognized: list[int] = []
    unrecognized = False  # a page needed OCR and no engine was there
    rotated = False
    invisible = False
    rtl = _RtlCounter()
    tables = TableTracker()
    position = 0
    misencoded = False
    for page in pages:
        page_no = page.number
        misencoded = misencoded or page.misencoded
        tables.page(page.tables)
        rotated = rotated or page.rotated
        invisible = invisible or page.invisible
        unrecognized = unrecognized or page.unrecognized
        if page.ocr:
            recognized.append(page_no)
        if page.rtl is not None:
            rtl.add(page.rtl)
        if not page.blocks:
            if not page.blank:
                empty_pages.append(page_no)
            continue
        if parts:
            parts.append(BLOCK_SEPARATOR)
            boxes.append(_SEPARATOR_BYTES)
            position += len(BLOCK_SEPARATOR)
        parts.append(page.text)
        boxes.append(page.boxes)
        for found in page.blocks:
            cell = None if found.cell is None else tables.cell(found.cell, f"b{len(blocks)}")
            x0, y0, x1, y1 = found.bbox
            blocks.append(
                Block(
                    index=len(blocks),
                    kind=BlockKind.PDF_BLOCK if cell is None else BlockKind.TABLE_CELL,
                    span=Span(Coordinates.CODEPOINT, position + found.start, position + found.end),
                    locator=f"page={page_no};block={found.number}"
                    if cell is None
                    else f"page={page_no};table={cell.table};row={cell.row};col={cell.col}",
                    page=page_no,
                    bbox=Rect(x0, y0, x1, y1),
                    ocr=page.ocr,
                    cell=cell,
                )
            )
        position += len(page.text)
    if not blocks:
        if unrecognized:
            raise _unavailable()
        if misencoded:
            raise ExtractionError(
                ErrorCode.NO_TEXT_LAYER,
                "the PDF's text layer is misencoded (another script's letters read as "
                "Latin-1) and OCR is off",
            )
        raise ExtractionError(ErrorCode.NO_TEXT_LAYER, "no page of the PDF has a text layer")
    text = "".join(parts)
    packed = b"".join(boxes)
    if len(packed) != 16 * len(text):  # pragma: no cover - an invariant of the pages
        raise ExtractionError(ErrorCode.INTERNAL, "character boxes do not match the text")
    if sys.byteorder != "little":  # pragma: no cover - the stored form is little-endian
        swapped = array("f", packed)
        swapped.byteswap()
        packed = swapped.tobytes()
    warnings: list[str] = []
    if repaired():
        warnings.append("PDF_REPAIRED")
    if rotated:
        warnings.append("ROTATED_PAGES")
    if rtl.seen:
        warnings.append("RTL_TEXT")
        if rtl.visual_order:
            warnings.append("RTL_VISUAL_ORDER")
    if recognized:
        warnings.append("OCR_PAGES")
    if unrecognized:
        warnings.append("OCR_UNAVAILABLE")
    if invisible:
        warnings.append("INVISIBLE_TEXT_LAYER")
    if misencoded:
        warnings.append("MISENCODED_TEXT_LAYER")
    parser = PDF_PARSER
    if engine is not None and (recognized or mode is OcrMode.FORCE):
        parser = ocr_parser(engine, mode)
    return Extraction(
        text=text,
        blocks=tuple(blocks),
        parser=parser,
        media_type=_MEDIA_TYPE,
        source_alignment=None,
        char_boxes=packed,
        pages_without_text=tuple(empty_pages),
        page_count=page_count,
        warnings=tuple(warnings),
    )


def _blank(page: Any) -> bool:
    """Whether a page without text shows nothing at all: MuPDF's log of what its
    drawing fills and strokes is empty (no scan, not even an inline image or a shading,
    which ``get_images`` and ``get_drawings`` do not list; no text drawn as outlines);
    a page MuPDF cannot tell about is not blank."""
    try:
        return not page.get_bboxlog()
    except Exception:
        return False


def _read_page(
    document: Any, page_index: int, profile: Profile, mode: OcrMode, engine: OcrEngine | None
) -> _Page:
    """One page's blocks, boxes and signs, independent of every other page."""
    page_no = page_index + 1
    try:
        page = document.load_page(page_index)
        rotation = int(page.rotation)
        matrix = tuple(page.rotation_matrix) if rotation else None
        raw = None
        if mode is not OcrMode.FORCE:
            raw = page.get_text("rawdict", flags=_FLAGS, sort=False)
        needs_ocr = mode is OcrMode.FORCE or (
            mode is OcrMode.AUTO and not _has_text(raw) and bool(page.get_images())
        )
    except Exception:
        raise ExtractionError(ErrorCode.CORRUPT_PDF, f"MuPDF cannot read page {page_no}") from None
    unrecognized = False
    if needs_ocr and engine is None:
        if mode is OcrMode.FORCE:
            raise _unavailable()
        needs_ocr, unrecognized = False, True
    if needs_ocr:
        assert engine is not None
        raw = {"blocks": engine.recognize(page)}
    assert raw is not None
    parts: list[str] = []
    page_boxes: list[float] = []
    found: list[_PageBlock] = []
    invisible = False
    rtl: _RtlCounter | None = None
    position = 0
    units, shapes = split_page(page, raw["blocks"])
    if not needs_ocr:
        # (Tesseract's blocks are paragraphs already)
        units = join_paragraph_lines(units)
    for raw_block, cell_ref in units:
        block_text, raw_boxes = _block_text(raw_block["lines"], matrix)
        if _SURROGATE.search(block_text):
            # A broken ToUnicode map can yield lone surrogates, which have no
            # UTF-8 form; U+FFFD keeps the length, so the boxes stay aligned.
            block_text = _SURROGATE.sub("\ufffd", block_text)
        normalized = profile.normalize_text(block_text)
        text = normalized.text
        if not text or text.isspace():
            continue
        if not needs_ocr:
            invisible = invisible or _invisible(raw_block)
            if _RTL_HINT.search(text):
                if rtl is None:
                    rtl = _RtlCounter()
                rtl.inspect(raw_block)
        if parts:
            parts.append(BLOCK_SEPARATOR)
            page_boxes.extend(_SEPARATOR_BOXES)
            position += len(BLOCK_SEPARATOR)
        parts.append(text)
        if normalized.alignment.is_identity():
            page_boxes.extend(raw_boxes)
        else:
            page_boxes.extend(_carry_boxes(raw_boxes, normalized.alignment))
        x0, y0, x1, y1 = raw_block["bbox"]
        if matrix is not None:
            x0, y0, x1, y1 = _transform(x0, y0, x1, y1, matrix)
        found.append(
            _PageBlock(
                start=position,
                end=position + len(text),
                number=int(raw_block["number"]),
                bbox=(float(x0), float(y0), float(x1), float(y1)),
                cell=cell_ref,
            )
        )
        position += len(text)
    page_text = "".join(parts)
    if not needs_ocr and _misencoded(page_text):
        # Garbage is not the page's text: OCR reads what it shows, or the page has none
        if mode is not OcrMode.OFF and engine is not None:
            recognized = _read_page(document, page_index, profile, OcrMode.FORCE, engine)
            return replace(recognized, misencoded=True)
        # …its blocks of another script's letters are no text; the others are
        page_text, page_boxes, found = _kept(
            page_text,
            page_boxes,
            found,
            lambda block: not _misread_words(page_text[block.start : block.end]),
        )
        packed = array("f")
        packed.fromlist(page_boxes)
        return _Page(
            blank=False,
            number=page_no,
            text=page_text,
            boxes=packed.tobytes(),
            blocks=tuple(found),
            tables=shapes if found else (),
            rotated=rotation != 0,
            ocr=False,
            unrecognized=mode is not OcrMode.OFF,
            invisible=invisible,
            rtl=None if rtl is None or not found else rtl.votes(),
            misencoded=True,
        )
    # fromlist converts a list to float32 about three times faster than extend.
    packed = array("f")
    packed.fromlist(page_boxes)
    return _Page(
        blank=not found and _blank(page),
        number=page_no,
        text=page_text,
        boxes=packed.tobytes(),
        blocks=tuple(found),
        tables=shapes,
        rotated=rotation != 0,
        ocr=needs_ocr,
        unrecognized=unrecognized,
        invisible=invisible,
        rtl=None if rtl is None else rtl.votes(),
    )


def _unavailable() -> ExtractionError:
    return ExtractionError(
        ErrorCode.OCR_UNAVAILABLE,
        f"pages need OCR; no tesseract command with language data ({'+'.join(LANGUAGES)})",
    )


def _kept(
    text: str,
    boxes: list[float],
    blocks: list[_PageBlock],
    keep: Callable[[_PageBlock], bool],
) -> tuple[str, list[float], list[_PageBlock]]:
    """A page's text, boxes and blocks with only the blocks ``keep`` keeps, joined by the
    block separator as before."""
    parts: list[str] = []
    kept_boxes: list[float] = []
    kept: list[_PageBlock] = []
    position = 0
    for block in blocks:
        if not keep(block):
            continue
        if parts:
            parts.append(BLOCK_SEPARATOR)
            kept_boxes.extend(_SEPARATOR_BOXES)
            position += len(BLOCK_SEPARATOR)
        parts.append(text[block.start : block.end])
        kept_boxes.extend(boxes[4 * block.start : 4 * block.end])
        kept.append(replace(block, start=position, end=position + block.end - block.start))
        position += block.end - block.start
    return "".join(parts), kept_boxes, kept


def _misencoded(text: str) -> bool:
    """Whether a page's text is Cyrillic bytes read as Latin-1 (:data:`MISENCODED_WORDS`)."""
    words = _misread_words(text)
    if len(words) < MISENCODED_WORDS:
        return False
    share = sum(map(len, words)) / max(1, len(_LETTER.findall(text)))
    return (
        share >= MISENCODED_SHARE
        and len(set(_MISREAD_SHORT.findall(text))) >= MISENCODED_SHORT_WORDS
    ) or (len(words) >= MISENCODED_MANY_WORDS and share >= MISENCODED_MANY_SHARE)


def _misread_words(text: str) -> list[str]:
    """The words of ``text`` in Latin-1's upper half only that are not one letter's
    accented forms ("àâä")."""
    return [
        word
        for word in _MISREAD_WORD.findall(text)
        if len({unicodedata.normalize("NFD", letter)[0].casefold() for letter in word}) > 1
    ]


def _has_text(raw: Any) -> bool:
    """Whether a page's text layer has a block that is not white space."""
    if raw is None:
        return False
    for raw_block in raw["blocks"]:
        if raw_block["type"] != 0:
            continue
        for line in raw_block["lines"]:
            for span in line["spans"]:
                if any(not ch["c"].isspace() for ch in span["chars"]):
                    return True
    return False


def _invisible(raw_block: Any) -> bool:
    """Whether a block's text is drawn invisibly (render mode 3: what OCR tools put
    under a scan), told by MuPDF's alpha of 0."""
    return any(span.get("alpha", 255) == 0 for line in raw_block["lines"] for span in line["spans"])


def ocr_parser(engine: OcrEngine, mode: OcrMode) -> ParserInfo:
    """The identity of an extraction in which ``engine`` recognized pages: the text
    layer parser's, with the engine, its data and which pages it reads."""
    pages = "all" if mode is OcrMode.FORCE else "without-text"
    config: dict[str, str | int | float | bool] = dict(PDF_PARSER.config)
    config.update(engine.identity())
    config["ocr_pages"] = pages
    return ParserInfo(
        PDF_PARSER.name, f"{PDF_PARSER.version}{engine.version_suffix()}-{pages}", config
    )


def ocr_forced(parser_id: str) -> bool:
    """Whether a parser id names an extraction that recognized every page (``force``)."""
    return (
        parser_id.startswith(f"{PDF_PARSER.name}@")
        and "+ocr-" in parser_id
        and parser_id.endswith("-all")
    )


def pdf_parsers(
    mode: OcrMode = OcrMode.AUTO, language: str | None = None
) -> tuple[ParserInfo, ...]:
    """Every identity today's PDF extractor may give a PDF in ``mode`` (and, for OCR,
    the document's ``language``): a stored representation by one of these is up to
    date (``auto`` accepts what ``force`` made)."""
    engine = ocr_engine(language) if mode is not OcrMode.OFF else None
    if mode is OcrMode.OFF:
        return (PDF_PARSER,)
    if engine is None:
        return () if mode is OcrMode.FORCE else (PDF_PARSER,)
    if mode is OcrMode.FORCE:
        return (ocr_parser(engine, OcrMode.FORCE),)
    return (PDF_PARSER, ocr_parser(engine, OcrMode.AUTO), ocr_parser(engine, OcrMode.FORCE))


def _block_text(lines: Sequence[Any], matrix: tuple[float, ...] | None) -> tuple[str, list[float]]:
    """A block's text (lines joined with LF) and four box values per code point."""
    # One flat list of MuPDF's character dicts with a zero-box LF between lines,
    # so that the text and the boxes are each built by one C-level pass.
    groups: list[Sequence[Any]] = []
    for line in lines:
        if groups:
            groups.append(_NEWLINE_GROUP)
        groups.extend(map(_CHARS, line["spans"]))
    chars = list(chain.from_iterable(groups))
    text = "".join(map(_CHAR, chars))
    if len(text) != len(chars) or matrix is not None:
        return text, _boxes_slowly(chars, matrix)
    return text, list(chain.from_iterable(map(_BBOX, chars)))


def _boxes_slowly(chars: Sequence[Any], matrix: tuple[float, ...] | None) -> list[float]:
    """Boxes one character at a time: rotated pages, and characters that are not
    exactly one code point (their box repeats per code point, or is dropped)."""
    boxes: list[float] = []
    for char in chars:
        width = len(char["c"])
        if not width:
            continue
        box = char["bbox"]
        if matrix is not None and char is not _NEWLINE:
            x0, y0, x1, y1 = box
            box = _transform(x0, y0, x1, y1, matrix)
        boxes.extend(box * width)
    return boxes


def _transform(
    x0: float, y0: float, x1: float, y1: float, matrix: tuple[float, ...]
) -> tuple[float, float, float, float]:
    """The rectangle moved by ``matrix`` (a multiple of 90°, so it stays upright)."""
    a, b, c, d, e, f = matrix
    px0, py0 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
    px1, py1 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
    return min(px0, px1), min(py0, py1), max(px0, px1), max(py0, py1)


def _carry_boxes(raw: list[float], alignment: Alignment) -> list[float]:
    """Boxes for the normalized text: copies keep theirs, replacements get the union."""
    out: list[float] = []
    for out_start, out_end, in_start, in_end, is_copy in alignment.segments():
        if is_copy:
            out.extend(raw[4 * in_start : 4 * in_end])
        elif out_end > out_start:
            out.extend(_union(raw, in_start, in_end) * (out_end - out_start))
    return out


def _union(raw: list[float], start: int, end: int) -> tuple[float, float, float, float]:
    """The union of the boxes of characters ``[start, end)``; LF's zero box is no box."""
    found = False
    x0 = y0 = x1 = y1 = 0.0
    for k in range(4 * start, 4 * end, 4):
        a, b, c, d = raw[k], raw[k + 1], raw[k + 2], raw[k + 3]
        if a == b == c == d == 0.0:
            continue
        if not found:
            x0, y0, x1, y1 = a, b, c, d
            found = True
        else:
            x0, y0, x1, y1 = min(x0, a), min(y0, b), max(x1, c), max(y1, d)
    return x0, y0, x1, y1


class PageTextReader:
    """The page's own text inside rectangles given in displayed-page coordinates.

    Used by ``ragox check`` to compare a passage with what MuPDF finds at the
    rectangles the passage maps to (seed 003's round trip). Opens the PDF once.
    Pages in ``ocr_pages`` are recognized again by today's OCR engine, whose result
    the same engine and data reproduce.
    """

    def __init__(
        self,
        data: bytes,
        password: str | None = None,
        ocr_pages: frozenset[int] = frozenset(),
        language: str | None = None,
    ) -> None:
        self._document = _open(data, password)
        self._pages: dict[int, tuple[Any, list[tuple[float, float, str]]]] = {}
        #: pages whose text the representation took from OCR: read by OCR again
        self._ocr_pages = ocr_pages
        #: the document's given language, which chose the OCR models
        self._language = language

    def _chars(self, page_number: int) -> tuple[Any, list[tuple[float, float, str]]]:
        """The page's characters as (centre x, centre y, char), unrotated, in MuPDF order."""
        if page_number not in self._pages:
            page = self._document[page_number - 1]
            chars = []
            if page_number in self._ocr_pages:
                engine = ocr_engine(self._language)
                if engine is None:
                    raise _unavailable()
                blocks = engine.recognize(page)
            else:
                blocks = page.get_text("rawdict", flags=_FLAGS, sort=False)["blocks"]
            for block in blocks:
                for line in block.get("lines", ()):
                    for span in line["spans"]:
                        for ch in span["chars"]:
                            x0, y0, x1, y1 = ch["bbox"]
                            chars.append(((x0 + x1) / 2, (y0 + y1) / 2, ch["c"]))
            self._pages[page_number] = (page, chars)
        return self._pages[page_number]

    def __call__(self, page_number: int, rects: Sequence[Rect]) -> str:
        page, chars = self._chars(page_number)
        derotate = page.derotation_matrix
        pieces = []
        for rect in rects:
            clip = _MUPDF.Rect(rect.x0, rect.y0, rect.x1, rect.y1) * derotate
            # Half a point of tolerance: boxes are stored as float32.
            x0, y0, x1, y1 = clip.x0 - 0.5, clip.y0 - 0.5, clip.x1 + 0.5, clip.y1 + 0.5
            pieces.append("".join(c for cx, cy, c in chars if x0 <= cx <= x1 and y0 <= cy <= y1))
        return "".join(pieces)

    def close(self) -> None:
        self._document.close()


def page_labels(data: bytes, password: str | None = None) -> list[str]:
    """Each page's label as printed (the PDF's /PageLabels), or its 1-based number
    where the PDF gives none."""
    document = _open(data, password)
    try:
        return [document[i].get_label() or str(i + 1) for i in range(document.page_count)]
    finally:
        document.close()


def render_page_png(
    data: bytes, page_number: int, zoom: float = 1.5, password: str | None = None
) -> bytes:
    """A PNG of one page as displayed (rotation applied), for the viewer.

    The zoom is lowered until the pixmap fits :data:`RENDER_PIXEL_BUDGET`, which
    bounds the memory and most of the time of a render. Raises
    :class:`ExtractionError` (``NO_SUCH_PAGE``, ``RENDER_FAILED``, or what opening
    the file raises), never anything else.
    """
    document = _open(data, password)
    try:
        if not 1 <= page_number <= document.page_count:
            raise ExtractionError(ErrorCode.NO_SUCH_PAGE, "no such page")
        try:
            page = document[page_number - 1]
            width, height = float(page.rect.width), float(page.rect.height)
            if not (width > 0 and height > 0):
                raise ExtractionError(ErrorCode.RENDER_FAILED, "the page has no area")
            zoom = min(zoom, _budget_zoom(width, height))
            pixmap = page.get_pixmap(matrix=_MUPDF.Matrix(zoom, zoom))
            return bytes(pixmap.tobytes("png"))
        except ExtractionError:
            raise
        except Exception as error:  # MuPDF's own errors have no common base class
            raise ExtractionError(ErrorCode.RENDER_FAILED, type(error).__name__) from None
    finally:
        document.close()


def _budget_zoom(width: float, height: float) -> float:
    """The largest zoom z whose pixmap, each side rounded up (at most ``w·z + 1`` by
    ``h·z + 1`` pixels), stays within :data:`RENDER_PIXEL_BUDGET`: the positive root
    of ``w·h·z² + (w + h)·z + 1 = budget``."""
    area, sides = width * height, width + height
    return float(
        (-sides + (sides * sides + 4 * area * (RENDER_PIXEL_BUDGET - 1)) ** 0.5) / (2 * area)
    )
