"""Cited answers: context selection, generators, citation validation, abstention."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.answer._context import ContextConfig, select_context
    from ragox.answer._extractive import (
        ExtractiveConfig,
        ExtractiveGenerator,
        ScoredSentence,
        Scoring,
        score_sentences,
    )
    from ragox.answer._messages import message_language, messages_for
    from ragox.answer._model import (
        Citation,
        CitationStatus,
        Claim,
        Draft,
        DroppedClaim,
        Evidence,
        Generator,
        GeneratorError,
        Translation,
        Translator,
    )
    from ragox.answer._openai import OpenAIGenerator
    from ragox.answer._pipeline import (
        ABSTAIN_TEXT,
        AnswerRecord,
        Redaction,
        StoredClaim,
        WithdrawnCitation,
        answer_question,
        citation_json,
        compose,
        missing_terms,
    )
    from ragox.answer._redact import (
        REDACTED_CLAIM,
        REDACTED_NOTE,
        quotes_only,
        redact_answer,
        withheld_note,
    )
    from ragox.answer._validate import Validated, ValidatedClaim, validate

__all__ = [
    "ABSTAIN_TEXT",
    "REDACTED_CLAIM",
    "REDACTED_NOTE",
    "AnswerRecord",
    "Citation",
    "CitationStatus",
    "Claim",
    "ContextConfig",
    "Draft",
    "DroppedClaim",
    "Evidence",
    "ExtractiveConfig",
    "ExtractiveGenerator",
    "Generator",
    "GeneratorError",
    "OpenAIGenerator",
    "Redaction",
    "ScoredSentence",
    "Scoring",
    "StoredClaim",
    "Translation",
    "Translator",
    "Validated",
    "ValidatedClaim",
    "WithdrawnCitation",
    "answer_question",
    "citation_json",
    "compose",
    "generator_from_spec",
    "message_language",
    "messages_for",
    "missing_terms",
    "quotes_only",
    "redact_answer",
    "score_sentences",
    "select_context",
    "validate",
    "withheld_note",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "._context": (
            "ContextConfig",
            "select_context",
        ),
        "._extractive": (
            "ExtractiveConfig",
            "ExtractiveGenerator",
            "ScoredSentence",
            "Scoring",
            "score_sentences",
        ),
        "._model": (
            "Citation",
            "CitationStatus",
            "Claim",
            "Draft",
            "DroppedClaim",
            "Evidence",
            "Generator",
            "GeneratorError",
            "Translation",
            "Translator",
        ),
        "._messages": ("message_language", "messages_for"),
        "._openai": ("OpenAIGenerator",),
        "._pipeline": (
            "ABSTAIN_TEXT",
            "AnswerRecord",
            "Redaction",
            "StoredClaim",
            "WithdrawnCitation",
            "answer_question",
            "citation_json",
            "compose",
            "missing_terms",
        ),
        "._redact": (
            "REDACTED_CLAIM",
            "REDACTED_NOTE",
            "quotes_only",
            "redact_answer",
            "withheld_note",
        ),
        "._validate": (
            "Validated",
            "ValidatedClaim",
            "validate",
        ),
    },
)


def generator_from_spec(spec: str) -> Generator:
    """``extractive`` (default) or ``openai:BASE_URL#MODEL``; the API key comes from
    ``RAGOX_GENERATOR_API_KEY`` only (specs are recorded, keys must not be)."""
    # Imported here: the package loads its modules on first use (ragox._lazy).
    from ragox.answer._extractive import ExtractiveGenerator  # noqa: PLC0415
    from ragox.answer._model import GeneratorError  # noqa: PLC0415
    from ragox.answer._openai import OpenAIGenerator  # noqa: PLC0415

    if spec == "extractive":
        return ExtractiveGenerator()
    if spec.startswith("openai:") and "#" in spec:
        base_url, model = spec.removeprefix("openai:").rsplit("#", 1)
        return OpenAIGenerator(base_url, model, api_key=os.environ.get("RAGOX_GENERATOR_API_KEY"))
    raise GeneratorError("UNKNOWN_GENERATOR", "use 'extractive' or 'openai:BASE_URL#MODEL'")
