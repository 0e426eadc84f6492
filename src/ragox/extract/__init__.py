"""Extractors: one adapter per format, each producing a representation with blocks."""

from __future__ import annotations

import importlib
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
)
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

#: media type → the module of its adapter, and the names of its parser info and its
#: extract function there (imported when first asked for: a command that reads no
#: PDF never loads PyMuPDF).
_ADAPTERS: Final[dict[str, tuple[str, str, str]]] = {
    "text/plain": ("ragox.extract.plain", "PLAIN_TEXT", "extract_plain_text"),
    "application/pdf": ("ragox.extract.pdf", "PDF_PARSER", "extract_pdf"),
    "text/html": ("ragox.extract.html", "HTML_PARSER", "extract_html"),
    "text/markdown": ("ragox.extract.markdown", "MARKDOWN_PARSER", "extract_markdown"),
    "text/x-rst": ("ragox.extract.rst", "RST_PARSER", "extract_rst"),
}

#: the adapters loaded so far: media type → parser info and extract function
_EXTRACTORS: Final[dict[str, tuple[ParserInfo, Extractor]]] = {}


def _registered(media_type: str) -> tuple[ParserInfo, Extractor]:
    loaded = _EXTRACTORS.get(media_type)
    if loaded is not None:
        return loaded
    try:
        module, parser, extract = _ADAPTERS[media_type]
    except KeyError:
        raise ExtractionError(
            ErrorCode.UNSUPPORTED_TYPE, f"no extractor for {media_type}"
        ) from None
    adapter = importlib.import_module(module)
    info: ParserInfo = getattr(adapter, parser)
    function: Extractor = getattr(adapter, extract)
    _EXTRACTORS[media_type] = (info, function)
    return info, function


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
    return _registered(media_type)[1]


def parser_for(media_type: str) -> ParserInfo:
    return _registered(media_type)[0]
