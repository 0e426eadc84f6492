"""The application façade shared by the CLI and the HTTP API."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.service._check import (
        CheckReport,
        Mismatch,
    )
    from ragox.service._home import (
        default_home,
        load_or_create_key,
    )
    from ragox.service._ids import (
        MAX_ID_BYTES,
        document_id_problem,
        language_code_problem,
        revision_label_problem,
    )
    from ragox.service._lookup import (
        StoreLookup,
    )
    from ragox.service._ragox import (
        ActionRefused,
        CollectionReaders,
        DocumentStatus,
        IngestItem,
        NotFound,
        Ragox,
        ReplayedAnswer,
        ReplayedCitation,
        RevisionStatus,
        SkipReason,
        Successor,
        WriteRefused,
        default_document_id,
    )
    from ragox.service._retention import (
        DurationError,
        format_duration,
        parse_duration,
    )

__all__ = [
    "MAX_ID_BYTES",
    "ActionRefused",
    "CheckReport",
    "CollectionReaders",
    "DocumentStatus",
    "DurationError",
    "IngestItem",
    "Mismatch",
    "NotFound",
    "Ragox",
    "ReplayedAnswer",
    "ReplayedCitation",
    "RevisionStatus",
    "SkipReason",
    "StoreLookup",
    "Successor",
    "WriteRefused",
    "default_document_id",
    "default_home",
    "document_id_problem",
    "format_duration",
    "language_code_problem",
    "load_or_create_key",
    "parse_duration",
    "revision_label_problem",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "._check": (
            "CheckReport",
            "Mismatch",
        ),
        "._home": (
            "default_home",
            "load_or_create_key",
        ),
        "._ids": (
            "MAX_ID_BYTES",
            "document_id_problem",
            "language_code_problem",
            "revision_label_problem",
        ),
        "._lookup": ("StoreLookup",),
        "._ragox": (
            "ActionRefused",
            "CollectionReaders",
            "DocumentStatus",
            "IngestItem",
            "NotFound",
            "Ragox",
            "ReplayedAnswer",
            "ReplayedCitation",
            "RevisionStatus",
            "SkipReason",
            "Successor",
            "WriteRefused",
            "default_document_id",
        ),
        "._retention": (
            "DurationError",
            "format_duration",
            "parse_duration",
        ),
    },
)
