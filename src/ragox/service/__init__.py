"""The application façade shared by the CLI and the HTTP API."""

from ragox.service._check import CheckReport, Mismatch
from ragox.service._home import default_home, load_or_create_key
from ragox.service._lookup import StoreLookup
from ragox.service._ragox import (
    ActionRefused,
    DocumentStatus,
    IngestItem,
    NotFound,
    Ragox,
    ReplayedAnswer,
    ReplayedCitation,
    RevisionStatus,
    SkipReason,
    Successor,
    default_document_id,
)

__all__ = [
    "ActionRefused",
    "CheckReport",
    "DocumentStatus",
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
    "default_document_id",
    "default_home",
    "load_or_create_key",
]
