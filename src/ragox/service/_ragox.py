"""The application façade the CLI and the HTTP API share: one home, one store."""

from __future__ import annotations

import dataclasses
import enum
import math
import os
import re
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from ragox.access import DEFAULT_TENANT, Principal, can_read
from ragox.anchor import (
    Anchor,
    ManifestSigner,
    Migration,
    Refusal,
    Resolution,
    ResolutionStatus,
    create_anchor,
    migrate_anchor,
    resolve,
    sha256_hex,
)
from ragox.answer import AnswerRecord, ExtractiveGenerator, Generator, answer_question, compose
from ragox.extract import detect_media_type
from ragox.extract.pdf import PageTextReader
from ragox.ingest import (
    DEFAULT_MAX_BYTES,
    LEASE,
    Ingestor,
    IngestOutcome,
    JobHealth,
    Liveness,
    Reprocessor,
    ReprocessReport,
    StaleStage,
    job_health,
    stale_stages,
)
from ragox.search import (
    Embedder,
    Hit,
    Searcher,
    SearchMode,
    embedder_from_spec,
    reindex,
    scope_of,
)
from ragox.service._check import CheckReport, check_representation
from ragox.service._home import load_or_create_key
from ragox.service._lookup import StoreLookup
from ragox.store import (
    DocumentRecord,
    ExtractionNotes,
    RevisionConflict,
    RevisionRecord,
    RevisionState,
    SqliteStore,
    Store,
    StoredAnchor,
    utc_now,
)
from ragox.text import BASE_PROFILE, MappedRange, Profile

__all__ = [
    "ActionRefused",
    "DocumentStatus",
    "IngestItem",
    "NotFound",
    "Ragox",
    "ReplayedAnswer",
    "ReplayedCitation",
    "RevisionStatus",
    "SkipReason",
    "Successor",
]

#: the least chunk count the answer's term weights (IDF) are computed with
MIN_IDF_CHUNKS: Final = 100
#: the shortest anchor id prefix accepted where an anchor id is (commands print 16)
MIN_ANCHOR_PREFIX: Final = 8
_HEX: Final = re.compile(r"[0-9a-f]+")


class NotFound(LookupError):
    """Missing or not readable by the caller: the two are indistinguishable on purpose."""


class ActionRefused(enum.Enum):
    """Why ``retry`` or ``fail`` of one revision was refused."""

    #: a live run is working on the revision: it is not stuck
    LIVE_JOB = "LIVE_JOB"
    #: ``fail``: the revision is READY (only deletion takes it out of search)
    READY = "READY"
    #: ``retry``: the stored bytes are gone (a file refused unread, over the size limit)
    BYTES_MISSING = "BYTES_MISSING"


#: error code of a revision (and its jobs) an operator marked FAILED
OPERATOR_FAILED: Final = "OPERATOR_FAILED"
#: error code of a job that died, ended by an operator's retry
JOB_ABANDONED: Final = "JOB_ABANDONED"

_IN_PROGRESS: Final = frozenset(
    {
        RevisionState.RECEIVED,
        RevisionState.EXTRACTING,
        RevisionState.EXTRACTED,
        RevisionState.INDEXING,
    }
)


class SkipReason(enum.Enum):
    """Why an input path was not ingested at all."""

    UNREADABLE = "UNREADABLE"
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"
    NOT_A_FILE = "NOT_A_FILE"
    REVISION_CONFLICT = "REVISION_CONFLICT"
    #: two different files of one command would get the same document id (``README.md``
    #: of two folders given side by side): neither is ingested, so that one never
    #: silently becomes a new revision of the other
    ID_COLLISION = "ID_COLLISION"

    @property
    def is_failure(self) -> bool:
        """A file the caller meant to ingest that was not (exit 1); the others are files
        ragox does not read at all (an image in a folder), which are only reported."""
        return self not in (SkipReason.UNSUPPORTED_TYPE, SkipReason.NOT_A_FILE)


@dataclass(frozen=True, slots=True)
class IngestItem:
    """One input path and its outcome, or why it was skipped."""

    path: str
    outcome: IngestOutcome | None
    skipped: SkipReason | None = None

    @property
    def ready(self) -> bool:
        return self.outcome is not None and self.outcome.state is RevisionState.READY

    @property
    def failed(self) -> bool:
        """Not ready for a reason the caller must hear about (exit 1)."""
        if self.outcome is not None:
            return self.outcome.state is not RevisionState.READY
        return self.skipped is not None and self.skipped.is_failure


