"""The rule for document ids and revision labels (README "Document ids"), kept at the
ingestor's gate so that every way in (CLI, API, workers, the Python API) refuses the
same ids before anything is stored.

An id is what the API puts in a URL path (``/v1/documents/{id}/revisions/{rev}/…``)
and what the CLI prints on one line, so it must survive both: at most
:data:`MAX_ID_BYTES` bytes of UTF-8, no control characters (NUL included: PostgreSQL
cannot store it) or line breaks, no lone surrogates, no empty, ``.`` or ``..``
segments, and no segment ``revisions`` (an id ``a/revisions/r1/text`` would be taken
for the text route of document ``a``). A revision label follows the same rule and has
no ``/`` at all.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from ragox.access import invisible_format

__all__ = ["INVALID_NAME", "MAX_ID_BYTES", "document_id_problem", "revision_label_problem"]

#: The error code of an id or label that breaks the rule (the CLI's skip reason too).
INVALID_NAME: Final = "INVALID_NAME"
#: Longest document id or revision label, in bytes of UTF-8.
MAX_ID_BYTES: Final = 1024
#: Control characters, lone surrogates, and the Unicode line and paragraph separators.
_FORBIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cs", "Zl", "Zp"})
_RESERVED_SEGMENTS: Final = frozenset({"", ".", "..", "revisions"})


def document_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a document id (one short phrase, no echo of it), else None."""
    if not value:
        return "is empty"
    if any(unicodedata.category(c) in _FORBIDDEN_CATEGORIES for c in value):
        return "contains a control character, line break or lone surrogate"
    if invisible_format(value):
        # "staff/a\u202egnp.txt" is shown as "staff/atxt.png" (a new-user pass),
        # "x/a\u200bb" as "x/ab" (red-team)
        return "contains a bidirectional control or invisible format character"
    if len(value.encode("utf-8")) > MAX_ID_BYTES:
        return f"is longer than {MAX_ID_BYTES} bytes"
    if any(segment in _RESERVED_SEGMENTS for segment in value.split("/")):
        return "has an empty, '.', '..' or 'revisions' path segment"
    return None


def revision_label_problem(value: str) -> str | None:
    """Why ``value`` cannot be a revision label, else None."""
    if "/" in value:
        return "contains '/'"
    return document_id_problem(value)
