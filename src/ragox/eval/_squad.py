"""SQuAD-format data (XQuAD): articles, paragraphs, questions with gold answers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Article", "Question", "SquadError", "load_questions", "load_squad"]


class SquadError(ValueError):
    """A file that is not SQuAD v1.1 JSON."""


@dataclass(frozen=True, slots=True)
class Question:
    question_id: str
    text: str
    article: int
    paragraph: int
    #: first gold answer: code-point offset in the paragraph and its text
    answer_start: int
    answer_text: str


@dataclass(frozen=True, slots=True)
class Article:
    index: int
    title: str
    paragraphs: tuple[str, ...]

    @property
    def document_id(self) -> str:
        return f"article-{self.index:03d}"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SquadError(f"cannot read {path.name}: {type(error).__name__}") from None
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise SquadError(f"{path.name} is not SQuAD JSON (no 'data' list)")
    return data


def load_squad(path: Path) -> tuple[list[Article], list[Question]]:
    """Articles (one document each, one block per paragraph) and their questions."""
    data = _read(path)
    articles: list[Article] = []
    questions: list[Question] = []
    articles_json: list[dict[str, Any]] = data["data"]
    for a_index, article in enumerate(articles_json):
        paragraphs = []
        for p_index, paragraph in enumerate(article.get("paragraphs", [])):
            context = str(paragraph["context"])
            paragraphs.append(context)
            for qa in paragraph.get("qas", []):
                answers = qa.get("answers") or [{"answer_start": -1, "text": ""}]
                questions.append(
                    Question(
                        question_id=str(qa["id"]),
                        text=str(qa["question"]),
                        article=a_index,
                        paragraph=p_index,
                        answer_start=int(answers[0]["answer_start"]),
                        answer_text=str(answers[0]["text"]),
                    )
                )
        articles.append(Article(a_index, str(article.get("title", "")), tuple(paragraphs)))
    return articles, questions


def load_questions(path: Path) -> dict[str, str]:
    """Question texts by id, from another language's file (cross-lingual pairs)."""
    _, questions = load_squad(path)
    return {q.question_id: q.text for q in questions}