@dataclass(frozen=True, slots=True)
class RevisionStatus:
    revision: RevisionRecord
    text_sha256: str | None
    parser: str | None
    profile: str | None
    chunks: int
    notes: ExtractionNotes
    #: chunks without a vector of the index's embedder (None: the index has none)
    vectors_missing: int | None = None
    #: the latest ingestion run of the revision, with its liveness and age
    job: JobHealth | None = None
    #: in an intermediate state with no live run behind it (retry or fail it)
    stuck: bool = False
    #: stages whose output for this READY revision was made by another version than
    #: today's (``ragox reprocess`` rebuilds them)
    stale: tuple[StaleStage, ...] = ()


@dataclass(frozen=True, slots=True)
class DocumentStatus:
    document: DocumentRecord
    revisions: tuple[RevisionStatus, ...]


PDF = "application/pdf"


@dataclass(frozen=True, slots=True)
class ReplayedAnswer:
    """An answer as a principal may see it now."""

    record: AnswerRecord
    answer: str
    citations: tuple[ReplayedCitation, ...]


@dataclass(frozen=True, slots=True)
class ReplayedCitation:
    """A citation re-resolved now; ``anchor`` (which quotes the document) is withheld
    unless the passage resolves for this principal."""

    source_id: str
    anchor_id: str
    anchor: Anchor | None
    resolution: Resolution
    #: the anchor a rebuild migrated this citation to (shown only with the citation)
    successor: Successor | None = None


@dataclass(frozen=True, slots=True)
class Successor:
    """A citation's anchor was migrated to another representation (``ragox reprocess``
    or ``migrate``): the new anchor, the representation it is in, and the old one."""

    anchor: Anchor
    #: the representation the cited anchor is in (manifest id of the old anchor)
    old_manifest_id: str
    new_manifest_id: str


_SKIP_NAMES = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})


