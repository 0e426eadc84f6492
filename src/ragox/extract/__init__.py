"""Extractors: one adapter per format, each producing a representation with blocks."""

from __future__ import annotations

import importlib
import re
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
    OcrMode,
    ParserInfo,
    TableCell,
)
from ragox.extract._office_types import (
    DOCX_MEDIA_TYPE,
    MACRO_MEDIA_TYPES,
    OFFICE_SUFFIXES,
    PPTX_MEDIA_TYPE,
    XLSX_MEDIA_TYPE,
    sniff_office,
)
from ragox.text import Profile

__all__ = [
    "BLOCK_SEPARATOR",
    "REEXTRACTED_TYPES",
    "Block",
    "BlockKind",
    "ErrorCode",
    "ExtractOptions",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "OcrMode",
    "ParserInfo",
    "TableCell",
    "detect_media_type",
    "extractor_for",
    "parser_for",
    "parsers_for",
    "sniffed_whole",
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
    **OFFICE_SUFFIXES,
}

#: the plain-text files a package or a project ships by name, whose suffix is no type
#: but a variant ("README.Debian", "README.source", "NEWS.Debian"; "TODO.md" has its own)
#: or a language (Emacs's "TUTORIAL.de", "TUTORIAL.ru": a new-user pass, nu16)
_DOC_NAME: Final = re.compile(
    r"(?i)readme|news|todo|changes|changelog|authors|hacking|contributing|bugs|faq"
    r"|copying|thanks|maintainers|tutorial|install|license|licence|copyright|credits"
    r"|history|usage|intro"
)
#: a variant's suffix: a capitalised word ("Debian", "Bugs") or one Debian's packages
#: use ("source", "saving", "maintainers", …); never a type's ("security.pem",
#: "install.sh", "news.json" are not documentation to read)
_VARIANT: Final = re.compile(
    r"[A-Z][a-z]+(?:[-_][A-Za-z]+)*"
    r"|(?i:debian|source|bugs|saving|maintainers|upstream|packaging|devel|developers"
    r"|multiarch|compat|translators|contributors|ubuntu)"
    # …or the name of what it documents ("README.policy-rc.d", "README.multipath-tools")
    r"|[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*"
)
#: the last suffixes of a variant that name a program's, a key's or an archive's type
_NOT_VARIANT: Final = frozenset(
    {
        "sh", "bash", "py", "pl", "rb", "js", "php", "lua", "tcl", "pem", "key", "crt",
        "der", "p12", "gpg", "asc", "sig", "gz", "bz2", "xz", "zst", "zip", "tar", "deb",
        "so", "bin", "exe", "dll", "o", "a", "json", "xml", "yaml", "yml", "toml", "ini",
        "conf", "cfg", "service", "desktop", "png", "jpg", "jpeg", "gif", "svg",
        # source code and build files under a documentation name ("history.c",
        # "install.bat", "INSTALL.mk": a red team's cases)
        # (not "cs", "el", "am", "ts", "mk": languages' codes, "README.cs" is Czech)
        "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "go", "rs", "java", "kt", "swift",
        "tsx", "jsx", "bat", "cmd", "ps1", "psm1", "vbs", "cmake", "m4",
        "rtf", "tex", "sty", "vim", "sql", "patch", "diff",
    }
)  # fmt: skip

#: media type → the module of its adapter, and the names of its parser info and its
#: extract function there (imported when first asked for: a command that reads no
#: PDF never loads PyMuPDF, one that reads no Word file never loads python-docx).
_ADAPTERS: Final[dict[str, tuple[str, str, str]]] = {
    "text/plain": ("ragox.extract.plain", "PLAIN_TEXT", "extract_plain_text"),
    "application/pdf": ("ragox.extract.pdf", "PDF_PARSER", "extract_pdf"),
    "text/html": ("ragox.extract.html", "HTML_PARSER", "extract_html"),
    "text/markdown": ("ragox.extract.markdown", "MARKDOWN_PARSER", "extract_markdown"),
    "text/x-rst": ("ragox.extract.rst", "RST_PARSER", "extract_rst"),
    DOCX_MEDIA_TYPE: ("ragox.extract.office.docx", "DOCX_PARSER", "extract_docx"),
    PPTX_MEDIA_TYPE: ("ragox.extract.office.pptx", "PPTX_PARSER", "extract_pptx"),
    XLSX_MEDIA_TYPE: ("ragox.extract.office.xlsx", "XLSX_PARSER", "extract_xlsx"),
    **{
        media_type: ("ragox.extract._office_types", "MACRO_REFUSAL", "refuse_macros")
        for media_type in MACRO_MEDIA_TYPES.values()
    },
}

#: Media types whose representation is checked by extracting the source again and
#: comparing each block's text at its locator (no source code points to map back to).
REEXTRACTED_TYPES: Final = frozenset(
    {"text/html", DOCX_MEDIA_TYPE, PPTX_MEDIA_TYPE, XLSX_MEDIA_TYPE}
)

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


#: markup whose source a documentation generator publishes as text: Sphinx's
#: ``_sources/index.rst.txt`` (and MyST's ``.md.txt``) is reStructuredText (Markdown)
_SOURCE_TYPES: Final = frozenset({"text/x-rst", "text/markdown"})


def detect_media_type(name: str, data: bytes) -> str | None:
    """The media type by file name, then by content; None when unsupported."""
    suffixes = [suffix.lower() for suffix in PurePath(name).suffixes]
    suffix = suffixes[-1] if suffixes else ""
    if suffix == ".txt" and len(suffixes) > 1 and _BY_SUFFIX.get(suffixes[-2]) in _SOURCE_TYPES:
        return _BY_SUFFIX[suffixes[-2]]
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    office = sniff_office(data)
    if office is not None:
        return office
    if not suffix:
        return "text/plain"
    if sniffed_whole(name) and _textual(data):
        return "text/plain"
    return None


def sniffed_whole(name: str) -> bool:
    """Whether :func:`detect_media_type` reads all of a file by this name to tell its
    type (a package's "README.Debian": text only if all of it is UTF-8); for any other
    name its first bytes tell."""
    head, _, variant = PurePath(name).name.partition(".")
    return bool(
        _DOC_NAME.fullmatch(head)
        and _VARIANT.fullmatch(variant)
        and variant.rsplit(".", 1)[-1].lower() not in _NOT_VARIANT
    )


def _textual(data: bytes) -> bool:
    """UTF-8 text without NUL: no compressed stream, no Latin-1 further down
    ("changelog.Debian.gz" stays unsupported, not a decoding failure)."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def extractor_for(media_type: str) -> Extractor:
    """The extractor registered for ``media_type``."""
    return _registered(media_type)[1]


def parser_for(media_type: str) -> ParserInfo:
    return _registered(media_type)[0]


def parsers_for(
    media_type: str, ocr: OcrMode = OcrMode.AUTO, language: str | None = None
) -> tuple[ParserInfo, ...]:
    """Every identity today's extractor for ``media_type`` may give its output with
    OCR mode ``ocr`` (PDF: the text layer's, or one naming the OCR engine and the
    models the document's given ``language`` chose); a stored representation by one
    of them needs no new extraction."""
    if media_type == "application/pdf":
        from ragox.extract.pdf import pdf_parsers  # noqa: PLC0415 - loads MuPDF

        return pdf_parsers(ocr, language)
    return (parser_for(media_type),)
