"""Hybrid retrieval inside the caller's permitted scope (seed 001).

Lexical (FTS5 BM25 over Snowball-stemmed search text) and vector (cosine over
vectors of one recorded embedder) lists are fused with reciprocal rank fusion;
every hit says which lists found it and at which rank. Scope filtering is part
of each query, never applied after the top k.
"""

from __future__ import annotations

import enum
import re
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, TypeVar

from ragox._lazy import lazy_module
from ragox.access import Principal
from ragox.search._analyze import (
    SUPPORTED_LANGUAGES,
    analyze_search_query,
    fts_match,
    index_form,
    likely_language,
    named_joins,
    tokens,
)
from ragox.search._compounds import absent_compounds
from ragox.search._matrix import VectorMatrix, build_matrix, language_shift, top_rows
from ragox.search._synonyms import synonyms_of_word, with_synonyms
from ragox.store import HitSource, Scope, Store
from ragox.text import same_passage_key
from ragox.text._instructions import asks_for_instructions, has_instruction
from ragox.text._passage import PassageGroups, passage_words

if TYPE_CHECKING:
    import numpy as np

    from ragox.search._embed import Embedder, Vectors
else:
    np = lazy_module("numpy")


__all__ = [
    "MAX_QUERY_CHARS",
    "RRF_K",
    "TRANSLATION_SIMILARITY",
    "Hit",
    "ListRank",
    "SearchError",
    "SearchMode",
    "Searcher",
    "query_language",
    "scope_of",
]

#: Longest accepted question; longer input is refused, not truncated silently.
MAX_QUERY_CHARS: Final = 4000
#: Reciprocal rank fusion constant (Cormack et al. 2009).
RRF_K: Final = 60
#: Weight of lexical hits in the fusion when the best passage by meaning is in another
#: language than the question (1.0 otherwise); lexical hits in the question's own
#: language then weigh nothing: they share its words, not its topic. Fitted on XQuAD's
#: even articles with 547 Debian-reference distractors (bench/bench_crosslingual.py;
#: 0.0 to 0.2 are within a few questions of each other there).
CROSS_LINGUAL_LEXICAL_WEIGHT: Final = 0.05
#: Cosine similarity an embedder gives a passage for being in the question's language,
#: by model and question language. Subtracted from passages in the question's language
#: so that vectors rank by content: otherwise a German question prefers any German
#: paragraph to the English one that answers it. Fitted on XQuAD's even articles with
#: 547 Debian-reference paragraphs (en, de) as distractors (bench/bench_crosslingual.py;
#: de→en vector recall@5 .864 → .951 there, .841 → .965 on the odd articles).
SAME_LANGUAGE_BONUS: Final[dict[str, dict[str, float]]] = {
    "multilingual-e5-small-q4": {"de": 0.04, "ru": 0.04},
}
#: Share of a passage's typicality (its similarity to the mean of all permitted
#: passages, less the average of that) by which it ranks lower in the vector list, by
#: model: a passage near to everything (a generic paragraph of a manual) is near to
#: every question too, and crowds out the one that answers it. Only the order changes.
#: Chosen on XQuAD+distractors (fit half) and the real-document dev set.
TYPICALITY_WEIGHT: Final[dict[str, float]] = {"multilingual-e5-small-q4": 0.2}
#: Cosine similarity, by model, from which two passages in different languages say the
#: same thing (one translates the other: a manual in English and German in one home).
#: When the best passage by meaning is in another language than the question, lexical
#: hits in the question's language that translate it keep their full weight: they are
#: the same answer in the question's language, not words shared by chance. Chosen on
#: the real-document development set (the Debian FAQ in en/de/ru: 0.85 to 0.88 alike;
#: translations of one FAQ answer meet at 0.88 to 0.95) and checked on XQuAD with 547
#: Debian-reference distractors, where it changes no figure by more than one question
#: (bench/bench_crosslingual.py).
TRANSLATION_SIMILARITY: Final[dict[str, float]] = {"multilingual-e5-small-q4": 0.86}
#: Share by which a passage's BM25 score is raised for a how-to question ("How do I
#: …", "Wie ändere ich …", "Как изменить …") when it holds an instruction: the
#: command that answers such a question often shares fewer of its words than prose
#: about the same topic. Chosen on the real-document development set (0.2 to 0.3
#: alike there; how-to recall@1 de .389 → .667, en .333 → .389).
INSTRUCTION_BOOST: Final = 0.3
#: Most chunks whose instruction test a searcher keeps (then it starts afresh).
_INSTRUCTION_CACHE: Final = 100_000
#: Most passage keys a searcher keeps (a key is about as long as its chunk's text:
#: some 10 MB at most; then it starts afresh).
_PASSAGE_KEY_CACHE: Final = 10_000
_SNIPPET_CHARS: Final = 240
#: The tie key of a chunk deleted since it was ranked (it is dropped before the hits).
_NO_KEY: Final = ("", 0, 0)
#: Candidates per wanted hit that an index's nearest-neighbour list brings when a
#: same-language bonus re-ranks them (a bonus lowers some; others move up).
ANN_BONUS_CANDIDATES: Final = 4
#: Most candidates per retriever a collapsed search reads to fill its ``limit`` with
#: distinct passages (each try reads four times as many as the one before).
MAX_COLLAPSE_CANDIDATES: Final = 4096


