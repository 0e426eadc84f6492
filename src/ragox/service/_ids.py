"""The rule for document ids and revision labels (README "Document ids").

An id is what the API puts in a URL path (``/v1/documents/{id}/revisions/{rev}/…``)
and what the CLI prints on one line, so it must survive both: at most
:data:`MAX_ID_BYTES` bytes of UTF-8, no control characters or line breaks, no lone
surrogates, no empty, ``.`` or ``..`` segments, and no segment ``revisions`` (an id
``a/revisions/r1/text`` would be taken for the text route of document ``a``). A
revision label follows the same rule and has no ``/`` at all.
"""

from __future__ import annotations

import re
from typing import Final

# The rule itself lives at the ingestor's gate (every way in applies it there too).
from ragox.ingest._ids import MAX_ID_BYTES, document_id_problem, revision_label_problem

__all__ = [
    "MAX_ID_BYTES",
    "document_id_problem",
    "language_code_problem",
    "revision_label_problem",
]

#: An ISO 639-1 (or 639-3) language code: a document's language, an answer's.
_LANGUAGE_CODE: Final = re.compile(r"[A-Za-z]{2,3}")


def language_code_problem(value: str) -> str | None:
    """Why ``value`` cannot be a language code (``en``, ``de``, ``ar``), else None."""
    if not _LANGUAGE_CODE.fullmatch(value):
        return "is not an ISO 639-1 code (two or three letters, such as en, de or ar)"
    return None
