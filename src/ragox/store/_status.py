"""What ``ragox status`` shows of a tenant's documents, in five queries whatever their
number (issue 15), for both backends: the SQL is the same but for its parameter mark.

Read one by one, status cost about ten queries per document (its revisions, each
one's reader groups, latest job, manifest, chunk count, notes, index versions and
missing vectors): seconds for a home of a hundred thousand chunks. Chunks are not
counted here either: each representation's count is kept as chunks are written and
deleted (``chunk_counts``, SQLite schema 28, PostgreSQL schema 6), and its count of
chunks with a vector per embedder as vectors and chunks are written and deleted
(``vector_counts``, SQLite schema 31, PostgreSQL schema 8).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ragox.anchor import Manifest
from ragox.store._records import (
    DocumentRecord,
    ExtractionNotes,
    JobRecord,
    ProcessingVersions,
    RevisionFacts,
    RevisionReads,
    RevisionRecord,
)
from ragox.store._rows import JOB_COLUMNS, REVISION_COLUMNS, job_record, revision_record

__all__ = ["facts_by_joins", "read_status", "read_status_facts"]

#: ``(sql, parameters)`` → rows; the SQL marks parameters with ``{p}``
Query = Callable[[str, Sequence[object]], Sequence[Sequence[object]]]


def read_status(
    query: Query,
    mark: str,
    tenant: str,
    document_id: str | None,
    embedder_key: str | None,
    hints: tuple[str, str] = ("", ""),
    *,
    after: str | None = None,
    limit: int | None = None,
    collate: str = "",
) -> list[tuple[DocumentRecord, tuple[RevisionReads, ...]]]:
    """The tenant's documents (or the one named), by id, each with its revisions in
    order and what status shows of each: the same values the one-by-one reads give.
    ``hints`` follow the names of the representations and search texts (SQLite's
    ``INDEXED BY`` of their covering indexes). A page: the first ``limit`` documents
    whose id sorts after ``after`` (byte order: ``collate`` makes PostgreSQL's
    comparison its ``"C"`` collation's), the other reads bounded to their range."""
    where = "tenant={p}" + ("" if document_id is None else " AND document_id={p}")
    scope: tuple[str, ...] = (tenant,) if document_id is None else (tenant, document_id)

    def rows(sql: str, params: Sequence[object]) -> Sequence[Sequence[object]]:
        return query(sql.replace("{p}", mark), params)

    listed, listed_scope = where, scope
    if after is not None:
        listed += f" AND document_id{collate} > {{p}}"
        listed_scope = (*scope, after)
    # (a limit past a 64-bit integer is no SQL number: no tenant has that many)
    order = f" ORDER BY document_id{collate}" + (
        "" if limit is None else f" LIMIT {min(int(limit), 2**62)}"
    )
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
            f"WHERE {listed}{order}",
            listed_scope,
        )
    ]
    if not documents:
        return []
    if after is not None or limit is not None:
        # the page's documents only: the range from its first id to its last
        where += f" AND document_id{collate} >= {{p}} AND document_id{collate} <= {{p}}"
        scope = (*scope, documents[0].document_id, documents[-1].document_id)
    groups: dict[tuple[str, str], set[str]] = {}
    for doc, label, group in rows(
        f"SELECT document_id, revision, group_name FROM revision_groups WHERE {where}", scope
    ):
        groups.setdefault((str(doc), str(label)), set()).add(str(group))
    latest: dict[tuple[str, str], JobRecord] = {}
    for row in rows(f"SELECT {JOB_COLUMNS} FROM jobs WHERE {where} ORDER BY created_at", scope):
        job = job_record(row)
        latest[job.document_id, job.revision] = job  # the last one started
    params = scope if embedder_key is None else (embedder_key, *scope)
    facts = {str(row[0]): row[1:] for row in rows(_facts_sql(where, embedder_key, hints), params)}
    revisions: dict[str, list[RevisionReads]] = {}
    for row in rows(
        f"SELECT {REVISION_COLUMNS} FROM revisions WHERE {where} ORDER BY document_id, seq",
        scope,
    ):
        record = revision_record(row, frozenset(groups.get((str(row[1]), str(row[2])), ())))
        revisions.setdefault(record.document_id, []).append(
            _reads(record, facts.get(record.manifest_id or ""), latest, embedder_key)
        )
    return [(doc, tuple(revisions.get(doc.document_id, ()))) for doc in documents]