class SearchMode(enum.Enum):
    LEXICAL = "lexical"
    VECTOR = "vector"
    HYBRID = "hybrid"


class SearchError(Exception):
    """A query that cannot run; ``code`` is stable, the message has no document text."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class ListRank:
    """One retriever's opinion of a hit: 1-based rank and its own score."""

    retriever: str
    rank: int
    score: float


@dataclass(frozen=True, slots=True)
class Hit:
    chunk_id: str
    document_id: str
    revision: str
    manifest_id: str
    score: float
    found_by: tuple[ListRank, ...]
    start: int  # representation code points
    end: int
    pages: tuple[int, ...]
    snippet: str
    #: the same passage in other chunks the caller may read (the PDF of an HTML manual,
    #: one text in two documents), in rank order; only in a collapsed search
    also_in: tuple[Hit, ...] = ()


def query_language(query: str) -> str | None:
    """The language a question is searched in by meaning (the same-language bonus of
    its vector list, the cross-lingual rule of its fusion): guessed as eagerly as its
    stop words are (:func:`~ragox.search.likely_language`), since a short question
    ("Was machen einige Gemeinschaftsapotheken?") often has too few function words to
    be detected. On XQuAD with 547 Debian-reference distractors, 47 of 1,190 German
    questions are not detected and 38 of them are likely German; German hybrid
    recall@5 .946 → .956 on the even articles, .957 → .965 on the odd ones
    (bench/bench_crosslingual.py)."""
    return likely_language(query)


#: a language's code as a part of a document's path: "kicad/en/pcbnew.html",
#: "faq.de.html", "guide_ru.md"
_PATH_PART: Final = re.compile(r"[/._-]")
_PATH_LANGUAGES: Final = frozenset({"en", "de", "ru"})


def path_language(document_id: str) -> str | None:
    """The one language code the document's path names, if it names one."""
    named = set(_PATH_PART.split(document_id.casefold())) & _PATH_LANGUAGES
    return next(iter(named)) if len(named) == 1 else None


def askers_copy(copies: Sequence[tuple[str, bool]], language: str) -> int | None:
    """Of one passage's copies (document id, whether it lies on PDF pages), first the
    one ranked or cited first: the index of the copy to put first instead, when that
    one is in another language's tree ("kicad/de/pcbnew.html", English text) and a copy
    of the same kind (a PDF's for a PDF's) is in the tree of ``language``; else None."""
    first, on_pages = copies[0]
    if path_language(first) in (None, language):
        return None
    return next(
        (
            index
            for index, (document_id, paged) in enumerate(copies)
            if path_language(document_id) == language and paged == on_pages
        ),
        None,
    )


