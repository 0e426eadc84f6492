"""``ragox reprocess``: rebuild stale revisions, with a migration report for their anchors.

A revision is stale when its representation was made by another parser or profile,
or its search text, chunks or lexical rows by another cleaner, splitter, chunker or
analyzer (:mod:`ragox.ingest._versions`). Rebuilding one:

1. the representation by today's parser and profile is extracted from the stored
   bytes and stored *beside* the old one (a READY revision keeps serving the old
   one, and anchors made on it keep resolving against it, marked not current);
2. every stored anchor on the old representation (cited answers' anchors are stored
   anchors too) is migrated when its exact quote with its context occurs exactly
   once in the new text: a new anchor is stored and linked to the old one, which is
   kept. Every other anchor is reported for review with its reason; nothing is
   repointed silently;
3. search text, chunks, vectors and lexical rows are rebuilt, and the revision
   switches to the new representation in the one transaction that writes its rows
   (``commit_index``): search sees the old index or the new one, whole.

Each rebuild runs under a job with a lease (:mod:`ragox.ingest._jobs`). A rebuild
that died leaves a stale job and a revision that is still stale; the next run ends
the job and redoes the revision. Every step is idempotent (the representation is
found again by parser and profile, anchors and links are keyed by content), so a
resumed rebuild writes no duplicates. ``dry_run`` extracts in memory and writes
nothing.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ragox.anchor import (
    Migration,
    RepresentationIdentity,
    ResolutionStatus,
    find_occurrences,
    migrate_anchor,
)
from ragox.extract import ExtractionError, ExtractOptions, OcrMode
from ragox.ingest._jobs import Liveness, job_health, job_run
from ragox.ingest._pipeline import Ingestor
from ragox.ingest._versions import StaleStage, stale_stages
from ragox.store import JobState, RevisionRecord, StoreError

__all__ = [
    "JOB_ABANDONED",
    "AnchorOutcome",
    "AnchorReport",
    "RebuildState",
    "ReprocessReport",
    "Reprocessor",
    "RevisionRebuild",
]

#: error code of a job that died, ended by a later run
JOB_ABANDONED = "JOB_ABANDONED"


class AnchorOutcome(enum.Enum):
    """What a rebuild does with one anchor on the old representation."""

    #: its exact quote with its context occurs exactly once in the new representation:
    #: a new anchor there is linked to it (the old one is kept)
    MIGRATED = "MIGRATED"
    #: review: the quote with its context occurs several times in the new text
    AMBIGUOUS = "AMBIGUOUS"
    #: review: the exact quote occurs in the new text, but not with its context
    CONTEXT_CHANGED = "CONTEXT_CHANGED"
    #: review: the exact quote does not occur in the new text
    NOT_FOUND = "NOT_FOUND"
    #: review: the anchor does not verify against its own representation
    OLD_INVALID = "OLD_INVALID"

    @property
    def needs_review(self) -> bool:
        return self is not AnchorOutcome.MIGRATED


class RebuildState(enum.Enum):
    """How the rebuild of one revision ended."""

    #: ``dry_run``: reported, nothing written
    PLANNED = "PLANNED"
    #: rebuilt; the new index serves the revision
    REBUILT = "REBUILT"
    #: a live run works on the revision: left alone
    BUSY = "BUSY"
    #: the new extraction or index failed; the old representation keeps serving
    FAILED = "FAILED"


@dataclass(frozen=True, slots=True)
class AnchorReport:
    """One anchor of a rebuilt revision: ids and outcome only (never its text)."""

    anchor_id: str
    outcome: AnchorOutcome
    #: the linked successor (MIGRATED, and not a dry run)
    new_anchor_id: str | None = None


@dataclass(frozen=True, slots=True)
class RevisionRebuild:
    """The rebuild of one revision and its migration report."""

    document_id: str
    revision: str
    stale: tuple[StaleStage, ...]
    state: RebuildState
    old_manifest_id: str
    #: the representation after the rebuild (None: not extracted; the same id as the
    #: old one when only the index stages were stale)
    new_manifest_id: str | None
    anchors: tuple[AnchorReport, ...] = ()
    error_code: str | None = None

    def counts(self) -> dict[AnchorOutcome, int]:
        return dict(Counter(a.outcome for a in self.anchors))


@dataclass(frozen=True, slots=True)
class ReprocessReport:
    dry_run: bool
    rebuilds: tuple[RevisionRebuild, ...] = field(default_factory=tuple)
    #: set when the report is stored (a run that rebuilt something)
    report_id: str | None = None
    created_at: str | None = None
    #: False while the run goes on: the stored report of a run that was interrupted
    #: (a signal, a crash) lists the revisions rebuilt before it stopped
    complete: bool = True

    def by_document(self) -> dict[str, dict[AnchorOutcome, int]]:
        """Anchor outcomes counted per document (the report's summary)."""
        out: dict[str, Counter[AnchorOutcome]] = {}
        for rebuild in self.rebuilds:
            out.setdefault(rebuild.document_id, Counter()).update(
                a.outcome for a in rebuild.anchors
            )
        return {doc: dict(counts) for doc, counts in out.items()}

    @property
    def failed(self) -> bool:
        return any(r.state is RebuildState.FAILED for r in self.rebuilds)


class Reprocessor:
    """Rebuilds a tenant's stale READY revisions (an operator's action)."""

    def __init__(self, ingestor: Ingestor, authorized_by: str) -> None:
        self.ingestor = ingestor
        self.store = ingestor.store
        #: recorded on the anchors and links a rebuild writes
        self.authorized_by = authorized_by

    def plan(
        self, tenant: str, documents: Sequence[str] | None = None
    ) -> list[tuple[RevisionRecord, tuple[StaleStage, ...]]]:
        """Stale READY revisions of the tenant (or of the named documents), in order."""
        ids = (
            list(documents)
            if documents is not None
            else [d.document_id for d in self.store.list_documents(tenant)]
        )
        found = []
        for document_id in ids:
            for record in self.store.revisions(tenant, document_id):
                stale = stale_stages(self.store, record, self.ingestor.profile.id)
                if stale:
                    found.append((record, stale))
        return found

    def run(
        self,
        tenant: str,
        documents: Sequence[str] | None = None,
        *,
        dry_run: bool = False,
        rebuilt: Callable[[tuple[RevisionRebuild, ...]], object] | None = None,
    ) -> ReprocessReport:
        """Rebuild (or with ``dry_run`` plan) every stale revision in order; ``rebuilt``
        is given the rebuilds so far after each revision, so that what a run has done is
        kept even when the run does not end."""
        rebuilds: list[RevisionRebuild] = []
        for record, stale in self.plan(tenant, documents):
            if dry_run:
                rebuilds.append(self._dry(record, stale))
                continue
            rebuilds.append(self._rebuild(record, stale))
            if rebuilt is not None:
                rebuilt(tuple(rebuilds))
        return ReprocessReport(dry_run, tuple(rebuilds))

    # -- one revision --------------------------------------------------------------

    def _options(self, manifest_id: str) -> ExtractOptions:
        """A rebuild reads the bytes as the old representation did: a PDF that was
        recognized page by page under ``--ocr force`` is again (never silently less)."""
        found = self.store.get_manifest(manifest_id)
        from ragox.extract.pdf import ocr_forced  # noqa: PLC0415 - PDF module on demand

        forced = found is not None and ocr_forced(found.manifest.parser)
        return ExtractOptions(ocr=OcrMode.FORCE if forced else OcrMode.AUTO)

    def _dry(self, record: RevisionRecord, stale: tuple[StaleStage, ...]) -> RevisionRebuild:
        old = record.manifest_id
        assert old is not None
        if not any(s.representation for s in stale):
            return RevisionRebuild(
                record.document_id, record.revision, stale, RebuildState.PLANNED, old, old
            )
        try:
            manifest, extraction = self.ingestor.extract(
                record, self.store.blobs.get(record.source_sha256), self._options(old)
            )
        except (ExtractionError, OSError, MemoryError, RecursionError) as error:
            code = error.code.value if isinstance(error, ExtractionError) else "INTERNAL"
            return RevisionRebuild(
                record.document_id, record.revision, stale, RebuildState.FAILED, old, None, (), code
            )
        reports = tuple(
            self._migrate(record.tenant, old, manifest.identity, extraction.text, None, write=False)
        )
        return RevisionRebuild(
            record.document_id,
            record.revision,
            stale,
            RebuildState.PLANNED,
            old,
            manifest.manifest_id,
            reports,
        )

    def _rebuild(self, record: RevisionRecord, stale: tuple[StaleStage, ...]) -> RevisionRebuild:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        old = record.manifest_id
        assert old is not None
        now = datetime.now(UTC)
        health = [job_health(job, now) for job in self.store.jobs(tenant, doc, rev)]
        if any(h.liveness is Liveness.LIVE for h in health):
            return RevisionRebuild(doc, rev, stale, RebuildState.BUSY, old, None)
        # Runs that died (a crashed reprocess or ingest) are ended; this run redoes
        # their work, which is idempotent.
        dead = [h.job.job_id for h in health if h.liveness is Liveness.STALE]
        self.store.end_jobs(tenant, doc, rev, dead, JOB_ABANDONED)
        job = self.store.start_job(tenant, doc, rev)
        with job_run(self.store, job):
            return self._rebuild_stages(record, stale, job)

    def _rebuild_stages(
        self, record: RevisionRecord, stale: tuple[StaleStage, ...], job: str
    ) -> RevisionRebuild:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        old = record.manifest_id
        assert old is not None
        stage = "extract"
        try:
            data = self.store.blobs.get(record.source_sha256)
            new = self.ingestor.represent(record, data, self._options(old))
            reports: list[AnchorReport] = []
            if new != old:
                found = self.store.get_manifest(new)
                assert found is not None
                reports = self._migrate(
                    tenant, old, found.manifest.identity, self.store.text(new), new, write=True
                )
            stage = "index"
            self.store.heartbeat(job, stage)
            self.ingestor.index(record, new)
        except ExtractionError as error:
            self.store.finish_job(job, JobState.FAILED, stage, error.code.value)
            return RevisionRebuild(
                doc, rev, stale, RebuildState.FAILED, old, None, (), error.code.value
            )
        except (StoreError, OSError, MemoryError, RecursionError):
            self.store.finish_job(job, JobState.FAILED, stage, "INTERNAL")
            return RevisionRebuild(doc, rev, stale, RebuildState.FAILED, old, None, (), "INTERNAL")
        self.store.finish_job(job, JobState.DONE, stage)
        return RevisionRebuild(doc, rev, stale, RebuildState.REBUILT, old, new, tuple(reports))

    def _migrate(
        self,
        tenant: str,
        old_manifest_id: str,
        identity: RepresentationIdentity,
        new_text: str,
        new_manifest_id: str | None,
        *,
        write: bool,
    ) -> list[AnchorReport]:
        """Classify (and with ``write``, migrate) every anchor on the old representation."""
        old_text = self.store.text(old_manifest_id)
        reports = []
        for stored in self.store.anchors_on(tenant, old_manifest_id):
            anchor = stored.anchor
            # Only the exact quote with its context, found exactly once, carries an
            # anchor over (no position carried through an alignment is trusted here).
            result = migrate_anchor(anchor, old_text, identity, new_text, None)
            if isinstance(result, Migration):
                new_id = None
                if write:
                    assert new_manifest_id is not None
                    self.store.save_anchor(result.new, new_manifest_id, self.authorized_by)
                    self.store.link_anchors(
                        tenant,
                        anchor.anchor_id,
                        result.new.anchor_id,
                        result.method.value,
                        self.authorized_by,
                    )
                    new_id = result.new.anchor_id
                reports.append(AnchorReport(anchor.anchor_id, AnchorOutcome.MIGRATED, new_id))
                continue
            if result.reason.startswith("old_"):
                outcome = AnchorOutcome.OLD_INVALID
            elif result.status is ResolutionStatus.AMBIGUOUS:
                outcome = AnchorOutcome.AMBIGUOUS
            elif find_occurrences(new_text, anchor.quote.exact, limit=1):
                outcome = AnchorOutcome.CONTEXT_CHANGED
            else:
                outcome = AnchorOutcome.NOT_FOUND
            reports.append(AnchorReport(anchor.anchor_id, outcome))
        return reports
