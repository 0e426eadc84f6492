"""Evaluation harnesses over SQuAD-format data (XQuAD) and gold-passage sets over files."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.eval._answers import (
        HOLD_OUT_EVERY,
        AnswersReport,
        Split,
        evaluate_answers,
        held_out,
    )
    from ragox.eval._goldset import (
        GOLD_SET_FORMAT,
        GoldAnswersReport,
        GoldDocument,
        GoldGroup,
        GoldQuestion,
        GoldRetrievalReport,
        GoldSet,
        GoldSetError,
        LocatedPassages,
        QuestionKind,
        evaluate_gold_answers,
        evaluate_gold_retrieval,
        ingest_gold_documents,
        is_gold_set,
        load_gold_set,
        locate_passages,
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
    "GOLD_SET_FORMAT",
    "HOLD_OUT_EVERY",
    "AnswersReport",
    "Article",
    "Corpus",
    "GoldAnswersReport",
    "GoldDocument",
    "GoldGroup",
    "GoldQuestion",
    "GoldRetrievalReport",
    "GoldSet",
    "GoldSetError",
    "LocatedPassages",
    "Question",
    "QuestionKind",
    "RetrievalReport",
    "Split",
    "SquadError",
    "evaluate_answers",
    "evaluate_gold_answers",
    "evaluate_gold_retrieval",
    "evaluate_retrieval",
    "held_out",
    "ingest_gold_documents",
    "is_gold_set",
    "latency_summary",
    "load_gold_set",
    "load_questions",
    "load_squad",
    "locate_passages",
    "ndcg_at",
    "percentile",
    "prepare_corpus",
    "ranking_metrics",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "._answers": (
            "HOLD_OUT_EVERY",
            "AnswersReport",
            "Split",
            "evaluate_answers",
            "held_out",
        ),
        "._goldset": (
            "GOLD_SET_FORMAT",
            "GoldAnswersReport",
            "GoldDocument",
            "GoldGroup",
            "GoldQuestion",
            "GoldRetrievalReport",
            "GoldSet",
            "GoldSetError",
            "LocatedPassages",
            "QuestionKind",
            "evaluate_gold_answers",
            "evaluate_gold_retrieval",
            "ingest_gold_documents",
            "is_gold_set",
            "load_gold_set",
            "locate_passages",
        ),
        "._metrics": (
            "latency_summary",
            "ndcg_at",
            "percentile",
            "ranking_metrics",
        ),
        "._retrieval": (
            "EVAL_GROUP",
            "Corpus",
            "RetrievalReport",
            "evaluate_retrieval",
            "prepare_corpus",
        ),
        "._squad": (
            "Article",
            "Question",
            "SquadError",
            "load_questions",
            "load_squad",
        ),
    },
)
