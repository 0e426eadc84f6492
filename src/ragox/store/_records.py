"""Records the store returns. Plain frozen values; no SQL rows leave the store."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, TypeAlias

from ragox.anchor import Anchor, Manifest
from ragox.extract import OcrMode

__all__ = [
    "OPEN_JOB_STATES",
    "AnswerRedactor",
    "BlockRange",
    "CheckRun",
    "ChunkRecord",
    "DocumentRecord",
    "ExtractionNotes",
    "JobClaim",
    "JobRecord",
    "JobState",
    "KeyInfo",
    "KeyRecord",
    "LexicalRows",
    "ManifestRecord",
    "ProcessingVersions",
    "PurgeCounts",
    "RetentionPolicy",
    "RevisionFacts",
    "RevisionReads",
    "RevisionRecord",
    "RevisionState",
    "RevisionView",
    "StoredAnchor",
]


class RevisionState(enum.Enum):
    """Life of a revision (DESIGN §7). Upload success is not search readiness."""

    #: Bytes are stored; nothing else has happened yet.
    RECEIVED = "RECEIVED"
    #: An extractor is turning the bytes into a representation.
    EXTRACTING = "EXTRACTING"
    #: The representation and its manifest are stored.
    EXTRACTED = "EXTRACTED"
    #: Chunks and index entries are being written.
    INDEXING = "INDEXING"
    #: Searchable, and current unless a later revision became ready.
    READY = "READY"
    #: Stopped at ``failed_stage`` with ``error_code``.
    FAILED = "FAILED"


class JobState(enum.Enum):
    """An ingestion run over one revision."""

    #: waiting in the queue for a worker (``ragox worker``) to claim it
    QUEUED = "QUEUED"
    #: started and not finished: still running, or interrupted
    RUNNING = "RUNNING"
    #: the revision reached READY
    DONE = "DONE"
    #: the revision ended FAILED
    FAILED = "FAILED"


#: the states a job can still end from: one that ended (a run taken over ended FAILED,
#: ``WORKER_LOST``) stays as it ended when its late worker finishes
OPEN_JOB_STATES: Final = (JobState.QUEUED.value, JobState.RUNNING.value)


@dataclass(frozen=True, slots=True)
class JobRecord:
    job_id: str
    document_id: str
    revision: str
    state: JobState
    stage: str | None
    error_code: str | None
    created_at: str
    finished_at: str | None
    #: the process that runs the job and its host (None: recorded before schema 9)
    pid: int | None = None
    host: str | None = None
    #: last sign of life of the run (its lease is renewed while it works)
    heartbeat_at: str | None = None
    #: a queued job: the worker that claimed it and until when its lease holds (a
    #: worker whose lease ran out has lost the job to whichever worker reclaims it)
    worker: str | None = None
    lease_until: str | None = None
    #: a queued job: how many workers have claimed it (this run included)
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class JobClaim:
    """A queued job a worker holds: the revision to run, under a lease it renews."""

    job_id: str
    tenant: str
    document_id: str
    revision: str
    #: 1 for the first claim; more when a worker died holding it and another reclaimed it
    attempt: int
    lease_until: str
    #: the run this one takes over (its worker died, or its lease ran out)
    reclaimed_from: str | None = None
    #: the OCR mode the job was queued with (jobs queued before it was kept: auto)
    ocr: OcrMode = OcrMode.AUTO


@dataclass(frozen=True, slots=True)
class LexicalRows:
    """A representation's analyzed chunk bodies, handed to ``make_current`` so that
    they enter the lexical index in the transaction that makes the revision current."""

    manifest_id: str
    #: ISO 639-1 code the bodies were analyzed for (None: no stemming)
    language: str | None
    #: ``(chunk_id, analyzed body)`` in chunk order; may be lazy (bodies analyzed as
    #: the store reads them), so read it once, in batches, without keeping it whole
    rows: Iterable[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class ProcessingVersions:
    """The versions of the stages that made a representation's search text, chunks and
    lexical rows (recorded on those rows; None: written before schema 17)."""

    #: the search-text cleaner (``ingest._searchtext``)
    cleaner: str | None
    #: the sentence splitter the chunker cut at (``ingest._sentences``)
    splitter: str | None
    #: the chunker (``ingest._chunker``)
    chunker: str | None
    #: the lexical analyzer of the rows (``search._analyze``)
    analyzer: str | None


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    document_id: str
    tenant: str
    current_revision: str | None
    created_at: str
    #: ISO 639-1 code given at ingestion; None: detected per representation
    language: str | None = None


@dataclass(frozen=True, slots=True)
class RevisionRecord:
    tenant: str
    document_id: str
    revision: str
    seq: int
    source_sha256: str
    media_type: str
    filename: str
    size: int
    state: RevisionState
    failed_stage: str | None
    error_code: str | None
    error_message: str | None
    manifest_id: str | None
    groups: frozenset[str]
    created_at: str
    updated_at: str
    #: the principal that supplied the bytes (None: supplied before schema 8). A hash
    #: names the bytes, never who sent them (seed 000), so the supplier is kept apart.
    supplied_by: str | None = None


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """A stored key as the operator lists it: an opaque id (the start of its SHA-256;
    the key itself is never stored), what it may do, and when it was made or revoked."""

    key_id: str
    principal: str
    tenant: str
    groups: frozenset[str]
    write: frozenset[str]
    operate: bool
    created_at: str
    revoked_at: str | None


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """What an unrevoked API key may do: read (groups), write (document id prefixes),
    operate its tenant."""

    principal: str
    tenant: str
    groups: frozenset[str]
    write: frozenset[str]
    operate: bool


@dataclass(frozen=True, slots=True)
class ManifestRecord:
    manifest: Manifest
    manifest_id: str
    mac: str
    #: the revision's current representation (others are retained older parses)
    current_representation: bool


@dataclass(frozen=True, slots=True)
class RevisionView:
    """What resolving an anchor needs of one revision, read together in one query:
    its reader groups, whether it is the document's current revision, and its
    retained representations (the current one first)."""

    tenant: str
    document_id: str
    revision: str
    groups: frozenset[str]
    current_revision: bool
    manifests: tuple[ManifestRecord, ...]


@dataclass(frozen=True, slots=True)
class StoredAnchor:
    anchor: Anchor
    manifest_id: str
    created_at: str
    created_by: str


@dataclass(frozen=True, slots=True)
class BlockRange:
    """The part of one block a chunk covers, in representation code points."""

    block_index: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A retrieval unit: a representation range, its blocks, and its search-text range."""

    chunk_id: str
    manifest_id: str
    ordinal: int
    start: int
    end: int
    search_start: int
    search_end: int
    tokens: int
    blocks: tuple[BlockRange, ...]


