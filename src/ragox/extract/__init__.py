"""Extractors: one adapter per format, each producing a representation with blocks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import Final

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
from ragox.extract.html import HTML_PARSER, extract_html
from ragox.extract.markdown import MARKDOWN_PARSER, extract_markdown
from ragox.extract.pdf import PDF_PARSER, extract_pdf
from ragox.extract.plain import PLAIN_TEXT, extract_plain_text
from ragox.extract.rst import RST_PARSER, extract_rst
from ragox.text import Profile

__all__ = [
    "BLOCK_SEPARATOR",
    "Block",
    "BlockKind",
    "ErrorCode",
    "ExtractOptions",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "ParserInfo",
    "TableCell",
    "detect_media_type",
    "extractor_for",
    "parser_for",
]

#: ``extract(data, profile, options)`` → :class:`Extraction`, or raises
#: :class:`ExtractionError` with a code; never any other exception for bad input.
Extractor = Callable[[bytes, Profile, ExtractOptions], Extraction]

_BY_SUFFIX: Final = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".log": "text/plain",
    ".csv": "text/plain",
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "text/html",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rst": "text/x-rst",
    ".rest": "text/x-rst",
}

_EXTRACTORS: Final[dict[str, tuple[ParserInfo, Extractor]]] = {
    "text/plain": (PLAIN_TEXT, extract_plain_text),
    "application/pdf": (PDF_PARSER, extract_pdf),
    "text/html": (HTML_PARSER, extract_html),
    "text/markdown": (MARKDOWN_PARSER, extract_markdown),
    "text/x-rst": (RST_PARSER, extract_rst),
}


def detect_media_type(name: str, data: bytes) -> str | None:
    """The media type by file name, then by content; None when unsupported."""
    suffix = PurePath(name).suffix.lower()
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if not suffix:
        return "text/plain"
    return None


def extractor_for(media_type: str) -> Extractor:
    """The extractor registered for ``media_type``."""
    try:
        return _EXTRACTORS[media_type][1]
    except KeyError:
        raise ExtractionError(
            ErrorCode.UNSUPPORTED_TYPE, f"no extractor for {media_type}"
        ) from None


def parser_for(media_type: str) -> ParserInfo:
    try:
        return _EXTRACTORS[media_type][0]
    except KeyError:
        raise ExtractionError(
            ErrorCode.UNSUPPORTED_TYPE, f"no extractor for {media_type}"
        ) from None
