"""JSON shapes of service results, shared by the CLI and the HTTP API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # shapes only: a command imports what its own result needs
    from ragox.anchor import Anchor, Migration, Refusal, Resolution, ViewerTarget
    from ragox.ingest import JobHealth, ReprocessReport
    from ragox.search import Hit
    from ragox.service._check import CheckReport
    from ragox.service._ragox import (
        DocumentStatus,
        InCurrent,
        IngestItem,
        StatusSummary,
        Successor,
    )
    from ragox.store import Store

__all__ = [
    "check_json",
    "document_status_json",
    "documents_json",
    "hit_json",
    "in_current_json",
    "ingest_item_json",
    "job_json",
    "migration_json",
    "refusal_json",
    "reprocess_json",
    "resolution_json",
    "successor_json",
    "target_json",
]


def target_json(target: ViewerTarget) -> dict[str, Any]:
    return {
        "blocks": [
            {
                "block_id": b.block_id,
                "locator": b.locator,
                "range": b.span.to_json(),
                "ocr": b.ocr,
            }
            for b in target.blocks
        ],
        "pages": [
            {
                "page": p.page,
                "rects": [[r.x0, r.y0, r.x1, r.y1] for r in p.rects],
                "ocr": p.ocr,
            }
            for p in target.pages
        ],
    }


def resolution_json(result: Resolution) -> dict[str, Any]:
    """Failures carry status, reason and the anchor id only: never protected text."""
    data: dict[str, Any] = {
        "status": result.status.value,
        "reason": result.reason,
        "anchor_id": result.anchor_id,
    }
    if result.resolved:
        assert result.range is not None
        data.update(
            {
                "manifest_id": result.manifest_id,
                "range": result.range.to_json(),
                "exact": result.exact,
                "current": result.current,
                "target": None if result.target is None else target_json(result.target),
            }
        )
    return data


def in_current_json(check: InCurrent) -> dict[str, Any]:
    """Whether a passage verified in a representation that is no longer current is in
    the document's current revision: its label, RESOLVED (with the range there),
    QUOTE_NOT_FOUND or AMBIGUOUS."""
    data: dict[str, Any] = {"revision": check.revision, "status": check.status.value}
    if check.range is not None:
        data["range"] = check.range.to_json()
    return data


def hit_json(hit: Hit) -> dict[str, Any]:
    """A hit; ``also_in`` (additive): the same passage in other chunks, each a hit."""
    return {
        **_hit_fields(hit),
        "also_in": [_hit_fields(other) for other in hit.also_in],
    }


def _hit_fields(hit: Hit) -> dict[str, Any]:
    return {
        "chunk_id": hit.chunk_id,
        "document_id": hit.document_id,
        "revision": hit.revision,
        "score": hit.score,
        "found_by": [
            {"retriever": r.retriever, "rank": r.rank, "score": r.score} for r in hit.found_by
        ],
        "range": {"coordinates": "codepoint", "start": hit.start, "end": hit.end},
        "pages": list(hit.pages),
        "snippet": hit.snippet,
    }


def check_json(report: CheckReport) -> dict[str, Any]:
    return {
        "document_id": report.document_id,
        "revision": report.revision,
        "manifest_id": report.manifest_id,
        "ok": report.ok,
        "chunks": report.chunks,
        "fragments": report.fragments,
        "mismatches": [
            {
                "chunk_id": m.chunk_id,
                "block_id": m.block_id,
                "locator": m.locator,
                "range": m.range.to_json(),
                "reason": m.reason,
            }
            for m in report.mismatches
        ],
    }


def refusal_json(refusal: Refusal) -> dict[str, str]:
    return {"status": refusal.status.value, "reason": refusal.reason}


def migration_json(migration: Migration) -> dict[str, Any]:
    return {
        "old_anchor_id": migration.old.anchor_id,
        "method": migration.method.value,
        "quote_changed": migration.quote_changed,
        "anchor": migration.new.to_json(),
    }


def ingest_item_json(item: IngestItem) -> dict[str, Any]:
    if item.outcome is None:
        assert item.skipped is not None
        return {
            "path": item.path,
            "state": "SKIPPED",
            "reason": item.skipped.value,
            # additive: a file the caller meant to ingest (counted in summary.failed,
            # exit 1; FAILED in the text report), not one ragox does not read at all
            "failed": item.skipped.is_failure,
        }
    out = item.outcome
    return {
        "path": item.path,
        "document_id": out.document_id,
        "revision": out.revision,
        "state": out.state.value,
        "created": out.created,
        "error": out.error_code,
        "error_message": out.error_message,
        # additive: bytes of an older revision, which stays not current
        **(
            {"current_revision": item.current_revision} if item.current_revision is not None else {}
        ),
        # additive: a new revision that replaced one in another language
        **(
            {
                "replaced": {
                    "revision": item.replaced.revision,
                    "language": item.replaced.language,
                    "now": item.replaced.now,
                }
            }
            if item.replaced is not None
            else {}
        ),
    }


def job_json(health: JobHealth) -> dict[str, Any]:
    """The latest ingestion run of a revision: ``stale`` means marked RUNNING by a run
    that died (process gone, or lease expired)."""
    job = health.job
    return {
        "job_id": job.job_id,
        "state": job.state.value,
        "liveness": health.liveness.value,
        "stale": health.liveness.value == "STALE",
        "stage": job.stage,
        "error": job.error_code,
        "started_at": job.created_at,
        "heartbeat_at": job.heartbeat_at,
        "finished_at": job.finished_at,
        # a job claimed from the queue: its worker, lease end and claim count
        "worker": job.worker,
        "lease_until": job.lease_until,
        "attempts": job.attempts,
        "age_seconds": round(health.age_seconds, 3),
        "heartbeat_age_seconds": None
        if health.heartbeat_age_seconds is None
        else round(health.heartbeat_age_seconds, 3),
    }


def documents_json(store: Store, found: Sequence[DocumentStatus]) -> list[dict[str, Any]]:
    """Documents as JSON (:func:`document_status_json`), each revision with its
    ``language``: the one given at ingestion, else the one detected in its
    representation (one read for all of them)."""
    manifests = [r.revision.manifest_id for s in found for r in s.revisions]
    detected = store.index.representation_languages([m for m in manifests if m])
    documents = []
    for status in found:
        data = document_status_json(status)
        for row, revision in zip(status.revisions, data["revisions"], strict=True):
            manifest_id = row.revision.manifest_id
            revision["language"] = status.document.language or (
                detected.get(manifest_id) if manifest_id else None
            )
        documents.append(data)
    return documents


def document_status_json(status: DocumentStatus) -> dict[str, Any]:
    return {
        "document_id": status.document.document_id,
        "tenant": status.document.tenant,
        "current_revision": status.document.current_revision,
        "revisions": [
            {
                "revision": row.revision.revision,
                "state": row.revision.state.value,
                "error": row.revision.error_code,
                "failed_stage": row.revision.failed_stage,
                "error_message": row.revision.error_message,
                "source_sha256": row.revision.source_sha256,
                "text_sha256": row.text_sha256,
                "parser": row.parser,
                "profile": row.profile,
                "media_type": row.revision.media_type,
                "groups": sorted(row.revision.groups),
                "supplied_by": row.revision.supplied_by,
                "chunks": row.chunks,
                "vectors_missing": row.vectors_missing,
                "page_count": row.notes.page_count,
                "pages_without_text": list(row.notes.pages_without_text),
                "warnings": list(row.notes.warnings),
                "current": status.document.current_revision == row.revision.revision,
                "stuck": row.stuck,
                "stale_stages": [stage.value for stage in row.stale],
                "job": None if row.job is None else job_json(row.job),
            }
            for row in status.revisions
        ],
    }


def status_summary_json(summary: StatusSummary) -> dict[str, Any]:
    """``status --summary --json``: the counts, and the documents needing attention
    shown in full (``document_status_json`` each, with its reasons)."""
    return {
        "summary": {
            "documents": summary.documents,
            "revisions": summary.revisions,
            "stale": {"revisions": summary.stale_revisions, "stages": summary.stale_stages},
            "runs": {"queued": summary.queued, "running": summary.running, "stuck": summary.stuck},
            "vectors_missing": summary.vectors_missing,
            "revisions_missing_vectors": summary.revisions_missing_vectors,
            "pages_without_text": summary.pages_without_text,
            "attention": {
                "documents": summary.attention_documents,
                "reasons": {reason.value: count for reason, count in summary.attention.items()},
                "shown": len(summary.shown),
            },
        },
        "attention": [
            {**document_status_json(status), "attention": [reason.value for reason in reasons]}
            for status, reasons in summary.shown
        ],
    }


def successor_json(cited: Anchor, successor: Successor) -> dict[str, Any]:
    """A migrated citation: the anchor it was migrated to, and both representations'
    identities (ids and hashes only)."""

    def identity(anchor: Anchor, manifest_id: str) -> dict[str, Any]:
        return {
            "anchor_id": anchor.anchor_id,
            "document_id": anchor.document_id,
            "revision": anchor.revision,
            "manifest_id": manifest_id,
            "parser": anchor.identity.parser,
            "profile": anchor.identity.profile,
            "text_sha256": anchor.identity.text_sha256,
        }

    return {
        "from": identity(cited, successor.old_manifest_id),
        "to": identity(successor.anchor, successor.new_manifest_id),
    }


def reprocess_json(report: ReprocessReport) -> dict[str, Any]:
    """The migration report: per revision, and anchor outcomes counted per document."""
    return {
        "report_id": report.report_id,
        "created_at": report.created_at,
        "dry_run": report.dry_run,
        "complete": report.complete,
        "revisions": [
            {
                "document_id": r.document_id,
                "revision": r.revision,
                "stale_stages": [stage.value for stage in r.stale],
                "state": r.state.value,
                "error": r.error_code,
                "old_manifest_id": r.old_manifest_id,
                "new_manifest_id": r.new_manifest_id,
                "anchors": [
                    {
                        "anchor_id": a.anchor_id,
                        "outcome": a.outcome.value,
                        "needs_review": a.outcome.needs_review,
                        "new_anchor_id": a.new_anchor_id,
                    }
                    for a in r.anchors
                ],
                "counts": {k.value: v for k, v in r.counts().items()},
            }
            for r in report.rebuilds
        ],
        "documents": {
            doc: {k.value: v for k, v in counts.items()}
            for doc, counts in report.by_document().items()
        },
    }
