"""Ingestion: the pipeline and revision states, search text, sentences and chunking."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.ingest._chunker import (
        DEFAULT_CHUNKING,
        ChunkingConfig,
        chunk_id,
        chunk_representation,
    )
    from ragox.ingest._jobs import (
        LEASE,
        Heartbeat,
        JobHealth,
        Liveness,
        job_health,
    )
    from ragox.ingest._pipeline import (
        DEFAULT_MAX_BYTES,
        Ingestor,
        IngestOutcome,
    )
    from ragox.ingest._reprocess import (
        AnchorOutcome,
        AnchorReport,
        RebuildState,
        Reprocessor,
        ReprocessReport,
        RevisionRebuild,
    )
    from ragox.ingest._searchtext import (
        SearchText,
        build_search_text,
        repeated_margin_blocks,
    )
    from ragox.ingest._sentences import (
        split_sentences,
        token_count,
        token_spans,
    )
    from ragox.ingest._versions import (
        StaleStage,
        current_versions,
        stale_stages,
        stale_stages_from,
        stale_stages_of,
    )
    from ragox.ingest._worker import (
        DEFAULT_LEASE_SECONDS,
        Worker,
        WorkerConfig,
        WorkNote,
        WorkResult,
    )

__all__ = [
    "DEFAULT_CHUNKING",
    "DEFAULT_LEASE_SECONDS",
    "DEFAULT_MAX_BYTES",
    "LEASE",
    "AnchorOutcome",
    "AnchorReport",
    "ChunkingConfig",
    "Heartbeat",
    "IngestOutcome",
    "Ingestor",
    "JobHealth",
    "Liveness",
    "RebuildState",
    "ReprocessReport",
    "Reprocessor",
    "RevisionRebuild",
    "SearchText",
    "StaleStage",
    "WorkNote",
    "WorkResult",
    "Worker",
    "WorkerConfig",
    "build_search_text",
    "chunk_id",
    "chunk_representation",
    "current_versions",
    "job_health",
    "repeated_margin_blocks",
    "split_sentences",
    "stale_stages",
    "stale_stages_from",
    "stale_stages_of",
    "token_count",
    "token_spans",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "._chunker": (
            "DEFAULT_CHUNKING",
            "ChunkingConfig",
            "chunk_id",
            "chunk_representation",
        ),
        "._jobs": (
            "LEASE",
            "Heartbeat",
            "JobHealth",
            "Liveness",
            "job_health",
        ),
        "._pipeline": (
            "DEFAULT_MAX_BYTES",
            "Ingestor",
            "IngestOutcome",
        ),
        "._reprocess": (
            "AnchorOutcome",
            "AnchorReport",
            "RebuildState",
            "Reprocessor",
            "ReprocessReport",
            "RevisionRebuild",
        ),
        "._searchtext": (
            "SearchText",
            "build_search_text",
            "repeated_margin_blocks",
        ),
        "._sentences": (
            "split_sentences",
            "token_count",
            "token_spans",
        ),
        "._versions": (
            "StaleStage",
            "current_versions",
            "stale_stages",
            "stale_stages_from",
            "stale_stages_of",
        ),
        "._worker": (
            "DEFAULT_LEASE_SECONDS",
            "Worker",
            "WorkerConfig",
            "WorkNote",
            "WorkResult",
        ),
    },
)