@dataclass(frozen=True, slots=True)
class ExtractionNotes:
    """What extraction reported beside the text."""

    page_count: int | None
    pages_without_text: tuple[int, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RevisionReads:
    """A revision with what ``status`` shows of it, read for many revisions at once
    (:meth:`Store.status_reads`)."""

    record: RevisionRecord
    #: the manifest of its representation (None: none, or missing)
    manifest: Manifest | None
    chunks: int
    notes: ExtractionNotes
    #: the stage versions its search text was built with (None: none was built)
    versions: ProcessingVersions | None
    #: its latest ingestion run (the last one started)
    latest_job: JobRecord | None
    #: its chunks without a vector of the asked embedder (None: none was asked)
    vectors_missing: int | None


class RevisionFacts(NamedTuple):
    """What ``status``'s summary counts of a revision (:meth:`Store.status_facts`),
    read for every revision of a tenant at once: a tuple, as a million-chunk home has
    tens of thousands of them."""

    document_id: str
    revision: str
    #: a :class:`RevisionState`'s value
    state: str
    media_type: str
    has_manifest: bool
    #: the language given for its document, for a PDF (its OCR models follow it)
    language: str | None
    #: its manifest's parser, parser configuration and profile (None: no manifest)
    parser: str | None
    parser_config_sha256: str | None
    profile: str | None
    #: the stage versions its search text was built with (None: none was built, or
    #: before they were recorded)
    versions: ProcessingVersions | None
    #: its representation has pages without text (a scan OCR could not read)
    pages_without_text: bool
    #: chunks without a vector of the asked embedder (None: none was asked)
    vectors_missing: int | None
    #: its reader groups (empty unless asked for)
    groups: frozenset[str]
    #: when it last changed state (None: READY or FAILED, where it is not needed)
    updated_at: str | None


@dataclass(frozen=True, slots=True)
class CheckRun:
    """One recorded `ragox check`: what was checked, by which parser, and the mismatches
    (ids, locators and ranges only; never document text)."""

    run_id: str
    tenant: str
    document_id: str
    revision: str
    manifest_id: str
    parser: str
    created_at: str
    chunks: int
    fragments: int
    #: JSON array of ``{chunk_id, block_id, locator, range, reason}``
    mismatches: str


#: Removes the text of the deleted documents (ids) from an answer record's JSON; the
#: answer layer supplies it, so that the store never interprets a record.
AnswerRedactor: TypeAlias = Callable[[dict[str, Any], frozenset[str]], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """How long answer records and their traces are kept; None: until deleted."""

    answers_seconds: int | None = None
    traces_seconds: int | None = None


@dataclass(frozen=True, slots=True)
class PurgeCounts:
    """What one purge removed."""

    answers: int
    traces: int
    #: answers redacted because documents they drew on no longer exist
    redacted: int
