"""Persistence behind one interface. SQLite is the embedded default.

All SQL of ragox stays inside this package.
"""

from ragox.store._blobs import BlobStore
from ragox.store._errors import RevisionConflict, StoreError, utc_now
from ragox.store._interface import Blobs, SearchIndex, Store
from ragox.store._open import STORE_VARIABLE, is_postgres_url, migrate_store, open_store
from ragox.store._records import (
    AnswerRedactor,
    BlockRange,
    CheckRun,
    ChunkRecord,
    DocumentRecord,
    ExtractionNotes,
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
from ragox.store._scope import Scope
from ragox.store.sqlite import SCHEMA_VERSION, SQLITE_VERSION, SqliteIndex, SqliteStore

__all__ = [
    "SCHEMA_VERSION",
    "SQLITE_VERSION",
    "STORE_VARIABLE",
    "AnswerRedactor",
    "BlobStore",
    "Blobs",
    "BlockRange",
    "CheckRun",
    "ChunkRecord",
    "DocumentRecord",
    "ExtractionNotes",
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
    "is_postgres_url",
    "migrate_store",
    "open_store",
    "utc_now",
]
