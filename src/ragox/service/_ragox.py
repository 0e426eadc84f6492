"""The application façade the CLI and the HTTP API share: one home, one store."""

from __future__ import annotations

import enum
import math
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from ragox.access import (
    ANY_ID,
    DEFAULT_TENANT,
    Principal,
    can_read,
    collection_group,
    may_write_id,
)
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
from ragox.ingest import DEFAULT_MAX_BYTES, Ingestor, IngestOutcome
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
    KeyRecord,
    RevisionConflict,
    RevisionRecord,
    RevisionState,
    SqliteStore,
    Store,
    StoredAnchor,
)
from ragox.text import BASE_PROFILE, MappedRange, Profile

__all__ = [
    "CollectionReaders",
    "DocumentStatus",
    "IngestItem",
    "NotFound",
    "Ragox",
    "ReplayedAnswer",
    "ReplayedCitation",
    "RevisionStatus",
    "SkipReason",
    "WriteRefused",
]

#: the least chunk count the answer's term weights (IDF) are computed with
MIN_IDF_CHUNKS: Final = 100


class NotFound(LookupError):
    """Missing or not readable by the caller: the two are indistinguishable on purpose."""


class WriteRefused(PermissionError):
    """The caller may not write that document id: it lies outside the caller's write
    prefixes (decided before anything is looked up), or the document exists with a
    revision the caller cannot read. Both look the same to the caller."""


class CollectionReaders(ValueError):
    """Reader groups that leave out the group of the document's collection: ``G`` must
    read every revision under ``G/`` while a key may write there (README "Who may
    read, write and operate"), so that its writers can never tell a hidden id."""

    def __init__(self, group: str) -> None:
        super().__init__(group)
        self.group = group


class SkipReason(enum.Enum):
    """Why an input path was not ingested at all."""

    UNREADABLE = "UNREADABLE"
    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"
    NOT_A_FILE = "NOT_A_FILE"
    REVISION_CONFLICT = "REVISION_CONFLICT"
    #: the reader groups leave out the group of a collection that keys may write
    COLLECTION_READERS = "COLLECTION_READERS"


@dataclass(frozen=True, slots=True)
class IngestItem:
    """One input path and its outcome, or why it was skipped."""

    path: str
    outcome: IngestOutcome | None
    skipped: SkipReason | None = None


