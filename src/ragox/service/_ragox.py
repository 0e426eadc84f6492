"""The application façade the CLI and the HTTP API share: one home, one store."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import heapq
import json
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragox.access import (
    ANY_ID,
    DEFAULT_TENANT,
    Principal,
    can_read,
    collection_group,
    may_write_id,
)
from ragox.anchor._model import (
    ManifestSigner,
    Refusal,
    Resolution,
    ResolutionStatus,
    sha256_hex,
)
from ragox.extract import OcrMode
from ragox.service._home import load_or_create_key
from ragox.service._ids import document_id_problem, revision_label_problem
from ragox.service._retention import cutoff
from ragox.store import (
    CheckRun,
    DocumentRecord,
    ExtractionNotes,
    JobState,
    KeyRecord,
    PurgeCounts,
    RetentionPolicy,
    RevisionConflict,
    RevisionReads,
    RevisionRecord,
    RevisionState,
    Store,
    StoredAnchor,
    StoreError,
    open_store,
    utc_now,
)
from ragox.text import BASE_PROFILE, Coordinates, MappedRange, Profile, Span

# A command imports what it uses (issue 15): ``ragox status`` loads neither the
# ingestion pipeline nor search, answers or checks, so those are imported where used.
if TYPE_CHECKING:
    from ragox.anchor import Anchor, Migration
    from ragox.answer import AnswerRecord, Citation, Generator, Translation
    from ragox.answer._extractive import Weights
    from ragox.ingest import (
        Ingestor,
        IngestOutcome,
        JobHealth,
        ReprocessReport,
        RevisionRebuild,
        StaleStage,
        Worker,
        WorkerConfig,
    )
    from ragox.search import Hit, Searcher, SearchMode
    from ragox.service._check import CheckReport
    from ragox.service._lookup import StoreLookup
    from ragox.service._verify import VerifyReport
    from ragox.store import HitSource

if TYPE_CHECKING:
    from ragox.answer._cells import EvidenceCell, TableCells
    from ragox.answer._vectors import VectorEvidence
    from ragox.search import Embedder, Respelling

__all__ = [
    "ActionRefused",
    "CollectionReaders",
    "DocumentPage",
    "DocumentStatus",
    "InCurrent",
    "IngestItem",
    "NotFound",
    "Ragox",
    "ReplayedAnswer",
    "ReplayedCitation",
    "RevisionStatus",
    "SkipReason",
    "Successor",
    "WriteRefused",
]

#: the least chunk count the answer's term weights (IDF) are computed with
MIN_IDF_CHUNKS: Final = 100
#: the shortest anchor id prefix accepted where an anchor id is (commands print 16)
MIN_ANCHOR_PREFIX: Final = 8
#: how often a running ``reprocess`` stores its report so far (seconds)
_REPORT_EVERY_S: Final = 2.0
#: how much deeper an answer's lexical search goes when passages of other languages
#: than the question's are among its hits (:meth:`Ragox._in_question_language`)
_OTHER_LANGUAGE_DEPTH: Final = 3
#: how much deeper an answer to a definition question looks for a passage that defines
#: the asked term, when none of its hits does
_DEFINITION_DEPTH: Final = 5
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
    #: two different files of one command would get the same document id (``README.md``
    #: of two folders given side by side): neither is ingested, so that one never
    #: silently becomes a new revision of the other
    ID_COLLISION = "ID_COLLISION"
    #: a symbolic link that leads out of the ingested folder (never followed)
    OUTSIDE_FOLDER = "OUTSIDE_FOLDER"
    #: a file name that is not UTF-8, or a document id that breaks the id rule
    INVALID_NAME = "INVALID_NAME"
    #: a symbolic link whose target does not exist (Debian's doc folders have them,
    #: ``README.md.gz -> ../other-package/README.md.gz``): nothing to read, no failure
    BROKEN_LINK = "BROKEN_LINK"
    #: ``ingest --groups`` of bytes a revision already has, stored for other readers:
    #: nothing changes (the same bytes never make a second revision), and the readers
    #: are not silently left as they were either; ``ragox acl`` changes them
    GROUPS_DIFFER = "GROUPS_DIFFER"

    @property
    def is_failure(self) -> bool:
        """A file the caller meant to ingest that was not (exit 1); the others are files
        ragox does not read at all (an image in a folder, a link out of the folder),
        which are only reported."""
        return self not in (
            SkipReason.UNSUPPORTED_TYPE,
            SkipReason.NOT_A_FILE,
            SkipReason.OUTSIDE_FOLDER,
            SkipReason.BROKEN_LINK,
        )


@dataclass(frozen=True, slots=True)
class ReplacedLanguage:
    """A current revision that a new one in another language replaced."""

    revision: str
    language: str
    #: the new revision's language
    now: str


@dataclass(frozen=True, slots=True)
class IngestItem:
    """One input path and its outcome, or why it was skipped."""

    path: str
    outcome: IngestOutcome | None
    skipped: SkipReason | None = None
    #: stored and queued for a worker (``ingest --queue``), not run here
    queued: bool = False
    #: the document's current revision, when it is not the outcome's (bytes of an older
    #: revision ingested again are that revision, unchanged, and do not become current)
    current_revision: str | None = None
    #: the revision a new one replaced as current, when the two are in different
    #: languages: likely another document under the same id (a manual's German
    #: folder ingested after its English one, file names alike)
    replaced: ReplacedLanguage | None = None

    @property
    def ready(self) -> bool:
        return self.outcome is not None and self.outcome.state is RevisionState.READY

    @property
    def failed(self) -> bool:
        """Not ready for a reason the caller must hear about (exit 1)."""
        if self.outcome is not None:
            if self.queued:
                return self.outcome.state is RevisionState.FAILED
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


@dataclass(frozen=True, slots=True)
class DocumentPage:
    """A page of the listing of a principal's documents, by id."""

    documents: tuple[DocumentStatus, ...]
    #: the id the next page starts after; None when the listing ended on this page
    next_after: str | None


#: fewest documents of the tenant one read of a page's listing covers
_STATUS_WINDOW: Final = 200


class Attention(enum.Enum):
    """Why ``status``'s summary names a document, most pressing first."""

    #: a revision failed (its stage and error code are shown)
    FAILED = "FAILED"
    #: a revision is in an intermediate state with no live run behind it
    STUCK = "STUCK"
    #: a revision is queued or being processed
    IN_PROGRESS = "IN_PROGRESS"
    #: a READY revision has chunks without a vector of the index's embedder
    VECTORS_MISSING = "VECTORS_MISSING"
    #: a READY revision has pages without text (a scan OCR could not read)
    PAGES_WITHOUT_TEXT = "PAGES_WITHOUT_TEXT"
    #: a READY revision was made by other stage versions than today's
    STALE = "STALE"


@dataclass(frozen=True, slots=True)
class StatusSummary:
    """``ragox status`` of a whole tenant in counts (exact, for every revision the
    principal may read), with the documents that need attention: the first ``limit``
    of them (most pressing first, then by id) read in full."""

    documents: int
    #: revisions per state (a :class:`RevisionState`'s value), the states present only
    revisions: dict[str, int]
    #: READY revisions with a stale stage, and per stage how many have it stale
    stale_revisions: int
    stale_stages: dict[str, int]
    #: in-progress revisions whose latest run is queued, running (alive), or stuck
    queued: int
    running: int
    stuck: int
    #: chunks without a vector of the index's embedder, and the revisions that have
    #: some (None: the index has no embedder)
    vectors_missing: int | None
    revisions_missing_vectors: int | None
    pages_without_text: int
    #: documents per reason they need attention (a document may have several)
    attention: dict[Attention, int]
    #: documents needing attention, any reason
    attention_documents: int
    #: the first of them, in full, with the reasons of each
    shown: tuple[tuple[DocumentStatus, tuple[Attention, ...]], ...]


PDF = "application/pdf"


@dataclass(frozen=True, slots=True)
class ReplayedAnswer:
    """An answer as a principal may see it now."""

    record: AnswerRecord
    answer: str
    citations: tuple[ReplayedCitation, ...]
    #: what the answer says is missing, as this principal may see it now (the record's
    #: note, or a note that it was withheld)
    missing: str | None


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
    #: the quote in the answer's language (derived from the document's text, so
    #: withheld with the anchor)
    translation: Translation | None = None
    #: the same passage in other documents (cited once, as ``ask`` showed it): only the
    #: copies that resolve now for this principal; the others are not named
    also_in: tuple[Citation, ...] = ()


