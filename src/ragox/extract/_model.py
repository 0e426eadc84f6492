"""What every extractor produces: a representation text and blocks with provenance."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from ragox.anchor import Rect, canonical_json, sha256_hex
from ragox.text import Alignment, Coordinates, Span

__all__ = [
    "BLOCK_SEPARATOR",
    "MAX_BLOCKS",
    "Block",
    "BlockKind",
    "ErrorCode",
    "ExtractOptions",
    "Extraction",
    "ExtractionError",
    "OcrMode",
    "ParserInfo",
    "TableCell",
]

#: The fixed separator between blocks in a representation text (HTML, Markdown, PDF).
BLOCK_SEPARATOR = "\n\n"
#: Most blocks a text document (plain text, Markdown, HTML, reStructuredText) may make;
#: more is refused ``TOO_COMPLEX`` before its blocks are built. A block costs 1 to 3
#: KB of memory through parsing and ingestion, so three megabytes of one-letter
#: paragraphs (a million blocks) took 2.5 GB and over a minute; a real manual has a
#: few thousand. Tables are bounded by their own limit (``MAX_SLOTS``).
MAX_BLOCKS = 100_000


class ErrorCode(enum.Enum):
    """Why a revision failed; shown to people and machines, never with document text."""

    EMPTY_FILE = "EMPTY_FILE"
    INVALID_UTF8 = "INVALID_UTF8"
    BINARY_CONTENT = "BINARY_CONTENT"
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"
    TOO_LARGE = "TOO_LARGE"
    TOO_COMPLEX = "TOO_COMPLEX"
    CORRUPT_PDF = "CORRUPT_PDF"
    ENCRYPTED_PDF = "ENCRYPTED_PDF"
    NO_TEXT_LAYER = "NO_TEXT_LAYER"
    #: an Office file (DOCX, PPTX, XLSX) that is not a readable OOXML package
    CORRUPT_OFFICE = "CORRUPT_OFFICE"
    #: an Office file encrypted with a password (an OOXML package inside a CFB container)
    ENCRYPTED_OFFICE = "ENCRYPTED_OFFICE"
    #: a macro-enabled Office file (.docm, .xlsm, .pptm, or a VBA project inside)
    MACRO_ENABLED = "MACRO_ENABLED"
    #: an archive that expands past the limits (total size, ratio, member count)
    ZIP_BOMB = "ZIP_BOMB"
    #: a page needs OCR and no OCR engine (Tesseract's language data) is installed
    OCR_UNAVAILABLE = "OCR_UNAVAILABLE"
    #: the OCR engine failed on a page
    OCR_FAILED = "OCR_FAILED"
    #: a page render asked for a page the file does not have
    NO_SUCH_PAGE = "NO_SUCH_PAGE"
    #: a page render that MuPDF could not draw
    RENDER_FAILED = "RENDER_FAILED"
    INTERNAL = "INTERNAL"


class ExtractionError(Exception):
    """An input an extractor refuses, with a code and a message free of document text."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message


class BlockKind(enum.Enum):
    """The structural role of a block in its source."""

    PARAGRAPH = "paragraph"
    HEADING = "heading"
    LIST_ITEM = "list-item"
    CODE = "code"
    TABLE_CELL = "table-cell"
    QUOTE = "quote"
    PDF_BLOCK = "pdf-block"
    #: a page's navigation (HTML ``nav``, ``role="navigation"``, a DocBook page's
    #: header and footer links): shown with the text, never searched or quoted
    NAVIGATION = "navigation"


