"""What an answer says in its own words (abstentions, what is missing), in the
question's language: English, German or Russian."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import regex

from ragox.search import detect_language

__all__ = [
    "MESSAGES",
    "Messages",
    "in_other_languages",
    "message_language",
    "messages_for",
    "question_language",
]


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
    #: a claim whose text was removed because a document it cited was deleted
    claim_redacted: str
    #: replaces a generator's note on what is missing when a document it drew on was
    #: deleted
    note_redacted: str
    #: a claim not shown on replay; ``{status}`` is the code saying why
    #: (ACCESS_DENIED, EARLIER_TURNS, a resolution status)
    claim_withheld: str
    #: an extractive abstention whose evidence is all in other languages than the
    #: question; ``{languages}`` names them (:attr:`language_names`)
    other_language: str
    #: language codes as this language names them in ``other_language``
    language_names: Mapping[str, str]


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
        claim_redacted="(redacted: a cited document was deleted)",
        note_redacted=("(The rest of this note was removed: a document it drew on was deleted.)"),
        claim_withheld="(withheld: {status})",
        other_language=(
            "The passages you can read that come nearest to it are in {languages}, and an "
            "extractive answer quotes only sentences that share your question's words: ask "
            "in {languages}, or with a generator that reads across languages."
        ),
        language_names={"en": "English", "de": "German", "ru": "Russian"},
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
        claim_redacted="(entfernt: ein zitiertes Dokument wurde gelöscht)",
        note_redacted=(
            "(Der Rest dieser Anmerkung wurde entfernt: Ein Dokument, auf das sie sich "
            "stützt, wurde gelöscht.)"
        ),
        claim_withheld="(zurückgehalten: {status})",
        other_language=(
            "Die nächstliegenden Passagen, die Sie lesen dürfen, sind auf {languages}, und "
            "eine extraktive Antwort zitiert nur Sätze mit den Wörtern Ihrer Frage: Fragen "
            "Sie auf {languages} oder mit einem Generator, der sprachübergreifend liest."
        ),
        language_names={"en": "Englisch", "de": "Deutsch", "ru": "Russisch"},
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
        claim_redacted="(удалено: цитируемый документ был удалён)",
        note_redacted=(
            "(Остальная часть примечания удалена: документ, на который оно опирается, был удалён.)"
        ),
        claim_withheld="(скрыто: {status})",
        other_language=(
            "Ближайшие к нему доступные вам фрагменты написаны на {languages}, а "
            "извлекающий ответ цитирует только предложения со словами вашего вопроса: "
            "спросите на {languages} или с генератором, который читает на разных языках."
        ),
        language_names={"en": "английском", "de": "немецком", "ru": "русском"},
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


def in_other_languages(
    question: str, evidence_languages: Sequence[str | None], messages: Messages
) -> str | None:
    """The abstention's note when every passage of the evidence whose language is known
    is in another language than the question (a Russian question over English manuals):
    the words no passage mentions would all be listed, which says nothing. None when
    some passage is in the question's language, or none has a known language."""
    known = sorted({language for language in evidence_languages if language})
    if not known or question_language(question) in known:
        return None
    names = " / ".join(messages.language_names.get(code, code) for code in known)
    return messages.other_language.format(languages=names)
