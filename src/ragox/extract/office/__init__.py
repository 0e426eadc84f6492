"""Office Open XML adapters: Word (DOCX), PowerPoint (PPTX) and Excel (XLSX).

Each format is read by its well-kept library (python-docx, python-pptx, openpyxl)
after :mod:`ragox.extract.office._package` has checked the ZIP package (encryption,
macros, expansion limits, DTDs) without inflating it. Nothing in a file is ever
run: the libraries read XML, and macro-enabled files are refused.
"""

from __future__ import annotations

from ragox.extract._office_types import (
    MACRO_MEDIA_TYPES,
    MACRO_REFUSAL,
    OFFICE_SUFFIXES,
    refuse_macros,
    sniff_office,
)
from ragox.extract.office._package import (
    MAX_MEMBERS,
    MAX_RATIO,
    MAX_UNCOMPRESSED_BYTES,
)
from ragox.extract.office.docx import DOCX_MEDIA_TYPE, DOCX_PARSER, extract_docx
from ragox.extract.office.pptx import PPTX_MEDIA_TYPE, PPTX_PARSER, extract_pptx
from ragox.extract.office.xlsx import XLSX_MEDIA_TYPE, XLSX_PARSER, extract_xlsx

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
