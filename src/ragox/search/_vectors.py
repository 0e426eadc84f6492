"""Writing vectors: at ingestion for new chunks, and ``reindex`` for a new embedder.

An index records the identity of the embedder that made its vectors; a reindex
builds every vector with the new embedder first and then swaps the recorded
identity in one transaction, so searches never mix vectors of two models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from ragox._lazy import lazy_module
from ragox.store import Store

if TYPE_CHECKING:
    import numpy as np

    from ragox.search._embed import Embedder
else:
    np = lazy_module("numpy")


__all__ = ["BATCH", "embed_chunks", "reindex"]

BATCH: Final = 32
#: how often a reindex looks again for chunks indexed while it ran
CATCH_UP_ROUNDS: Final = 5


def _chunk_texts(store: Store, chunk_ids: Sequence[str], last: dict[str, str]) -> list[str]:
    """The chunks' search texts. ``last`` keeps the search text of the latest document
    between calls: chunks come in document order, and a long document's chunks fill
    many batches, which must not read its whole text again each."""
    texts: list[str] = []
    for chunk_id in chunk_ids:
        chunk = store.get_chunk(chunk_id)
        if chunk is None:
            texts.append("")
            continue
        if chunk.manifest_id not in last:
            found = store.search_text(chunk.manifest_id)
            last.clear()
            last[chunk.manifest_id] = found[0] if found else ""
        texts.append(last[chunk.manifest_id][chunk.search_start : chunk.search_end])
    return texts


def texts_per_call(embedder: Embedder) -> int:
    """How many texts to hand the embedder at once: what it can work on together (an
    HTTP client's batches in flight, a local model's batch), at least :data:`BATCH`.
    Texts of several documents go together: small documents make no small calls."""
    hint = getattr(embedder, "texts_per_call", None)
    return max(BATCH, hint) if isinstance(hint, int) and hint > 0 else BATCH


def embed_chunks(
    store: Store,
    embedder: Embedder,
    chunk_ids: Sequence[str],
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed chunks as passages and store their vectors under the embedder's key."""
    key = embedder.identity.key
    written = 0
    size = texts_per_call(embedder)
    last: dict[str, str] = {}
    for offset in range(0, len(chunk_ids), size):
        batch = list(chunk_ids[offset : offset + size])
        texts = _chunk_texts(store, batch, last)
        vectors = np.asarray(embedder.embed(texts, "passage"), dtype="<f4")
        store.index.write_vectors(
            key, [(chunk_id, vectors[i].tobytes()) for i, chunk_id in enumerate(batch)]
        )
        written += len(batch)
        if progress is not None:
            progress(len(batch))
    return written


def reindex(
    store: Store,
    embedder: Embedder,
    spec: str,
    progress: Callable[[int], None] | None = None,
    total: Callable[[int], None] | None = None,
) -> int:
    """Vectors for every current chunk with ``embedder``, then an atomic swap.

    Chunks that other processes index while this runs (a server's uploads) are
    embedded after the swap, round after round until none is missing: from the
    swap on, every process that ingests embeds its own new chunks (it reads the
    index's embedder before indexing), so the rounds end. ``total`` is told the
    growing count.
    """
    key = embedder.identity.key
    missing = [chunk_id for chunk_id, _ in store.index.chunks_without_vectors(key)]
    planned = len(missing)
    if total is not None:
        total(planned)
    written = embed_chunks(store, embedder, missing, progress)
    store.index.swap_embedder(key, spec)
    for _ in range(CATCH_UP_ROUNDS):
        late = [chunk_id for chunk_id, _ in store.index.chunks_without_vectors(key)]
        if not late:
            break
        planned += len(late)
        if total is not None:
            total(planned)
        written += embed_chunks(store, embedder, late, progress)
    return written