@dataclass(frozen=True, slots=True)
class TableCell:
    """Where a table-cell block sits in its table, and which header cells apply to it.

    Cell, header and page provenance are kept apart (seed 000): ``row`` and ``col``
    are slots of the table's own grid (0-based, HTML's table model), ``header_ids``
    the block ids of the header cells that apply to this cell (for HTML by the HTML
    Standard's header-assignment algorithm: ``th``, ``scope``, ``headers``,
    ``rowspan``/``colspan``), never text copied into the representation.
    """

    #: 0-based ordinal of the table in the document; a PDF table continued on later
    #: pages keeps its number
    table: int
    row: int
    col: int
    row_span: int = 1
    col_span: int = 1
    #: the cell is a header cell (``th``, a Markdown header row, a PDF header row,
    #: also one repeated on a later page)
    header: bool = False
    #: block ids (``b12``) of the header cells that apply, in the standard's order
    header_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, int | bool | list[str]]:
        return {
            "table": self.table,
            "row": self.row,
            "col": self.col,
            "row_span": self.row_span,
            "col_span": self.col_span,
            "header": self.header,
            "header_ids": list(self.header_ids),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableCell:
        def number(key: str) -> int:
            value = data[key]
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"table cell field {key} is not an integer")
            return value

        ids = data.get("header_ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise ValueError("table cell header_ids is not a list of block ids")
        return cls(
            table=number("table"),
            row=number("row"),
            col=number("col"),
            row_span=number("row_span"),
            col_span=number("col_span"),
            header=bool(data.get("header", False)),
            header_ids=tuple(str(i) for i in ids),
        )


@dataclass(frozen=True, slots=True)
class Block:
    """One source block: its range in the representation and where it came from."""

    index: int
    kind: BlockKind
    span: Span  # codepoint range in the representation text
    #: HTML id or structural path, "page=3;block=2", "page=3;table=0;row=2;col=1", "lines=4-7"
    locator: str
    page: int | None = None  # 1-based PDF page
    bbox: Rect | None = None  # PDF points, origin top-left
    source: Span | None = None  # source-codepoint range (text formats)
    ocr: bool = False  # text recognized by OCR (PDF): boxes are word-level estimates
    cell: TableCell | None = None  # its place in a table (table-cell blocks)

    @property
    def block_id(self) -> str:
        return f"b{self.index}"


@dataclass(frozen=True, slots=True)
class ParserInfo:
    """An extractor's identity: ``name@version`` and a hash of its configuration."""

    name: str
    version: str
    config: Mapping[str, str | int | float | bool] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def config_sha256(self) -> str:
        return sha256_hex(canonical_json(dict(self.config)))


class OcrMode(enum.Enum):
    """When the PDF extractor recognizes pages with OCR."""

    #: pages without a text layer (and with something drawn on them); a page whose
    #: text layer is itself a (poor) OCR layer is kept as it is
    AUTO = "auto"
    #: never: a PDF without any text layer fails NO_TEXT_LAYER
    OFF = "off"
    #: every page, its text layer ignored
    FORCE = "force"


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    """Per-call inputs. Only ``ocr`` and (through OCR) ``language`` can change the
    output text, and an extraction that used OCR names the engine and its languages
    in its parser identity (``Extraction.parser``)."""

    #: password for an encrypted PDF
    password: str | None = field(default=None, repr=False)
    #: deepest element nesting an HTML extractor follows before refusing TOO_COMPLEX
    max_depth: int = 512
    #: when a PDF's pages are recognized with OCR
    ocr: OcrMode = OcrMode.AUTO
    #: the document's language when given (ISO 639-1): OCR reads with its model
    language: str | None = None


@dataclass(frozen=True, slots=True)
class Extraction:
    """The output of one extractor run over one revision's bytes."""

    text: str
    blocks: tuple[Block, ...]
    parser: ParserInfo
    media_type: str
    #: representation → decoded source code points, for text formats
    source_alignment: Alignment | None = None
    #: per code point of ``text``: x0, y0, x1, y1 (PDF only), packed float32
    char_boxes: bytes | None = None
    #: pages whose text layer is empty (PDF only), 1-based
    pages_without_text: tuple[int, ...] = ()
    page_count: int | None = None
    #: codes of things a reader should know, e.g. "RTL_TEXT", "ROTATED_PAGES"
    warnings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for block in self.blocks:
            if block.span.coordinates is not Coordinates.CODEPOINT:
                raise ValueError("block spans count code points of the representation")
            if block.span.end > len(self.text):
                raise ValueError("block span outside the representation")
