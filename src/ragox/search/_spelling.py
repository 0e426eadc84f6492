"""Words a question misspells, read as the word the reader's documents write.

"how to get rid of duplicte rows in a calc sheet" found nothing by "duplicte" and was
refused naming it; "как обьединить ячейки" (a soft sign for the hard one) named
"обьединить" (a new-user pass over LibreOffice's help, nu18). A word of the question
that no passage the reader may read holds, in any of its analyses, and whose stem is
one edit (a letter left out, added, changed, or two swapped) from a term such a passage
holds, is read as that term: the one most passages hold. The question the reader sees
stays as written; the answer's trace names each word read otherwise, as it names a
respelt name (:mod:`ragox.search._respell`).

Only words of :data:`MIN_LETTERS` letters or more (shorter words are one edit from
many others: "bringt" is not "bringe"), not function words, at most :data:`MAX_WORDS`
of a question; candidates are the index's terms that share the stem's first
:data:`PREFIX` letters (:meth:`~ragox.store.SearchIndex.terms_starting`, at most
:data:`MAX_CANDIDATES`), and a candidate counts only once a passage the reader may read
holds it (:meth:`~ragox.store.SearchIndex.term_statistics`, the scope's own rows).

A real word that the documents lack is what the question is about, not a typo: "Какая
столица Канады?" is not asked about "канал" (an IRC channel), nor "Which currency …"
about "current" (XQuAD's and the development set's unanswerable questions were
answered so). A word in Latin letters is read otherwise only when pyspellchecker's
word list of the question's language (English or German; both where it does not tell)
does not hold it (loaded once, on use); a Cyrillic one only by a letter Russian writers
confuse (ъ for ь, ё for е, й for и), since the Russian list is too short to tell.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Container, Sequence
from typing import Final

from rapidfuzz import process
from rapidfuzz.distance import OSA

from ragox.search._analyze import (
    analyze_query,
    detect_language,
    index_form,
    is_search_stopword,
)

__all__ = ["MAX_WORDS", "MIN_LETTERS", "corrections"]

#: the least letters of a word read otherwise
MIN_LETTERS: Final = 6
#: the most letters (a longer "word" is no typo of one)
MAX_LETTERS: Final = 24
#: the most words of a question read otherwise, and looked at
MAX_WORDS: Final = 2
MAX_LOOKED_AT: Final = 16
#: the letters a candidate shares with the stem at its start
PREFIX: Final = 2
#: the most candidate terms read per word
MAX_CANDIDATES: Final = 5000
_WORD: Final = re.compile(r"[^\W\d_]+")
_CYRILLIC: Final = re.compile(r"[а-яё]")


def corrections(
    question: str,
    held: Callable[[Sequence[str]], Collection[str]],
    frequencies: Callable[[Sequence[str]], dict[str, int]],
    starting: Callable[[str, int], Sequence[str]],
) -> dict[str, str]:
    """Each misspelt word of ``question`` and the term it is read as.

    ``held``: of some index terms, those a passage the reader may read holds;
    ``frequencies``: how many such passages hold each of some terms; ``starting``:
    index terms starting with a prefix (candidates only, checked with
    ``frequencies``)."""
    words = [
        word
        for word in dict.fromkeys(_WORD.findall(question))
        if MIN_LETTERS <= len(word) <= MAX_LETTERS and not is_search_stopword(word)
    ][:MAX_LOOKED_AT]
    if not words:
        return {}
    words = [word for word in words if not _known(word, question)]
    if not words:
        return {}
    stems = {word: _stems(word) for word in words}
    found = set(held(sorted({form for forms in stems.values() for form in forms})))
    absent = [word for word in words if stems[word] and not found & stems[word]][:MAX_WORDS]
    read: dict[str, str] = {}
    for word in absent:
        near: dict[str, str] = {}  # candidate term: the stem of the word it is near
        for stem in stems[word]:
            candidates = starting(stem[:PREFIX], MAX_CANDIDATES)
            near.update(
                (term, stem)
                for term, _, _ in process.extract(
                    stem, candidates, scorer=OSA.distance, score_cutoff=1, limit=None
                )
                if term != stem and (not _CYRILLIC.search(stem) or _slip(stem, term))
            )
        if not near:
            continue
        counts = frequencies(sorted(near))
        # the term most passages hold, written so that the question reads it as that
        # term: as it is, or with the rest of the word after the stem ("объеди" is no
        # stem of its own: "обьединить" is read as "объединить")
        for term in sorted(near, key=lambda t: (-counts.get(t, 0), t)):
            if not counts.get(term, 0):
                continue
            stem = near[term]
            rest = word.casefold()[len(stem) :] if word.casefold().startswith(stem) else ""
            written = next((w for w in (term, term + rest) if term in _stems(w)), None)
            if written is not None:
                read[word] = written
                break
    return read


#: letters Russian writers put for one another
_SLIPS: Final = str.maketrans("ъёй", "ьеи")


def _slip(stem: str, term: str) -> bool:
    """Whether ``term`` differs from ``stem`` only by letters Russian writers confuse."""
    return stem.translate(_SLIPS) == term.translate(_SLIPS)


@functools.cache
def _lexicon(language: str) -> Container[str]:
    """pyspellchecker's word list of ``language``, loaded once per process (English:
    about 0.2 s and 15 MB; German: 0.4 s and 30 MB)."""
    from spellchecker import SpellChecker  # noqa: PLC0415 - loaded on use

    words: Container[str] = SpellChecker(language=language, distance=1).word_frequency.dictionary
    return words


def _known(word: str, question: str) -> bool:
    """Whether a word in Latin letters is a word of the question's language, English or
    German (of either, where the question does not tell). Cyrillic words are left to
    :func:`_slip`."""
    folded = word.casefold()
    if _CYRILLIC.search(folded):
        return False
    language = detect_language(question)
    languages = (language,) if language in ("en", "de") else ("en", "de")
    return any(folded in _lexicon(language) for language in languages)


def _stems(word: str) -> set[str]:
    """The word's index forms in the languages its script is written in."""
    languages = ["ru"] if _CYRILLIC.search(word.casefold()) else ["en", "de"]
    return {index_form(term) for term in analyze_query(word, languages)}
