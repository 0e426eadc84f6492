"""What ``ragox status`` shows of a tenant's documents, in five queries whatever their
number (issue 15), for both backends: the SQL is the same but for its parameter mark.

Read one by one, status cost about ten queries per document (its revisions, each
one's reader groups, latest job, manifest, chunk count, notes, index versions and
missing vectors): seconds for a home of a hundred thousand chunks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Final

from ragox.anchor import Manifest
from ragox.store._records import (
    DocumentRecord,
    ExtractionNotes,
    JobRecord,
    JobState,
    ProcessingVersions,
    RevisionReads,
    RevisionRecord,
    RevisionState,
)

__all__ = ["read_status"]

#: ``(sql, parameters)`` → rows; the SQL marks parameters with ``{p}``
Query = Callable[[str, Sequence[object]], Sequence[Sequence[object]]]

_REVISION_COLUMNS: Final = (
    "tenant, document_id, revision, seq, source_sha256, media_type, filename, size, state, "
    "failed_stage, error_code, error_message, manifest_id, created_at, updated_at, "
    "supplied_by"
)
_JOB_COLUMNS: Final = (
    "job_id, document_id, revision, state, stage, error_code, created_at, finished_at, "
    "pid, host, heartbeat_at, worker, lease_until, attempts"
)


def read_status(
    query: Query,
    mark: str,
    tenant: str,
    document_id: str | None,
    embedder_key: str | None,
) -> list[tuple[DocumentRecord, tuple[RevisionReads, ...]]]:
    """The tenant's documents (or the one named), by id, each with its revisions in
    order and what status shows of each: the same values the one-by-one reads give."""
    where = "tenant={p}" + ("" if document_id is None else " AND document_id={p}")
    scope: tuple[str, ...] = (tenant,) if document_id is None else (tenant, document_id)

    def rows(sql: str, params: Sequence[object]) -> Sequence[Sequence[object]]:
        return query(sql.replace("{p}", mark), params)

    documents = [
        DocumentRecord(
            str(row[0]),
            str(row[1]),
            None if row[2] is None else str(row[2]),
            str(row[3]),
            None if row[4] is None else str(row[4]),
        )
        for row in rows(
            "SELECT document_id, tenant, current_revision, created_at, language FROM documents "
            f"WHERE {where} ORDER BY document_id",
            scope,
        )
    ]
    if not documents:
        return []
    groups: dict[tuple[str, str], set[str]] = {}
    for doc, label, group in rows(
        f"SELECT document_id, revision, group_name FROM revision_groups WHERE {where}", scope
    ):
        groups.setdefault((str(doc), str(label)), set()).add(str(group))
    latest: dict[tuple[str, str], JobRecord] = {}
    for row in rows(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {where} ORDER BY created_at", scope):
        job = _job(row)
        latest[job.document_id, job.revision] = job  # the last one started
    params = scope if embedder_key is None else (embedder_key, *scope)
    facts = {str(row[0]): row[1:] for row in rows(_facts_sql(where, embedder_key), params)}
    revisions: dict[str, list[RevisionReads]] = {}
    for row in rows(
        f"SELECT {_REVISION_COLUMNS} FROM revisions WHERE {where} ORDER BY document_id, seq",
        scope,
    ):
        record = _revision(row, frozenset(groups.get((str(row[1]), str(row[2])), ())))
        revisions.setdefault(record.document_id, []).append(
            _reads(record, facts.get(record.manifest_id or ""), latest, embedder_key)
        )
    return [(doc, tuple(revisions.get(doc.document_id, ()))) for doc in documents]


def _facts_sql(where: str, embedder_key: str | None) -> str:
    """Per representation of a revision: manifest, notes, index versions, chunks (and
    chunks without the embedder's vector)."""
    missing = (
        ""
        if embedder_key is None
        else ", (SELECT COUNT(*) FROM chunks c WHERE c.manifest_id = r.manifest_id "
        "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id "
        "AND e.embedder_key = {p}))"
    )
    return (
        "SELECT r.manifest_id, m.json, rep.manifest_id IS NOT NULL, rep.page_count, "
        "rep.pages_without_text, rep.warnings, st.manifest_id IS NOT NULL, st.cleaner, "
        "st.splitter, st.chunker, st.analyzer, "
        "(SELECT COUNT(*) FROM chunks c WHERE c.manifest_id = r.manifest_id)"
        f"{missing} FROM revisions r "
        "LEFT JOIN manifests m ON m.manifest_id = r.manifest_id "
        "LEFT JOIN representations rep ON rep.manifest_id = r.manifest_id "
        "LEFT JOIN search_texts st ON st.manifest_id = r.manifest_id "
        f"WHERE r.{where.replace(' AND ', ' AND r.')} AND r.manifest_id IS NOT NULL"
    )


def _reads(
    record: RevisionRecord,
    fact: Sequence[object] | None,
    latest: dict[tuple[str, str], JobRecord],
    embedder_key: str | None,
) -> RevisionReads:
    job = latest.get((record.document_id, record.revision))
    if record.manifest_id is None or fact is None:
        return RevisionReads(record, None, 0, ExtractionNotes(None, (), ()), None, job, None)
    manifest_json, has_notes, page_count, pages, warnings, has_versions = fact[:6]
    notes = (
        ExtractionNotes(
            page_count=None if page_count is None else int(str(page_count)),
            pages_without_text=tuple(int(p) for p in json.loads(str(pages))),
            warnings=tuple(str(w) for w in json.loads(str(warnings))),
        )
        if has_notes
        else ExtractionNotes(None, (), ())
    )
    versions = (
        ProcessingVersions(*(None if v is None else str(v) for v in fact[6:10]))
        if has_versions
        else None
    )
    manifest = None if manifest_json is None else Manifest.from_json(json.loads(str(manifest_json)))
    return RevisionReads(
        record=record,
        manifest=manifest,
        chunks=int(str(fact[10])),
        notes=notes,
        versions=versions,
        latest_job=job,
        vectors_missing=None if embedder_key is None else int(str(fact[11])),
    )


def _revision(row: Sequence[object], groups: frozenset[str]) -> RevisionRecord:
    return RevisionRecord(
        tenant=str(row[0]),
        document_id=str(row[1]),
        revision=str(row[2]),
        seq=int(str(row[3])),
        source_sha256=str(row[4]),
        media_type=str(row[5]),
        filename=str(row[6]),
        size=int(str(row[7])),
        state=RevisionState(row[8]),
        failed_stage=None if row[9] is None else str(row[9]),
        error_code=None if row[10] is None else str(row[10]),
        error_message=None if row[11] is None else str(row[11]),
        manifest_id=None if row[12] is None else str(row[12]),
        groups=groups,
        created_at=str(row[13]),
        updated_at=str(row[14]),
        supplied_by=None if row[15] is None else str(row[15]),
    )


def _job(r: Sequence[object]) -> JobRecord:
    return JobRecord(
        str(r[0]),
        str(r[1]),
        str(r[2]),
        JobState(r[3]),
        None if r[4] is None else str(r[4]),
        None if r[5] is None else str(r[5]),
        str(r[6]),
        None if r[7] is None else str(r[7]),
        None if r[8] is None else int(str(r[8])),
        None if r[9] is None else str(r[9]),
        None if r[10] is None else str(r[10]),
        None if r[11] is None else str(r[11]),
        None if r[12] is None else str(r[12]),
        int(str(r[13])),
    )