@dataclass(frozen=True, slots=True)
class Successor:
    """A citation's anchor was migrated to another representation (``ragox reprocess``
    or ``migrate``): the new anchor, the representation it is in, and the old one."""

    anchor: Anchor
    #: the representation the cited anchor is in (manifest id of the old anchor)
    old_manifest_id: str
    new_manifest_id: str


@dataclass(frozen=True, slots=True)
class InCurrent:
    """Whether a passage verified in a representation that is no longer current (an
    older revision, or a revision extracted again since) is in the document's current
    text, checked as ``migrate`` would carry it there (nothing is written)."""

    #: the document's current revision
    revision: str
    #: RESOLVED: there once (at ``range``); QUOTE_NOT_FOUND: not there; AMBIGUOUS:
    #: there more than once with the same context
    status: ResolutionStatus
    range: Span | None = None


#: a verification's round trip of an encrypted PDF (its password is not kept)
_LOCKED_PDF: Final = "not checkable without its password (not kept)"

_SKIP_NAMES = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})


class Ragox:
    """Everything a caller can do with one home."""

    def __init__(
        self,
        home: Path,
        *,
        profile: Profile = BASE_PROFILE,
        max_bytes: int | None = None,
        store: str | None = None,
    ) -> None:
        """``max_bytes``: the largest original accepted (None: the ingestion default,
        :data:`ragox.ingest.DEFAULT_MAX_BYTES`)."""
        self.home = home
        # ``store``: a postgresql:// URL (default: $RAGOX_STORE, else SQLite in the home)
        self.store: Store = open_store(home, store)
        self.signer = ManifestSigner(load_or_create_key(home))
        self.profile = profile
        self._max_bytes = max_bytes
        self._embedder: Embedder | None = None
        self._embedder_spec: str | None = None
        self._searcher: Searcher | None = None
        #: uploads being processed here after their response (``process_upload``)
        self._processing = 0
        self._processing_lock = threading.Lock()

    @functools.cached_property
    def ingestor(self) -> Ingestor:
        """The ingestion pipeline of this home, made on first use (a search, an answer
        or ``status`` never loads the extractors)."""
        from ragox.ingest import DEFAULT_MAX_BYTES, Ingestor  # noqa: PLC0415

        max_bytes = DEFAULT_MAX_BYTES if self._max_bytes is None else self._max_bytes
        ingestor = Ingestor(self.store, self.signer, self.profile, max_bytes)
        # Asked at each indexing: a `ragox reindex` in another process may change the
        # index's embedder while this one (a server) runs.
        ingestor.embedder_source = self._configured_embedder_lazy
        return ingestor

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
            from ragox.search import embedder_from_spec  # noqa: PLC0415 - loads httpx, numpy

            self._embedder = embedder_from_spec(self._embedder_spec)
        return self._embedder

    @property
    def embedder_spec(self) -> str | None:
        return self.store.index.setting("embedder_spec")

    def searcher(self, embedder: Embedder | None = None) -> Searcher:
        """A searcher with the index's embedder (or an explicit one, which must match)."""
        from ragox.search import Searcher  # noqa: PLC0415

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
        collapse: bool = False,
        prefer_instructions: bool = True,
    ) -> list[Hit]:
        """Hybrid when the index has vectors, lexical otherwise, unless ``mode`` says.

        ``collapse``: one hit per passage, its copies in other documents (HTML and PDF
        of one manual) under it as ``also_in`` (what a reader is shown); answers and
        evaluations read every chunk. ``prefer_instructions``: see
        :meth:`~ragox.search.Searcher.search`."""
        from ragox.search import in_askers_tree  # noqa: PLC0415

        searcher = self.searcher(embedder)
        # "апаче" finds the passages on "Apache" (see :meth:`ask`); a search is run as
        # typed otherwise: its hits do not say that a word was read as another
        asked = self._respelt(query, principal, spelling=False).question
        hits = searcher.search(
            asked,
            principal,
            mode or self.default_mode(),
            limit,
            collapse=collapse,
            prefer_instructions=prefer_instructions,
        )
        # a passage found in several language trees is shown in the query's
        return in_askers_tree(hits, query) if collapse else hits

    def _respelt(self, question: str, principal: Principal, *, spelling: bool = True) -> Respelling:
        """The question with its Cyrillic names spelt as the reader's Russian documents
        write them (``ragox.search._respell``; not where the reader may read no Russian
        document), and, with ``spelling``, its misspelt words as the reader's documents
        write them (``ragox.search._spelling``)."""
        from ragox.search import (  # noqa: PLC0415
            MAX_QUERY_CHARS,
            Respelling,
            readable_terms,
            respell,
            russian_terms,
            scope_of,
        )
        from ragox.search._respell import with_words  # noqa: PLC0415
        from ragox.search._spelling import corrections  # noqa: PLC0415

        if len(question) > MAX_QUERY_CHARS:
            return Respelling(question, ())
        index = self.store.index
        held = readable_terms(index, principal)
        respelt = (
            respell(question, held, russian_terms(index, principal))
            if "ru" in self.searcher().languages(principal)
            else Respelling(question, ())
        )
        if not spelling:
            return respelt
        scope = scope_of(principal)
        read = corrections(
            respelt.question, held, lambda terms: index.term_statistics(scope, terms)[1]
        )
        if not read:
            return respelt
        return Respelling(with_words(respelt.question, read), (*respelt.words, *read.items()))

    def default_mode(self) -> SearchMode:
        """Hybrid when the index has vectors and their embedder is available."""
        from ragox.search import SearchMode  # noqa: PLC0415

        has_vectors = self.store.index.setting("embedder_key") is not None
        if has_vectors and self._configured_embedder_lazy() is not None:
            return SearchMode.HYBRID
        return SearchMode.LEXICAL

    # -- answers ---------------------------------------------------------------------

    def answer_mode(self, question: str, principal: Principal) -> SearchMode:
        """The mode ``ask`` answers in when none is given: lexical when the question's
        language (:func:`~ragox.search.query_language`) is among the languages of the
        passages the reader may read, else :meth:`default_mode` (hybrid with vectors).

        On same-language manuals the words answer better than their fusion with
        meaning (issue 16's dev set, 145 questions en/de/ru, one home: gold-cited .667
        lexical against .611 hybrid, false abstentions .130 against .222); a question
        in a language the scope lacks needs the vectors to meet its passages at all.
        An answer that abstains in lexical mode is asked again in the default mode
        (``ask``): the scope may hold the question's language and the answer only
        another's (false abstentions .130 → .102 on the dev set, gold-cited the same).
        """
        return self._answer_mode(question, principal)[0]

    def _answer_mode(self, question: str, principal: Principal) -> tuple[SearchMode, str]:
        """:meth:`answer_mode` and why (the trace's ``mode_reason``)."""
        from ragox.search import SearchMode, query_language  # noqa: PLC0415

        default = self.default_mode()
        if default is SearchMode.LEXICAL:
            return default, "no_vectors"
        spoken = query_language(question)
        if spoken is not None and spoken in self.searcher().languages(principal):
            return SearchMode.LEXICAL, "language_in_scope"
        return default, "language_not_in_scope"

    def ask(
        self,
        question: str,
        principal: Principal,
        generator: Generator | None = None,
        mode: SearchMode | None = None,
        candidates: int = 10,
        answer_language: str | None = None,
    ) -> AnswerRecord:
        """Search inside the principal's scope, answer from it, validate, and persist.

        ``answer_language`` (ISO 639-1): the reader's language; quotes stay in their
        source's (see :func:`~ragox.answer.answer_question`)."""
        from ragox.answer import ExtractiveGenerator, answer_question  # noqa: PLC0415

        # a name written in Cyrillic that the reader's documents write in Latin letters
        # ("апаче" for "Apache") is searched and answered as they write it
        respelt = self._respelt(question, principal)
        asked = respelt.question

        def answered(used: SearchMode) -> tuple[AnswerRecord, list[Hit]]:
            hits, vectors = self._answer_hits(asked, principal, used, candidates)
            record = answer_question(
                asked,
                principal,
                hits,
                self.store,
                self.lookup(principal),
                generator
                or ExtractiveGenerator(
                    term_weights=self.term_weights(principal),
                    table_cells=self.table_cells(),
                    vectors=vectors,
                ),
                answer_language=answer_language,
                written=question,
            )
            return record, hits

        used, reason = (mode, "given") if mode else self._answer_mode(asked, principal)
        record, hits = answered(used)
        if mode is None and record.abstained and used is not self.default_mode():
            # the words found no answer in the question's language: by meaning, then
            used, reason = self.default_mode(), "lexical_abstained"
            record, hits = answered(used)
        # the trace (the operator's diagnostics) names the mode the answer was drawn in,
        # and the words respelt; the record keeps the question as the reader wrote it
        trace = {**record.trace, "mode": used.value, "mode_reason": reason}
        if respelt.words:
            trace["respelled"] = dict(respelt.words)
        record = replace(record, question=question, trace=trace)
        payload = record.to_json()
        trace = payload.pop("trace")
        self.store.save_answer(
            record.answer_id,
            record.tenant,
            record.principal,
            record.created_at,
            payload,
            trace=trace,
            # every document whose text or ids the record or its trace holds
            documents=frozenset(e.document_id for e in record.evidence)
            | frozenset(h.document_id for hit in hits for h in (hit, *hit.also_in)),
            redact=_redact,
        )
        # Citations become stored anchors, so that a viewer can open them by id.
        manifests = {item.source_id: item.manifest_id for item in record.evidence}
        for citation in record.citations:
            for shown in (citation, *citation.also_in):
                try:
                    self.store.save_anchor(shown.anchor, manifests[shown.source_id], principal.name)
                except StoreError:
                    continue  # deleted meanwhile: the record was stored redacted
        self.apply_retention()
        return record

    def _answer_hits(
        self, question: str, principal: Principal, mode: SearchMode | None, candidates: int
    ) -> tuple[list[Hit], VectorEvidence | None]:
        """The hits an answer is drawn from and, in hybrid or vector mode, the question's
        similarity by meaning to them (``ragox.answer._vectors``)."""
        from ragox.answer._vectors import vector_evidence  # noqa: PLC0415
        from ragox.search import query_language  # noqa: PLC0415

        # The evidence in BM25 order: the extractive scorer weighs a sentence's
        # instruction and its passage's rank itself, and search's preference for
        # instructions on top of that (issue 16's dev set) turned an abstention and a
        # gold citation into wrong answers.
        # Distinct passages, each with its copies in other documents (the PDF and the
        # HTML of one manual) under it: the copies follow it in the evidence without
        # taking the places of other passages (``select_context``).
        # The hit sources both searches read (the deeper one ranks the same chunks
        # first): each chunk's is read once per answer.
        sources: dict[str, HitSource] = {}
        hits = self._evidence_search(question, principal, mode, candidates, sources)
        every = [h for hit in hits for h in (hit, *hit.also_in)]
        if self._embedder is None or not any(
            rank.retriever == "vector" for hit in every for rank in hit.found_by
        ):
            deeper = self._in_question_language(
                question, principal, mode, hits, candidates, sources
            )
            return self._definitions_first(
                question, principal, mode, deeper, candidates, sources
            ), None
        languages = self.store.index.chunk_languages([hit.chunk_id for hit in every])
        model = self._embedder.identity.model
        return hits, vector_evidence(every, model, query_language(question), languages)

    def _evidence_search(
        self,
        question: str,
        principal: Principal,
        mode: SearchMode | None,
        depth: int,
        sources: dict[str, HitSource],
    ) -> list[Hit]:
        """The ``depth`` best distinct passages for an answer's evidence, in BM25 order
        (no instructions first, no snippets); ``sources`` gathers the hit sources read."""
        return self.searcher().search(
            question,
            principal,
            mode or self.default_mode(),
            depth,
            collapse=True,
            prefer_instructions=False,
            sources=sources,
            snippets=False,
        )

    def _in_question_language(
        self,
        question: str,
        principal: Principal,
        mode: SearchMode | None,
        hits: list[Hit],
        candidates: int,
        sources: dict[str, HitSource],
    ) -> list[Hit]:
        """Lexical evidence for a question in a language the reader's documents share:
        passages of documents in that language first. The same manual in three
        languages shares its names and commands ("What is LVM?"), so its other
        translations took most of the places, and the answer drops passages in other
        languages when it has some in the question's. When such passages are among
        the hits, the search is made again deeper and its passages in the question's
        language (or of no detected language) come first, in their order, then the
        others. ``sources``: the hit sources the first search read."""
        from ragox.search import detect_language, query_language  # noqa: PLC0415

        spoken = query_language(question)
        if spoken is None or not hits or spoken not in self.searcher().languages(principal):
            return hits
        languages = self.store.index.chunk_languages(
            [h.chunk_id for hit in hits for h in (hit, *hit.also_in)]
        )

        def in_spoken(hit: Hit) -> bool:
            # a passage whose copy is in a document of the question's language (the
            # English paragraph a Russian manual left untranslated, found first in the
            # English manual) is in the reader's language too; and so is a passage
            # written in it, whatever its document's (a partly translated page whose
            # untranslated paragraphs made the whole page "English")
            return any(
                languages.get(h.chunk_id) in (spoken, None) or written_in(h) == spoken
                for h in (hit, *hit.also_in)
            )

        def written_in(hit: Hit) -> str | None:
            source = sources.get(hit.chunk_id)
            return detect_language(source.text) if source is not None else None

        def lead(hit: Hit) -> Hit:
            # the same passage in a document of the question's language is the one
            # cited (the English manual's copy of a paragraph the Russian manual left
            # untranslated goes under it), at the first copy's rank
            if languages.get(hit.chunk_id) == spoken:
                return hit
            for index, copy in enumerate(hit.also_in):
                if languages.get(copy.chunk_id) == spoken:
                    others = (*hit.also_in[:index], *hit.also_in[index + 1 :])
                    return dataclasses.replace(
                        copy,
                        score=hit.score,
                        found_by=hit.found_by,
                        also_in=(dataclasses.replace(hit, also_in=()), *others),
                    )
            return hit

        if all(in_spoken(hit) for hit in hits):
            return [lead(hit) for hit in hits]
        wider = self._evidence_search(
            question, principal, mode, candidates * _OTHER_LANGUAGE_DEPTH, sources
        )
        languages = self.store.index.chunk_languages(
            [h.chunk_id for hit in wider for h in (hit, *hit.also_in)]
        )
        own = [lead(hit) for hit in wider if in_spoken(hit)]
        others = [hit for hit in wider if not in_spoken(hit)]
        return (own + others)[:candidates]

    def _definitions_first(
        self,
        question: str,
        principal: Principal,
        mode: SearchMode | None,
        hits: list[Hit],
        candidates: int,
        sources: dict[str, HitSource],
    ) -> list[Hit]:
        """Lexical evidence for a definition question ("Was ist SELinux?") led by a
        passage that defines the asked term (``ragox.answer._definitions``): the first
        hit that does, or when none does, the first passage that does of a search made
        again deeper (in the question's language, where the reader has documents in
        it). ``sources``: the hit sources the earlier searches read."""
        from ragox.answer._definitions import asked_term, defines  # noqa: PLC0415
        from ragox.search import detect_language, query_language  # noqa: PLC0415

        term = asked_term(question)
        if not term or not hits:
            return hits

        def text(hit: Hit) -> str:
            source = sources.get(hit.chunk_id)
            return source.text if source is not None else ""

        for place, hit in enumerate(hits):
            if any(defines(term, text(h)) for h in (hit, *hit.also_in)):
                # (the evidence keeps the first few passages: it leads them)
                return [hit, *hits[:place], *hits[place + 1 :]]
        wider = self._evidence_search(
            question, principal, mode, candidates * _DEFINITION_DEPTH, sources
        )
        shown = {h.chunk_id for hit in hits for h in (hit, *hit.also_in)}
        found = [hit for hit in wider if hit.chunk_id not in shown and defines(term, text(hit))]
        spoken = query_language(question)
        if found and spoken is not None and spoken in self.searcher().languages(principal):
            languages = self.store.index.chunk_languages([hit.chunk_id for hit in found])
            found = [
                hit
                for hit in found
                if languages.get(hit.chunk_id) in (spoken, None)
                or detect_language(text(hit)) == spoken
            ]
        if not found:
            return hits
        return [found[0], *hits][:candidates]

    def table_cells(self) -> TableCells:
        """The table cells inside a range of a representation, with their headers'
        texts, for one answer (the evidence's representations were permitted when they
        were searched). Only a range that holds cells reads more: every cell of the
        tables it touches (their headers may lie pages away), not the representation's
        other blocks (a manual's chapter has thousands)."""
        from ragox.answer._cells import cells_from_blocks  # noqa: PLC0415 - loaded on use

        store = self.store

        @functools.cache
        def of_tables(manifest_id: str, tables: tuple[int, ...]) -> tuple[EvidenceCell, ...]:
            blocks = store.blocks(manifest_id, tables=tables)
            return tuple(cells_from_blocks(store.text(manifest_id), blocks))

        def cells(manifest_id: str, start: int, end: int) -> tuple[EvidenceCell, ...]:
            tables = {b.cell.table for b in store.blocks(manifest_id, start, end) if b.cell}
            if not tables:
                return ()
            found = of_tables(manifest_id, tuple(sorted(tables)))
            return tuple(c for c in found if c.start < end and start < c.end)

        return cells

    def term_weights(self, principal: Principal) -> Callable[[Sequence[str]], Weights]:
        """BM25-style IDF of terms within what the principal may read, and which of
        them no such passage holds."""
        from ragox.answer._extractive import Weights  # noqa: PLC0415 - loaded by ask
        from ragox.search import scope_of  # noqa: PLC0415

        scope = scope_of(principal)

        def weights(terms: Sequence[str]) -> Weights:
            total, frequencies = self.store.index.term_statistics(scope, terms)
            # Document frequencies from a handful of chunks are noise: in a one-chunk
            # index a word of the question that the text lacks ("how *often*") would
            # weigh five times a word it has. Counting at least MIN_IDF_CHUNKS chunks
            # keeps such weights near each other; larger indexes are unaffected.
            total = max(total, MIN_IDF_CHUNKS)
            return Weights(
                {
                    term: math.log(
                        1 + (total - frequencies[term] + 0.5) / (frequencies[term] + 0.5)
                    )
                    for term in terms
                },
                [term for term in terms if not frequencies[term]],
            )

        return weights

    def show_answer(self, answer_id: str, principal: Principal) -> ReplayedAnswer:
        """Replay an answer: every citation re-resolved now, with this principal's access.

        Only the asker (the principal of the same name in the same tenant) and the
        tenant's operators may replay an answer: its question and claims are the asker's,
        and an answer id is no read right. To everyone else, and for answers of another
        tenant, it looks missing. Claims whose citation no longer resolves for the
        principal are withheld (their text is document text).
        """
        from ragox.anchor import resolve  # noqa: PLC0415
        from ragox.answer import (  # noqa: PLC0415
            compose,
            messages_for,
            quotes_only,
            withheld_note,
        )

        record = self._stored_answer(answer_id, principal)
        lookup = self.lookup(principal)
        now = {c.anchor.anchor_id: resolve(c.anchor, lookup) for c in record.citations}
        copies = {
            c.anchor.anchor_id: tuple(
                replace(other, status=again.status)
                for other in c.also_in
                if (again := resolve(other.anchor, lookup)).resolved
            )
            for c in record.citations
        }
        # A generator that writes its own words (a language model) may have mixed every
        # passage it was shown into any claim and into its note on what is missing: once
        # one of those passages is no longer the principal's to read, none of its words
        # are shown (extractive claims are sentences of the passage they cite only).
        # Earlier turns of a chat were given to it too: text no one can check again, so
        # its words are shown only to an operator, who may read every passage.
        lost = not quotes_only(record.generator) and any(
            not lookup.can_read(item.document_id, item.revision) for item in record.evidence
        )
        unchecked = (
            not quotes_only(record.generator)
            and record.context_turns > 0
            and not principal.operator
        )
        hidden = lost or unchecked
        why = "ACCESS_DENIED" if lost else "EARLIER_TURNS"
        missing = withheld_note(record) if hidden and record.missing else record.missing
        # what replaces a claim, in the language of the answer's own words
        messages = messages_for(record.question, record.answer_language)
        parts = []
        for claim in record.claims:
            result = now.get(claim.anchor_id)
            if not claim.text:  # redacted: a document the answer drew on was deleted
                parts.append((messages.claim_redacted, claim.source_id))
            elif hidden:
                parts.append((messages.claim_withheld.format(status=why), claim.source_id))
            elif result is not None and result.resolved:
                parts.append((claim.text, claim.source_id))
            else:
                status = result.status.value if result else "ACCESS_DENIED"
                parts.append((messages.claim_withheld.format(status=status), claim.source_id))
        text = compose(parts) if parts else record.answer
        if hidden and record.abstained:
            text = f"{messages.abstain} {missing}" if missing else messages.abstain
        replayed = []
        for citation in record.citations:
            result = now[citation.anchor.anchor_id]
            shown = citation.anchor if result.resolved else None
            successor = self.successor(citation.anchor, principal) if result.resolved else None
            replayed.append(
                ReplayedCitation(
                    citation.source_id,
                    citation.anchor.anchor_id,
                    shown,
                    result,
                    successor,
                    # a model translated every quote in one request: its words may
                    # carry a hidden passage too
                    citation.translation if result.resolved and not hidden else None,
                    copies[citation.anchor.anchor_id],
                )
            )
        for withdrawn in record.withdrawn:  # its document was deleted: no anchor, no quote
            denied = Resolution(
                ResolutionStatus.ACCESS_DENIED, "access_denied", withdrawn.anchor_id
            )
            replayed.append(
                ReplayedCitation(withdrawn.source_id, withdrawn.anchor_id, None, denied)
            )
        replayed.sort(key=lambda c: _source_order(c.source_id))
        return ReplayedAnswer(record, text, tuple(replayed), missing)

    def _stored_answer(self, answer_id: str, principal: Principal) -> AnswerRecord:
        """A stored answer that retention still keeps, for its asker or an operator of
        its tenant.

        Who may see it is decided from two indexed columns, the same read for an
        answer that is not the caller's as for a missing one; the record (question,
        claims) is read only for those who may see it.
        """
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
        from ragox.answer import AnswerRecord  # noqa: PLC0415

        record = AnswerRecord.from_json(data)
        # Expired but not yet purged (nothing was written since): already gone.
        policy = self.store.retention()
        if policy.answers_seconds is not None and record.created_at < cutoff(
            policy.answers_seconds
        ):
            raise NotFound(answer_id)
        return record

    def answer_trace(self, answer_id: str, principal: Principal) -> dict[str, object]:
        """The trace of an answer (candidates with ranks, context, dropped claims): the
        operator's diagnostics, readable by the operator only, while retained."""
        if not principal.operator:
            raise NotFound(answer_id)
        record = self._stored_answer(answer_id, principal)
        trace = self.store.get_answer_trace(record.answer_id)
        policy = self.store.retention()
        expired = policy.traces_seconds is not None and record.created_at < cutoff(
            policy.traces_seconds
        )
        if trace is None or expired:
            raise NotFound(answer_id)
        return trace

    # -- retention -------------------------------------------------------------------

    def retention(self) -> RetentionPolicy:
        return self.store.retention()

    def set_retention(self, policy: RetentionPolicy) -> None:
        """Store the retention periods and apply them at once."""
        self.store.set_retention(policy)
        self.apply_retention()

    def apply_retention(self) -> PurgeCounts:
        """Delete what the stored periods no longer keep (after each answer is written,
        and when `ragox serve` starts); nothing when no period is set."""
        policy = self.store.retention()
        if policy.answers_seconds is None and policy.traces_seconds is None:
            return PurgeCounts(0, 0, 0)
        return self.store.purge(
            None if policy.answers_seconds is None else cutoff(policy.answers_seconds),
            None if policy.traces_seconds is None else cutoff(policy.traces_seconds),
        )

    def purge(self, answers_older_than: int | None, traces_older_than: int | None) -> PurgeCounts:
        """Delete answers (with their traces) and traces older than the given seconds,
        and redact answers still holding text of documents deleted earlier."""
        counts = self.store.purge(
            None if answers_older_than is None else cutoff(answers_older_than),
            None if traces_older_than is None else cutoff(traces_older_than),
            redact=_redact,
        )
        self.store.truncate_log()
        return counts

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
        from ragox.search import embedder_from_spec, reindex  # noqa: PLC0415 - httpx, numpy

        embedder = embedder_from_spec(spec)
        written = reindex(self.store, embedder, spec, progress, total)
        self._embedder, self._embedder_spec, self._searcher = embedder, spec, None
        return written

    # -- ingestion ---------------------------------------------------------------

    def expand_paths(self, paths: list[Path]) -> Iterator[tuple[Path, Path]]:
        """``(file, root)`` pairs: files as given, folders walked recursively in order.

        Links inside a folder are listed but never walked into; :meth:`ingest_path`
        skips one that leads out of its folder."""
        for path in paths:
            if path.is_dir():
                for dirpath, dirnames, filenames in os.walk(path):
                    links = [d for d in dirnames if (Path(dirpath) / d).is_symlink()]
                    dirnames[:] = sorted(
                        d for d in dirnames if d not in _SKIP_NAMES and d not in links
                    )
                    for name in sorted([*filenames, *links]):
                        # hidden files, and the owner files Word and LibreOffice
                        # keep beside an open document ("~$report.docx", ".~lock.…#")
                        if not name.startswith((".", "~$")):
                            yield Path(dirpath) / name, path
            else:
                yield path, path.parent

    def document_ids(
        self,
        files: Sequence[tuple[Path, Path]],
        document_id: str | None = None,
        prefix: str = "",
    ) -> list[tuple[Path, Path, str | None]]:
        """``(file, root, id)`` for each distinct file of one command, in order; the id is
        None where two different files would share it (they collide across roots).
        ``prefix`` starts every id made from a path (``ingest docs/de --prefix de/``)."""
        seen: dict[Path, None] = {}
        planned: list[tuple[Path, Path, str]] = []
        owners: dict[str, set[Path]] = {}
        for path, root in files:
            real = _real(path)
            if real in seen:
                continue  # the same file named twice is one file
            seen[real] = None
            doc_id = document_id or prefix + default_document_id(path, root)
            planned.append((path, root, doc_id))
            owners.setdefault(doc_id, set()).add(real)
        return [
            (path, root, doc_id if len(owners[doc_id]) == 1 else None)
            for path, root, doc_id in planned
        ]

    @contextmanager
    def extracting_ahead(self, paths: Sequence[Path]) -> Iterator[None]:
        """While it is open, :meth:`ingest_path` of ``paths``, called in this order,
        finds the text files among them (plain, Markdown, reStructuredText) already
        extracted by a worker process, which reads the next ones while this one is
        stored (issue 15). What is stored is the same; with one CPU, or with
        ``RAGOX_EXTRACT_AHEAD=0``, every file is extracted here."""
        from ragox.ingest._ahead import ExtractAhead, ahead_wanted  # noqa: PLC0415

        if not ahead_wanted() or len(paths) < 2:
            yield
            return
        ahead = ExtractAhead(paths, self.profile)
        self.ingestor.ahead = ahead
        try:
            yield
        finally:
            self.ingestor.ahead = None
            ahead.close()

    def ingest_path(
        self,
        path: Path,
        root: Path,
        *,
        document_id: str | None = None,
        revision: str | None = None,
        groups: frozenset[str] | None = frozenset(),
        tenant: str = DEFAULT_TENANT,
        password: str | None = None,
        language: str | None = None,
        supplied_by: str = "operator",
        queue: bool = False,
        ocr: OcrMode = OcrMode.AUTO,
    ) -> IngestItem:
        """Ingest one file; unreadable, unsupported, linked-out or badly named files
        are skipped with a reason (never an exception). The caller is the local
        operator (``supplied_by`` names it on the revision). ``queue``: store the
        original and queue the run for a worker (``ragox worker``) instead.
        ``groups=None``: the reader groups that the document's latest and current
        revisions have (none, readable by operators only, for a new document)."""
        shown = shown_path(path)
        if path.is_symlink() and root.is_dir() and not _inside(path, root):
            return IngestItem(shown, None, SkipReason.OUTSIDE_FOLDER)
        if not path.is_file():
            if path.is_symlink() and not path.exists():
                return IngestItem(shown, None, SkipReason.BROKEN_LINK)
            reason = SkipReason.NOT_A_FILE if path.exists() else SkipReason.UNREADABLE
            return IngestItem(shown, None, reason)
        doc_id = document_id or default_document_id(path, root)
        if document_id_problem(doc_id) is not None or (
            revision is not None and revision_label_problem(revision) is not None
        ):
            return IngestItem(shown, None, SkipReason.INVALID_NAME)
        if groups is None:
            # an edited file ingested again without --groups stays readable by its
            # readers; before, its new revision was the operator's only, and the
            # document vanished for them
            groups = self._document_readers(tenant, self.store.revisions(tenant, doc_id))
            groups = frozenset() if groups is None else groups
        from ragox.extract import detect_media_type, sniffed_whole  # noqa: PLC0415

        try:
            with path.open("rb") as handle:
                # (a package's "README.Debian" is text only if all of it is)
                head = handle.read() if sniffed_whole(path.name) else handle.read(8)
        except OSError:
            return IngestItem(shown, None, SkipReason.UNREADABLE)

        if detect_media_type(path.name, head) is None:
            return IngestItem(shown, None, SkipReason.UNSUPPORTED_TYPE)
        if self.collection_readers(tenant, doc_id) - groups:
            return IngestItem(shown, None, SkipReason.COLLECTION_READERS)
        if queue:
            try:
                return IngestItem(
                    shown,
                    self._queue_file(
                        path, doc_id, revision, groups, tenant, language, supplied_by, ocr
                    ),
                    queued=True,
                )
            except RevisionConflict:
                return IngestItem(shown, None, SkipReason.REVISION_CONFLICT)
            except OSError:
                return IngestItem(shown, None, SkipReason.UNREADABLE)
        was = self._current_language(tenant, doc_id)
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
                ocr=ocr,
            )
        except RevisionConflict:
            return IngestItem(shown, None, SkipReason.REVISION_CONFLICT)
        except OSError:
            return IngestItem(shown, None, SkipReason.UNREADABLE)
        current = self.current_besides(outcome, tenant)
        replaced = None
        if was is not None and outcome.created and outcome.state is RevisionState.READY:
            now = self._current_language(tenant, doc_id)
            if now is not None and now[0] == outcome.revision and now[1] != was[1]:
                replaced = ReplacedLanguage(revision=was[0], language=was[1], now=now[1])
        return IngestItem(shown, outcome, current_revision=current, replaced=replaced)

    def _current_language(self, tenant: str, document_id: str) -> tuple[str, str] | None:
        """The document's current revision and its detected language, if it has both."""
        document = self.store.get_document(tenant, document_id)
        if document is None or document.current_revision is None:
            return None
        record = self.store.get_revision(tenant, document_id, document.current_revision)
        if record is None or record.manifest_id is None:
            return None
        language = self.store.index.representation_languages([record.manifest_id])
        found = language.get(record.manifest_id)
        return None if found is None else (record.revision, found)

    def current_besides(self, outcome: IngestOutcome, tenant: str) -> str | None:
        """The document's current revision when an unchanged outcome is another (the
        bytes of an older revision, which stays what it was and not current)."""
        if outcome.created:
            return None
        document = self.store.get_document(tenant, outcome.document_id)
        if document is None or document.current_revision in (None, outcome.revision):
            return None
        return document.current_revision

    def _document_readers(
        self, tenant: str, revisions: Sequence[RevisionRecord]
    ) -> frozenset[str] | None:
        """The reader groups that both the document's latest revision and its current
        one have; None for a document without revisions. So a narrowing holds whether
        it was given with a revision still queued or FAILED, or to the current one
        alone (`acl --revision`) while a later one FAILED (red-team)."""
        if not revisions:
            return None
        latest = max(revisions, key=lambda record: record.seq)
        document = self.store.get_document(tenant, latest.document_id)
        current = None if document is None else document.current_revision
        groups = latest.groups
        for record in revisions:
            if record.revision == current:
                groups &= record.groups
        return groups

    def upload(
        self,
        principal: Principal,
        data: bytes,
        filename: str,
        document_id: str,
        *,
        revision: str | None = None,
        groups: frozenset[str] = frozenset(),
        language: str | None = None,
        ocr: OcrMode = OcrMode.AUTO,
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
        Without ``groups``, a new revision of an existing document keeps the reader
        groups that its latest and its current revision have (those the principal is
        in, unless it operates); a new document gets the principal's groups.
        """
        if not may_write_id(principal, document_id):
            raise WriteRefused(document_id)
        existing = self.store.revisions(principal.tenant, document_id)
        for record in existing:
            if not can_read(principal, record.tenant, record.groups):
                raise WriteRefused(document_id)
        # a new version of a staff-only document stays staff-only: before, an upload
        # without groups (the web app's) gave it every group of the writer's key, and
        # readers of "everyone" read it (found by a new-user pass)
        kept = self._document_readers(principal.tenant, existing)
        if kept is not None and not principal.operator:
            # never groups the writer may not name itself (its upload naming "hr" is a
            # 403): its text reaches only readers it shares the document with
            kept &= principal.groups
        readers = groups or (principal.groups if kept is None else kept)
        owner = collection_group(document_id, principal.groups)
        if owner is not None and ANY_ID not in principal.write:
            readers = readers | {owner}
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
            language=language,
            supplied_by=principal.name,
            ocr=ocr,
        )

    def _queue_file(
        self,
        path: Path,
        document_id: str,
        revision: str | None,
        groups: frozenset[str],
        tenant: str,
        language: str | None,
        supplied_by: str,
        ocr: OcrMode,
    ) -> IngestOutcome:
        """Stage one for a file, and its job queued with OCR mode ``ocr`` (the outcome
        of a file refused or already READY when nothing is left to do)."""
        received = self.ingestor.receive(
            path.read_bytes(),
            path.name,
            document_id,
            revision=revision,
            groups=groups,
            tenant=tenant,
            language=language,
            supplied_by=supplied_by,
            ocr=ocr,
        )
        if not isinstance(received, tuple):
            return received
        record, created = received
        self.enqueue(record, ocr)
        from ragox.ingest import IngestOutcome  # noqa: PLC0415

        return IngestOutcome(record.document_id, record.revision, record.state, created)

    def process_upload(
        self, record: RevisionRecord, data: bytes, created: bool, ocr: OcrMode = OcrMode.AUTO
    ) -> IngestOutcome:
        """Stage two and on of an upload (``upload``'s record), run after the response.
        The last of the uploads processed here at once merges what they left fragmented
        in the lexical index, as a folder's ingestion does at its end."""
        with self._processing_lock:
            self._processing += 1
        try:
            return self.ingestor.process(record, data, created, ocr=ocr)
        finally:
            with self._processing_lock:
                self._processing -= 1
                last = self._processing == 0
            if last:
                self.store.compact_index()

    def enqueue(self, record: RevisionRecord, ocr: OcrMode = OcrMode.AUTO) -> str:
        """Queue a received revision's run for a worker (``ragox worker``), with OCR
        mode ``ocr``, instead of running it here; returns the job id (the one already
        queued, if any)."""
        return self.store.queue.enqueue(record.tenant, record.document_id, record.revision, ocr)

    def worker(self, config: WorkerConfig) -> Worker:
        """A worker that claims this store's queued jobs and runs them."""
        from ragox.ingest import Worker  # noqa: PLC0415

        return Worker(self.store, self.ingestor, config)

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
        from ragox.extract.pdf import PageTextReader  # noqa: PLC0415 - PDFs only
        from ragox.service._check import check_representation  # noqa: PLC0415

        reader = None
        if found.manifest.media_type == PDF:
            # Pages read by OCR are read again by the same engine (deterministic).
            ocr_pages = {b.page for b in self.store.blocks(record.manifest_id) if b.ocr and b.page}
            document = self.store.get_document(record.tenant, document_id)
            language = None if document is None else document.language
            reader = PageTextReader(data, password, frozenset(ocr_pages), language)
        try:
            report = check_representation(
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
        # Seed 003: the check log names the parser version, document and chunk, so that a
        # mismatch can be reproduced. Ids, locators and ranges only: no document text.
        self.store.save_check_run(
            CheckRun(
                run_id="chk_" + secrets.token_hex(12),
                tenant=principal.tenant,
                document_id=document_id,
                revision=record.revision,
                manifest_id=record.manifest_id,
                parser=found.manifest.parser,
                created_at=utc_now(),
                chunks=report.chunks,
                fragments=report.fragments,
                mismatches=json.dumps(
                    [
                        {
                            "chunk_id": m.chunk_id,
                            "block_id": m.block_id,
                            "locator": m.locator,
                            "range": m.range.to_json(),
                            "reason": m.reason,
                        }
                        for m in report.mismatches
                    ]
                ),
            )
        )
        return report

    def check_runs(self, principal: Principal, document_id: str | None = None) -> list[CheckRun]:
        """Recorded check runs of the principal's tenant: the operator's only."""
        if not principal.operator:
            raise NotFound(document_id or "check runs")
        return self.store.check_runs(principal.tenant, document_id)

    def verify(self, sample: int | None = None) -> VerifyReport:
        """Release evidence of this installation and home (``ragox verify``)."""
        from ragox.extract import ErrorCode, ExtractionError  # noqa: PLC0415
        from ragox.service._verify import (  # noqa: PLC0415
            VerifyCase,
            VerifyCounts,
            VerifyReport,
            run_seed_experiment,
            runtime_versions,
            sample_of,
        )

        cases = run_seed_experiment()
        manifest_ids = self.store.manifest_ids()
        parsers: set[str] = set()
        profiles: set[str] = set()
        for manifest_id in manifest_ids:
            found = self.store.get_manifest(manifest_id)
            if found is None:
                continue
            parsers.add(found.manifest.parser)
            profiles.add(found.manifest.profile)
            valid = self.signer.verify(found.manifest, found.mac)
            cases.append(
                VerifyCase(
                    "integrity",
                    "manifest HMAC",
                    "valid",
                    "valid" if valid else "INVALID",
                    (found.manifest.document_id, found.manifest.revision, manifest_id),
                )
            )
        originals = self.store.source_hashes()
        for sha256 in originals:
            digest = self.store.blobs.digest(sha256)
            observed = "missing" if digest is None else ("match" if digest == sha256 else "CHANGED")
            cases.append(VerifyCase("integrity", "original SHA-256", "match", observed, (sha256,)))
        current: list[tuple[str, str]] = [
            (tenant, document.document_id)
            for tenant in self.store.tenants()
            for document in self.store.list_documents(tenant)
            if document.current_revision is not None
        ]
        chosen = sample_of(current, sample, seed=str(self.home.resolve()))
        chunks = 0
        for tenant, document_id in chosen:
            try:
                report = self.check(document_id, Principal.local_operator(tenant))
            except (NotFound, ExtractionError) as error:
                # An encrypted PDF is read with the password given at ingestion, which no
                # home keeps: its round trip cannot be made here, and is listed as such
                # rather than failing every verification of the home.
                locked = (
                    isinstance(error, ExtractionError) and error.code is ErrorCode.ENCRYPTED_PDF
                )
                expected = _LOCKED_PDF if locked else "0 mismatches"
                observed = _LOCKED_PDF if locked else "not checkable"
                cases.append(VerifyCase("roundtrip", "check", expected, observed, (document_id,)))
                continue
            chunks += report.chunks
            cases.append(
                VerifyCase(
                    "roundtrip",
                    "check",
                    "0 mismatches",
                    f"{len(report.mismatches)} mismatches",
                    (document_id, report.revision, report.manifest_id),
                )
            )
        return VerifyReport(
            created_at=utc_now(),
            runtime=runtime_versions(),
            cases=tuple(cases),
            counts=VerifyCounts(
                manifests=len(manifest_ids),
                originals=len(originals),
                current_revisions=len(current),
                revisions_checked=len(chosen),
                chunks_checked=chunks,
            ),
            parsers=tuple(sorted(parsers)),
            profiles=tuple(sorted(profiles)),
            sample=sample,
        )

    def delete(self, document_id: str, tenant: str = DEFAULT_TENANT) -> bool:
        """Remove one tenant's document (an operator's action; other tenants' documents
        with the same id stay)."""
        return self.store.delete_document(tenant, document_id, redact=_redact)

    def retry(
        self, document_id: str, revision: str, tenant: str = DEFAULT_TENANT
    ) -> IngestOutcome | ActionRefused:
        """Run one revision's pipeline again from its stored bytes (an operator's action
        for a stuck or failed revision; on a READY one it repairs a missing index).
        Runs that died are marked FAILED first; a live run refuses."""
        from ragox.ingest import Liveness, job_health  # noqa: PLC0415

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
        # what the dead runs of this document can have left, not the whole store's
        self.store.remove_index_orphans(tenant, document_id)
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
        from ragox.ingest import Liveness, job_health  # noqa: PLC0415

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
        found = self._statuses(principal, document_id)
        if not found:
            raise NotFound(document_id)
        return found[0]

    def documents(self, principal: Principal) -> list[DocumentStatus]:
        return self._statuses(principal)

    def documents_page(
        self, principal: Principal, limit: int | None, after: str | None = None
    ) -> DocumentPage:
        """The principal's documents by id, ``limit`` of them (None: all) after the one
        named ``after`` (byte order of ids): a page of the listing, read a page's worth
        of the tenant's documents at a time (a reader may read few of them).

        A page lists at least one document (``limit`` < 1 is a ``ValueError``: an
        empty page would say the listing ended). No id holds NUL, so ``after`` is cut
        at its first NUL: the ids after "a\\0…" are exactly those after "a" (a
        PostgreSQL text holds no NUL, and SQLite would compare the whole string)."""
        if limit is not None and limit < 1:
            raise ValueError("a page lists at least one document")
        found: list[DocumentStatus] = []
        cursor = None if after is None else after.split("\0", 1)[0]
        embedder_key = self.store.index.setting("embedder_key") or None
        while limit is None or len(found) < limit:
            window = None if limit is None else max(limit - len(found), _STATUS_WINDOW)
            listed = self.store.status_reads(
                principal.tenant, None, embedder_key, after=cursor, limit=window
            )
            readable = self._statuses_of(principal, listed)
            if limit is not None and len(found) + len(readable) > limit:
                found.extend(readable[: limit - len(found)])
                break  # more of the window follows this page
            found.extend(readable)
            if window is None or len(listed) < window:
                return DocumentPage(tuple(found), None)  # the tenant's documents ended
            cursor = listed[-1][0].document_id
        return DocumentPage(tuple(found), found[-1].document.document_id if found else None)

    def _statuses(
        self, principal: Principal, document_id: str | None = None
    ) -> list[DocumentStatus]:
        """The documents of the principal's tenant (or the one named) with a revision it
        may read, with those revisions' states; every document's reads are made at
        once (a few queries, however many documents)."""
        embedder_key = self.store.index.setting("embedder_key") or None
        return self._statuses_of(
            principal, self.store.status_reads(principal.tenant, document_id, embedder_key)
        )

    def _statuses_of(
        self,
        principal: Principal,
        listed: Sequence[tuple[DocumentRecord, tuple[RevisionReads, ...]]],
    ) -> list[DocumentStatus]:
        """The documents of ``listed`` with a revision the principal may read."""
        from ragox.ingest import job_health, stale_stages_of  # noqa: PLC0415

        profile_id = self.profile.id
        now = datetime.now(UTC)
        found = []
        for stored, revisions in listed:
            document = stored
            rows = []
            for reads in revisions:
                record = reads.record
                if not can_read(principal, document.tenant, record.groups):
                    continue
                job = None if reads.latest_job is None else job_health(reads.latest_job, now)
                manifest = reads.manifest
                # a scan's OCR models follow the language given for its document
                language = document.language if record.media_type == PDF else None
                rows.append(
                    RevisionStatus(
                        revision=record,
                        text_sha256=manifest.text_sha256 if manifest else None,
                        parser=manifest.parser if manifest else None,
                        profile=manifest.profile if manifest else None,
                        chunks=reads.chunks,
                        notes=reads.notes,
                        vectors_missing=reads.vectors_missing if record.manifest_id else None,
                        job=job,
                        stuck=_stuck(record.state, record.updated_at, job, now),
                        stale=stale_stages_of(
                            record, manifest, reads.versions, language, profile_id
                        ),
                    )
                )
            if not rows:
                continue
            # The current revision is named only when the principal may read it: its
            # label would tell that a newer revision exists, and which.
            if document.current_revision not in {row.revision.revision for row in rows}:
                document = replace(document, current_revision=None)
            found.append(DocumentStatus(document, tuple(rows)))
        return found

    def status_summary(self, principal: Principal, limit: int = 20) -> StatusSummary:
        """The tenant's documents in counts, and the first ``limit`` that need
        attention in full (issue 15: a home of fourteen thousand documents is a few
        queries and no per-document record, not a listing of every one)."""
        from ragox.ingest import StaleStage, job_health, stale_stages_from  # noqa: PLC0415

        embedder_key = self.store.index.setting("embedder_key") or None
        profile_id = self.profile.id
        now = datetime.now(UTC)
        facts, runs = self.store.status_facts(
            principal.tenant, embedder_key, with_groups=not principal.operator
        )
        latest = {(job.document_id, job.revision): job for job in runs}  # the last started
        stale_of: dict[tuple[object, ...], tuple[str, ...]] = {}
        states: dict[str, int] = {}
        stages: dict[str, int] = {}
        # per document, its reasons as bits (1 << the reason's place in Attention):
        # tens of thousands of revisions, so no enum members in the loop
        flags: dict[str, int] = {}
        failed_bit, stuck_bit, progress_bit, vectors_bit, pages_bit, stale_bit = (
            1 << place for place in range(len(Attention))
        )
        stale_revisions = queued = running = stuck = 0
        missing = with_missing = pages = 0
        ready = RevisionState.READY.value
        failed = RevisionState.FAILED.value
        everything = principal.operator
        for fact in facts:
            if not everything and not can_read(principal, principal.tenant, fact.groups):
                continue
            states[fact.state] = states.get(fact.state, 0) + 1
            if fact.vectors_missing:
                missing += fact.vectors_missing
            bits = 0
            if fact.state == failed:
                bits = failed_bit
            elif fact.state != ready:
                run = latest.get((fact.document_id, fact.revision))
                health = None if run is None else job_health(run, now)
                if _stuck(RevisionState(fact.state), fact.updated_at or "", health, now):
                    stuck += 1
                    bits = stuck_bit
                else:
                    queued += health is not None and health.job.state is JobState.QUEUED
                    running += health is not None and health.job.state is JobState.RUNNING
                    bits = progress_bit
            else:
                if fact.vectors_missing:
                    with_missing += 1
                    bits |= vectors_bit
                if fact.pages_without_text:
                    pages += 1
                    bits |= pages_bit
            if fact.state == ready and fact.has_manifest and fact.parser is not None:
                key = (
                    fact.media_type,
                    fact.language,
                    fact.parser,
                    fact.parser_config_sha256,
                    fact.profile,
                    fact.versions,
                )
                stale = stale_of.get(key)
                if stale is None:
                    stale = stale_of[key] = tuple(
                        stage.value
                        for stage in stale_stages_from(
                            fact.media_type,
                            fact.language,
                            fact.parser,
                            fact.parser_config_sha256 or "",
                            fact.profile or "",
                            fact.versions,
                            profile_id,
                        )
                    )
                if stale:
                    stale_revisions += 1
                    bits |= stale_bit
                    for stage in stale:
                        stages[stage] = stages.get(stage, 0) + 1
            flags[fact.document_id] = flags.get(fact.document_id, 0) | bits
        order = list(Attention)
        attention = {}
        # the documents needing attention by their most pressing reason, then by id
        firsts: list[list[str]] = [[] for _ in order]
        for document_id, bits in flags.items():
            if bits:
                firsts[(bits & -bits).bit_length() - 1].append(document_id)
        for place, reason in enumerate(order):
            count = sum(1 for bits in flags.values() if bits >> place & 1)
            if count:
                attention[reason] = count
        shown: list[tuple[DocumentStatus, tuple[Attention, ...]]] = []
        for bucket in firsts:
            for document_id in heapq.nsmallest(max(limit, 0) - len(shown), bucket):
                statuses = self._statuses(principal, document_id)
                if statuses:
                    bits = flags[document_id]
                    reasons = tuple(r for place, r in enumerate(order) if bits >> place & 1)
                    shown.append((statuses[0], reasons))
        return StatusSummary(
            documents=len(flags),
            revisions=dict(sorted(states.items())),
            stale_revisions=stale_revisions,
            stale_stages={s.value: stages[s.value] for s in StaleStage if s.value in stages},
            queued=queued,
            running=running,
            stuck=stuck,
            vectors_missing=None if embedder_key is None else missing,
            revisions_missing_vectors=None if embedder_key is None else with_missing,
            pages_without_text=pages,
            attention=attention,
            attention_documents=sum(1 for bits in flags.values() if bits),
            shown=tuple(shown),
        )

    def text(self, document_id: str, principal: Principal, revision: str | None = None) -> str:
        _, record = self._readable_revision(document_id, revision, principal)
        if record.manifest_id is None or record.state is not RevisionState.READY:
            raise NotFound(document_id)
        return self.store.text(record.manifest_id)

    # -- anchors --------------------------------------------------------------------

    def lookup(self, principal: Principal) -> StoreLookup:
        from ragox.service._lookup import StoreLookup  # noqa: PLC0415

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
        from ragox.anchor import create_anchor  # noqa: PLC0415

        created = create_anchor(text, start, end, manifest_record.manifest.identity)
        if isinstance(created, Refusal):
            return created
        return self.store.save_anchor(created, record.manifest_id, principal.name)

    def resolve(self, anchor: Anchor, principal: Principal) -> Resolution:
        from ragox.anchor import resolve  # noqa: PLC0415

        return resolve(anchor, self.lookup(principal))

    def resolve_id(self, anchor_id: str, principal: Principal) -> Resolution:
        """Resolve a stored anchor; unknown ids (and other tenants' anchors) look like
        forbidden documents."""
        return self.resolve_stored(anchor_id, principal)[1]

    def full_anchor_id(self, anchor_id: str, tenant: str) -> str | None:
        """The stored anchor id that ``anchor_id`` is, or is the unique prefix of
        (:data:`MIN_ANCHOR_PREFIX` hex digits at least, as commands print them); None for
        an unknown or ambiguous prefix and for anything that is not hex (a copied id in
        capitals is the same id)."""
        anchor_id = anchor_id.lower()
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
        result = self.resolve(stored.anchor, principal)
        if result.status is ResolutionStatus.ACCESS_DENIED:
            # The id as given, as for an unknown anchor: the full id of a prefix would
            # tell an outsider that such an anchor exists.
            return stored, Resolution(ResolutionStatus.ACCESS_DENIED, "access_denied", anchor_id)
        return stored, result

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
        from ragox.ingest import Reprocessor, ReprocessReport  # noqa: PLC0415
        from ragox.service._json import reprocess_json  # noqa: PLC0415 (imports this module)

        # Kept, so that the anchors left for review can be listed later (`--history`):
        # stored while the run goes on, marked incomplete until it ends, so that a run
        # stopped half-way (Ctrl-C, a crash) still lists what it migrated. Saved at most
        # every few seconds (each save writes the whole report: once per revision, a
        # run of thousands spent minutes on it), and a failed save stops no rebuild.
        report_id, created_at = "rpr_" + secrets.token_hex(12), utc_now()
        saved = [-math.inf]

        def save(rebuilds: tuple[RevisionRebuild, ...], *, complete: bool) -> ReprocessReport:
            report = ReprocessReport(False, rebuilds, report_id, created_at, complete)
            self.store.save_reprocess_report(tenant, report_id, created_at, reprocess_json(report))
            saved[0] = time.monotonic()
            return report

        def meanwhile(rebuilds: tuple[RevisionRebuild, ...]) -> None:
            if time.monotonic() - saved[0] < _REPORT_EVERY_S:
                return
            with contextlib.suppress(StoreError):
                save(rebuilds, complete=False)

        report = Reprocessor(self.ingestor, authorized_by).run(
            tenant, documents, dry_run=dry_run, rebuilt=None if dry_run else meanwhile
        )
        if dry_run or not report.rebuilds:
            return report
        return save(report.rebuilds, complete=True)

    def reprocess_history(
        self, tenant: str = DEFAULT_TENANT, limit: int = 20
    ) -> list[dict[str, object]]:
        """Stored migration reports of earlier rebuilds, newest first (operator); a
        report stored before runs were saved as they went on was complete."""
        return [
            {**report, "complete": report.get("complete", True)}
            for report in self.store.reprocess_reports(tenant, limit)
        ]

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
        migrated = self._carried(anchor, verified.manifest_id, record.manifest_id)
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

    def _carried(self, anchor: Anchor, old_manifest: str, new_manifest: str) -> Migration | Refusal:
        """``anchor`` (verified in ``old_manifest``) carried into ``new_manifest``: through
        both alignments when the two share their source bytes, else by its quote with
        its context, once; nothing is stored."""
        new_record = self.store.get_manifest(new_manifest)
        old_record = self.store.get_manifest(old_manifest)
        if new_record is None or old_record is None:  # deleted meanwhile
            return Refusal(ResolutionStatus.ACCESS_DENIED, "access_denied")
        if not self.signer.verify(new_record.manifest, new_record.mac):
            # the target's manifest fails its HMAC, as the resolver would refuse it
            return Refusal(ResolutionStatus.MANIFEST_INVALID, "manifest_hmac_mismatch")
        via_source = None
        if new_record.manifest.source_sha256 == old_record.manifest.source_sha256:
            old_alignment = self.store.alignment(old_manifest)
            new_alignment = self.store.alignment(new_manifest)
            if old_alignment is not None and new_alignment is not None:

                def via_source(start: int, end: int) -> MappedRange:
                    back = old_alignment.map_back(start, end)
                    forward = new_alignment.map_forward(back.start, back.end)
                    return MappedRange(forward.start, forward.end, back.exact and forward.exact)

        from ragox.anchor import migrate_anchor  # noqa: PLC0415

        return migrate_anchor(
            anchor,
            self.store.text(old_manifest),
            new_record.manifest.identity,
            self.store.text(new_manifest),
            via_source,
        )

    def in_current(
        self, anchor: Anchor, principal: Principal, verified: Resolution | None = None
    ) -> InCurrent | None:
        """For an anchor verified in a representation that is no longer current: whether
        its passage is in the current representation of the document's current revision
        (``verified``: the anchor's resolution for this principal, when already made).
        None for a current anchor, one that does not resolve, and when the principal
        may not read the current revision (nothing is said of a revision it may not
        read)."""
        verified = verified or self.resolve(anchor, principal)
        if not verified.resolved or verified.current or verified.manifest_id is None:
            return None
        try:
            _, record = self._readable_revision(anchor.document_id, None, principal)
        except NotFound:
            return None
        if (
            record.manifest_id is None
            or record.state is not RevisionState.READY
            or record.manifest_id == verified.manifest_id
        ):
            return None
        carried = self._carried(anchor, verified.manifest_id, record.manifest_id)
        if isinstance(carried, Refusal):
            if carried.status is ResolutionStatus.ACCESS_DENIED:
                return None
            return InCurrent(record.revision, carried.status)
        found = Span(Coordinates.CODEPOINT, carried.new.start, carried.new.end)
        return InCurrent(record.revision, ResolutionStatus.RESOLVED, found)


def _real(path: Path) -> Path:
    """The path made absolute without following links: a file named twice is one file,
    while a link inside a folder keeps its own name and id."""
    return Path(os.path.abspath(path))


def _stuck(state: RevisionState, updated_at: str, job: JobHealth | None, now: datetime) -> bool:
    """In an intermediate state with no live run: its run died, was interrupted, or
    (an upload received but never processed) none started within the lease."""
    if state not in _IN_PROGRESS:
        return False
    from ragox.ingest import LEASE, Liveness  # noqa: PLC0415

    if job is None:
        updated = datetime.fromisoformat(updated_at.replace("Z", "+00:00"))
        return now - updated > LEASE
    return job.liveness not in (Liveness.LIVE, Liveness.QUEUED)


def shown_path(path: Path) -> str:
    """``path`` for people and JSON: bytes that are not UTF-8 as ``\\xNN`` escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _inside(path: Path, root: Path) -> bool:
    """Whether ``path``, links resolved, is ``root`` or below it. A link that never
    ends (a loop: ``self -> self``) is inside: it is no file, and is skipped as a broken
    link (resolving it raised, and the command ended with an internal error)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (RuntimeError, OSError):
        return True


def _redact(payload: dict[str, object], deleted: frozenset[str]) -> dict[str, object]:
    """The answer layer's redaction, stamped now (the store calls it in its transaction)."""
    from ragox.answer import redact_answer  # noqa: PLC0415

    return redact_answer(payload, deleted, utc_now())


def _source_order(source_id: str) -> tuple[int, str]:
    """S1, S2, …, S10 in numeric order."""
    digits = source_id[1:]
    return (int(digits), source_id) if digits.isdigit() else (1 << 30, source_id)


def default_document_id(path: Path, root: Path) -> str:
    """The path relative to the ingested folder, ``/``-separated, suffix kept (a manual
    as .pdf and as .md are two documents; a changed file keeps its id)."""
    # Made absolute without following links: a link inside the folder is a document
    # under its own name, not a second copy of its target's id.
    try:
        relative = _real(path).relative_to(_real(root))
    except ValueError:
        relative = Path(path.name)
    return relative.as_posix()