def _facts_sql(where: str, embedder_key: str | None, hints: tuple[str, str] = ("", "")) -> str:
    """Per representation of a revision: manifest, notes, index versions, chunks (and
    chunks without the embedder's vector)."""
    missing = "" if embedder_key is None else f", {_missing('r.manifest_id')}"
    return (
        "SELECT r.manifest_id, m.json, rep.manifest_id IS NOT NULL, rep.page_count, "
        "rep.pages_without_text, rep.warnings, st.manifest_id IS NOT NULL, st.cleaner, "
        "st.splitter, st.chunker, st.analyzer, "
        "COALESCE((SELECT cc.chunks FROM chunk_counts cc WHERE cc.manifest_id = r.manifest_id), 0)"
        f"{missing} FROM revisions r "
        "LEFT JOIN manifests m ON m.manifest_id = r.manifest_id "
        f"LEFT JOIN representations rep{hints[0]} ON rep.manifest_id = r.manifest_id "
        f"LEFT JOIN search_texts st{hints[1]} ON st.manifest_id = r.manifest_id "
        f"WHERE r.{where.replace(' AND ', ' AND r.')} AND r.manifest_id IS NOT NULL"
    )


def _missing(manifest_id: str) -> str:
    """The representation's chunks without the embedder's (``{p}``) vector: its chunk
    count less its chunks with one, both kept as chunks and vectors are written
    (``chunk_counts``, ``vector_counts``), so that no chunk is read."""
    return (
        "(COALESCE((SELECT cc.chunks FROM chunk_counts cc "
        f"WHERE cc.manifest_id = {manifest_id}), 0) - "
        "COALESCE((SELECT vc.vectors FROM vector_counts vc "
        f"WHERE vc.manifest_id = {manifest_id} AND vc.embedder_key = {{p}}), 0))"
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


#: Per revision, what ``status``'s summary counts of it, by joins (PostgreSQL, whose
#: hash joins read each table once; SQLite keeps these rows in ``revision_facts``,
#: schema 30): the columns of that table. ``{field}`` is replaced by the backend's
#: expression of a manifest's JSON field named ``{f}``.
FACTS_BY_JOINS = (
    "(SELECT r.tenant, r.document_id, r.revision, r.state, r.media_type, r.manifest_id, "
    "{parser} AS parser, {config} AS parser_config_sha256, {profile} AS profile, "
    "st.manifest_id IS NOT NULL AS has_versions, st.cleaner, st.splitter, st.chunker, "
    "st.analyzer, COALESCE(rep.pages_without_text <> '[]', FALSE) AS pages_without_text, "
    "r.updated_at FROM revisions r LEFT JOIN manifests m ON m.manifest_id = r.manifest_id "
    "LEFT JOIN representations rep ON rep.manifest_id = r.manifest_id "
    "LEFT JOIN search_texts st ON st.manifest_id = r.manifest_id WHERE r.tenant = {p})"
)


def facts_by_joins(manifest_field: str) -> str:
    """:data:`FACTS_BY_JOINS` with the backend's JSON field expression (``{f}``)."""
    return (
        FACTS_BY_JOINS.replace("{parser}", manifest_field.replace("{f}", "parser"))
        .replace("{config}", manifest_field.replace("{f}", "parser_config_sha256"))
        .replace("{profile}", manifest_field.replace("{f}", "profile"))
    )


def read_status_facts(
    query: Query,
    mark: str,
    tenant: str,
    embedder_key: str | None,
    with_groups: bool,
    source: str,
) -> tuple[list[RevisionFacts], list[JobRecord]]:
    """Every revision of the tenant with what ``status``'s summary counts of it (its
    state, what its staleness depends on, whether pages lack text, its
    reader groups when ``with_groups``), in one query over ``source`` (a table or a
    subquery ``f`` with the columns of ``revision_facts``; a ``{p}`` in it is the
    tenant); and the runs of the revisions still in progress (oldest first, so that
    the last one per revision is the latest)."""

    def rows(sql: str, params: Sequence[object]) -> Sequence[Sequence[object]]:
        return query(sql.replace("{p}", mark), params)

    groups: dict[tuple[str, str], frozenset[str]] = {}
    if with_groups:
        found: dict[tuple[str, str], set[str]] = {}
        for doc, label, group in rows(
            "SELECT document_id, revision, group_name FROM revision_groups WHERE tenant={p}",
            (tenant,),
        ):
            found.setdefault((str(doc), str(label)), set()).add(str(group))
        groups = {key: frozenset(names) for key, names in found.items()}
    missing = "NULL" if embedder_key is None else _missing("f.manifest_id")
    # What staleness depends on, as one text per revision: a home has a few distinct
    # ones, each taken apart once (a value per column would be seven Python strings
    # per revision).
    key = " || '\x1f' || ".join(
        f"COALESCE({column}, '\x1e')"
        for column in (
            "f.media_type",
            "CASE WHEN f.media_type = 'application/pdf' THEN (SELECT d.language FROM "
            "documents d WHERE d.tenant = f.tenant AND d.document_id = f.document_id) END",
            "f.parser",
            "f.parser_config_sha256",
            "f.profile",
            "f.cleaner",
            "f.splitter",
            "f.chunker",
            "f.analyzer",
        )
    )
    sql = (
        f"SELECT f.document_id, f.revision, f.state, f.manifest_id IS NOT NULL, {key}, "
        "f.pages_without_text, "
        f"{missing}, CASE WHEN f.state NOT IN ('READY', 'FAILED') THEN f.updated_at END "
        f"FROM {source} f" + ("" if "{p}" in source else " WHERE f.tenant = {p}")
    )
    params: tuple[object, ...] = (tenant,) if embedder_key is None else (embedder_key, tenant)
    none: frozenset[str] = frozenset()
    parts: dict[str, tuple[Any, ...]] = {}

    def taken_apart(text: str) -> tuple[Any, ...]:
        values = [None if v == "\x1e" else v for v in text.split("\x1f")]
        recorded = None if all(v is None for v in values[5:]) else ProcessingVersions(*values[5:])
        found = parts[text] = (*values[:5], recorded)
        return found

    facts = []
    fetched: Sequence[Any] = rows(sql, params)  # the driver's values, as they come
    for row in fetched:
        media_type, language, parser, config, profile, versions = parts.get(row[4]) or taken_apart(
            row[4]
        )
        facts.append(
            RevisionFacts(
                row[0],
                row[1],
                row[2],
                media_type,
                bool(row[3]),
                language,
                parser,
                config,
                profile,
                versions,
                bool(row[5]),
                row[6],
                groups.get((row[0], row[1]), none) if groups else none,
                row[7],
            )
        )
    jobs: list[JobRecord] = []
    if any(fact.state not in _SETTLED for fact in facts):
        columns = ", ".join(f"j.{name.strip()}" for name in JOB_COLUMNS.split(","))
        jobs = [
            job_record(row)
            for row in rows(
                f"SELECT {columns} FROM jobs j JOIN revisions r ON r.tenant = j.tenant "
                "AND r.document_id = j.document_id AND r.revision = j.revision "
                "WHERE j.tenant = {p} AND r.state NOT IN ('READY', 'FAILED') "
                "ORDER BY j.created_at",
                (tenant,),
            )
        ]
    return facts, jobs


_SETTLED = frozenset({"READY", "FAILED"})
