"""Office Open XML adapters: Word (DOCX), PowerPoint (PPTX) and Excel (XLSX).

Each format is read by its well-kept library (python-docx, python-pptx, openpyxl)
after :mod:`ragox.extract.office._package` has checked the ZIP package (encryption,
macros, expansion limits, DTDs) without inflating it. Nothing in a file is ever
run: the libraries read XML, and macro-enabled files are refused.
"""

from __future__ import annotations

from typing import Final

from ragox.extract._model import (
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
)
from ragox.extract.office._package import (
    MAX_MEMBERS,
    MAX_RATIO,
    MAX_UNCOMPRESSED_BYTES,
)
from ragox.extract.office.docx import DOCX_MEDIA_TYPE, DOCX_PARSER, extract_docx
from ragox.extract.office.pptx import PPTX_MEDIA_TYPE, PPTX_PARSER, extract_pptx
from ragox.extract.office.xlsx import XLSX_MEDIA_TYPE, XLSX_PARSER, extract_xlsx
from ragox.text import Profile

__all__ = [
    "DOCX_MEDIA_TYPE",
    "DOCX_PARSER",
    "MACRO_MEDIA_TYPES",
    "MACRO_REFUSAL",
    "MAX_MEMBERS",
    "MAX_RATIO",
    "MAX_UNCOMPRESSED_BYTES",
    "OFFICE_SUFFIXES",
    "PPTX_MEDIA_TYPE",
    "PPTX_PARSER",
    "XLSX_MEDIA_TYPE",
    "XLSX_PARSER",
    "extract_docx",
    "extract_pptx",
    "extract_xlsx",
    "refuse_macros",
    "sniff_office",
]

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
