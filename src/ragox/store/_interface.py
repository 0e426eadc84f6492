"""The store interface: what the rest of ragox may ask of persistence.

:class:`SqliteStore` (``ragox.store.sqlite``) is the embedded implementation,
:class:`PostgresStore` (``ragox.store.postgres``, DESIGN §9) the scale-out one; both
satisfy the same protocols. Nothing outside ``ragox.store`` sees SQL, connections
or rows, nor which backend it talks to.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterator, Sequence
from pathlib import Path
from typing import Final, Protocol

from ragox.anchor import Anchor, Manifest
from ragox.extract import Block, OcrMode
from ragox.store._blobs import Blobs
from ragox.store._hits import HitSource
from ragox.store._records import (
    AnswerRedactor,
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
from ragox.text import Alignment

__all__ = ["COMPACT_SEGMENTS", "JobQueue", "SearchIndex", "Store"]

#: A lexical partition whose full-text index a run of writes left in this many
#: segments or more is merged into one when the run ends (``Store.compact_index``).
COMPACT_SEGMENTS: Final = 4


class SearchIndex(Protocol):
    """Lexical rows, vectors and index settings of a store."""

    def generation(self) -> int: ...

    def scope_generation(self, scope: Scope) -> Hashable:
        """A key that changes whenever what ``scope`` can find may have changed (the
        key of a searcher's caches of that scope): on both backends, the generations
        of the partitions the scope may read (SQLite's schema 27, PostgreSQL's
        migration 7), so that a write the scope cannot see changes nothing of it."""
        ...

    def setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    def write_vectors(self, embedder_key: str, rows: Sequence[tuple[str, bytes]]) -> None: ...

    def swap_embedder(self, embedder_key: str, spec: str) -> None:
        """Record the embedder of the index and drop other embedders' vectors, at once."""
        ...

    def representation_languages(self, manifest_ids: Sequence[str]) -> dict[str, str]:
        """The detected language of each of these representations that has one."""
        ...

    def languages(self, scope: Scope) -> set[str | None]:
        """Languages of the representations the scope can search."""
        ...

    def chunk_languages(self, chunk_ids: Sequence[str]) -> dict[str, str | None]:
        """The language of each chunk's representation (None: not detected)."""
        ...

    def vectors_of(self, embedder_key: str, chunk_ids: Sequence[str]) -> dict[str, bytes]:
        """The vector (little-endian float32) of each of these chunks that has one of
        this embedder; no scope check: the caller passes ids its scope found."""
        ...

    def lexical(self, match: str, scope: Scope, limit: int) -> list[tuple[str, float]]:
        """``(chunk_id, bm25)`` best first; bm25 here is positive, higher is better.

        ``match`` is quoted phrases joined by OR. BM25 statistics come only from rows
        the scope may read, and rows it may not read cost nothing to the query. Equal
        scores rank in :meth:`tie_keys` order, also at the ``limit``-th place.
        """
        ...

    def tie_keys(self, chunk_ids: Sequence[str]) -> dict[str, tuple[str, int, int]]:
        """The key that orders equal scores, of each of these chunks that exists: its
        document id, then its range in the representation text (code points).

        Derived from content, unlike chunk ids (their manifest holds the ingestion
        time) and rowids (the order of ingestion), so that two homes built from the
        same files rank alike. Strings compare by code point, as Python compares them.
        """
        ...

    def term_statistics(self, scope: Scope, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        """Row count and document frequency of each term over the rows the scope may
        read (never other groups' or other tenants' rows)."""
        ...

    def terms_in_language(self, scope: Scope, terms: Sequence[str], language: str) -> set[str]:
        """Of these terms, those that a row the scope may read holds in a
        representation of ``language`` (a name a Russian manual writes in Latin
        letters: ``ragox.search._respell``)."""
        ...

    def permitted_vectors(self, embedder_key: str, scope: Scope) -> Iterator[tuple[str, bytes]]:
        """``(chunk_id, vector blob)`` of every current chunk the scope may read, in
        :meth:`tie_keys` order (the order equal scores rank in)."""
        ...

    def nearest(
        self, embedder_key: str, scope: Scope, vector: bytes, limit: int
    ) -> list[tuple[str, float]] | None:
        """``(chunk_id, inner product)`` of the ``limit`` chunks the scope may read that
        are nearest to ``vector`` (little-endian float32), best first, from an
        approximate-nearest-neighbour index that filters by the scope inside its scan
        (never a top k filtered afterwards); equal products in :meth:`tie_keys` order;
        None when the backend leaves this scope to the caller's exact scan of
        :meth:`permitted_vectors`."""
        ...

    def missing_vectors(self, manifest_id: str, embedder_key: str) -> int:
        """How many chunks of one representation lack this embedder's vector."""
        ...

    def chunks_without_vectors(self, embedder_key: str) -> list[tuple[str, str]]:
        """``(chunk_id, manifest_id)`` of current chunks that lack this embedder's vector."""
        ...


class JobQueue(Protocol):
    """Queued ingestion jobs that workers (``ragox worker``) claim under a lease.

    A job is a row of the store's jobs: QUEUED until a worker claims it, then RUNNING
    under a lease the worker renews, then DONE or FAILED as the pipeline ends it
    (``Store.finish_job``). A run whose lease ran out is taken over by the next claim.
    """

    def enqueue(
        self, tenant: str, document_id: str, revision: str, ocr: OcrMode = OcrMode.AUTO
    ) -> str:
        """A QUEUED job for the revision (or the one already waiting or running), to
        be run with OCR mode ``ocr``."""
        ...

    def claim(self, worker: str, lease_seconds: float, max_attempts: int) -> JobClaim | None:
        """Atomically take the next job (a run whose lease ran out first, then the
        oldest QUEUED one) for ``worker``; None when nothing waits. A job claimed
        ``max_attempts`` times by workers that died fails its revision instead."""
        ...

    def renew(self, job_id: str, worker: str, lease_seconds: float) -> bool:
        """Extend ``worker``'s lease; False when it lost the job."""
        ...

    def pending(self) -> int:
        """QUEUED jobs plus runs under a lease that are not finished."""
        ...


class Store(Protocol):
    """Documents, revisions, representations, chunks, anchors, answers and jobs."""

    home: Path

    @property
    def blobs(self) -> Blobs:
        """Where the originals are."""
        ...

    @property
    def index(self) -> SearchIndex:
        """The search index beside the chunks."""
        ...

    @property
    def queue(self) -> JobQueue:
        """Queued ingestion jobs, for workers."""
        ...

    def close(self) -> None: ...

    def schema_version(self) -> int: ...

    # Documents are keyed by (tenant, document_id): every method that takes a
    # document id takes its tenant first, and never finds another tenant's document.

    def tenants(self) -> list[str]: ...

    def manifest_ids(self) -> list[str]: ...

    def source_hashes(self) -> list[str]: ...

    def save_check_run(self, run: CheckRun) -> None: ...

    def check_runs(self, tenant: str, document_id: str | None = None) -> list[CheckRun]: ...

    def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None: ...

    def list_documents(self, tenant: str) -> list[DocumentRecord]: ...

    def ensure_document(
        self, tenant: str, document_id: str, language: str | None = None
    ) -> DocumentRecord:
        """The document, created if new; ``language`` (ISO 639-1) is recorded when given."""
        ...

    def delete_document(
        self, tenant: str, document_id: str, redact: AnswerRedactor | None = None
    ) -> bool:
        """Remove a document, its revisions, representations and anchors; redact the
        answers that drew on it and drop their traces, in the same transaction."""
        ...

    def get_revision(
        self, tenant: str, document_id: str, revision: str
    ) -> RevisionRecord | None: ...

    def revisions(self, tenant: str, document_id: str) -> list[RevisionRecord]: ...

    def status_reads(
        self,
        tenant: str,
        document_id: str | None = None,
        embedder_key: str | None = None,
        *,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[tuple[DocumentRecord, tuple[RevisionReads, ...]]]:
        """The tenant's documents (or the one named) by id, each with its revisions in
        order and what ``status`` shows of them (vectors missing for ``embedder_key``),
        in a few queries however many documents there are; a page of them: the first
        ``limit`` whose id sorts after ``after`` in byte order."""
        ...

    def status_facts(
        self, tenant: str, embedder_key: str | None = None, with_groups: bool = True
    ) -> tuple[list[RevisionFacts], list[JobRecord]]:
        """Every revision of the tenant with what ``status``'s summary counts of it
        (reader groups only when ``with_groups``; chunks without ``embedder_key``'s
        vector when one is given), and the runs of the revisions still in progress,
        oldest first: a few queries, and no manifest read into Python."""
        ...

    def revision_by_source(
        self, tenant: str, document_id: str, source_sha256: str
    ) -> RevisionRecord | None: ...

    def create_revision(
        self,
        tenant: str,
        document_id: str,
        revision: str | None,
        source_sha256: str,
        media_type: str,
        filename: str,
        size: int,
        groups: frozenset[str],
        supplied_by: str | None = None,
    ) -> tuple[RevisionRecord, bool]:
        """Add a revision in state RECEIVED; ``revision=None`` numbers it with the first
        free ``r<n>`` from ``r<seq>`` on (never a label a caller chose). When these bytes
        already made a revision of the document (checked in the creating transaction),
        that one is returned with ``False``."""
        ...

    def set_state(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        state: RevisionState,
        *,
        failed_stage: str | None = None,
        error_code: str | None = None,
        error_message: str | None = None,
        job: str | None = None,
        stage: str | None = None,
    ) -> bool:
        """Record a revision's stage; False (nothing written) for a READY revision.
        ``job``: the running job of this run, whose lease is renewed (with ``stage``)
        in the same transaction."""
        ...

    def make_current(
        self, tenant: str, document_id: str, revision: str, lexical: LexicalRows
    ) -> bool:
        """READY, and current (with its lexical rows) if newer by creation order than
        the current revision, in one transaction. Returns whether it is current."""
        ...

    def index_complete(self, tenant: str, document_id: str, revision: str) -> bool:
        """A READY revision's index is whole (current: one lexical row per chunk)."""
        ...

    def remove_index_orphans(
        self, tenant: str | None = None, document_id: str | None = None
    ) -> int:
        """Delete lexical rows of revisions that are not current, in the whole store,
        or (``tenant`` and ``document_id``) only what that document can have left,
        found by its ids; returns how many."""
        ...

    def compact_index(self, least_segments: int = COMPACT_SEGMENTS) -> int:
        """Merge what many writes left fragmented in the lexical index, once a run of
        writes (a folder's ingestion) ends; returns how many parts were merged (a
        backend whose index needs no merging, or a store too busy to merge now: 0).
        Never raises for being busy: a merge is an optimization."""
        ...

    def start_job(self, tenant: str, document_id: str, revision: str) -> str: ...

    def heartbeat(self, job_id: str, stage: str | None = None) -> None:
        """Renew a running job's lease (and record the stage it is in)."""
        ...

    def end_jobs(
        self, tenant: str, document_id: str, revision: str, job_ids: Sequence[str], error_code: str
    ) -> int:
        """Mark the given jobs FAILED if they are still RUNNING; returns how many."""
        ...

    def fail_revision(
        self, tenant: str, document_id: str, revision: str, error_code: str, error_message: str
    ) -> RevisionRecord | None:
        """A revision that is not READY becomes FAILED, its running jobs with it."""
        ...

    def finish_job(
        self,
        job_id: str,
        state: JobState,
        stage: str | None = None,
        error_code: str | None = None,
    ) -> bool:
        """End a QUEUED or RUNNING job; False when it had ended already (a run taken
        over after its lease ran out stays FAILED, ``WORKER_LOST``)."""
        ...

    def jobs(self, tenant: str, document_id: str, revision: str) -> list[JobRecord]: ...

    def groups(self, tenant: str, document_id: str, revision: str) -> frozenset[str]: ...

    def set_groups(
        self, tenant: str, document_id: str, revision: str | None, groups: frozenset[str]
    ) -> int:
        """Replace reader groups of one revision, or of all when ``revision`` is None."""
        ...

    def save_representation(
        self,
        tenant: str,
        manifest: Manifest,
        mac: str,
        text: str,
        alignment: Alignment | None,
        blocks: Sequence[Block],
        char_boxes: bytes | None = None,
        notes: ExtractionNotes | None = None,
        *,
        extracted: bool = False,
        language: str | None = None,
    ) -> str:
        """Store an immutable representation; idempotent by manifest content.
        ``extracted``: the revision (unless READY) becomes EXTRACTED in the same
        transaction. ``language``: the language its lexical rows will be analyzed in,
        when known now (writing the rows sets it again; given here, the row that holds
        a large text is not written a second time just for it)."""
        ...

    def find_manifest(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        parser: str,
        parser_config: str,
        profile: str,
    ) -> ManifestRecord | None:
        """An existing representation of these bytes by this parser and profile."""
        ...

    def manifests(self, tenant: str, document_id: str, revision: str) -> list[ManifestRecord]:
        """Retained representations of a revision, the current one first."""
        ...

    def get_manifest(self, manifest_id: str) -> ManifestRecord | None: ...

    def revision_view(self, tenant: str, document_id: str, revision: str) -> RevisionView | None:
        """Reader groups, currency and retained manifests of a revision, in one read."""
        ...

    def drop_representation(self, manifest_id: str) -> None:
        """Stop retaining an old representation: its anchors no longer resolve."""
        ...

    def text(self, manifest_id: str) -> str:
        """The representation text (cached: representations are immutable)."""
        ...

    def alignment(self, manifest_id: str) -> Alignment | None: ...

    def notes(self, manifest_id: str) -> ExtractionNotes: ...

    def save_index(
        self,
        manifest_id: str,
        search_text: str,
        search_alignment: Alignment,
        chunks: Sequence[ChunkRecord],
    ) -> None:
        """Replace a representation's search text and chunks in one transaction."""
        ...

    def commit_index(
        self,
        tenant: str,
        document_id: str,
        revision: str,
        search_text: str,
        search_alignment: Alignment,
        chunks: Sequence[ChunkRecord],
        versions: ProcessingVersions,
        lexical: LexicalRows,
        *,
        job: str | None = None,
    ) -> bool:
        """``save_index`` with the stage versions, and ``make_current``, in one
        transaction (with ``job``: that job ends DONE in it too). Returns whether the
        revision is current."""
        ...

    def index_versions(self, manifest_id: str) -> ProcessingVersions | None:
        """The stage versions recorded with a representation's search text."""
        ...

    def anchors_on(self, tenant: str, manifest_id: str) -> list[StoredAnchor]:
        """The stored anchors made on one representation."""
        ...

    def save_reprocess_report(
        self, tenant: str, report_id: str, created_at: str, payload: dict[str, object]
    ) -> None:
        """Keep one rebuild's migration report (ids and outcomes only); saved again
        under its id, it replaces the earlier payload (a run stores its report after
        each revision)."""
        ...

    def reprocess_reports(self, tenant: str, limit: int = 20) -> list[dict[str, object]]:
        """The tenant's stored migration reports, newest first."""
        ...

    def search_text(self, manifest_id: str) -> tuple[str, Alignment] | None: ...

    def chunks(self, manifest_id: str) -> list[ChunkRecord]: ...

    def get_chunk(self, chunk_id: str) -> ChunkRecord | None: ...

    def hit_sources(self, chunk_ids: Sequence[str]) -> dict[str, HitSource]:
        """What hits show of these chunks (span text, document, pages), in one read."""
        ...

    def chunk_count(self, manifest_id: str) -> int: ...

    def char_boxes(
        self, manifest_id: str, start: int | None = None, end: int | None = None
    ) -> bytes | None:
        """Per-code-point boxes (16 bytes each), all of them or those of ``[start, end)``."""
        ...

    def blocks(
        self,
        manifest_id: str,
        start: int | None = None,
        end: int | None = None,
        tables: Collection[int] | None = None,
    ) -> list[Block]:
        """Blocks of a representation in reading order, or those overlapping a range;
        ``tables``: only the cells of these tables, by their ordinal (a table's
        headers may lie pages away from a cell)."""
        ...

    def heading_before(self, manifest_id: str, at: int, since: int) -> tuple[int, int] | None:
        """``(start, end)`` of the last heading block of a representation that starts
        before ``at`` and not before ``since``: the title of the section a passage
        starting at ``at`` lies in (the bound keeps the scan short where no heading is
        near: a PDF has none)."""
        ...

    def block_paths(self, manifest_id: str, start: int, end: int) -> list[tuple[int, int, str]]:
        """``(start, end, locator)`` of the blocks overlapping a range whose locator is an
        element's path ("/html/body/ul/li[2]": an HTML block not located by its id), and
        of the list items located by their id ("#par_id3146976"), in reading order: where
        lists are, without reading whole blocks."""
        ...

    def navigation_start(self, manifest_id: str, start: int, end: int) -> int | None:
        """Where the first navigation block (``BlockKind.NAVIGATION``) that starts in
        ``[start, end)`` starts, else None: how far a passage may be extended."""
        ...

    def save_anchor(self, anchor: Anchor, manifest_id: str, created_by: str) -> StoredAnchor:
        """Store an anchor under the tenant of the manifest it was made on."""
        ...

    def get_anchor(self, tenant: str, anchor_id: str) -> StoredAnchor | None: ...

    def anchor_ids(self, tenant: str, prefix: str, limit: int = 2) -> list[str]:
        """Up to ``limit`` stored anchor ids of the tenant starting with ``prefix``."""
        ...

    def link_anchors(
        self, tenant: str, old_id: str, new_id: str, method: str, authorized_by: str
    ) -> None: ...

    def save_answer(
        self,
        answer_id: str,
        tenant: str,
        principal: str,
        created_at: str,
        payload: dict[str, object],
        *,
        trace: dict[str, object] | None = None,
        documents: frozenset[str] = frozenset(),
        redact: AnswerRedactor | None = None,
    ) -> None:
        """Store a record, its trace apart, and the documents it drew on (a document
        already deleted by then gets the record stored redacted, without trace)."""
        ...

    def answer_owner(self, answer_id: str) -> tuple[str, str] | None:
        """``(tenant, principal)`` of a stored answer, without reading the record."""
        ...

    def get_answer(self, answer_id: str) -> dict[str, object] | None: ...

    def get_answer_trace(self, answer_id: str) -> dict[str, object] | None: ...

    def truncate_log(self) -> None:
        """Empty the write-ahead log (it holds pages as they were before deletions)."""
        ...

    def retention(self) -> RetentionPolicy: ...

    def set_retention(self, policy: RetentionPolicy) -> None: ...

    def purge(
        self,
        answers_before: str | None,
        traces_before: str | None,
        redact: AnswerRedactor | None = None,
    ) -> PurgeCounts:
        """Delete answers and traces created before the given times; redact answers that
        still hold text of deleted documents."""
        ...

    def anchor_successors(self, tenant: str, anchor_id: str) -> list[str]: ...

    def add_key(self, key_hash: str, grant: KeyRecord) -> None: ...

    def write_prefixes(self, tenant: str) -> frozenset[str]:
        """Write prefixes of the tenant's unrevoked keys that do not operate."""
        ...

    def revoke_key(self, key_hash: str) -> bool: ...

    def list_keys(self, tenant: str, include_revoked: bool = False) -> list[KeyInfo]:
        """The tenant's keys: opaque ids, grants and dates, never a key."""
        ...

    def revoke_key_id(self, tenant: str, key_id: str) -> int:
        """Revoke the one unrevoked key whose id starts so; returns how many matched."""
        ...

    def key_principal(self, key_hash: str) -> KeyRecord | None:
        """What a key that is not revoked may do, read now."""
        ...