def in_askers_tree(hits: list[Hit], query: str) -> list[Hit]:
    """Collapsed hits whose copy in the tree of the query's language leads them: a
    manual's untranslated page in another language's tree ("gimp/de/…", English text)
    gives its place, rank and score to the same page in the query's ("gimp/en/…"), of
    the same kind (a PDF's for a PDF's). The answers' citations follow the same rule."""
    language = query_language(query)
    if language is None:
        return hits
    led: list[Hit] = []
    for hit in hits:
        place = askers_copy(
            [(copy.document_id, bool(copy.pages)) for copy in (hit, *hit.also_in)], language
        )
        if not place:
            led.append(hit)
            continue
        own = hit.also_in[place - 1]
        others = tuple(copy for copy in hit.also_in if copy is not own)
        led.append(
            replace(
                own,
                score=hit.score,
                found_by=hit.found_by,
                also_in=(replace(hit, also_in=()), *others),
            )
        )
    return led


def scope_of(principal: Principal) -> Scope:
    return Scope(
        operator=principal.operator,
        tenant=principal.tenant,
        groups=tuple(sorted(principal.groups)),
    )


#: Scopes whose languages and vector matrices a searcher keeps (the one that asked
#: least recently is dropped first, whole).
CACHED_SCOPES: Final = 16

_K = TypeVar("_K")
_V = TypeVar("_V")


#: lexical rankings a searcher keeps (:meth:`Searcher.lexical`)
_RANKINGS: Final = 16


