"""Persistence behind one interface. SQLite is the embedded default.

All SQL of ragox stays inside this package.
"""

from ragox.store._blobs import BLOBS_VARIABLE, Blobs, BlobStore, open_blobs
from ragox.store._errors import RevisionConflict, StoreError, utc_now
from ragox.store._hits import HitSource
from ragox.store._interface import JobQueue, SearchIndex, Store
from ragox.store._open import (
    STORE_VARIABLE,
    has_store,
    is_postgres_url,
    migrate_store,
    open_store,
)
from ragox.store._queue import WORKER_LOST
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
    RevisionFacts,
    RevisionReads,
    RevisionRecord,
    RevisionState,
    RevisionView,
    StoredAnchor,
)
from ragox.store._scope import Scope
from ragox.store.sqlite import SCHEMA_VERSION, SQLITE_VERSION, SqliteIndex, SqliteStore

__all__ = [
    "BLOBS_VARIABLE",
    "SCHEMA_VERSION",
    "SQLITE_VERSION",
    "STORE_VARIABLE",
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
    "RevisionFacts",
    "RevisionReads",
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
    "has_store",
    "is_postgres_url",
    "migrate_store",
    "open_blobs",
    "open_store",
    "utc_now",
]
