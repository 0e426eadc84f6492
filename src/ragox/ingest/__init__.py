"""Ingestion: the pipeline, revision states, and (later) chunking."""

from ragox.ingest._pipeline import DEFAULT_MAX_BYTES, Ingestor, IngestOutcome

__all__ = ["DEFAULT_MAX_BYTES", "IngestOutcome", "Ingestor"]
