"""Evaluation harnesses over SQuAD-format data (XQuAD)."""

from ragox.eval._answers import (
    HOLD_OUT_EVERY,
    AnswersReport,
    Split,
    evaluate_answers,
    held_out,
)
from ragox.eval._metrics import latency_summary, ndcg_at, percentile, ranking_metrics
from ragox.eval._retrieval import (
    EVAL_GROUP,
    Corpus,
    RetrievalReport,
    evaluate_retrieval,
    prepare_corpus,
)
from ragox.eval._squad import Article, Question, SquadError, load_questions, load_squad

__all__ = [
    "EVAL_GROUP",
    "HOLD_OUT_EVERY",
    "AnswersReport",
    "Article",
    "Corpus",
    "Question",
    "RetrievalReport",
    "Split",
    "SquadError",
    "evaluate_answers",
    "evaluate_retrieval",
    "held_out",
    "latency_summary",
    "load_questions",
    "load_squad",
    "ndcg_at",
    "percentile",
    "prepare_corpus",
    "ranking_metrics",
]
