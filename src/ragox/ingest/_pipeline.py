"""The ingestion pipeline: bytes → revision → representation → (index) → READY.

Each stage records its state before it starts, so a crash leaves a revision in
a visible intermediate state that is never current, and running the same bytes
again finishes or redoes the work without duplicating anything. Lexical rows are
handed to the store's ``make_current``, which writes them in the transaction that
makes the revision READY and (if it is the newest) current; a crash at any point
before leaves no rows behind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragox.anchor import Manifest, ManifestSigner, sha256_hex
from ragox.extract import (
    Block,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    OcrMode,
    detect_media_type,
    extractor_for,
    parsers_for,
)
from ragox.ingest._bodies import Prepared, analyzed_bodies
from ragox.ingest._chunker import plan_chunks, planned_chunks, search_text_and_chunks
from ragox.ingest._ids import INVALID_NAME, document_id_problem, revision_label_problem
from ragox.ingest._jobs import job_run
from ragox.ingest._language import document_language
from ragox.ingest._searchtext import SearchText
from ragox.ingest._versions import current_versions, given_language, stale_stages
from ragox.search import embed_chunks
from ragox.store import (
    ChunkRecord,
    ExtractionNotes,
    JobState,
    LexicalRows,
    RevisionRecord,
    RevisionState,
    Store,
    StoreError,
    utc_now,
)
from ragox.text import Profile

if TYPE_CHECKING:
    from ragox.ingest._ahead import ExtractAhead
    from ragox.search import Embedder

__all__ = ["DEFAULT_MAX_BYTES", "IngestOutcome", "Ingestor"]

#: Largest accepted source file, in bytes.
DEFAULT_MAX_BYTES: Final = 256 * 1024 * 1024


class _Source:
    """The bytes of one run, held by one reference that is let go after extraction, so
    that a large file does not stay in memory through indexing (issue 10)."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data: bytes | None = data

    def take(self) -> bytes:
        if self._data is None:
            raise RuntimeError("the source bytes were already released")
        return self._data

    def release(self) -> None:
        self._data = None


@dataclass(frozen=True, slots=True)
class _Fresh:
    """A representation this run extracted and stored: its text and blocks, indexed
    from memory instead of read back from the store (the same values)."""

    store: Store
    manifest_id: str
    text: str
    blocks: tuple[Block, ...]
    #: the search text, chunk ranges and language the extraction worker computed
    prepared: Prepared | None = None


