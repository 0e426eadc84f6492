"""What ragox knows of Office files without their libraries: media types, suffixes,
content sniffing and the refusal of macro-enabled files (imported by the extractor
registry at start-up; the adapters in :mod:`ragox.extract.office` load python-docx,
python-pptx and openpyxl only when a file of theirs is read)."""

from __future__ import annotations

from typing import Final

from ragox.extract._model import (
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.text import Profile

__all__ = [
    "DOCX_MEDIA_TYPE",
    "MACRO_MEDIA_TYPES",
    "MACRO_REFUSAL",
    "OFFICE_SUFFIXES",
    "PPTX_MEDIA_TYPE",
    "XLSX_MEDIA_TYPE",
    "refuse_macros",
    "sniff_office",
]

DOCX_MEDIA_TYPE: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX_MEDIA_TYPE: Final = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX_MEDIA_TYPE: Final = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

#: The macro-enabled variants: registered so that they fail with MACRO_ENABLED
#: (a clear reason) instead of being skipped as an unknown type.
MACRO_MEDIA_TYPES: Final = {
    "docm": "application/vnd.ms-word.document.macroEnabled.12",
    "pptm": "application/vnd.ms-powerpoint.presentation.macroEnabled.12",
    "xlsm": "application/vnd.ms-excel.sheet.macroEnabled.12",
}

OFFICE_SUFFIXES: Final = {
    ".docx": DOCX_MEDIA_TYPE,
    ".pptx": PPTX_MEDIA_TYPE,
    ".xlsx": XLSX_MEDIA_TYPE,
    **{f".{suffix}": media_type for suffix, media_type in MACRO_MEDIA_TYPES.items()},
}

#: The identity recorded for a refusal of a macro-enabled file (nothing is extracted).
MACRO_REFUSAL: Final = ParserInfo("office-macro-refusal", "1", {"macros": "refused"})

#: The main part that tells the three formats apart in a ZIP without a known suffix.
_MAIN_PARTS: Final = (
    (b"word/document.xml", DOCX_MEDIA_TYPE),
    (b"ppt/presentation.xml", PPTX_MEDIA_TYPE),
    (b"xl/workbook.xml", XLSX_MEDIA_TYPE),
)


def refuse_macros(
    data: bytes, profile: Profile, options: ExtractOptions | None = None
) -> Extraction:
    """The extractor of .docm, .pptm and .xlsm files: refuses them, reading nothing."""
    raise ExtractionError(
        ErrorCode.MACRO_ENABLED,
        "macro-enabled Office files are refused; save it without macros (.docx, .pptx, .xlsx)",
    )


def sniff_office(data: bytes) -> str | None:
    """The OOXML media type of a ZIP whose name says nothing, from its part names
    (``[Content_Types].xml`` and the main part, in the local headers near the start
    or the central directory at the end)."""
    if not data.startswith(b"PK\x03\x04"):
        return None
    head = data[: 64 * 1024] + data[-64 * 1024 :]  # local headers and central directory
    if b"[Content_Types].xml" not in head:
        return None
    for name, media_type in _MAIN_PARTS:
        if name in head:
            return media_type
    return None
