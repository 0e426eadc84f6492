"""Versioned processing: which stage versions made a revision's index, and which are stale.

The representation carries its parser and profile in its manifest; the search text,
the chunks and the lexical rows carry the versions of the cleaner, the sentence
splitter, the chunker and the analyzer that made them (schema 17). A revision whose
representation or index was made by anything other than today's code is stale:
``ragox status`` lists the stale stages and ``ragox reprocess`` rebuilds it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import ragox.search
from ragox.extract import ExtractionError, parsers_for
from ragox.ingest import _chunker, _searchtext, _sentences
from ragox.store import ProcessingVersions, RevisionRecord, RevisionState, Store

if TYPE_CHECKING:
    from ragox.anchor import Manifest

__all__ = [
    "StaleStage",
    "current_versions",
    "given_language",
    "stale_stages",
    "stale_stages_from",
    "stale_stages_of",
]


class StaleStage(enum.Enum):
    """A stage whose output for a revision was made by another version than today's."""

    #: the representation is by another parser (name, version or configuration)
    PARSER = "PARSER"
    #: the representation is by another normalization profile
    PROFILE = "PROFILE"
    CLEANER = "CLEANER"
    SPLITTER = "SPLITTER"
    CHUNKER = "CHUNKER"
    ANALYZER = "ANALYZER"

    @property
    def representation(self) -> bool:
        """A new representation is needed (existing anchors must be migrated)."""
        return self in (StaleStage.PARSER, StaleStage.PROFILE)


def current_versions() -> ProcessingVersions:
    """The versions today's code records (read at each call, so that a test can
    simulate an upgrade by changing one)."""
    return ProcessingVersions(
        cleaner=_searchtext.CLEANER_VERSION,
        splitter=_sentences.SPLITTER_VERSION,
        chunker=_chunker.CHUNKER_VERSION,
        analyzer=ragox.search.ANALYZER_VERSION,
    )


def stale_stages(store: Store, record: RevisionRecord, profile_id: str) -> tuple[StaleStage, ...]:
    """The stages of a READY revision's current representation and index made by
    other versions than today's (empty: up to date, or not READY)."""
    if record.state is not RevisionState.READY or record.manifest_id is None:
        return ()
    found = store.get_manifest(record.manifest_id)
    if found is None:
        return ()
    return stale_stages_of(
        record,
        found.manifest,
        store.index_versions(record.manifest_id),
        given_language(store, record),
        profile_id,
    )


def stale_stages_of(
    record: RevisionRecord,
    manifest: Manifest | None,
    recorded: ProcessingVersions | None,
    language: str | None,
    profile_id: str,
) -> tuple[StaleStage, ...]:
    """:func:`stale_stages` from reads already made (``ragox status`` reads them for
    every revision at once): the revision's manifest, its recorded stage versions and
    the language given for its document (:func:`given_language`)."""
    if record.state is not RevisionState.READY or record.manifest_id is None:
        return ()
    if manifest is None:
        return ()
    return stale_stages_from(
        record.media_type,
        language,
        manifest.parser,
        manifest.parser_config_sha256,
        manifest.profile,
        recorded,
        profile_id,
    )


def stale_stages_from(
    media_type: str,
    language: str | None,
    parser: str,
    parser_config_sha256: str,
    profile: str,
    recorded: ProcessingVersions | None,
    profile_id: str,
) -> tuple[StaleStage, ...]:
    """:func:`stale_stages_of` of a READY revision with a manifest, from the manifest's
    parser, parser configuration and profile alone: the same answer for the same
    values, so that ``ragox status``'s summary asks once per distinct combination."""
    stale: list[StaleStage] = []
    try:
        parsers = parsers_for(media_type, language=language)
    except ExtractionError:
        parsers = None  # nothing today could extract it again
    if parsers is not None and (parser, parser_config_sha256) not in {
        (p.id, p.config_sha256) for p in parsers
    }:
        stale.append(StaleStage.PARSER)
    if parsers is not None and profile != profile_id:
        stale.append(StaleStage.PROFILE)
    today = current_versions()
    for stage, mine, theirs in (
        (StaleStage.CLEANER, today.cleaner, recorded.cleaner if recorded else None),
        (StaleStage.SPLITTER, today.splitter, recorded.splitter if recorded else None),
        (StaleStage.CHUNKER, today.chunker, recorded.chunker if recorded else None),
        (StaleStage.ANALYZER, today.analyzer, recorded.analyzer if recorded else None),
    ):
        if mine != theirs:
            stale.append(stage)
    return tuple(stale)


def given_language(store: Store, record: RevisionRecord) -> str | None:
    """The language given for the revision's document (``--language``), which chooses
    the OCR models of a scan; None when none was given (detected ones do not count:
    they are read from the recognized text). Only a PDF's is looked up: no other
    format's parser depends on it."""
    if record.media_type != "application/pdf":
        return None
    document = store.get_document(record.tenant, record.document_id)
    return None if document is None else document.language
