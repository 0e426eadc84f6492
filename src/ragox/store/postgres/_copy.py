"""``ragox migrate-store``: copy an embedded (SQLite) home into PostgreSQL.

Every row keeps its values (chunk row numbers included, so equal BM25 scores break
ties alike); originals move from the blob folder into the database; lexical rows are
re-written from FTS5's stored bodies into postings, partitioned as before. The copy
is one PostgreSQL transaction: it is whole or absent. The target must be empty.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Final

import numpy as np

from ragox.store._errors import StoreError
from ragox.store.postgres._schema import ANN_SQL
from ragox.store.postgres._store import PostgresStore
from ragox.store.sqlite import SqliteStore

__all__ = ["CopyCounts", "copy_sqlite_store"]

#: ``(table, columns)`` parents first; the column lists are valid in both dialects.
_TABLES: Final = (
    ("documents", "tenant, document_id, current_revision, created_at, language"),
    (
        "revisions",
        "tenant, document_id, revision, seq, source_sha256, media_type, filename, size, "
        "state, failed_stage, error_code, error_message, manifest_id, created_at, updated_at, "
        "supplied_by",
    ),
    ("revision_groups", "tenant, document_id, revision, group_name"),
    ("manifests", "manifest_id, tenant, document_id, revision, json, mac, created_at"),
    (
        "representations",
        "manifest_id, text, alignment, char_boxes, page_count, pages_without_text, warnings, "
        "language",
    ),
    (
        "blocks",
        'manifest_id, block_index, kind, start, "end", locator, page, x0, y0, x1, y1, '
        "source_start, source_end, ocr, cell",
    ),
    ("search_texts", "manifest_id, text, alignment, cleaner, splitter, chunker, analyzer"),
    (
        "chunks",
        'chunk_id, rowid, manifest_id, ordinal, start, "end", search_start, search_end, tokens, '
        "blocks, chunker, splitter",
    ),
    (
        "anchors",
        "tenant, anchor_id, document_id, revision, manifest_id, json, created_at, created_by",
    ),
    ("anchor_links", "tenant, old_anchor_id, new_anchor_id, method, authorized_by, created_at"),
    ("answers", "answer_id, tenant, principal, created_at, json"),
    ("answer_traces", "answer_id, created_at, json"),
    ("answer_documents", "tenant, document_id, answer_id"),
    (
        "jobs",
        "job_id, tenant, document_id, revision, state, stage, error_code, created_at, "
        "finished_at, pid, host, heartbeat_at, worker, lease_seconds, lease_until, attempts, ocr",
    ),
    (
        "api_keys",
        "key_hash, principal, tenant, groups, created_at, revoked_at, write_prefixes, operate",
    ),
    (
        "check_runs",
        "run_id, tenant, document_id, revision, manifest_id, parser, created_at, chunks, "
        "fragments, mismatches",
    ),
    ("reprocess_reports", "report_id, tenant, created_at, json"),
)
#: settings that describe the data (not counters of this database)
_SETTINGS: Final = (
    "embedder_key",
    "embedder_spec",
    "answer_retention_seconds",
    "trace_retention_seconds",
)


@dataclass(frozen=True, slots=True)
class CopyCounts:
    """What was copied: rows per table, originals, vectors and lexical rows."""

    rows: tuple[tuple[str, int], ...]
    blobs: int
    vectors: int
    lexical_rows: int


def copy_sqlite_store(source: SqliteStore, target: PostgresStore) -> CopyCounts:
    """Copy every row of ``source`` into the empty ``target``, in one transaction."""
    reader = source._connection()
    counts: list[tuple[str, int]] = []
    reader.execute("BEGIN")  # one snapshot of the source (writers may go on)
    try:
        return _copy(source, reader, target, counts)
    finally:
        reader.execute("COMMIT")


def _copy(
    source: SqliteStore,
    reader: sqlite3.Connection,
    target: PostgresStore,
    counts: list[tuple[str, int]],
) -> CopyCounts:
    with target.transaction() as conn:
        if conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is not None:
            raise StoreError("the target store is not empty")
        for table, columns in _TABLES:
            rows = reader.execute(f"SELECT {columns} FROM {table}").fetchall()
            if table == "api_keys":
                rows = [(*row[:-1], bool(row[-1])) for row in rows]
            elif table == "blocks":  # SQLite's 0/1 is PostgreSQL's boolean
                rows = [(*row[:-2], bool(row[-2]), row[-1]) for row in rows]
            with (
                conn.cursor() as cursor,
                cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
            ):
                for row in rows:
                    copy.write_row(row)
            counts.append((table, len(rows)))
        conn.execute(
            "SELECT setval(pg_get_serial_sequence('chunks', 'rowid'), "
            "GREATEST((SELECT MAX(rowid) FROM chunks), 1))"
        )
        for key in _SETTINGS:
            value = source.index.setting(key)
            if value is not None:
                conn.execute(
                    "INSERT INTO settings(key, value) VALUES(%s, %s) "
                    "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    (key, value),
                )
        vectors = 0
        for chunk_id, key, blob in reader.execute(
            "SELECT chunk_id, embedder_key, vector FROM embeddings"
        ):
            conn.execute(
                "INSERT INTO embeddings(chunk_id, embedder_key, vector) VALUES(%s, %s, %s)",
                (chunk_id, key, np.frombuffer(bytes(blob), dtype="<f4")),
            )
            vectors += 1
        lexical = 0
        for tenant, name in reader.execute(
            "SELECT tenant, name FROM lexical_partitions ORDER BY partition_id"
        ).fetchall():
            bodies = reader.execute(
                f"SELECT c.manifest_id, c.chunk_id, t.body, rep.language FROM {name} t "
                "JOIN chunks c ON c.rowid = t.rowid "
                "JOIN representations rep ON rep.manifest_id = c.manifest_id "
                "ORDER BY c.manifest_id, c.rowid"
            ).fetchall()
            by_manifest: dict[str, tuple[str | None, list[tuple[str, str]]]] = {}
            for manifest_id, chunk_id, body, language in bodies:
                entry = by_manifest.setdefault(str(manifest_id), (language, []))
                entry[1].append((str(chunk_id), str(body)))
            for manifest_id, (language, rows) in by_manifest.items():
                target.index.write_lexical_rows(conn, str(tenant), manifest_id, language, rows)
                lexical += len(rows)
        conn.execute(ANN_SQL)  # the recorded embedder's vector index
        blobs = 0
        for (sha256,) in reader.execute("SELECT DISTINCT source_sha256 FROM revisions"):
            if source.blobs.exists(str(sha256)):
                data = source.blobs.get(str(sha256))
                conn.execute(
                    "INSERT INTO blobs(sha256, data) VALUES(%s, %s) ON CONFLICT DO NOTHING",
                    (str(sha256), data),
                )
                blobs += 1
        target.index.bump(conn)
    return CopyCounts(tuple(counts), blobs, vectors, lexical)
