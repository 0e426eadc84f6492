"""The ingestion pipeline: bytes → revision → representation → (index) → READY.

Each stage records its state before it starts, so a crash leaves a revision in
a visible intermediate state that is never current, and running the same bytes
again finishes or redoes the work without duplicating anything.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ragox.anchor import Manifest, ManifestSigner, sha256_hex
from ragox.extract import (
    ErrorCode,
    ExtractionError,
    ExtractOptions,
    detect_media_type,
    extractor_for,
    parser_for,
)
from ragox.ingest._chunker import chunk_representation
from ragox.ingest._searchtext import build_search_text
from ragox.search import Embedder, detect_language, embed_chunks, index_terms
from ragox.store import (
    ExtractionNotes,
    JobState,
    RevisionRecord,
    RevisionState,
    Store,
    StoreError,
    utc_now,
)
from ragox.text import Profile

__all__ = ["DEFAULT_MAX_BYTES", "IngestOutcome", "Ingestor"]

#: Largest accepted source file, in bytes.
DEFAULT_MAX_BYTES: Final = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class IngestOutcome:
    """What happened to one input."""

    document_id: str
    revision: str
    state: RevisionState
    #: a new revision was created (False: the same bytes were already there)
    created: bool
    error_code: str | None = None
    error_message: str | None = None


class Ingestor:
    """Runs the pipeline stages against a store."""

    def __init__(
        self,
        store: Store,
        signer: ManifestSigner,
        profile: Profile,
        max_bytes: int = DEFAULT_MAX_BYTES,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        self.signer = signer
        self.profile = profile
        self.max_bytes = max_bytes
        #: when set, new chunks get vectors during indexing
        self.embedder = embedder

    def ingest_file(
        self,
        path: Path,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        tenant: str,
        password: str | None = None,
        language: str | None = None,
    ) -> IngestOutcome:
        """Ingest a file; files over the size limit are recorded as FAILED unread."""
        size = path.stat().st_size
        if size > self.max_bytes:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for piece in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(piece)
            return self._refuse_oversize(
                document_id, revision, groups, tenant, digest.hexdigest(), path.name, size
            )
        return self.ingest_bytes(
            path.read_bytes(),
            path.name,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            password=password,
            language=language,
        )

    def ingest_bytes(
        self,
        data: bytes,
        filename: str,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        tenant: str,
        media_type: str | None = None,
        password: str | None = None,
        language: str | None = None,
    ) -> IngestOutcome:
        """Store the bytes as a revision and run it to READY or FAILED."""
        received = self.receive(
            data,
            filename,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            media_type=media_type,
            language=language,
        )
        if isinstance(received, IngestOutcome):
            return received
        record, created = received
        return self.process(record, data, created, password)

    def receive(
        self,
        data: bytes,
        filename: str,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        tenant: str,
        media_type: str | None = None,
        language: str | None = None,
    ) -> tuple[RevisionRecord, bool] | IngestOutcome:
        """Stage one: keep the bytes and the revision row (RECEIVED). Returns the final
        outcome instead when nothing is left to do (oversize, or already READY)."""
        source_sha256 = sha256_hex(data)
        if len(data) > self.max_bytes:
            return self._refuse_oversize(
                document_id, revision, groups, tenant, source_sha256, filename, len(data)
            )
        self.store.ensure_document(tenant, document_id, language)
        existing = self.store.revision_by_source(tenant, document_id, source_sha256)
        if existing is not None and (revision is None or existing.revision == revision):
            if existing.state is RevisionState.READY and self._up_to_date(existing):
                return _outcome(existing, created=False)
            return existing, False
        kind = media_type or detect_media_type(filename, data) or "application/octet-stream"
        self.store.blobs.put(data)
        record = self.store.create_revision(
            tenant, document_id, revision, source_sha256, kind, filename, len(data), groups
        )
        return record, True

    def process(
        self, record: RevisionRecord, data: bytes, created: bool, password: str | None = None
    ) -> IngestOutcome:
        """Stages two and on: extract, index, and make current (or FAILED)."""
        return self._run(record, data, created, ExtractOptions(password=password))

    def _index(self, tenant: str, document_id: str, manifest_id: str) -> None:
        """Search text, chunks, lexical rows and (with an embedder) vectors."""
        text = self.store.text(manifest_id)
        blocks = self.store.blocks(manifest_id)
        search = build_search_text(text, blocks)
        chunks = chunk_representation(
            manifest_id,
            text,
            blocks,
            search.alignment,
            skip_blocks=frozenset(search.dropped_blocks),
        )
        self.store.save_index(manifest_id, search.text, search.alignment, chunks)
        document = self.store.get_document(tenant, document_id)
        assert document is not None
        language = document.language or detect_language(search.text)
        rows = [
            (c.chunk_id, index_terms(search.text[c.search_start : c.search_end], language))
            for c in chunks
        ]
        self.store.index.write_lexical(document.tenant, manifest_id, language, rows)
        if self.embedder is not None:
            embed_chunks(self.store, self.embedder, [c.chunk_id for c in chunks])

    def _up_to_date(self, record: RevisionRecord) -> bool:
        """The revision's current representation is by today's parser and profile."""
        if record.manifest_id is None:
            return False
        try:
            parser = parser_for(record.media_type)
        except ExtractionError:
            return True  # nothing newer could extract it
        found = self.store.get_manifest(record.manifest_id)
        return found is not None and (
            found.manifest.parser,
            found.manifest.parser_config_sha256,
            found.manifest.profile,
        ) == (parser.id, parser.config_sha256, self.profile.id)

    def _refuse_oversize(
        self,
        document_id: str,
        revision: str | None,
        groups: frozenset[str],
        tenant: str,
        source_sha256: str,
        filename: str,
        size: int,
    ) -> IngestOutcome:
        self.store.ensure_document(tenant, document_id)
        existing = self.store.revision_by_source(tenant, document_id, source_sha256)
        record = existing or self.store.create_revision(
            tenant,
            document_id,
            revision,
            source_sha256,
            "application/octet-stream",
            filename,
            size,
            groups,
        )
        message = f"file has {size} bytes, the limit is {self.max_bytes}"
        self.store.set_state(
            record.tenant,
            record.document_id,
            record.revision,
            RevisionState.FAILED,
            failed_stage="receive",
            error_code=ErrorCode.TOO_LARGE.value,
            error_message=message,
        )
        return IngestOutcome(
            record.document_id,
            record.revision,
            RevisionState.FAILED,
            existing is None,
            ErrorCode.TOO_LARGE.value,
            message,
        )

    def _run(
        self, record: RevisionRecord, data: bytes, created: bool, options: ExtractOptions
    ) -> IngestOutcome:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        stage = "extract"
        # A job row per run: one left RUNNING is a crash or an interrupt, visible as such.
        job = self.store.start_job(tenant, doc, rev)
        try:
            parser = parser_for(record.media_type)
            manifest_record = self.store.find_manifest(
                tenant, doc, rev, parser.id, parser.config_sha256, self.profile.id
            )
            if manifest_record is not None:
                manifest_id = manifest_record.manifest_id
            else:
                self.store.set_state(tenant, doc, rev, RevisionState.EXTRACTING)
                extraction = extractor_for(record.media_type)(data, self.profile, options)
                manifest = Manifest(
                    document_id=doc,
                    revision=rev,
                    source_sha256=record.source_sha256,
                    text_sha256=sha256_hex(extraction.text.encode("utf-8")),
                    media_type=extraction.media_type,
                    parser=extraction.parser.id,
                    parser_config_sha256=extraction.parser.config_sha256,
                    profile=self.profile.id,
                    segmentation=self.profile.segmentation,
                    created_at=utc_now(),
                )
                manifest_id = self.store.save_representation(
                    tenant,
                    manifest,
                    self.signer.sign(manifest),
                    extraction.text,
                    extraction.source_alignment,
                    extraction.blocks,
                    extraction.char_boxes,
                    ExtractionNotes(
                        extraction.page_count,
                        extraction.pages_without_text,
                        extraction.warnings,
                    ),
                )
            self.store.set_state(tenant, doc, rev, RevisionState.EXTRACTED)
            stage = "index"
            self.store.set_state(tenant, doc, rev, RevisionState.INDEXING)
            self._index(tenant, doc, manifest_id)
            self.store.make_current(tenant, doc, rev)
        except ExtractionError as error:
            self.store.set_state(
                tenant,
                doc,
                rev,
                RevisionState.FAILED,
                failed_stage=stage,
                error_code=error.code.value,
                error_message=error.message,
            )
            self.store.finish_job(job, JobState.FAILED, stage, error.code.value)
            return IngestOutcome(
                doc, rev, RevisionState.FAILED, created, error.code.value, error.message
            )
        except (StoreError, MemoryError, RecursionError) as error:
            code = (
                ErrorCode.TOO_COMPLEX if isinstance(error, RecursionError) else ErrorCode.INTERNAL
            )
            self.store.set_state(
                tenant,
                doc,
                rev,
                RevisionState.FAILED,
                failed_stage=stage,
                error_code=code.value,
                error_message=type(error).__name__,
            )
            self.store.finish_job(job, JobState.FAILED, stage, code.value)
            return IngestOutcome(
                doc, rev, RevisionState.FAILED, created, code.value, type(error).__name__
            )
        self.store.finish_job(job, JobState.DONE, stage)
        final = self.store.get_revision(tenant, doc, rev)
        assert final is not None
        return _outcome(final, created=created)


def _outcome(record: RevisionRecord, *, created: bool) -> IngestOutcome:
    return IngestOutcome(
        document_id=record.document_id,
        revision=record.revision,
        state=record.state,
        created=created,
        error_code=record.error_code,
        error_message=record.error_message,
    )
