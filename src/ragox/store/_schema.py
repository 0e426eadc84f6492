"""Schema versions with forward migrations. Each entry moves the schema up by one."""

from __future__ import annotations

from typing import Final

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1: Final = (
    """CREATE TABLE documents (
        document_id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        current_revision TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE revisions (
        document_id TEXT NOT NULL REFERENCES documents(document_id) ON DELETE CASCADE,
        revision TEXT NOT NULL,
        seq INTEGER NOT NULL,
        source_sha256 TEXT NOT NULL,
        media_type TEXT NOT NULL,
        filename TEXT NOT NULL,
        size INTEGER NOT NULL,
        state TEXT NOT NULL,
        failed_stage TEXT,
        error_code TEXT,
        error_message TEXT,
        manifest_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (document_id, revision)
    )""",
    "CREATE INDEX revisions_by_source ON revisions(document_id, source_sha256)",
    """CREATE TABLE revision_groups (
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        group_name TEXT NOT NULL,
        PRIMARY KEY (document_id, revision, group_name),
        FOREIGN KEY (document_id, revision)
            REFERENCES revisions(document_id, revision) ON DELETE CASCADE
    )""",
    """CREATE TABLE manifests (
        manifest_id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        json TEXT NOT NULL,
        mac TEXT NOT NULL,
        created_at TEXT NOT NULL,
        FOREIGN KEY (document_id, revision)
            REFERENCES revisions(document_id, revision) ON DELETE CASCADE
    )""",
    "CREATE INDEX manifests_by_revision ON manifests(document_id, revision)",
    """CREATE TABLE representations (
        manifest_id TEXT PRIMARY KEY REFERENCES manifests(manifest_id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        alignment BLOB,
        char_boxes BLOB
    )""",
    """CREATE TABLE blocks (
        manifest_id TEXT NOT NULL REFERENCES representations(manifest_id) ON DELETE CASCADE,
        block_index INTEGER NOT NULL,
        kind TEXT NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        locator TEXT NOT NULL,
        page INTEGER,
        x0 REAL, y0 REAL, x1 REAL, y1 REAL,
        source_start INTEGER,
        source_end INTEGER,
        PRIMARY KEY (manifest_id, block_index)
    )""",
    "CREATE INDEX blocks_by_range ON blocks(manifest_id, start, end)",
    """CREATE TABLE anchors (
        anchor_id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL REFERENCES documents(document_id) ON DELETE CASCADE,
        revision TEXT NOT NULL,
        manifest_id TEXT NOT NULL,
        json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_by TEXT NOT NULL
    )""",
    """CREATE TABLE anchor_links (
        old_anchor_id TEXT NOT NULL,
        new_anchor_id TEXT NOT NULL,
        method TEXT NOT NULL,
        authorized_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (old_anchor_id, new_anchor_id)
    )""",
)

#: ``(version, statements)`` in order; never edit a released entry, append one.
MIGRATIONS: Final[tuple[tuple[int, tuple[str, ...]], ...]] = ((1, _V1),)

SCHEMA_VERSION: Final = MIGRATIONS[-1][0]
