"""What every extractor produces: a representation text and blocks with provenance."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from ragox.anchor import Rect, canonical_json, sha256_hex
from ragox.text import Alignment, Coordinates, Span

__all__ = [
    "BLOCK_SEPARATOR",
    "Block",
    "BlockKind",
    "ErrorCode",
    "ExtractOptions",
    "Extraction",
    "ExtractionError",
    "OcrMode",
    "ParserInfo",
]

#: The fixed separator between blocks in a representation text (HTML, Markdown, PDF).
BLOCK_SEPARATOR = "\n\n"


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


@dataclass(frozen=True, slots=True)
class Block:
    """One source block: its range in the representation and where it came from."""

    index: int
    kind: BlockKind
    span: Span  # codepoint range in the representation text
    locator: str  # HTML id or structural path, "page=3;block=2", "lines=4-7"
    page: int | None = None  # 1-based PDF page
    bbox: Rect | None = None  # PDF points, origin top-left
    source: Span | None = None  # source-codepoint range (text formats)
    ocr: bool = False  # text recognized by OCR (PDF): boxes are word-level estimates

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
    """Per-call inputs. Only ``ocr`` can change the output text, and an extraction
    that used OCR names it in its parser identity (``Extraction.parser``)."""

    #: password for an encrypted PDF
    password: str | None = field(default=None, repr=False)
    #: deepest element nesting an HTML extractor follows before refusing TOO_COMPLEX
    max_depth: int = 512
    #: when a PDF's pages are recognized with OCR
    ocr: OcrMode = OcrMode.AUTO


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
