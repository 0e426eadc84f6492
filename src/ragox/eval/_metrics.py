"""Ranking metrics and latency summaries."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

__all__ = ["latency_summary", "ndcg_at", "percentile", "ranking_metrics"]


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latency_summary(values_ms: Sequence[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values_ms), 3) if values_ms else 0.0,
        "p95": round(percentile(values_ms, 0.95), 3),
    }


def ndcg_at(relevance: Sequence[bool], relevant_total: int, k: int) -> float:
    """Binary-relevance nDCG@k."""
    dcg = sum(1.0 / math.log2(i + 2) for i, rel in enumerate(relevance[:k]) if rel)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, relevant_total)))
    return dcg / ideal if ideal else 0.0


def ranking_metrics(runs: Sequence[tuple[Sequence[bool], int]]) -> dict[str, float]:
    """recall@1/5/10 (a relevant hit within k), mrr@10 and ndcg@10 over all queries."""
    n = len(runs)
    if n == 0:
        return {"recall@1": 0.0, "recall@5": 0.0, "recall@10": 0.0, "mrr@10": 0.0, "ndcg@10": 0.0}

    def first(relevance: Sequence[bool]) -> int | None:
        return next((i + 1 for i, rel in enumerate(relevance) if rel), None)

    firsts = [first(rel) for rel, _ in runs]
    return {
        "recall@1": round(sum(1 for f in firsts if f is not None and f <= 1) / n, 4),
        "recall@5": round(sum(1 for f in firsts if f is not None and f <= 5) / n, 4),
        "recall@10": round(sum(1 for f in firsts if f is not None and f <= 10) / n, 4),
        "mrr@10": round(sum(1.0 / f for f in firsts if f is not None and f <= 10) / n, 4),
        "ndcg@10": round(sum(ndcg_at(rel, total, 10) for rel, total in runs) / n, 4),
    }