@dataclass(frozen=True, slots=True)
class RevisionStatus:
    revision: RevisionRecord
    text_sha256: str | None
    parser: str | None
    profile: str | None
    chunks: int
    notes: ExtractionNotes


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
        spec = self.store.index.setting("embedder_spec")
        self._embedder_spec = spec
        self.ingestor = Ingestor(self.store, self.signer, profile, max_bytes)
        self.ingestor.embedder = self._configured_embedder_lazy()
        self._searcher: Searcher | None = None

    def close(self) -> None:
        self.store.close()

    # -- retrieval -------------------------------------------------------------------

    def _configured_embedder_lazy(self) -> Embedder | None:
        """The embedder the index was built with, created on first use."""
        if self._embedder is None and self._embedder_spec:
            self._embedder = embedder_from_spec(self._embedder_spec)
        return self._embedder

    @property
    def embedder_spec(self) -> str | None:
        return self._embedder_spec

    def searcher(self, embedder: Embedder | None = None) -> Searcher:
        """A searcher with the index's embedder (or an explicit one, which must match)."""
        if embedder is not None:
            return Searcher(self.store, embedder)
        if self._searcher is None:
            self._searcher = Searcher(self.store, self._configured_embedder_lazy())
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

        Only the asker (the principal of the same name in the same tenant) and the
        tenant's operators may replay an answer: its question and claims are the asker's,
        and an answer id is no read right. To everyone else, and for answers of another
        tenant, it looks missing. Claims whose citation no longer resolves for the
        principal are withheld (their text is document text).
        """
        # Who may see it is decided from two indexed columns, the same read for an
        # answer that is not the caller's as for a missing one; the record (question,
        # claims, trace) is read only for those who may see it.
        owner = self.store.answer_owner(answer_id)
        if owner is None:
            raise NotFound(answer_id)
        tenant, asker = owner
        # Before schema 7 the operator's answers carried the tenant "*"; any tenant's
        # operator may replay them (their citations resolve within that tenant only).
        legacy = principal.operator and tenant == "*"
        if tenant != principal.tenant and not legacy:
            raise NotFound(answer_id)
        if not principal.operator and asker != principal.name:
            raise NotFound(answer_id)
        data = self.store.get_answer(answer_id)
        if data is None:
            raise NotFound(answer_id)
        record = AnswerRecord.from_json(data)
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
            replayed.append(
                ReplayedCitation(citation.source_id, citation.anchor.anchor_id, shown, result)
            )
        return ReplayedAnswer(record, text, tuple(replayed))

    # -- API keys --------------------------------------------------------------------

    def create_key(self, principal: Principal) -> str:
        """A new bearer key for ``principal`` (its groups, write prefixes and whether it
        operates its tenant); only its SHA-256 is stored. A write prefix outside the
        principal's collections (``GROUP/…``) is a :class:`ValueError` unless it operates."""
        for prefix in principal.write:
            if not principal.operator and collection_group(prefix, principal.groups) is None:
                raise ValueError(f"write prefix {prefix!r} is outside the key's collections")
        key = "rgx_" + secrets.token_urlsafe(32)
        grant = KeyRecord(
            principal=principal.name,
            tenant=principal.tenant,
            groups=principal.groups,
            write=principal.write,
            operate=principal.operator,
        )
        self.store.add_key(sha256_hex(key.encode()), grant)
        return key

    def unreadable_in_write_scope(self, principal: Principal) -> list[str]:
        """Ids inside the principal's write prefixes with a revision it cannot read: the
        one place where its uploads tell an existing id from a missing one (README "Who
        may read, write and operate"); ``keys create`` warns about them."""
        if principal.operator:
            return []
        found = []
        for document in self.store.list_documents(principal.tenant):
            if not may_write_id(principal, document.document_id):
                continue
            revisions = self.store.revisions(principal.tenant, document.document_id)
            if any(not can_read(principal, r.tenant, r.groups) for r in revisions):
                found.append(document.document_id)
        return found

    def revoke_key(self, key: str) -> bool:
        return self.store.revoke_key(sha256_hex(key.encode()))

    def authenticate(self, key: str) -> Principal | None:
        """The principal of a valid, unrevoked key, decided now (never cached)."""
        found = self.store.key_principal(sha256_hex(key.encode()))
        if found is None:
            return None
        return Principal(
            name=found.principal,
            tenant=found.tenant,
            groups=found.groups,
            operator=found.operate,
            write=found.write,
        )

    def reindex(
        self,
        spec: str,
        progress: Callable[[int], None] | None = None,
        total: Callable[[int], None] | None = None,
    ) -> int:
        """Build vectors with the embedder ``spec`` names, then swap atomically."""
        embedder = embedder_from_spec(spec)
        written = reindex(self.store, embedder, spec, progress, total)
        self._embedder, self._embedder_spec = embedder, spec
        self.ingestor.embedder = embedder
        self._searcher = None
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
        supplied_by: str = "operator",
    ) -> IngestItem:
        """Ingest one file; unreadable or unsupported files are skipped with a reason.
        The caller is the local operator (``supplied_by`` names it on the revision)."""
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
        if self.collection_readers(tenant, doc_id) - groups:
            return IngestItem(shown, None, SkipReason.COLLECTION_READERS)
        try:
            outcome = self.ingestor.ingest_file(
                path,
                doc_id,
                revision=revision,
                groups=groups,
                tenant=tenant,
                password=password,
                language=language,
                supplied_by=supplied_by,
            )
        except RevisionConflict:
            return IngestItem(shown, None, SkipReason.REVISION_CONFLICT)
        except OSError:
            return IngestItem(shown, None, SkipReason.UNREADABLE)
        return IngestItem(shown, outcome)

    def upload(
        self,
        principal: Principal,
        data: bytes,
        filename: str,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
    ) -> tuple[RevisionRecord, bool] | IngestOutcome:
        """Stage one of ingestion for a principal that must be allowed to write.

        The rule (README "Who may read, write and operate"): creating or replacing a
        revision needs the id inside one of the principal's write prefixes, and every
        existing revision of the document readable by the principal. An id outside the
        prefixes is refused before anything is looked up or hashed; a document with a
        revision the principal cannot read is refused with the same :class:`WriteRefused`,
        before its labels or bytes are compared (no deduplication or label conflict
        across that line).
        Inside a collection ``G/`` the new revision is always readable by ``G``.
        """
        if not may_write_id(principal, document_id):
            raise WriteRefused(document_id)
        readers = groups or principal.groups
        owner = collection_group(document_id, principal.groups)
        if owner is not None and ANY_ID not in principal.write:
            readers = readers | {owner}
        for existing in self.store.revisions(principal.tenant, document_id):
            if not can_read(principal, existing.tenant, existing.groups):
                raise WriteRefused(document_id)
        left_out = self.collection_readers(principal.tenant, document_id) - readers
        if left_out:  # only an operator's upload that names other groups gets here
            raise CollectionReaders(min(left_out))
        return self.ingestor.receive(
            data,
            filename,
            document_id,
            revision=revision,
            groups=readers,
            tenant=principal.tenant,
            supplied_by=principal.name,
        )

    def default_upload_id(self, principal: Principal, filename: str) -> str:
        """The id of an upload that names none: the file name, inside the principal's
        first write prefix unless it already lies inside one."""
        if may_write_id(principal, filename) or not principal.write:
            return filename
        return sorted(principal.write)[0] + filename

    def delete_as(self, principal: Principal, document_id: str) -> None:
        """Delete a document for an operator; anyone else gets :class:`NotFound` without
        a lookup, exactly as for a missing document."""
        if not principal.operator or not self.delete(document_id, principal.tenant):
            raise NotFound(document_id)

    def set_groups_as(
        self,
        principal: Principal,
        document_id: str,
        groups: frozenset[str],
        revision: str | None = None,
    ) -> int:
        """Replace reader groups for an operator; anyone else (and a missing document or
        revision) gets :class:`NotFound`, the former without a lookup."""
        if not principal.operator:
            raise NotFound(document_id)
        changed = self.set_groups(document_id, groups, revision, principal.tenant)
        if changed == 0:
            raise NotFound(document_id)
        return changed

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

    def set_groups(
        self,
        document_id: str,
        groups: frozenset[str],
        revision: str | None = None,
        tenant: str = DEFAULT_TENANT,
    ) -> int:
        """Replace reader groups; returns how many revisions changed. Groups that leave
        out the group of a collection keys may write are :class:`CollectionReaders`."""
        left_out = self.collection_readers(tenant, document_id) - groups
        if left_out:
            raise CollectionReaders(min(left_out))
        return self.store.set_groups(tenant, document_id, revision, groups)

    def collection_readers(self, tenant: str, document_id: str) -> frozenset[str]:
        """``{G}`` when the id lies under a write prefix (``G/…``) of an unrevoked key
        that does not operate: then ``G`` must read every revision of it."""
        for prefix in self.store.write_prefixes(tenant):
            if document_id.startswith(prefix):
                return frozenset({prefix.partition("/")[0]})
        return frozenset()

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
        for record in self.store.revisions(principal.tenant, document_id):
            if not can_read(principal, document.tenant, record.groups):
                continue
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
                )
            )
        if not rows:
            raise NotFound(document_id)
        # The current revision is named only when the principal may read it: its label
        # would tell that a newer revision exists, and which.
        if document.current_revision not in {row.revision.revision for row in rows}:
            document = replace(document, current_revision=None)
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

    def resolve_stored(
        self, anchor_id: str, principal: Principal
    ) -> tuple[StoredAnchor | None, Resolution]:
        """The stored anchor of the principal's tenant (None: unknown) and its resolution."""
        stored = self.store.get_anchor(principal.tenant, anchor_id)
        if stored is None:
            return None, Resolution(ResolutionStatus.ACCESS_DENIED, "access_denied", anchor_id)
        return stored, self.resolve(stored.anchor, principal)

    def get_anchor(self, anchor_id: str, principal: Principal) -> StoredAnchor:
        stored = self.store.get_anchor(principal.tenant, anchor_id)
        if stored is None or not self.lookup(principal).can_read(
            stored.anchor.document_id, stored.anchor.revision
        ):
            raise NotFound(anchor_id)
        return stored

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


def default_document_id(path: Path, root: Path) -> str:
    """The path relative to the ingested folder, ``/``-separated, suffix kept (a manual
    as .pdf and as .md are two documents; a changed file keeps its id)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
    except ValueError:
        relative = Path(path.name)
    return relative.as_posix()