class Ragox:
    """Everything a caller can do with one home."""

    def __init__(
        self,
        home: Path,
        *,
        profile: Profile = BASE_PROFILE,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.home = home
        self.store: Store = SqliteStore(home)
        self.signer = ManifestSigner(load_or_create_key(home))
        self.profile = profile
        self._embedder: Embedder | None = None
        self._embedder_spec: str | None = None
        self.ingestor = Ingestor(self.store, self.signer, profile, max_bytes)
        # Asked at each indexing: a `ragox reindex` in another process may change the
        # index's embedder while this one (a server) runs.
        self.ingestor.embedder_source = self._configured_embedder_lazy
        self._searcher: Searcher | None = None

    def close(self) -> None:
        self.store.close()

    # -- retrieval -------------------------------------------------------------------

    def _configured_embedder_lazy(self) -> Embedder | None:
        """The embedder the index is built with now, created on first use.

        The index's setting is read on every call (one indexed read): a reindex in
        another process swaps it, and a running server must follow at once rather
        than answer hybrid searches with NO_VECTOR_INDEX until it restarts.
        """
        spec = self.store.index.setting("embedder_spec")
        if spec != self._embedder_spec:
            self._embedder_spec, self._embedder, self._searcher = spec, None, None
        if self._embedder is None and self._embedder_spec:
            self._embedder = embedder_from_spec(self._embedder_spec)
        return self._embedder

    @property
    def embedder_spec(self) -> str | None:
        return self.store.index.setting("embedder_spec")

    def searcher(self, embedder: Embedder | None = None) -> Searcher:
        """A searcher with the index's embedder (or an explicit one, which must match)."""
        if embedder is not None:
            return Searcher(self.store, embedder)
        configured = self._configured_embedder_lazy()  # may drop a stale searcher
        if self._searcher is None:
            self._searcher = Searcher(self.store, configured)
        return self._searcher

    def search(
        self,
        query: str,
        principal: Principal,
        mode: SearchMode | None = None,
        limit: int = 10,
        embedder: Embedder | None = None,
    ) -> list[Hit]:
        """Hybrid when the index has vectors, lexical otherwise, unless ``mode`` says."""
        searcher = self.searcher(embedder)
        return searcher.search(query, principal, mode or self.default_mode(), limit)

    def default_mode(self) -> SearchMode:
        """Hybrid when the index has vectors and their embedder is available."""
        has_vectors = self.store.index.setting("embedder_key") is not None
        if has_vectors and self._configured_embedder_lazy() is not None:
            return SearchMode.HYBRID
        return SearchMode.LEXICAL

    # -- answers ---------------------------------------------------------------------

    def ask(
        self,
        question: str,
        principal: Principal,
        generator: Generator | None = None,
        mode: SearchMode | None = None,
        candidates: int = 10,
    ) -> AnswerRecord:
        """Search inside the principal's scope, answer from it, validate, and persist."""
        hits = self.search(question, principal, mode, limit=candidates)
        record = answer_question(
            question,
            principal,
            hits,
            self.store,
            self.lookup(principal),
            generator or ExtractiveGenerator(term_weights=self.term_weights(principal)),
        )
        self.store.save_answer(
            record.answer_id,
            record.tenant,
            record.principal,
            record.created_at,
            record.to_json(),
        )
        # Citations become stored anchors, so that a viewer can open them by id.
        manifests = {item.source_id: item.manifest_id for item in record.evidence}
        for citation in record.citations:
            self.store.save_anchor(citation.anchor, manifests[citation.source_id], principal.name)
        return record

    def term_weights(self, principal: Principal) -> Callable[[Sequence[str]], dict[str, float]]:
        """BM25-style IDF of terms within what the principal's tenant has indexed."""
        scope = scope_of(principal)

        def weights(terms: Sequence[str]) -> dict[str, float]:
            total, frequencies = self.store.index.term_statistics(scope, terms)
            # Document frequencies from a handful of chunks are noise: in a one-chunk
            # index a word of the question that the text lacks ("how *often*") would
            # weigh five times a word it has. Counting at least MIN_IDF_CHUNKS chunks
            # keeps such weights near each other; larger indexes are unaffected.
            total = max(total, MIN_IDF_CHUNKS)
            return {
                term: math.log(1 + (total - frequencies[term] + 0.5) / (frequencies[term] + 0.5))
                for term in terms
            }

        return weights

    def show_answer(self, answer_id: str, principal: Principal) -> ReplayedAnswer:
        """Replay an answer: every citation re-resolved now, with this principal's access.

        Claims whose citation no longer resolves for the principal are withheld
        (their text is document text); answers of another tenant look missing.
        """
        data = self.store.get_answer(answer_id)
        if data is None:
            raise NotFound(answer_id)
        record = AnswerRecord.from_json(data)
        # Before schema 7 the operator's answers carried the tenant "*"; any tenant's
        # operator may replay them (their citations resolve within that tenant only).
        legacy = principal.operator and record.tenant == "*"
        if record.tenant != principal.tenant and not legacy:
            raise NotFound(answer_id)
        lookup = self.lookup(principal)
        now = {c.anchor.anchor_id: resolve(c.anchor, lookup) for c in record.citations}
        parts = []
        for claim in record.claims:
            result = now.get(claim.anchor_id)
            if result is not None and result.resolved:
                parts.append((claim.text, claim.source_id))
            else:
                status = result.status.value if result else "ACCESS_DENIED"
                parts.append((f"(withheld: {status})", claim.source_id))
        text = compose(parts) if parts else record.answer
        replayed = []
        for citation in record.citations:
            result = now[citation.anchor.anchor_id]
            shown = citation.anchor if result.resolved else None
            successor = self.successor(citation.anchor, principal) if result.resolved else None
            replayed.append(
                ReplayedCitation(
                    citation.source_id, citation.anchor.anchor_id, shown, result, successor
                )
            )
        return ReplayedAnswer(record, text, tuple(replayed))

    # -- API keys --------------------------------------------------------------------

    def create_key(self, principal: Principal) -> str:
        """A new bearer key for ``principal``; only its SHA-256 is stored."""
        key = "rgx_" + secrets.token_urlsafe(32)
        self.store.add_key(
            sha256_hex(key.encode()), principal.name, principal.tenant, principal.groups
        )
        return key

    def revoke_key(self, key: str) -> bool:
        return self.store.revoke_key(sha256_hex(key.encode()))

    def authenticate(self, key: str) -> Principal | None:
        """The principal of a valid, unrevoked key, decided now (never cached)."""
        found = self.store.key_principal(sha256_hex(key.encode()))
        if found is None:
            return None
        name, tenant, groups = found
        return Principal(name=name, tenant=tenant, groups=groups)

    def reindex(
        self,
        spec: str,
        progress: Callable[[int], None] | None = None,
        total: Callable[[int], None] | None = None,
    ) -> int:
        """Build vectors with the embedder ``spec`` names, then swap atomically."""
        embedder = embedder_from_spec(spec)
        written = reindex(self.store, embedder, spec, progress, total)
        self._embedder, self._embedder_spec, self._searcher = embedder, spec, None
        return written

    # -- ingestion ---------------------------------------------------------------

    def expand_paths(self, paths: list[Path]) -> Iterator[tuple[Path, Path]]:
        """``(file, root)`` pairs: files as given, folders walked recursively in order."""
        for path in paths:
            if path.is_dir():
                for dirpath, dirnames, filenames in os.walk(path):
                    dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_NAMES)
                    for name in sorted(filenames):
                        if not name.startswith("."):
                            yield Path(dirpath) / name, path
            else:
                yield path, path.parent

    def document_ids(
        self, files: Sequence[tuple[Path, Path]], document_id: str | None = None
    ) -> list[tuple[Path, Path, str | None]]:
        """``(file, root, id)`` for each distinct file of one command, in order; the id is
        None where two different files would share it (they collide across roots)."""
        seen: dict[Path, None] = {}
        planned: list[tuple[Path, Path, str]] = []
        owners: dict[str, set[Path]] = {}
        for path, root in files:
            real = _real(path)
            if real in seen:
                continue  # the same file named twice is one file
            seen[real] = None
            doc_id = document_id or default_document_id(path, root)
            planned.append((path, root, doc_id))
            owners.setdefault(doc_id, set()).add(real)
        return [
            (path, root, doc_id if len(owners[doc_id]) == 1 else None)
            for path, root, doc_id in planned
        ]

    def ingest_path(
        self,
        path: Path,
        root: Path,
        *,
        document_id: str | None = None,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        tenant: str = DEFAULT_TENANT,
        password: str | None = None,
        language: str | None = None,
    ) -> IngestItem:
        """Ingest one file; unreadable or unsupported files are skipped with a reason."""
        shown = str(path)
        if not path.is_file():
            reason = SkipReason.NOT_A_FILE if path.exists() else SkipReason.UNREADABLE
            return IngestItem(shown, None, reason)
        try:
            with path.open("rb") as handle:
                head = handle.read(8)
        except OSError:
            return IngestItem(shown, None, SkipReason.UNREADABLE)
        if detect_media_type(path.name, head) is None:
            return IngestItem(shown, None, SkipReason.UNSUPPORTED_TYPE)
        doc_id = document_id or default_document_id(path, root)
        try:
            outcome = self.ingestor.ingest_file(
                path,
                doc_id,
                revision=revision,
                groups=groups,
                tenant=tenant,
                password=password,
                language=language,
            )
        except RevisionConflict:
            return IngestItem(shown, None, SkipReason.REVISION_CONFLICT)
        except OSError:
            return IngestItem(shown, None, SkipReason.UNREADABLE)
        return IngestItem(shown, outcome)

    def check(
        self,
        document_id: str,
        principal: Principal,
        revision: str | None = None,
        password: str | None = None,
    ) -> CheckReport:
        """Seed 003's round trip over every chunk of a revision (default: current)."""
        _, record = self._readable_revision(document_id, revision, principal)
        if record.manifest_id is None or record.state is not RevisionState.READY:
            raise NotFound(document_id)
        found = self.store.get_manifest(record.manifest_id)
        assert found is not None
        data = self.store.blobs.get(record.source_sha256)
        reader = PageTextReader(data, password) if found.manifest.media_type == PDF else None
        try:
            return check_representation(
                self.store,
                document_id,
                record.revision,
                record.manifest_id,
                found.manifest.media_type,
                found.manifest.profile,
                data,
                pdf_text_in_rects=reader,
            )
        finally:
            if reader is not None:
                reader.close()

    def delete(self, document_id: str, tenant: str = DEFAULT_TENANT) -> bool:
        """Remove one tenant's document (an operator's action; other tenants' documents
        with the same id stay)."""
        return self.store.delete_document(tenant, document_id)

    def retry(
        self, document_id: str, revision: str, tenant: str = DEFAULT_TENANT
    ) -> IngestOutcome | ActionRefused:
        """Run one revision's pipeline again from its stored bytes (an operator's action
        for a stuck or failed revision; on a READY one it repairs a missing index).
        Runs that died are marked FAILED first; a live run refuses."""
        record = self.store.get_revision(tenant, document_id, revision)
        if record is None:
            raise NotFound(document_id)
        now = datetime.now(UTC)
        health = [job_health(job, now) for job in self.store.jobs(tenant, document_id, revision)]
        if any(h.liveness is Liveness.LIVE for h in health):
            return ActionRefused.LIVE_JOB
        if not self.store.blobs.exists(record.source_sha256):
            return ActionRefused.BYTES_MISSING
        stale = [h.job.job_id for h in health if h.liveness is Liveness.STALE]
        self.store.end_jobs(tenant, document_id, revision, stale, JOB_ABANDONED)
        self.store.remove_index_orphans()
        data = self.store.blobs.get(record.source_sha256)
        return self.ingestor.process(record, data, created=False)

    def fail(
        self, document_id: str, revision: str, tenant: str = DEFAULT_TENANT
    ) -> RevisionRecord | ActionRefused:
        """Mark one stuck revision FAILED (an operator's action); its runs that died are
        ended with it. A READY revision, or one a live run works on, refuses."""
        record = self.store.get_revision(tenant, document_id, revision)
        if record is None:
            raise NotFound(document_id)
        if record.state is RevisionState.READY:
            return ActionRefused.READY
        now = datetime.now(UTC)
        jobs = self.store.jobs(tenant, document_id, revision)
        if any(job_health(job, now).liveness is Liveness.LIVE for job in jobs):
            return ActionRefused.LIVE_JOB
        failed = self.store.fail_revision(
            tenant, document_id, revision, OPERATOR_FAILED, "failed by the operator"
        )
        if failed is None:
            raise NotFound(document_id)
        return failed

    def set_groups(
        self,
        document_id: str,
        groups: frozenset[str],
        revision: str | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> int:
        """Replace reader groups; returns how many revisions changed."""
        return self.store.set_groups(tenant, document_id, revision, groups)

    # -- reading ------------------------------------------------------------------

    def _readable_revision(
        self, document_id: str, revision: str | None, principal: Principal
    ) -> tuple[DocumentRecord, RevisionRecord]:
        document = self.store.get_document(principal.tenant, document_id)
        if document is None:
            raise NotFound(document_id)
        label = revision or document.current_revision
        record = self.store.get_revision(principal.tenant, document_id, label) if label else None
        if record is None or not can_read(principal, document.tenant, record.groups):
            raise NotFound(document_id)
        return document, record

    def status(self, document_id: str, principal: Principal) -> DocumentStatus:
        document = self.store.get_document(principal.tenant, document_id)
        if document is None:
            raise NotFound(document_id)
        rows = []
        embedder_key = self.store.index.setting("embedder_key")
        now = datetime.now(UTC)
        for record in self.store.revisions(principal.tenant, document_id):
            if not can_read(principal, document.tenant, record.groups):
                continue
            jobs = self.store.jobs(principal.tenant, document_id, record.revision)
            job = job_health(jobs[-1], now) if jobs else None
            manifest = None
            if record.manifest_id is not None:
                found = self.store.get_manifest(record.manifest_id)
                manifest = found.manifest if found else None
            rows.append(
                RevisionStatus(
                    revision=record,
                    text_sha256=manifest.text_sha256 if manifest else None,
                    parser=manifest.parser if manifest else None,
                    profile=manifest.profile if manifest else None,
                    chunks=self.store.chunk_count(record.manifest_id) if record.manifest_id else 0,
                    notes=self.store.notes(record.manifest_id)
                    if record.manifest_id
                    else ExtractionNotes(None, (), ()),
                    vectors_missing=self.store.index.missing_vectors(
                        record.manifest_id, embedder_key
                    )
                    if embedder_key and record.manifest_id
                    else None,
                    job=job,
                    stuck=_stuck(record, job, now),
                    stale=stale_stages(self.store, record, self.profile.id),
                )
            )
        if not rows:
            raise NotFound(document_id)
        return DocumentStatus(document, tuple(rows))

    def documents(self, principal: Principal) -> list[DocumentStatus]:
        found = []
        for document in self.store.list_documents(principal.tenant):
            try:
                found.append(self.status(document.document_id, principal))
            except NotFound:
                continue
        return found

    def text(self, document_id: str, principal: Principal, revision: str | None = None) -> str:
        _, record = self._readable_revision(document_id, revision, principal)
        if record.manifest_id is None or record.state is not RevisionState.READY:
            raise NotFound(document_id)
        return self.store.text(record.manifest_id)

    # -- anchors --------------------------------------------------------------------

    def lookup(self, principal: Principal) -> StoreLookup:
        return StoreLookup(self.store, self.signer, principal)

    def create_anchor(
        self,
        document_id: str,
        start: int,
        end: int,
        principal: Principal,
        revision: str | None = None,
    ) -> StoredAnchor | Refusal:
        """Anchor a code-point range of a READY revision's representation, and store it."""
        _, record = self._readable_revision(document_id, revision, principal)
        if record.manifest_id is None or record.state is not RevisionState.READY:
            raise NotFound(document_id)
        manifest_record = self.store.get_manifest(record.manifest_id)
        assert manifest_record is not None
        text = self.store.text(record.manifest_id)
        created = create_anchor(text, start, end, manifest_record.manifest.identity)
        if isinstance(created, Refusal):
            return created
        return self.store.save_anchor(created, record.manifest_id, principal.name)

    def resolve(self, anchor: Anchor, principal: Principal) -> Resolution:
        return resolve(anchor, self.lookup(principal))

    def resolve_id(self, anchor_id: str, principal: Principal) -> Resolution:
        """Resolve a stored anchor; unknown ids (and other tenants' anchors) look like
        forbidden documents."""
        return self.resolve_stored(anchor_id, principal)[1]

    def full_anchor_id(self, anchor_id: str, tenant: str) -> str | None:
        """The stored anchor id that ``anchor_id`` is, or is the unique prefix of
        (:data:`MIN_ANCHOR_PREFIX` hex digits at least, as commands print them); None for
        an unknown or ambiguous prefix and for anything that is not lowercase hex."""
        if not (MIN_ANCHOR_PREFIX <= len(anchor_id) <= 64) or not _HEX.fullmatch(anchor_id):
            return None
        if len(anchor_id) == 64:
            return anchor_id
        found = self.store.anchor_ids(tenant, anchor_id, limit=2)
        return found[0] if len(found) == 1 else None

    def anchor_prefix_is_ambiguous(self, prefix: str, tenant: str) -> bool:
        """For the local operator's messages only: a reader is told "unknown"."""
        return len(prefix) < 64 and len(self.store.anchor_ids(tenant, prefix, limit=2)) > 1

    def resolve_stored(
        self, anchor_id: str, principal: Principal
    ) -> tuple[StoredAnchor | None, Resolution]:
        """The stored anchor of the principal's tenant (None: unknown) and its resolution;
        a unique prefix of a stored id names that anchor."""
        full = self.full_anchor_id(anchor_id, principal.tenant)
        stored = None if full is None else self.store.get_anchor(principal.tenant, full)
        if stored is None:
            return None, Resolution(ResolutionStatus.ACCESS_DENIED, "access_denied", anchor_id)
        return stored, self.resolve(stored.anchor, principal)

    def get_anchor(self, anchor_id: str, principal: Principal) -> StoredAnchor:
        full = self.full_anchor_id(anchor_id, principal.tenant)
        stored = None if full is None else self.store.get_anchor(principal.tenant, full)
        if stored is None or not self.lookup(principal).can_read(
            stored.anchor.document_id, stored.anchor.revision
        ):
            raise NotFound(anchor_id)
        return stored

    def successor(self, anchor: Anchor, principal: Principal) -> Successor | None:
        """The newest anchor that ``anchor`` was migrated to, when the principal may read
        it (the old anchor is kept and still resolves against its representation)."""
        tenant = principal.tenant
        successors = self.store.anchor_successors(tenant, anchor.anchor_id)
        if not successors:
            return None  # the common case: one indexed read
        found = None
        for new_id in reversed(successors):
            stored = self.store.get_anchor(tenant, new_id)
            if stored is not None and self.lookup(principal).can_read(
                stored.anchor.document_id, stored.anchor.revision
            ):
                found = stored
                break
        old = self.store.get_anchor(tenant, anchor.anchor_id)
        if found is None or old is None:
            return None
        return Successor(found.anchor, old.manifest_id, found.manifest_id)

    def reprocess(
        self,
        documents: Sequence[str] | None = None,
        *,
        dry_run: bool = False,
        tenant: str = DEFAULT_TENANT,
        authorized_by: str = "operator",
    ) -> ReprocessReport:
        """Rebuild stale revisions (an operator's action), with a migration report of
        their anchors; ``dry_run`` writes nothing. Unknown document ids raise."""
        for document_id in documents or ():
            if self.store.get_document(tenant, document_id) is None:
                raise NotFound(document_id)
        report = Reprocessor(self.ingestor, authorized_by).run(tenant, documents, dry_run=dry_run)
        if dry_run or not report.rebuilds:
            return report
        # Kept, so that the anchors left for review can be listed later (`--history`).
        from ragox.service._json import reprocess_json  # noqa: PLC0415 (imports this module)

        report = dataclasses.replace(
            report, report_id="rpr_" + secrets.token_hex(12), created_at=utc_now()
        )
        assert report.report_id is not None and report.created_at is not None
        self.store.save_reprocess_report(
            tenant, report.report_id, report.created_at, reprocess_json(report)
        )
        return report

    def reprocess_history(
        self, tenant: str = DEFAULT_TENANT, limit: int = 20
    ) -> list[dict[str, object]]:
        """Stored migration reports of earlier rebuilds, newest first (operator)."""
        return self.store.reprocess_reports(tenant, limit)

    def migrate(
        self, anchor: Anchor, principal: Principal, to_revision: str | None = None
    ) -> Migration | Refusal:
        """Authorized migration into a revision's current representation (default: the
        document's current revision). The old anchor stays; a link records the step."""
        if not principal.operator:
            return Refusal(ResolutionStatus.ACCESS_DENIED, "migration_needs_operator")
        verified = self.resolve(anchor, principal)
        if not verified.resolved or verified.manifest_id is None:
            return Refusal(verified.status, verified.reason)
        _, record = self._readable_revision(anchor.document_id, to_revision, principal)
        if record.manifest_id is None or record.state is not RevisionState.READY:
            return Refusal(ResolutionStatus.ACCESS_DENIED, "target_not_ready")
        if record.manifest_id == verified.manifest_id:
            return Refusal(ResolutionStatus.RESOLVED, "already_current")
        new_record = self.store.get_manifest(record.manifest_id)
        old_record = self.store.get_manifest(verified.manifest_id)
        assert new_record is not None and old_record is not None
        via_source = None
        if new_record.manifest.source_sha256 == old_record.manifest.source_sha256:
            old_alignment = self.store.alignment(verified.manifest_id)
            new_alignment = self.store.alignment(record.manifest_id)
            if old_alignment is not None and new_alignment is not None:

                def via_source(start: int, end: int) -> MappedRange:
                    back = old_alignment.map_back(start, end)
                    forward = new_alignment.map_forward(back.start, back.end)
                    return MappedRange(forward.start, forward.end, back.exact and forward.exact)

        migrated = migrate_anchor(
            anchor,
            self.store.text(verified.manifest_id),
            new_record.manifest.identity,
            self.store.text(record.manifest_id),
            via_source,
        )
        if isinstance(migrated, Refusal):
            return migrated
        self.store.save_anchor(migrated.new, record.manifest_id, principal.name)
        self.store.link_anchors(
            principal.tenant,
            anchor.anchor_id,
            migrated.new.anchor_id,
            migrated.method.value,
            principal.name,
        )
        return migrated


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _stuck(record: RevisionRecord, job: JobHealth | None, now: datetime) -> bool:
    """In an intermediate state with no live run: its run died, was interrupted, or
    (an upload received but never processed) none started within the lease."""
    if record.state not in _IN_PROGRESS:
        return False
    if job is None:
        updated = datetime.fromisoformat(record.updated_at.replace("Z", "+00:00"))
        return now - updated > LEASE
    return job.liveness is not Liveness.LIVE


def default_document_id(path: Path, root: Path) -> str:
    """The path relative to the ingested folder, ``/``-separated, suffix kept (a manual
    as .pdf and as .md are two documents; a changed file keeps its id)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        relative = Path(path.name)
    return relative.as_posix()