def _keep(cache: OrderedDict[_K, _V], key: _K, value: _V) -> None:
    """Put ``value`` under ``key``, newest, within :data:`CACHED_SCOPES` entries
    (caller holds the lock)."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHED_SCOPES:
        cache.popitem(last=False)


class Searcher:
    """Runs queries against one store with (optionally) one embedder."""

    def __init__(self, store: Store, embedder: Embedder | None = None) -> None:
        self.store = store
        self.embedder = embedder
        # Per scope (and embedder), what was read at the scope's generation
        # (``index.scope_generation``: its own partitions' generations), the scopes
        # that asked last kept (CACHED_SCOPES).
        self._matrices: OrderedDict[tuple[str, str], tuple[Hashable, VectorMatrix]] = OrderedDict()
        self._language_cache: OrderedDict[str, tuple[Hashable, set[str | None]]] = OrderedDict()
        # whether a chunk holds an instruction, by chunk id (a chunk's text never
        # changes under its id: a new revision has new chunks)
        self._instructions: dict[str, bool] = {}
        # each chunk's passage key (same_passage_key of its text), by chunk id, for
        # collapsed searches: ask searches twice, and questions meet the same chunks
        self._passage_keys: dict[str, tuple[str, int]] = {}
        # the last lexical rankings, by query, scope, depth and instruction preference,
        # valid at the scope's generation: an answer searches twice (a second time
        # deeper for passages in the question's language), and both rank the same pool
        self._rankings: OrderedDict[
            tuple[str, str, int, bool], tuple[Hashable, tuple[tuple[str, float], ...]]
        ] = OrderedDict()
        self._lock = threading.Lock()

    # -- validation ----------------------------------------------------------------

    @staticmethod
    def _validate(query: str) -> None:
        if not query or not query.strip():
            raise SearchError("EMPTY_QUERY", "the query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise SearchError(
                "QUERY_TOO_LONG",
                f"the query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}",
            )
        if not tokens(query):
            raise SearchError("NO_SEARCHABLE_TERMS", "the query has no words to search for")

    def _vector_key(self) -> str:
        if self.embedder is None:
            raise SearchError(
                "NO_VECTOR_INDEX", "no embedder is configured; run `ragox reindex --embedder NAME`"
            )
        indexed = self.store.index.setting("embedder_key")
        if indexed is None:
            raise SearchError(
                "NO_VECTOR_INDEX", "the index has no vectors; run `ragox reindex --embedder NAME`"
            )
        if indexed != self.embedder.identity.key:
            raise SearchError(
                "EMBEDDER_MISMATCH",
                "the index was built with another embedder; searching with this one would mix "
                "incompatible vectors (run `ragox reindex --embedder NAME`)",
            )
        return indexed

    # -- retrievers ----------------------------------------------------------------

    def _languages(self, scope: Scope) -> set[str | None]:
        """Languages in the scope, cached until what the scope reads changes."""
        # The generation is read before and after what it keys, and the set is kept
        # only when the two agree: a write between them would leave a newer set under
        # an older key, and a scope's generations can come back (a partition added,
        # then pruned with its last document), so that set would be served again.
        generation = self.store.index.scope_generation(scope)
        key = repr(scope)
        with self._lock:
            found = self._language_cache.get(key)
            if found is not None and found[0] == generation:
                self._language_cache.move_to_end(key)
                return found[1]
        languages = self.store.index.languages(scope)
        if self.store.index.scope_generation(scope) == generation:
            with self._lock:
                _keep(self._language_cache, key, (generation, languages))
        return languages

    def languages(self, principal: Principal) -> set[str | None]:
        """The languages of the chunks the principal may read (None: a chunk whose
        language was not detected), cached per scope like the lexical analysis's."""
        return self._languages(scope_of(principal))

    def lexical(
        self, query: str, scope: Scope, limit: int, prefer_instructions: bool = True
    ) -> list[tuple[str, float]]:
        """``(chunk_id, score)`` by BM25, best first; for a how-to question, passages
        that give instructions come first among those of about the same score
        (:data:`INSTRUCTION_BOOST`) unless ``prefer_instructions`` is False.

        The same query of the same scope and depth, asked again while nothing the scope
        reads has changed (its generation), is answered from the ranking made last."""
        generation = self.store.index.scope_generation(scope)  # read first (_languages)
        key = (query, repr(scope), limit, prefer_instructions)
        with self._lock:
            found = self._rankings.get(key)
            if found is not None and found[0] == generation:
                self._rankings.move_to_end(key)
                return list(found[1])
        ranked = self._lexical(query, scope, limit, prefer_instructions)
        with self._lock:
            self._rankings[key] = (generation, tuple(ranked))
            self._rankings.move_to_end(key)
            while len(self._rankings) > _RANKINGS:
                self._rankings.popitem(last=False)
        return ranked

    def _lexical(
        self, query: str, scope: Scope, limit: int, prefer_instructions: bool
    ) -> list[tuple[str, float]]:
        rest, names = self._held_names(query, scope)
        analysis = analyze_search_query(rest, self._languages(scope))
        terms = analysis.terms
        if "de" in analysis.languages:
            # a German compound that no readable chunk writes, by its parts
            parts = self.compound_parts(query, scope)
            terms += tuple(part for pair in parts.values() for part in pair if part not in terms)
        # a file's name stands for the two words it joins, and weighs as two terms
        others = tuple(
            term for term in with_synonyms(terms, analysis.languages) if term not in names
        )
        match = fts_match(others + names + names)
        if match is None:
            return []
        ranked = self.store.index.lexical(match, scope, limit)
        if not (ranked and prefer_instructions and asks_for_instructions(query)):
            return ranked
        return self._instructions_first(ranked)

    def _held_names(self, query: str, scope: Scope) -> tuple[str, tuple[str, ...]]:
        """``query`` with each dotted name that readable chunks hold ("sources.list")
        written as one word ("sourceslist"), and those words as the index stores them
        (unstemmed): a file's name is matched, not its words ("sources", "list"), which
        common prose outweighs. A name no readable chunk holds (an index from before
        analyzer 6, a name written otherwise) stays, for its words. A hyphenated name
        ("Debian-Entwickler", "dpkg-reconfigure") keeps its words, which are words of
        the language: the query's analysis adds the joined form beside them."""
        names = [(name, pairs) for name, pairs in named_joins(query) if "." in name]
        if not names:
            return query, ()
        joined = sorted({index_form(pair) for _, pairs in names for pair in pairs})
        held = self.store.index.term_statistics(scope, joined)[1]
        found: dict[str, None] = {}
        for name, pairs in names:
            forms = [index_form(pair) for pair in pairs]
            if all(held.get(form) for form in forms):
                # the joined words stay words of the query: its language and stop
                # words are read as before ("Что такое salsa.debian.org?" keeps no
                # stop word as a term)
                query = query.replace(name, " " + " ".join(pairs) + " ")
                found.update(dict.fromkeys(forms))
        return query, tuple(found)

    def compound_parts(self, query: str, scope: Scope) -> dict[str, tuple[str, str]]:
        """The query's German compounds that no chunk of the scope holds, by the stems
        of their parts that chunks of the scope hold (:func:`absent_compounds`)."""
        index = self.store.index
        return absent_compounds(query, lambda terms: index.term_statistics(scope, terms)[1])

    def _instructions_first(self, ranked: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """``ranked`` with the score of each chunk that holds an instruction (a
        command, a numbered step, an imperative) raised by :data:`INSTRUCTION_BOOST`,
        in the new order; equal scores keep their order."""
        with self._lock:
            known = {i: self._instructions[i] for i, _ in ranked if i in self._instructions}
        unknown = [chunk_id for chunk_id, _ in ranked if chunk_id not in known]
        if unknown:
            sources = self.store.hit_sources(unknown)
            found = {i: has_instruction(source.text) for i, source in sources.items()}
            known.update(found)
            with self._lock:
                if len(self._instructions) + len(found) > _INSTRUCTION_CACHE:
                    self._instructions = {}
                self._instructions.update(found)
        boosted = [
            (chunk_id, score * (1.0 + INSTRUCTION_BOOST) if known.get(chunk_id) else score)
            for chunk_id, score in ranked
        ]
        return sorted(boosted, key=lambda item: -item[1])

    def _matrix(self, key: str, scope: Scope) -> VectorMatrix:
        generation = self.store.index.scope_generation(scope)  # read first (_languages)
        cache_key = (key, repr(scope))
        cached = self._matrix_at(cache_key, generation)
        if cached is not None:
            return cached
        ids: list[str] = []
        blobs: list[bytes] = []
        for chunk_id, blob in self.store.index.permitted_vectors(key, scope):
            ids.append(chunk_id)
            blobs.append(blob)
        dim = self.embedder.identity.dimension if self.embedder else 0
        if blobs:
            vectors = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
        else:
            vectors = np.zeros((0, dim), dtype=np.float32)
        matrix = build_matrix(
            ids, vectors, self.store.index.chunk_languages(ids), SUPPORTED_LANGUAGES
        )
        with self._lock:
            # Keyed by embedder and scope, valid at the scope's generation: a new
            # revision, a deletion, a group change or vectors written that the scope
            # can see change it, so a stale permission set is never reused; a write
            # the scope cannot see leaves it, and the matrix, as they are.
            _keep(self._matrices, cache_key, (generation, matrix))
        return matrix

    def _matrix_at(self, cache_key: tuple[str, str], generation: Hashable) -> VectorMatrix | None:
        with self._lock:
            found = self._matrices.get(cache_key)
            if found is None or found[0] != generation:
                return None
            self._matrices.move_to_end(cache_key)
            return found[1]

    def _cached_matrix(self, scope: Scope) -> VectorMatrix | None:
        """The matrix of this scope at its current generation, if one is built."""
        if self.embedder is None:
            return None
        generation = self.store.index.scope_generation(scope)
        return self._matrix_at((self.embedder.identity.key, repr(scope)), generation)

    def _chunk_languages(self, scope: Scope, chunk_ids: list[str]) -> dict[str, str | None]:
        """Each chunk's language: from the scope's matrix (read at this generation by
        the same query) where it holds the chunk, else from the store."""
        matrix = self._cached_matrix(scope)
        if matrix is None:
            return self.store.index.chunk_languages(chunk_ids)
        known = matrix.language_of
        found = {i: known[i] for i in chunk_ids if i in known}
        rest = [i for i in chunk_ids if i not in known]
        if rest:
            found.update(self.store.index.chunk_languages(rest))
        return found

    def vector(
        self, query: str, scope: Scope, limit: int, embedded: list[Vectors] | None = None
    ) -> list[tuple[str, float]]:
        """``embedded``: holds the query's vector once one call has embedded it, so that a
        search reading more candidates embeds its query once."""
        key = self._vector_key()
        assert self.embedder is not None
        if embedded is None:
            embedded = []
        if not embedded:
            embedded.append(self.embedder.embed([query], "query")[0])
        query_vector = embedded[0]
        spoken = query_language(query)
        bonus = SAME_LANGUAGE_BONUS.get(self.embedder.identity.model, {}).get(spoken or "", 0.0)
        # A backend with a vector index filters by scope inside its scan; with a
        # language bonus, more candidates than asked are ranked again here.
        wanted = limit * ANN_BONUS_CANDIDATES if spoken is not None and bonus else limit
        near = self.store.index.nearest(
            key, scope, np.asarray(query_vector, dtype="<f4").tobytes(), wanted
        )
        if near is not None:
            if spoken is not None and bonus:
                languages = self.store.index.chunk_languages([i for i, _ in near])
                near = sorted(
                    ((i, s - bonus * (languages.get(i) == spoken)) for i, s in near),
                    key=lambda item: -item[1],
                )
            return near[:limit]
        matrix = self._matrix(key, scope)
        penalty = None
        if spoken is not None and bonus:
            penalty = np.float32(bonus) * matrix.languages[spoken].astype(np.float32)
        query32 = np.asarray(query_vector, dtype=np.float32)
        weight = TYPICALITY_WEIGHT.get(self.embedder.identity.model, 0.0)
        shift = weight * matrix.typicality if weight else None
        if spoken is not None and not self._spoken_in(matrix, spoken):
            # No passage is in the question's language: each passage ranks less its
            # language's mean similarity to the question, so that no language is near
            # to it as a whole (a home holding the question's language keeps its order:
            # its translated manuals would lose their own language's passages).
            centred = language_shift(matrix, query32)
            shift = centred if shift is None else centred + shift
        found = top_rows(matrix, query32, limit, penalty, shift)
        return [(matrix.chunk_ids[row], score) for row, score in found]

    @staticmethod
    def _spoken_in(matrix: VectorMatrix, spoken: str) -> bool:
        """Whether some permitted passage is in the question's language."""
        mask = matrix.languages.get(spoken)
        return mask is not None and bool(mask.any())

    # -- the search ------------------------------------------------------------------

    def _translations(self, passage: str, candidates: list[str]) -> set[str]:
        """Those of ``candidates`` whose vectors are as near to ``passage``'s as a
        translation's (:data:`TRANSLATION_SIMILARITY`); none for a model without one."""
        if self.embedder is None or not candidates:
            return set()
        threshold = TRANSLATION_SIMILARITY.get(self.embedder.identity.model)
        if threshold is None:
            return set()
        found = self.store.index.vectors_of(self._vector_key(), [passage, *candidates])
        if passage not in found:
            return set()
        target = np.frombuffer(found[passage], dtype="<f4")
        return {
            chunk_id
            for chunk_id in candidates
            if chunk_id in found
            and float(np.frombuffer(found[chunk_id], dtype="<f4") @ target) >= threshold
        }

    def fuse(
        self, query: str, scope: Scope, lists: dict[str, list[tuple[str, float]]]
    ) -> list[tuple[str, float]]:
        """One ranking of ``(chunk_id, score)`` from the retrievers' lists, best first.

        One list keeps its own order and scores; lexical and vector lists are fused by
        weighted reciprocal rank fusion.
        """
        if len(lists) == 1:
            (only,) = lists.values()
            return list(only)
        lexical, vector = lists["lexical"], lists["vector"]
        weights = dict.fromkeys((chunk_id for chunk_id, _ in lexical), 1.0)
        spoken = query_language(query)
        if spoken is not None and vector and lexical:
            languages = self._chunk_languages(scope, [vector[0][0], *weights])
            if languages.get(vector[0][0]) not in (spoken, None):
                # The best passage by meaning is in another language: lexical hits in
                # the question's language share its words, not its topic; the stems
                # that meet the other language's text (names, numbers) break ties.
                # A hit that translates that passage is its answer in the question's
                # language, though, and keeps its weight.
                twins = self._translations(
                    vector[0][0], [c for c in weights if languages.get(c) == spoken]
                )
                for chunk_id in weights:
                    same = languages.get(chunk_id) == spoken
                    if chunk_id in twins:
                        weights[chunk_id] = 1.0
                    else:
                        weights[chunk_id] = 0.0 if same else CROSS_LINGUAL_LEXICAL_WEIGHT
        fused: dict[str, float] = {}
        for rank, (chunk_id, _) in enumerate(lexical, start=1):
            if weights[chunk_id] > 0:
                fused[chunk_id] = weights[chunk_id] / (RRF_K + rank)
        for rank, (chunk_id, _) in enumerate(vector, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
        # Equal fused scores (first in one list and second in the other, against the
        # other way round) rank by content (document id, then range), as each list's
        # own ties do: chunk ids hold their manifest's ingestion time.
        seen: dict[float, int] = {}
        for score in fused.values():
            seen[score] = seen.get(score, 0) + 1
        tied = [chunk_id for chunk_id, score in fused.items() if seen[score] > 1]
        keys = self.store.index.tie_keys(tied) if tied else {}
        return sorted(
            fused.items(),
            key=lambda item: (-item[1], keys.get(item[0], _NO_KEY), item[0]),
        )

    def search(
        self,
        query: str,
        principal: Principal,
        mode: SearchMode = SearchMode.HYBRID,
        limit: int = 10,
        candidates: int = 50,
        collapse: bool = False,
        prefer_instructions: bool = True,
        sources: dict[str, HitSource] | None = None,
        snippets: bool = True,
    ) -> list[Hit]:
        """The best ``limit`` chunks for ``query`` that ``principal`` may read now.

        ``prefer_instructions``: a how-to question's lexical list puts passages with a
        command, steps or an imperative first among those of about the same score
        (:meth:`lexical`); an answer's evidence is read without (its scorer weighs
        instructions itself, see ``Ragox.ask``).

        ``collapse``: one hit per passage (:func:`~ragox.text.same_passage_key`), the
        same passage in other chunks listed under it as ``also_in``; ``limit`` counts
        distinct passages, and more candidates are read until it is met or none are left.
        ``sources``: hit sources an earlier collapsed search of the same request read
        (an answer searches a second time deeper, and its pool ranks the same chunks
        first); those read here are added to it. Only chunks ranked now are shown.
        ``snippets``: False leaves every hit's snippet empty (an answer quotes its
        evidence, never a hit's snippet: making them was a twentieth of an answer).
        """
        self._validate(query)
        scope = scope_of(principal)
        pool = max(limit, candidates)
        embedded: list[Vectors] = []  # the query's vector, embedded once
        # hit sources read by earlier rounds of this search (and ``sources``)
        read: dict[str, HitSource] = {} if sources is None else sources
        shown = query if snippets else None  # what the snippets are made around
        while True:
            lists: dict[str, list[tuple[str, float]]] = {}
            if mode in (SearchMode.LEXICAL, SearchMode.HYBRID):
                lists["lexical"] = self.lexical(query, scope, pool, prefer_instructions)
            if mode in (SearchMode.VECTOR, SearchMode.HYBRID):
                lists["vector"] = self.vector(query, scope, pool, embedded)
            fused = self.fuse(query, scope, lists)
            ranks: dict[str, list[ListRank]] = {}
            for name, ranked in lists.items():
                for rank, (chunk_id, score) in enumerate(ranked, start=1):
                    ranks.setdefault(chunk_id, []).append(ListRank(name, rank, score))
            final = dict(fused)
            if not collapse:
                order = [chunk_id for chunk_id, _ in fused][:limit]
                # one read for all hits: each chunk's own span of text, never whole documents
                sources = self.store.hit_sources(order)
                return [
                    _hit(sources[chunk_id], final[chunk_id], tuple(ranks[chunk_id]), shown)
                    for chunk_id in order
                    if chunk_id in sources  # a chunk deleted since it was ranked
                ]
            hits = self._collapsed(
                [chunk_id for chunk_id, _ in fused], final, ranks, shown, limit, read
            )
            exhausted = all(len(ranked) < pool for ranked in lists.values())
            if len(hits) >= limit or exhausted or pool >= MAX_COLLAPSE_CANDIDATES:
                return hits
            pool = min(pool * 4, MAX_COLLAPSE_CANDIDATES)

    def _collapsed(
        self,
        order: list[str],
        final: dict[str, float],
        ranks: dict[str, list[ListRank]],
        query: str | None,
        limit: int,
        read: dict[str, HitSource] | None = None,
    ) -> list[Hit]:
        """Up to ``limit`` distinct passages of ``order``, each with the same passage's
        other chunks (all from the same scoped lists) under it, in rank order.

        ``read``: hit sources an earlier round of the same search read (a larger pool
        ranks the same chunks first again); those read here are added to it. ``query``:
        what the hits' snippets are made around; None, no snippets."""
        read = {} if read is None else read
        # first hit and the others of each group; the groups' distinct passage keys
        groups: list[tuple[Hit, list[Hit]]] = []
        keys = PassageGroups()
        batch = max(2 * limit, 20)
        for begin in range(0, len(order), batch):
            chunk_ids = order[begin : begin + batch]
            unread = [chunk_id for chunk_id in chunk_ids if chunk_id not in read]
            if unread:
                read.update(self.store.hit_sources(unread))
            for chunk_id in chunk_ids:
                source = read.get(chunk_id)
                if source is None:
                    continue  # deleted since it was ranked
                key, words = self._passage_key(chunk_id, source.text)
                group = keys.first(key, words)
                if group is None and len(groups) >= limit:
                    continue
                # a hit (and its snippet) only for a chunk that is shown
                hit = _hit(source, final[chunk_id], tuple(ranks[chunk_id]), query)
                if group is None:
                    keys.add(key, words, len(groups))
                    groups.append((hit, []))
                    continue
                keys.add(key, words, group)
                groups[group][1].append(hit)
            if len(groups) >= limit:
                # what comes later may still be a copy of a passage shown: list it
                # only from the candidates read so far, never read more for that
                break
        return [replace(first, also_in=tuple(others)) for first, others in groups]

    def _passage_key(self, chunk_id: str, text: str) -> tuple[str, int]:
        """The passage key of a chunk's text and its word count, made once per chunk id
        (a chunk's text never changes under its id)."""
        with self._lock:
            known = self._passage_keys.get(chunk_id)
        if known is None:
            key = same_passage_key(text)
            known = (key, passage_words(key))
            with self._lock:
                if len(self._passage_keys) >= _PASSAGE_KEY_CACHE:
                    self._passage_keys = {}
                self._passage_keys[chunk_id] = known
        return known


def _hit(source: HitSource, score: float, found_by: tuple[ListRank, ...], query: str | None) -> Hit:
    """A hit of a chunk; its snippet made around ``query``'s words, none without one."""
    chunk = source.chunk
    return Hit(
        chunk_id=chunk.chunk_id,
        document_id=source.document_id,
        revision=source.revision,
        manifest_id=chunk.manifest_id,
        score=score,
        found_by=found_by,
        start=chunk.start,
        end=chunk.end,
        pages=source.pages,
        snippet="" if query is None else snippet(source.text, query),
    )


def snippet(body: str, query: str) -> str:
    """A window of a chunk's representation text (never the search text) around the
    longest query word found in it (ties in alphabetical order, so that every process
    shows the same window); where none is, around the longest synonym of one (a
    passage found by "display" for "show")."""
    lowered = body.casefold()
    position = -1
    words = sorted(set(tokens(query)), key=lambda w: (-len(w), w))
    for word in words:
        if len(word) > 2:
            position = lowered.find(word)
            if position >= 0:
                break
    if position < 0:
        stems = {stem for word in words for stem in synonyms_of_word(word)}
        for stem in sorted(stems, key=lambda w: (-len(w), w)):
            if len(stem) > 2:
                position = lowered.find(stem)
                if position >= 0:
                    break
    if len(body) <= _SNIPPET_CHARS:
        return body
    start = max(0, position - _SNIPPET_CHARS // 3) if position >= 0 else 0
    end = min(len(body), start + _SNIPPET_CHARS)
    while start > 0 and not body[start - 1].isspace():
        start -= 1
    while end < len(body) and not body[end].isspace():
        end += 1
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(body) else ""
    return prefix + body[start:end].strip() + suffix
