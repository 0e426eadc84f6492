"""What indexing computes from a representation alone, before it is stored: the
search text, the chunk plan, the language, and the analyzed bodies of the lexical
index rows, one per chunk (the headings above the chunk and its own once more, then
its search text, in the terms :func:`ragox.search.index_terms` writes). Computed by
the pipeline, or by the extraction worker of a folder (``ragox.ingest._ahead``): the
same value either way."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ragox.extract import Block
from ragox.ingest._headings import row_headings
from ragox.ingest._searchtext import SearchText
from ragox.search import compound_vocabulary, index_terms
from ragox.store import ChunkRecord

__all__ = ["AnalyzedBodies", "Prepared", "analyzed_bodies"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """What indexing computes from a representation alone: the search text, the
    chunks' ``(start, end, tokens)`` (``plan_chunks``), the language the text reads
    in (``document_language``, used unless the document's language is given) and,
    when the extraction worker computed them, each chunk's lexical body analyzed in
    that language (``analyzed_bodies``, in chunk order; None: analyzed as they are
    written, so that a large document's bodies are never all held)."""

    search: SearchText
    pieces: list[tuple[int, int, int]]
    language: str | None
    bodies: tuple[str, ...] | None


class AnalyzedBodies:
    """``(chunk_id, analyzed body)`` of each chunk, analyzed as the store writes them:
    the bodies of a large document are never all in memory at once (issue 10)."""

    __slots__ = ("_chunks", "_context", "_language", "_text", "_vocabulary")

    def __init__(
        self,
        text: str,
        chunks: Sequence[ChunkRecord],
        context: Sequence[str],
        language: str | None,
        vocabulary: frozenset[str],
    ) -> None:
        self._text = text
        self._chunks = chunks
        self._context = context  # the headings above each chunk, and its own again
        self._language = language
        self._vocabulary = vocabulary

    def __iter__(self) -> Iterator[tuple[str, str]]:
        text, language, vocabulary = self._text, self._language, self._vocabulary
        for c, above in zip(self._chunks, self._context, strict=True):
            body = f"{above} {text[c.search_start : c.search_end]}"
            yield c.chunk_id, index_terms(body, language, vocabulary)


def analyzed_bodies(
    text: str,
    blocks: Sequence[Block],
    search_text: str,
    chunks: Sequence[ChunkRecord],
    language: str | None,
) -> AnalyzedBodies:
    """The rows of ``chunks`` of a representation (``text``, ``blocks``) whose search
    text is ``search_text``, analyzed in ``language`` (None: not stemmed)."""
    # each row carries the headings above its chunk and its own headings once more
    # (never the chunk's own text otherwise)
    context = row_headings(text, blocks, chunks)
    # German compounds are split against the document's own words
    vocabulary = compound_vocabulary(search_text) if language == "de" else frozenset()
    return AnalyzedBodies(search_text, chunks, context, language, vocabulary)