#: the error code of a run whose document was deleted while it ran
DELETED_WHILE_INGESTED: Final = "DELETED"


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
        #: when set, asked for the embedder at each indexing instead (the index's
        #: embedder may change while a server runs: `ragox reindex` elsewhere)
        self.embedder_source: Callable[[], Embedder | None] | None = None
        #: when set, the text files of a folder are extracted one step ahead by a
        #: worker process (``ragox.ingest._ahead``); the result is the same
        self.ahead: ExtractAhead | None = None

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
        supplied_by: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> IngestOutcome:
        """Ingest a file; files over the size limit are recorded as FAILED unread."""
        refused = _refuse_name(document_id, revision)
        if refused is not None:
            return refused
        if self.ahead is not None:
            self.ahead.begin(path)
        size = path.stat().st_size
        if size > self.max_bytes:
            digest = hashlib.sha256()
            with path.open("rb") as handle:
                for piece in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(piece)
            return self._refuse_oversize(
                document_id, revision, groups, tenant, digest.hexdigest(), path.name, size
            )
        return self._ingest_source(
            _Source(path.read_bytes()),
            path.name,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            password=password,
            language=language,
            supplied_by=supplied_by,
            ocr=ocr,
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
        supplied_by: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> IngestOutcome:
        """Store the bytes as a revision and run it to READY or FAILED."""
        return self._ingest_source(
            _Source(data),
            filename,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            media_type=media_type,
            password=password,
            language=language,
            supplied_by=supplied_by,
            ocr=ocr,
        )

    def _ingest_source(
        self,
        source: _Source,
        filename: str,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        tenant: str,
        media_type: str | None = None,
        password: str | None = None,
        language: str | None = None,
        supplied_by: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> IngestOutcome:
        received = self.receive(
            source.take(),
            filename,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            media_type=media_type,
            language=language,
            supplied_by=supplied_by,
            ocr=ocr,
        )
        if isinstance(received, IngestOutcome):
            return received
        record, created = received
        return self._run(record, source, created, ExtractOptions(password=password, ocr=ocr))

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
        supplied_by: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> tuple[RevisionRecord, bool] | IngestOutcome:
        """Stage one: keep the bytes and the revision row (RECEIVED). Returns the final
        outcome instead when nothing is left to do (oversize, or already READY).
        ``supplied_by`` names the principal that sent the bytes; the caller has decided
        that it may write this document (the pipeline does not decide access).

        A document id or revision label that breaks the id rule (``ragox.ingest._ids``)
        is refused with ``INVALID_NAME`` before anything is stored."""
        refused = _refuse_name(document_id, revision)
        if refused is not None:
            return refused
        source_sha256 = sha256_hex(data)
        if len(data) > self.max_bytes:
            return self._refuse_oversize(
                document_id, revision, groups, tenant, source_sha256, filename, len(data)
            )
        self.store.ensure_document(tenant, document_id, language)
        # The same bytes never make a second revision: an ingest of bytes that a
        # revision already has (made earlier, or by a concurrent ingest that won the
        # creating transaction) joins that revision.
        record = self.store.revision_by_source(tenant, document_id, source_sha256)
        if record is None:
            kind = media_type or detect_media_type(filename, data) or "application/octet-stream"
            self.store.blobs.put(data)
            record, created = self.store.create_revision(
                tenant,
                document_id,
                revision,
                source_sha256,
                kind,
                filename,
                len(data),
                groups,
                supplied_by=supplied_by,
            )
            if created:
                return record, True
        if not self.store.blobs.exists(source_sha256):
            self.store.blobs.put(data)  # a revision refused unread, now within the limit
        if self.finished(record, ocr):
            return _outcome(record, created=False)
        return record, False

    def finished(self, record: RevisionRecord, ocr: OcrMode = OcrMode.AUTO) -> bool:
        """READY, by today's parser (one OCR mode ``ocr`` accepts), profile and stage
        versions, with its index whole: running it again would change nothing."""
        return (
            record.state is RevisionState.READY
            and self._up_to_date(record, ocr)
            and self.store.index_complete(record.tenant, record.document_id, record.revision)
            and self._in_given_language(record)
        )

    def _in_given_language(self, record: RevisionRecord) -> bool:
        """The revision is indexed in the language given for its document (``--language``),
        if one was given: the same bytes ingested with another language are indexed again
        in it (before, the document said the new language while its index kept the old)."""
        document = self.store.get_document(record.tenant, record.document_id)
        if document is None or not document.language or record.manifest_id is None:
            return True
        indexed = self.store.index.representation_languages([record.manifest_id])
        return indexed.get(record.manifest_id) == document.language

    def process(
        self,
        record: RevisionRecord,
        data: bytes,
        created: bool,
        password: str | None = None,
        *,
        job: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> IngestOutcome:
        """Stages two and on: extract, index, and make current (or FAILED).

        ``job``: a job a worker claimed from the queue, whose lease the worker renews
        (else the run records a job of its own, with a heartbeat)."""
        options = ExtractOptions(password=password, ocr=ocr)
        return self._run(record, _Source(data), created, options, job)

    def index(
        self,
        record: RevisionRecord,
        manifest_id: str,
        fresh: _Fresh | None = None,
        *,
        job: str | None = None,
    ) -> bool:
        """Search text, chunks, (with an embedder) vectors and lexical rows of one
        representation, recorded with the stage versions that made them; the revision
        becomes READY (and current, if newest) in the transaction that writes them.
        ``fresh``: the representation as this run has just extracted and stored it
        (indexed from memory instead of read back); ``job``: the run's job, which ends
        DONE in the transaction that makes the revision READY.

        A representation the READY revision serves now keeps its rows until that
        transaction (``commit_index``); a new one gets its vectors first, so that it
        is whole when it becomes current. Returns whether the revision is current.
        """
        tenant, document_id = record.tenant, record.document_id
        versions = current_versions()
        search, chunks, lexical = self._index(tenant, document_id, manifest_id, fresh)
        served = record.state is RevisionState.READY and record.manifest_id == manifest_id
        before = {c.chunk_id for c in self.store.chunks(manifest_id)} if served else set()
        embedder = self.embedder_source() if self.embedder_source else self.embedder
        if not served and embedder is not None:
            # The vectors need the chunk rows first; without an embedder, commit_index
            # writes them once, in its transaction.
            self.store.save_index(manifest_id, search.text, search.alignment, chunks)
            self._embed(embedder, [c.chunk_id for c in chunks])
        current = self.store.commit_index(
            tenant,
            document_id,
            record.revision,
            search.text,
            search.alignment,
            chunks,
            versions,
            lexical,
            job=job,
        )
        if served:
            self._embed(embedder, [c.chunk_id for c in chunks if c.chunk_id not in before])
        return current

    def _index(
        self, tenant: str, document_id: str, manifest_id: str, fresh: _Fresh | None = None
    ) -> tuple[SearchText, list[ChunkRecord], LexicalRows]:
        """Build (without writing) a representation's search text, chunks and lexical
        rows; its text and blocks as this run has just stored them (``fresh``), else
        read from the store."""
        blocks: Sequence[Block]
        prepared = None
        if fresh is not None and fresh.store is self.store and fresh.manifest_id == manifest_id:
            text, blocks, prepared = fresh.text, fresh.blocks, fresh.prepared
        else:
            blocks = self.store.blocks(manifest_id)
            text = self.store.text(manifest_id)
        if prepared is not None:
            search = prepared.search
            chunks = planned_chunks(manifest_id, blocks, search, prepared.pieces)
        else:
            search, chunks = search_text_and_chunks(manifest_id, text, blocks)
        document = self.store.get_document(tenant, document_id)
        assert document is not None
        if document.language:
            language: str | None = document.language
        elif prepared is not None:
            language = prepared.language
        else:
            language = document_language(search.text)
        rows: Iterable[tuple[str, str]]
        if (
            prepared is not None
            and prepared.bodies is not None
            and prepared.language == language
            and len(prepared.bodies) == len(chunks)
        ):
            # the worker analyzed the bodies of these chunks in this very language
            rows = zip((c.chunk_id for c in chunks), prepared.bodies, strict=True)
        else:
            rows = analyzed_bodies(text, blocks, search.text, chunks, language)
        return search, list(chunks), LexicalRows(manifest_id, language, rows)

    def _embed(self, embedder: Embedder | None, chunk_ids: list[str]) -> None:
        if embedder is not None and chunk_ids:
            # Lexical search works without them: on an embedder failure the chunks stay
            # without vectors, `ragox status` counts them and `ragox reindex` fills them.
            from ragox.search import EmbedderError  # noqa: PLC0415 - with an embedder only

            with contextlib.suppress(EmbedderError):
                embed_chunks(self.store, embedder, chunk_ids)

    def _up_to_date(self, record: RevisionRecord, ocr: OcrMode = OcrMode.AUTO) -> bool:
        """The revision's current representation is by today's parser (one that OCR
        mode ``ocr`` accepts) and profile."""
        if record.manifest_id is None:
            return False
        try:
            parsers = parsers_for(record.media_type, ocr, given_language(self.store, record))
        except ExtractionError:
            return True  # nothing newer could extract it
        found = self.store.get_manifest(record.manifest_id)
        return (
            found is not None
            and (found.manifest.parser, found.manifest.parser_config_sha256)
            in {(parser.id, parser.config_sha256) for parser in parsers}
            and found.manifest.profile == self.profile.id
            and not stale_stages(self.store, record, self.profile.id)
        )

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
        record, created = self.store.create_revision(
            tenant,
            document_id,
            revision,
            source_sha256,
            "application/octet-stream",
            filename,
            size,
            groups,
        )
        if record.state is RevisionState.READY:
            return _outcome(record, created=False)  # accepted earlier, under another limit
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
            created,
            ErrorCode.TOO_LARGE.value,
            message,
        )

    def _run(
        self,
        record: RevisionRecord,
        source: _Source,
        created: bool,
        options: ExtractOptions,
        claimed: str | None = None,
    ) -> IngestOutcome:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        # A job row per run, with a lease its heartbeat renews: one left RUNNING by a
        # run that died is told apart from a live one (ingest._jobs).
        try:
            job = claimed or self.store.start_job(tenant, doc, rev)
        except Exception:
            if self.store.get_revision(tenant, doc, rev) is not None:
                raise
            return _deleted(record, created)  # deleted before this run began
        # Interrupted (Ctrl-C, or an error no stage expected): the job ends FAILED
        # (INTERRUPTED); the revision stays in its stage, never current, for a rerun,
        # `ragox retry` or `ragox fail`. A claimed job's worker renews its lease.
        with job_run(self.store, job, beat=not claimed):
            return self._stages(record, source, created, options, job)

    def _stages(
        self,
        record: RevisionRecord,
        source: _Source,
        created: bool,
        options: ExtractOptions,
        job: str,
    ) -> IngestOutcome:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        stage = "extract"
        try:
            # A new representation is stored with the revision EXTRACTED (one write).
            manifest_id, fresh = self._represent(record, source, options, extracted=True)
            if fresh is None:  # stored by an earlier run
                self.store.set_state(tenant, doc, rev, RevisionState.EXTRACTED)
            stage = "index"
            self.store.set_state(tenant, doc, rev, RevisionState.INDEXING, job=job, stage=stage)
            # The job ends DONE in the transaction that makes the revision READY.
            self.index(record, manifest_id, fresh, job=job)
            del fresh
        except ExtractionError as error:
            return self._failed(record, created, job, stage, error.code.value, error.message)
        except (StoreError, MemoryError, RecursionError) as error:
            code = (
                ErrorCode.TOO_COMPLEX if isinstance(error, RecursionError) else ErrorCode.INTERNAL
            )
            return self._failed(record, created, job, stage, code.value, type(error).__name__)
        except Exception:
            # The document was deleted while this run extracted it (its rows are gone,
            # so writing the representation broke a foreign key): that file's outcome,
            # not the end of a folder's ingest (red-team find). Anything else is a bug.
            if self.store.get_revision(tenant, doc, rev) is not None:
                raise
            self.store.finish_job(job, JobState.FAILED, None, DELETED_WHILE_INGESTED)
            return _deleted(record, created)
        final = self.store.get_revision(tenant, doc, rev)
        assert final is not None
        return _outcome(final, created=created)

    def represent(self, record: RevisionRecord, data: bytes, options: ExtractOptions) -> str:
        """The manifest id of the revision's representation by today's parser and
        profile: the stored one, else extracted now and stored beside the others (a
        READY revision keeps serving its current one until ``index``)."""
        return self._represent(record, _Source(data), options)[0]

    def _represent(
        self,
        record: RevisionRecord,
        source: _Source,
        options: ExtractOptions,
        *,
        extracted: bool = False,
    ) -> tuple[str, _Fresh | None]:
        """``represent``, letting the bytes go as soon as they are extracted: nothing
        after extraction needs them, and a large file is not held while its
        representation is stored and indexed (issue 10). With the manifest id, the
        text and blocks of a representation extracted now (None: one stored before).
        ``extracted``: a representation stored now makes the revision EXTRACTED."""
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        language = given_language(self.store, record)
        for parser in parsers_for(record.media_type, options.ocr, language):
            manifest_record = self.store.find_manifest(
                tenant, doc, rev, parser.id, parser.config_sha256, self.profile.id
            )
            if manifest_record is not None:
                return manifest_record.manifest_id, None
        self.store.set_state(tenant, doc, rev, RevisionState.EXTRACTING)
        manifest, extraction = self.extract(record, source.take(), options)
        source.release()
        prepared = self.ahead.prepared(extraction) if self.ahead is not None else None
        indexed_in = None
        if extracted:  # indexing comes next: plan it now, to store the language with the text
            if prepared is None:
                search, pieces = plan_chunks(extraction.text, extraction.blocks)
                prepared = Prepared(search, pieces, document_language(search.text), None)
            document = self.store.get_document(tenant, doc)
            given = None if document is None else document.language
            indexed_in = given or prepared.language
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
            extracted=extracted,
            language=indexed_in,
        )
        return manifest_id, _Fresh(
            self.store, manifest_id, extraction.text, extraction.blocks, prepared
        )

    def extract(
        self, record: RevisionRecord, data: bytes, options: ExtractOptions
    ) -> tuple[Manifest, Extraction]:
        """Extract the revision's bytes with today's parser and profile (nothing stored);
        OCR reads with the models of the document's given language."""
        if options.language is None:
            options = dataclasses.replace(options, language=given_language(self.store, record))
        extraction = None
        if self.ahead is not None:
            extraction = self.ahead.take(
                record.source_sha256, record.media_type, self.profile, options
            )
        if extraction is None:
            extraction = extractor_for(record.media_type)(data, self.profile, options)
        manifest = Manifest(
            document_id=record.document_id,
            revision=record.revision,
            source_sha256=record.source_sha256,
            text_sha256=_text_sha256(extraction.text),
            media_type=extraction.media_type,
            parser=extraction.parser.id,
            parser_config_sha256=extraction.parser.config_sha256,
            profile=self.profile.id,
            segmentation=self.profile.segmentation,
            created_at=utc_now(),
        )
        return manifest, extraction

    def _failed(
        self,
        record: RevisionRecord,
        created: bool,
        job: str,
        stage: str,
        code: str,
        message: str,
    ) -> IngestOutcome:
        tenant, doc, rev = record.tenant, record.document_id, record.revision
        failed = self.store.set_state(
            tenant,
            doc,
            rev,
            RevisionState.FAILED,
            failed_stage=stage,
            error_code=code,
            error_message=message,
        )
        self.store.finish_job(job, JobState.FAILED, stage, code)
        if not failed and self.store.get_revision(tenant, doc, rev) is None:
            return _deleted(record, created)  # deleted while it ran, then failed
        # A READY revision whose re-parse failed stays READY (set_state leaves it).
        state = RevisionState.FAILED if failed else RevisionState.READY
        return IngestOutcome(doc, rev, state, created, code, message)


def _refuse_name(document_id: str, revision: str | None) -> IngestOutcome | None:
    """The outcome of an id or label that breaks the id rule (nothing is stored; the
    message names the rule, never the id), else None."""
    problem = document_id_problem(document_id)
    if problem is not None:
        message = f"document id {problem}"
    elif revision is not None and (problem := revision_label_problem(revision)):
        message = f"revision {problem}"
    else:
        return None
    return IngestOutcome(
        document_id, revision or "", RevisionState.FAILED, False, INVALID_NAME, message
    )


def _text_sha256(text: str) -> str:
    """SHA-256 of the text's UTF-8 bytes, encoded a slice at a time (a large text's
    bytes are never all held beside it)."""
    digest = hashlib.sha256()
    for start in range(0, len(text), _HASH_SLICE):
        digest.update(text[start : start + _HASH_SLICE].encode("utf-8"))
    return digest.hexdigest()


#: Code points encoded at a time by :func:`_text_sha256`.
_HASH_SLICE: Final = 1 << 20


def _deleted(record: RevisionRecord, created: bool) -> IngestOutcome:
    """The outcome of a run whose document was deleted while it ran."""
    return IngestOutcome(
        record.document_id,
        record.revision,
        RevisionState.FAILED,
        created,
        DELETED_WHILE_INGESTED,
        "the document was deleted while it was ingested",
    )


def _outcome(record: RevisionRecord, *, created: bool) -> IngestOutcome:
    return IngestOutcome(
        document_id=record.document_id,
        revision=record.revision,
        state=record.state,
        created=created,
        error_code=record.error_code,
        error_message=record.error_message,
    )
