"""One scope's vectors in memory and their exact top k (issue 15).

A query's product with every permitted vector is bound by memory: at 100k chunks
of 384 dimensions one float32 pass reads 150 MB. The matrix therefore keeps a
float16 copy beside the exact rows and ranks in two steps:

1. every row's product with the query in half precision (SimSIMD's dot product
   kernels: float16 converted to float32 in registers, float32 sums), which reads
   half the bytes;
2. the rows that can still be among the best ``k`` after the largest error the first
   step can make, scored exactly: each product summed in float64 from the float32
   rows and the float32 query, then rounded to float32.

The result is exactly the top ``k`` of the exact scores (ties in row order: the store
hands rows in the order equal scores rank in), not an approximation: see
:func:`_half_margin` for the bound. Without SimSIMD (a platform without its wheel)
step 1 is a float32 product on one BLAS thread, with its own (smaller) bound, and the
result is the same.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ragox._lazy import lazy_module
from ragox.search._blas import one_blas_thread

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")


__all__ = ["VectorMatrix", "build_matrix", "language_shift", "top_rows"]

#: below this many rows every row is scored exactly, in one step
_EXACT_BELOW: Final = 256
#: from this many rows on the first step reads the float16 copy
_HALF_FROM: Final = 4096
#: unit roundoff of float16 (11 significant bits) and of float32 (24)
_U16: Final = 2.0**-11
_U32: Final = 2.0**-24
#: below float16's largest finite value by more than its rounding
_F16_MAX: Final = 65000.0
#: rows converted to float64 at a time when the means are summed
_MEAN_BLOCK: Final = 8192


@dataclass(frozen=True, slots=True)
class VectorMatrix:
    """The permitted rows of one scope and one embedder, at one generation of what the
    scope reads (``SearchIndex.scope_generation``)."""

    chunk_ids: tuple[str, ...]
    #: the stored float32 vectors, one row per chunk
    vectors: npt.NDArray[np.float32]
    #: the same rows in float16 for the first step; None when SimSIMD is missing or a
    #: component does not fit float16
    half: npt.NDArray[np.float16] | None
    #: the largest row norm (bounds the first step's error)
    max_norm: float
    #: language → which rows are chunks in that language
    languages: dict[str, npt.NDArray[np.bool_]]
    #: chunk id → the language of its representation (None: not detected)
    language_of: dict[str, str | None]
    #: each row's product with the mean of all rows, less the mean of those products
    #: (float64): how near a row lies to everything (see ``Searcher.vector``)
    typicality: npt.NDArray[np.float64]
    #: the mean row (float64) of each language that has rows
    language_means: dict[str, npt.NDArray[np.float64]]
    #: the mean of all rows (float64; zeros when there are none)
    mean: npt.NDArray[np.float64]


@functools.cache
def _simsimd() -> Any:
    try:
        import simsimd  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: PLC0415
    except ImportError:  # a platform without its wheel: float32 products instead
        return None
    return simsimd


def build_matrix(
    chunk_ids: list[str],
    vectors: npt.NDArray[np.float32],
    language_of: dict[str, str | None],
    supported: Iterable[str],
    *,
    half: bool = True,
) -> VectorMatrix:
    """The matrix of these rows, with the float16 copy when it is useful (and ``half``).

    Equal scores rank in the order of the rows (the store's tie order: document id,
    then the chunk's range), never by chunk id, which differs between two homes of the
    same files."""
    exact = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(exact.astype(np.float64), axis=1) if len(exact) else np.zeros(0)
    max_norm = float(norms.max()) if len(norms) else 0.0
    copy = None
    if half and len(exact) >= _HALF_FROM and _simsimd() is not None and max_norm < _F16_MAX:
        copy = exact.astype(np.float16)  # no component beyond float16's range
    masks = {
        lang: np.fromiter((language_of.get(i) == lang for i in chunk_ids), np.bool_, len(chunk_ids))
        for lang in supported
    }
    means, mean = _means(exact, masks)
    typicality = np.zeros(len(exact), dtype=np.float64)
    for begin in range(0, len(exact), _MEAN_BLOCK):
        block = exact[begin : begin + _MEAN_BLOCK].astype(np.float64)
        typicality[begin : begin + _MEAN_BLOCK] = block @ mean
    if len(typicality):
        typicality -= typicality.mean()
    return VectorMatrix(
        tuple(chunk_ids), exact, copy, max_norm, masks, language_of, typicality, means, mean
    )


def _means(
    exact: npt.NDArray[np.float32], masks: dict[str, npt.NDArray[np.bool_]]
) -> tuple[dict[str, npt.NDArray[np.float64]], npt.NDArray[np.float64]]:
    """Each language's mean row and the mean of all rows, summed in float64 in row
    order a block at a time (the same figures in every process and home)."""
    counts = {lang: int(mask.sum()) for lang, mask in masks.items()}
    present = [lang for lang in masks if counts[lang]]
    dimension = exact.shape[1] if exact.ndim == 2 else 0
    sums = {lang: np.zeros(dimension, dtype=np.float64) for lang in present}
    total = np.zeros(dimension, dtype=np.float64)
    for begin in range(0, len(exact), _MEAN_BLOCK):
        wide = exact[begin : begin + _MEAN_BLOCK].astype(np.float64)
        total += wide.sum(axis=0)
        for lang in present:
            sums[lang] += wide[masks[lang][begin : begin + _MEAN_BLOCK]].sum(axis=0)
    means = {lang: sums[lang] / counts[lang] for lang in present}
    return means, total / max(1, len(exact))


def language_shift(matrix: VectorMatrix, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Each row's language's mean similarity to ``query`` (the mean of the products is
    the product with the mean row: one product per language); rows of no detected
    language get the mean over all rows."""
    q = np.asarray(query, dtype=np.float64)
    shift = np.full(len(matrix.chunk_ids), float(matrix.mean @ q), dtype=np.float64)
    for lang, centroid in matrix.language_means.items():
        shift[matrix.languages[lang]] = float(centroid @ q)
    return shift


def _half_margin(query_norm: float, max_norm: float, dimension: int) -> float:
    """Twice the largest difference between a float16 score and the exact one.

    With ``u = 2**-11``, rounding each component to float16 changes it by at most
    ``u·|x|`` (``2**-25`` absolute below float16's normal range), so a product
    ``q_i·v_i`` changes by at most ``(2u + u²)·|q_i·v_i|`` plus the subnormal term,
    and the whole dot product by ``(2u + u²)·Σ|q_i·v_i| ≤ (2u + u²)·|q|·|v|``
    (Cauchy-Schwarz) plus ``2**-25·(|q|₁ + |v|₁) ≤ 2**-25·√d·(|q| + |v|)``. The
    float32 sum of ``d`` terms adds at most ``d·2**-24·(1 + u)²·|q|·|v|``; the
    exact score (a float64 sum rounded to float32) is within ``2**-23·|q|·|v|`` of
    the true product. Every term is rounded up generously.
    """
    scale = query_norm * max_norm
    relative = (2 * _U16 + _U16 * _U16) + dimension * _U32 * 1.01 + 2 * _U32
    subnormal = 2.0**-25 * math.sqrt(dimension) * (query_norm + max_norm)
    return 2 * (relative * scale * 1.01 + subnormal + 1e-9)


def _single_margin(query_norm: float, max_norm: float, dimension: int) -> float:
    """Twice the largest difference between a float32 BLAS score and the exact one:
    ``d·2**-24`` relative for the sum (any order), ``2**-23`` for the exact one."""
    return 2 * ((dimension * _U32 * 1.01 + 2 * _U32) * query_norm * max_norm * 1.01 + 1e-9)


def top_rows(
    matrix: VectorMatrix,
    query: npt.NDArray[np.float32],
    count: int,
    penalty: npt.NDArray[np.float32] | None = None,
    shift: npt.NDArray[np.float64] | None = None,
) -> list[tuple[int, float]]:
    """The ``count`` rows of the highest exact score minus ``penalty`` minus ``shift``,
    best first (equal ones in row order), each with its exact score minus ``penalty``.

    ``penalty`` is a per-row amount subtracted from the scores (a language bonus);
    ``shift`` one subtracted for the ranking only.
    """
    rows = len(matrix.chunk_ids)
    count = min(count, rows)
    if count <= 0:
        return []
    q = np.ascontiguousarray(query, dtype=np.float32)
    dimension = q.shape[0]
    query_norm = float(np.linalg.norm(q.astype(np.float64)))
    candidates: npt.NDArray[np.intp] | None = None
    if rows >= _EXACT_BELOW and np.isfinite(query_norm):
        simsimd = _simsimd()
        if matrix.half is not None and simsimd is not None and np.abs(q).max() < _F16_MAX:
            q16 = q.astype(np.float16)
            first = np.asarray(simsimd.cdist(q16[None], matrix.half, metric="dot"), np.float64)[0]
            margin = _half_margin(query_norm, matrix.max_norm, dimension)
        else:
            with one_blas_thread():
                first = (matrix.vectors @ q).astype(np.float64)
            margin = _single_margin(query_norm, matrix.max_norm, dimension)
        if penalty is not None:
            first -= penalty
        if shift is not None:
            first -= shift
        # Some ``count`` rows score at least the count-th first score less half the
        # margin; a row whose first score is more than the margin below that cannot
        # beat them.
        kth = np.partition(first, rows - count)[rows - count]
        candidates = np.flatnonzero(first >= kth - margin)
    if candidates is None:
        candidates = np.arange(rows)
    exact = (matrix.vectors[candidates].astype(np.float64) * q.astype(np.float64)).sum(axis=1)
    scores = exact.astype(np.float32)
    if penalty is not None:
        scores = scores - penalty[candidates]
    ranking = scores if shift is None else scores.astype(np.float64) - shift[candidates]
    order = np.lexsort((candidates, -ranking))[:count]
    return [(int(candidates[i]), float(scores[i])) for i in order]
