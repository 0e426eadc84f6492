"""The in-memory vector matrix: its two-step top k equals a brute-force exact top k."""

from __future__ import annotations

import numpy as np
import pytest

from ragox.search import _matrix
from ragox.search._matrix import build_matrix, top_rows


def _brute(
    vectors: np.ndarray, ids: list[str], query: np.ndarray, k: int, penalty: np.ndarray | None
) -> list[tuple[str, float]]:
    """Every row scored in float64, rounded to float32, less the penalty; ties in row
    order (the store's tie order), not by chunk id."""
    # numpy's own loop, not BLAS (whose threads crawl on a busy machine)
    exact = np.einsum("ij,j->i", vectors.astype(np.float64), query.astype(np.float64))
    exact = exact.astype(np.float32)
    if penalty is not None:
        exact = exact - penalty
    ranked = np.lexsort((np.arange(len(ids)), -exact))[:k]
    return [(ids[r], float(exact[r])) for r in ranked]


def _corpus(rows: int, seed: int, anisotropic: bool) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((rows, 384)).astype(np.float32)
    if anisotropic:  # real embeddings share a direction: every cosine is high
        vectors = vectors * 0.3 + rng.standard_normal(384).astype(np.float32)
    # repeated documents: exact duplicates tie
    vectors[rows // 2 : rows // 2 + 40] = vectors[7]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"c{(r * 7919) % rows:06d}" for r in range(rows)]  # id order is not row order
    return vectors, ids


@pytest.mark.parametrize("anisotropic", [False, True])
@pytest.mark.parametrize("half", [True, False])
def test_top_rows_equal_brute_force(anisotropic: bool, half: bool) -> None:
    """The top k of both first steps (float16 and float32) is the exact top k: same
    rows, same scores, equal scores in row order, with and without a penalty."""
    vectors, ids = _corpus(6000, seed=3, anisotropic=anisotropic)
    languages = {chunk_id: ("de" if n % 3 == 0 else "en") for n, chunk_id in enumerate(ids)}
    matrix = build_matrix(ids, vectors, languages, ("de", "en"), half=half)
    assert (matrix.half is not None) == (half and _matrix._simsimd() is not None)
    rng = np.random.default_rng(11)
    for n in range(12):
        query = vectors[n * 31] + rng.standard_normal(384).astype(np.float32) * 0.05
        query = (query / np.linalg.norm(query)).astype(np.float32)
        if n == 0:
            query = vectors[7].copy()  # ties with the 41 duplicates at the top
        penalty = None
        if n % 2:
            penalty = np.float32(0.04) * matrix.languages["de"].astype(np.float32)
        for k in (1, 10, 50):
            found = [(matrix.chunk_ids[r], s) for r, s in top_rows(matrix, query, k, penalty)]
            assert found == _brute(vectors, ids, query, k, penalty)


def test_top_rows_small_and_unusual_queries() -> None:
    """Below the two-step size every row is scored; a query beyond float16's range or
    with a NaN is still answered exactly (float32 first step or every row)."""
    vectors, ids = _corpus(300, seed=5, anisotropic=False)
    matrix = build_matrix(ids, vectors, {}, ("en",))
    query = vectors[3]
    assert [(matrix.chunk_ids[r], s) for r, s in top_rows(matrix, query, 5)] == _brute(
        vectors, ids, query, 5, None
    )
    big_vectors, big_ids = _corpus(5000, seed=6, anisotropic=False)
    big = build_matrix(big_ids, big_vectors, {}, ("en",))
    huge = (big_vectors[9] * 1e6).astype(np.float32)  # float16 overflows
    assert [(big.chunk_ids[r], s) for r, s in top_rows(big, huge, 7)] == _brute(
        big_vectors, big_ids, huge, 7, None
    )
    assert top_rows(big, big_vectors[0], 0) == []
    empty = build_matrix([], np.zeros((0, 384), np.float32), {}, ("en",))
    assert top_rows(empty, big_vectors[0], 5) == []


def test_shift_changes_the_order_only() -> None:
    """A shift is subtracted for the ranking only: the rows are those of the exact
    score less penalty and shift, each reported with its score less the penalty (in the
    two-step path too, whose first-step bound still holds)."""
    vectors, ids = _corpus(6000, seed=8, anisotropic=True)
    matrix = build_matrix(ids, vectors, {}, ("en",))
    rng = np.random.default_rng(2)
    shift = rng.standard_normal(len(ids)) * 0.05
    query = vectors[40] + rng.standard_normal(384).astype(np.float32) * 0.05
    query = (query / np.linalg.norm(query)).astype(np.float32)
    exact = np.einsum("ij,j->i", vectors.astype(np.float64), query.astype(np.float64))
    exact = exact.astype(np.float32)
    ranking = exact.astype(np.float64) - shift
    expected = [(ids[r], float(exact[r])) for r in np.lexsort((np.arange(len(ids)), -ranking))]
    found = [(matrix.chunk_ids[r], s) for r, s in top_rows(matrix, query, 20, shift=shift)]
    assert found == expected[:20]
    assert found != _brute(vectors, ids, query, 20, None)


def test_typicality_and_language_shift() -> None:
    """Typicality is each row's product with the mean row, centred; the language shift
    gives each row its language's mean product with the query (rows of no language:
    the mean over all rows)."""
    vectors, ids = _corpus(500, seed=4, anisotropic=True)
    languages = {c: ("de" if n % 4 == 0 else "en") for n, c in enumerate(ids) if n % 10}
    matrix = build_matrix(ids, vectors, languages, ("de", "en", "ru"))
    wide = vectors.astype(np.float64)
    typical = wide @ wide.mean(axis=0)
    assert np.allclose(matrix.typicality, typical - typical.mean(), atol=1e-12)
    assert set(matrix.language_means) == {"de", "en"}  # no Russian rows, no Russian mean
    query = vectors[3]
    shift = _matrix.language_shift(matrix, query)
    products = wide @ query.astype(np.float64)
    for lang in ("de", "en"):
        rows = matrix.languages[lang]
        assert np.allclose(shift[rows], products[rows].mean(), atol=1e-12)
    none = ~(matrix.languages["de"] | matrix.languages["en"])
    assert none.any()
    assert np.allclose(shift[none], products.mean(), atol=1e-12)
