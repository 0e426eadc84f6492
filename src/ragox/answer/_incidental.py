"""Words of a question that say when or what for, not what about.

A question word that no passage the reader may read holds weighs as the index's rarest
term (a word of another topic: "Welche *Währung* gilt als die stabilste?"), and its
absence refuses the answer. Some words a reader adds are no topic, and their absence
must not decide (a new-user pass over LibreOffice's help, nu18):

* the words of a clause that says when or what for, after the question proper: "how do
  i make the header row repeat … *when my table spills over* …", "wie sperr ich zellen
  … *damit die kollegen nix überschreiben können*";
* numbers given as an example: "a number *like 0123*", "does calc read it as *1920*
  or *2020*?" (not a number the question is about: "the revenue in 2019");
* the words that ask what a thing is good for: "was *bringt* die zielwertsuche?",
  "wozu ist bedingter text *gut*", "what is a master document *good* for?".

Such a word that no passage holds weighs no more than the question's weightiest other
term (:func:`incidental_words`, applied in ``score_sentences``): it still counts, and a
passage must still answer the rest.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["incidental_words", "question_proper"]

#: a clause after the question proper that says when, while or what for (not the
#: question's own first word: "When was …?"; not "if", "ob", "ли", whose clause is what
#: is asked: "how do I check if my CPU supports …")
_CLAUSE: Final = re.compile(
    r"(?<=\w)[^\w]+(?:when|whenever|while|so that|because|until|wenn|damit|sodass|so dass"
    r"|weil|während|когда|чтобы|пока|потому что|так как)\b([^,;:?!.]*)",
    re.IGNORECASE,
)
#: a number given as an example ("a number like 0123", "z. B. 20") or as one of two
#: alternatives ("1920 or 2020"); not a number the question is about ("the revenue in
#: 2019")
_EXAMPLE_NUMBER: Final = re.compile(
    r"\b(?:like|such as|e\.\s?g\.|for example|for instance|z\.\s?b\.|zum beispiel"
    r"|beispielsweise|etwa|например|типа|вроде|к примеру)\s+(\d+)(?![\w.,/-]\d)",
    re.IGNORECASE,
)
_ALTERNATIVE_NUMBERS: Final = re.compile(
    r"(?<![\w.,/-])(\d+)\s+(?:or|oder|или)\s+(\d+)(?![\w.,/-]\d)", re.IGNORECASE
)
#: the words that ask what a thing is good for, with the word they leave
_WHAT_FOR: Final = (
    re.compile(r"^\W*was\s+(bringt|bringen)\b", re.IGNORECASE),
    re.compile(r"\b(?:wozu|wofür)\b.*\b(gut)\b", re.IGNORECASE),
    re.compile(r"\b(good)\s+for\b", re.IGNORECASE),
)
_WORD: Final = re.compile(r"\w+")


def _spans(question: str) -> list[tuple[int, int]]:
    spans = [clause.span(1) for clause in _CLAUSE.finditer(question)]
    spans += [found.span(1) for found in _EXAMPLE_NUMBER.finditer(question)]
    for found in _ALTERNATIVE_NUMBERS.finditer(question):
        spans += [found.span(1), found.span(2)]
    for pattern in _WHAT_FOR:
        match = pattern.search(question)
        if match is not None:
            spans.append(match.span(1))
    return spans


def incidental_words(question: str) -> frozenset[str]:
    """The words of ``question`` (case-folded) that say when or what for, or give a
    number as an example."""
    return frozenset(
        word.casefold()
        for start, end in _spans(question)
        for word in _WORD.findall(question[start:end])
    )


def question_proper(question: str) -> str:
    """``question`` without those words (each replaced by spaces)."""
    kept = list(question)
    for start, end in _spans(question):
        kept[start:end] = " " * (end - start)
    return "".join(kept)
