"""What an answer says in its own words (abstentions, what is missing), in the
question's language: English, German or Russian."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import regex

from ragox.search import detect_language

__all__ = ["MESSAGES", "Messages", "message_language", "messages_for", "question_language"]


@dataclass(frozen=True, slots=True)
class Messages:
    abstain: str
    #: followed by the missing words, comma-separated, and a full stop
    not_mentioned: str
    mentioned_but_unanswered: str
    #: an answer language was asked for and the generator cannot translate;
    #: ``{generator}`` is its identity
    cannot_translate: str
    #: replaces a language model's note on what is missing once a passage it was
    #: shown is no longer the reader's to read (its words may quote that passage)
    note_withheld: str


MESSAGES: Final = {
    "en": Messages(
        abstain="The documents you can read do not answer this question.",
        not_mentioned="No passage you can read mentions: ",
        mentioned_but_unanswered=(
            "The passages you can read mention these words but do not state the answer."
        ),
        cannot_translate=(
            "Not translated: this answer's generator ({generator}) cannot translate, so "
            "it answers with the passages themselves, quoted in the language of their source."
        ),
        note_withheld=(
            "(The generator's note was withheld: a passage it drew on is no longer yours to read.)"
        ),
    ),
    "de": Messages(
        abstain="Die Dokumente, die Sie lesen dürfen, beantworten diese Frage nicht.",
        not_mentioned="Keine Passage, die Sie lesen dürfen, erwähnt: ",
        mentioned_but_unanswered=(
            "Die Passagen, die Sie lesen dürfen, erwähnen diese Wörter, "
            "nennen die Antwort aber nicht."
        ),
        cannot_translate=(
            "Nicht übersetzt: Der Generator dieser Antwort ({generator}) kann nicht "
            "übersetzen; er antwortet mit den Passagen selbst, zitiert in der Sprache "
            "ihrer Quelle."
        ),
        note_withheld=(
            "(Die Anmerkung des Generators wurde zurückgehalten: Eine Passage, auf die sie "
            "sich stützt, dürfen Sie nicht mehr lesen.)"
        ),
    ),
    "ru": Messages(
        abstain="Доступные вам документы не отвечают на этот вопрос.",
        not_mentioned="Ни один доступный вам фрагмент не упоминает: ",
        mentioned_but_unanswered=(
            "Доступные вам фрагменты упоминают эти слова, но не содержат ответа."
        ),
        cannot_translate=(
            "Без перевода: генератор этого ответа ({generator}) не умеет переводить, "
            "поэтому отвечает самими фрагментами, процитированными на языке источника."
        ),
        note_withheld=(
            "(Примечание генератора скрыто: фрагмент, на который оно опирается, "
            "вам больше не доступен.)"
        ),
    ),
}

_CYRILLIC: Final = regex.compile(r"\p{Cyrillic}")
_GERMAN: Final = re.compile(
    r"[äöüß]|\b(?:wie|was|wer|wo|wann|warum|welche[rsmn]?|ich|ist|sind|kann|der|die|das"
    r"|und|nicht|ein|eine|mit|für)\b",
    re.IGNORECASE,
)


def messages_for(question: str, answer_language: str | None = None) -> Messages:
    """The messages in the answer language the reader asked for, when we have it,
    else in the question's language."""
    return MESSAGES[message_language(question, answer_language)]


def message_language(question: str, answer_language: str | None = None) -> str:
    """The language (en, de or ru) of an answer's own words: its abstention, the words
    no passage mentions, its notices (what a page marks with ``lang``)."""
    if answer_language is not None and answer_language in MESSAGES:
        return answer_language
    return question_language(question)


def question_language(question: str) -> str:
    """en, de or ru: a question is short, so detection falls back on its script and on
    German function words."""
    detected = detect_language(question)
    if detected in MESSAGES:
        return detected
    if _CYRILLIC.search(question):
        return "ru"
    if _GERMAN.search(question):
        return "de"
    return "en"
