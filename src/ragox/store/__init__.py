"""Persistence behind one interface. SQLite is the embedded default.

All SQL of ragox stays inside this package.
"""

from ragox.store._blobs import BLOBS_VARIABLE, Blobs, BlobStore, open_blobs
from ragox.store._hits import HitSource
from ragox.store._index import Scope, SqliteIndex
from ragox.store._interface import JobQueue, SearchIndex, Store
from ragox.store._records import (
    AnswerRedactor,
    BlockRange,
    CheckRun,
    ChunkRecord,
    DocumentRecord,
    ExtractionNotes,
    JobClaim,
    JobRecord,
    JobState,
    KeyInfo,
    KeyRecord,
    LexicalRows,
    ManifestRecord,
    ProcessingVersions,
    PurgeCounts,
    RetentionPolicy,
    RevisionRecord,
    RevisionState,
    RevisionView,
    StoredAnchor,
)
from ragox.store._schema import SCHEMA_VERSION
from ragox.store._sqlite import RevisionConflict, SqliteStore, StoreError, utc_now
from ragox.store._sqlite_queue import WORKER_LOST

__all__ = [
    "BLOBS_VARIABLE",
    "SCHEMA_VERSION",
    "WORKER_LOST",
    "AnswerRedactor",
    "BlobStore",
    "Blobs",
    "BlockRange",
    "CheckRun",
    "ChunkRecord",
    "DocumentRecord",
    "ExtractionNotes",
    "HitSource",
    "JobClaim",
    "JobQueue",
    "JobRecord",
    "JobState",
    "KeyInfo",
    "KeyRecord",
    "LexicalRows",
    "ManifestRecord",
    "ProcessingVersions",
    "PurgeCounts",
    "RetentionPolicy",
    "RevisionConflict",
    "RevisionRecord",
    "RevisionState",
    "RevisionView",
    "Scope",
    "SearchIndex",
    "SqliteIndex",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoredAnchor",
    "open_blobs",
    "utc_now",
]
