"""The application façade shared by the CLI and the HTTP API."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.service._check import CheckReport as CheckReport
    from ragox.service._check import Mismatch as Mismatch
    from ragox.service._home import default_home as default_home
    from ragox.service._home import load_or_create_key as load_or_create_key
    from ragox.service._ids import MAX_ID_BYTES as MAX_ID_BYTES
    from ragox.service._ids import document_id_problem as document_id_problem
    from ragox.service._ids import language_code_problem as language_code_problem
    from ragox.service._ids import revision_label_problem as revision_label_problem
    from ragox.service._lookup import StoreLookup as StoreLookup
    from ragox.service._ragox import ActionRefused as ActionRefused
    from ragox.service._ragox import Attention as Attention
    from ragox.service._ragox import CollectionReaders as CollectionReaders
    from ragox.service._ragox import DocumentPage as DocumentPage
    from ragox.service._ragox import DocumentStatus as DocumentStatus
    from ragox.service._ragox import InCurrent as InCurrent
    from ragox.service._ragox import IngestItem as IngestItem
    from ragox.service._ragox import NotFound as NotFound
    from ragox.service._ragox import Ragox as Ragox
    from ragox.service._ragox import ReplayedAnswer as ReplayedAnswer
    from ragox.service._ragox import ReplayedCitation as ReplayedCitation
    from ragox.service._ragox import RevisionStatus as RevisionStatus
    from ragox.service._ragox import SkipReason as SkipReason
    from ragox.service._ragox import StatusSummary as StatusSummary
    from ragox.service._ragox import Successor as Successor
    from ragox.service._ragox import WriteRefused as WriteRefused
    from ragox.service._ragox import default_document_id as default_document_id
    from ragox.service._retention import DurationError as DurationError
    from ragox.service._retention import format_duration as format_duration
    from ragox.service._retention import parse_duration as parse_duration

#: where each exported name loads from: module (relative to this package) → names
_EXPORTS = {
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
        "Attention",
        "CollectionReaders",
        "DocumentPage",
        "DocumentStatus",
        "InCurrent",
        "IngestItem",
        "NotFound",
        "Ragox",
        "ReplayedAnswer",
        "ReplayedCitation",
        "RevisionStatus",
        "SkipReason",
        "StatusSummary",
        "Successor",
        "WriteRefused",
        "default_document_id",
    ),
    "._retention": (
        "DurationError",
        "format_duration",
        "parse_duration",
    ),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
