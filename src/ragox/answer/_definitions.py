"""Passages that define what a definition question asks about.

"Was ist SELinux?" over a handbook whose SELinux chapter names SELinux in every
paragraph: lexical search ranks the short paragraphs dense in the word first ("Die
Unterstützung von SELinux ist in den Standard-Kerneln enthalten"), and the one that
says what SELinux is ("SELinux (Security Enhanced Linux) ist ein System mit Mandatory
Access Control …") came 16th, out of the answer's evidence. An answer to a definition
question looks deeper for a passage with a sentence that opens with the asked term and
defines it (:func:`defines`), as a how-to question prefers passages with instructions.
"""

from __future__ import annotations

from typing import Final

import regex

from ragox.answer._support import (
    DEFINITION_WORDS,
    AnswerKind,
    answer_kind,
    holds_answer_kind,
)
from ragox.search import analyze_query, is_stopword, tokens

__all__ = ["asked_term", "defines", "opens_with"]

#: where a passage's sentences end: after ".", "!" or "?" before a space, and at a
#: paragraph break
_SENTENCE_END: Final = regex.compile(r"(?<=[.!?])\s+|\n\s*\n")
#: how far into a sentence the asked term must stand (after a section number, an
#: article): a definition opens with what it defines
_OPENING: Final = 6
_LANGUAGES: Final = ("en", "de", "ru")
#: the words of a definition question that ask, not name ("What does X *mean*?", "Was
#: *versteht* man *unter* X?", "Что *значит* X?")
_ASKING: Final = DEFINITION_WORDS | frozenset(
    {"mean", "means", "meant", "meaning", "versteht", "verstehen", "unter", "значит"}
)


def asked_term(question: str) -> tuple[frozenset[str], ...]:
    """The stems of each word of what a definition question asks about ("Was ist
    SELinux?": "selinux"; "What is a virtual host?": "virtual", "host"); empty for any
    other question. The words that ask ("mean", "versteht man unter", "значит") are
    none of it."""
    if answer_kind(question) is not AnswerKind.DEFINITION:
        return ()
    words = [
        word
        for word in tokens(question)
        if not is_stopword(word) and word.casefold() not in _ASKING
    ]
    stems = (frozenset(analyze_query(word, list(_LANGUAGES))) for word in words)
    return tuple(found for found in stems if found)


#: a sentence opening with a clause of time or condition: its first words are not its
#: subject ("Before you install Podman, remove the old Docker engine.")
_CLAUSE_FIRST: Final = regex.compile(
    r"^\W*(?:before|after|if|when|once|unless|vor|nach|bevor|nachdem|wenn|falls|sobald"
    r"|перед|после|если|когда)\b",
    regex.IGNORECASE,
)


def opens_with(term: tuple[frozenset[str], ...], sentence: str) -> bool:
    """Every word of ``term`` (:func:`asked_term`) is among the sentence's first words,
    and no clause of time or condition opens it: the term is what the sentence is
    about, and a pronoun in the sentence after it stands for it."""
    if not term or _CLAUSE_FIRST.match(sentence):
        return False
    opening = " ".join(tokens(sentence)[: _OPENING + len(term) - 1])
    stems = set(analyze_query(opening, list(_LANGUAGES))) if opening else set()
    return all(word & stems for word in term)


def defines(term: tuple[frozenset[str], ...], text: str) -> bool:
    """Some sentence of ``text`` defines ``term`` (:func:`asked_term`): it has a
    definition's shape ("X is a …", "X (…) ist ein …", "X — это …") and every word of
    the term among its first words ("Multiprocessor support — also called …" does not
    define a system call)."""
    if not term:
        return False
    reach = _OPENING + len(term) - 1
    for sentence in _SENTENCE_END.split(text):
        opening = " ".join(tokens(sentence)[:reach])
        if not opening:
            continue
        stems = set(analyze_query(opening, list(_LANGUAGES)))
        if not all(word & stems for word in term):
            continue
        if holds_answer_kind(AnswerKind.DEFINITION, sentence.strip()):
            return True
    return False
