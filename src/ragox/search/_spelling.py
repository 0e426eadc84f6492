"""Words a question misspells in the ways that seldom make another word: two letters
swapped, a letter left out, or a letter Russian writers put for another.

"как обьединить ячейки" (a soft sign for the hard one) was refused naming
"обьединить", "how to get rid of duplicte rows" naming "duplicte", and "how can i save
a file with a pasword" was answered from another page (new-user passes over
LibreOffice's help, nu18 and nu19). A word of the question that no passage the reader
may read holds, in any of its analyses, is read as its variant that such passages hold
(the one most of them hold): the word with two neighbouring letters swapped, with a
letter it writes once written twice ("pasword"), with a vowel it left out put in
("duplicte"), or, in Cyrillic, with ъ for ь, ё for е or й for и (and back). The
question the reader sees stays as written; the answer's trace names each word read
otherwise, as it names a respelt name (:mod:`ragox.search._respell`). ``ask`` reads them
so; ``search`` runs as typed (its hits would not say that a word was read as another).

No other edit: a letter more or changed makes another word too often, and a word the
documents lack is what a question asks about ("stdevp" is no "stdev", "systemd" no
"system", "subnet" no "subset", "Канады" no "канал": a red team's and XQuAD's
unanswerable questions were answered so). A word in Latin letters that the word list of
the question's language (pyspellchecker's English or German; both where the question
tells no language) holds is not read otherwise either ("causal" is no "casual"); the
list is loaded only when a variant is found. Only words of :data:`MIN_LETTERS` letters
or more, not function words, at most :data:`MAX_WORDS` of a question.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Container, Sequence
from typing import Final

from ragox.search._analyze import (
    analyze_query,
    detect_language,
    index_form,
    is_search_stopword,
)

__all__ = ["MAX_WORDS", "MIN_LETTERS", "corrections", "variants"]

#: the least letters of a word read otherwise
MIN_LETTERS: Final = 6
#: the most letters (a longer "word" is no typo of one)
MAX_LETTERS: Final = 24
#: the most words of a question looked at, and read otherwise
MAX_LOOKED_AT: Final = 16
MAX_WORDS: Final = 2
#: the most index terms of variants looked up for a question
MAX_TERMS: Final = 256
_WORD: Final = re.compile(r"\w+")
_CYRILLIC: Final = re.compile(r"[а-яё]")
_LATIN_VOWELS: Final = "aeiou"
_CYRILLIC_VOWELS: Final = "аеиоуыэюя"
#: letters Russian writers put for one another
_SLIPS: Final = {"ь": "ъ", "ъ": "ь", "е": "ё", "ё": "е", "и": "й", "й": "и"}


def variants(word: str) -> list[str]:
    """The word (case-folded) with two neighbouring letters swapped, with a letter it
    writes once written twice ("pasword" → "password") or a vowel it left out put in
    ("duplicte" → "duplicate"), and, in Cyrillic, with one of ъ/ь, ё/е, й/и put for the
    other; each once."""
    folded = word.casefold()
    cyrillic = _CYRILLIC.search(folded) is not None
    found = [
        folded[:i] + folded[i + 1] + folded[i] + folded[i + 2 :]
        for i in range(len(folded) - 1)
        if folded[i] != folded[i + 1]
    ]
    found += [folded[: i + 1] + folded[i:] for i in range(len(folded))]
    vowels = _CYRILLIC_VOWELS if cyrillic else _LATIN_VOWELS
    # (not before the last letter nor after it, where a vowel makes an ending: "systemd"
    # is no "systemed", which is stemmed "system")
    found += [
        folded[:i] + vowel + folded[i:] for i in range(1, len(folded) - 1) for vowel in vowels
    ]
    if cyrillic:
        found += [
            folded[:i] + _SLIPS[letter] + folded[i + 1 :]
            for i, letter in enumerate(folded)
            if letter in _SLIPS
        ]
    return list(dict.fromkeys(found))


def corrections(
    question: str,
    held: Callable[[Sequence[str]], Collection[str]],
    frequencies: Callable[[Sequence[str]], dict[str, int]],
) -> dict[str, str]:
    """Each misspelt word of ``question`` and the word it is read as.

    ``held``: of some index terms, those a passage the reader may read holds;
    ``frequencies``: how many such passages hold each of some terms."""
    words = [
        word
        for word in dict.fromkeys(_WORD.findall(question))
        if MIN_LETTERS <= len(word) <= MAX_LETTERS
        and word.isalpha()
        and not is_search_stopword(word)
    ][:MAX_LOOKED_AT]
    if not words:
        return {}
    stems = {word: _stems(word) for word in words}
    found = set(held(sorted({form for forms in stems.values() for form in forms})))
    absent = [word for word in words if stems[word] and not found & stems[word]]
    if not absent:
        return {}
    # (the variants' terms share one budget, the first words' first: a question of made-up
    # words costs a reader of many groups no more than a few lookups per group)
    near: dict[str, dict[str, set[str]]] = {}
    budget = MAX_TERMS
    for word in absent[: 2 * MAX_WORDS]:
        near[word] = {}
        for variant in variants(word):
            forms = _stems(variant)
            if len(forms) > budget:
                break
            budget -= len(forms)
            near[word][variant] = forms
    terms = sorted({t for options in near.values() for forms in options.values() for t in forms})
    counts = frequencies(terms) if terms else {}
    read: dict[str, str] = {}
    for word, options_of in near.items():
        # (the variant most passages hold; of equals, the first: a swap before a letter
        # put in)
        options = [
            (max(counts.get(t, 0) for t in forms), -order, variant)
            for order, (variant, forms) in enumerate(options_of.items())
            if forms and any(counts.get(t, 0) for t in forms)
        ]
        if not options or _known(word, question):
            continue
        read[word] = max(options)[2]
        if len(read) == MAX_WORDS:
            break
    return read


@functools.cache
def _lexicon(language: str) -> Container[str]:
    """pyspellchecker's word list of ``language``, loaded once per process (English:
    about 0.2 s and 15 MB; German: 0.4 s and 30 MB)."""
    from spellchecker import SpellChecker  # noqa: PLC0415 - loaded on use

    words: Container[str] = SpellChecker(language=language, distance=1).word_frequency.dictionary
    return words


def _known(word: str, question: str) -> bool:
    """Whether a word in Latin letters is a word of the question's language, English or
    German (of either, where the question does not tell). A Cyrillic word's variants
    are slips of its letters alone. Looked up in lower case, not case-folded: the list
    writes "fließen", which case-folds to "fliessen" (a red team's find)."""
    folded = word.lower()
    if _CYRILLIC.search(folded):
        return False
    language = detect_language(question)
    languages = (language,) if language in ("en", "de") else ("en", "de")
    return any(folded in _lexicon(language) for language in languages)


def _stems(word: str) -> set[str]:
    """The word's index forms in the languages its script is written in."""
    languages = ["ru"] if _CYRILLIC.search(word.casefold()) else ["en", "de"]
    return {index_form(term) for term in analyze_query(word, languages)}
