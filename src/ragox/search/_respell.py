"""Names a Russian question writes in Cyrillic that the documents write in Latin letters.

A Russian reader types "как поставить апаче на убунту?" or "кто был первым лидером
проекта дебиан": the manuals say "Apache", "Ubuntu", "Debian". No passage holds
"апаче", so search found nothing by it and the abstention said that no passage mentions
"апаче" while the reader's manuals said "Apache" on every page (new-user passes over the
Apache manual, nu15, and Debian's history, nu16). A Cyrillic word of the question that
no passage the reader may read holds is spelt in Latin letters the ways such names are
("апаче" → "apache", "убунту" → "ubuntu", "докер" → "docker", "питон" → "python",
"линуксе" → "linux"); the first spelling that a passage the reader may read holds as a
term of its own takes the word's place in what is searched and answered. The question
the reader sees stays as written, and the answer's trace names each word respelt.

Only a spelling that is itself a term of the index counts, not one whose stem is (the
German stem of "pereneste", for "перенести", is "peren", which a manual holds), nor a
function word ("мире" is no "mir"). A word of fewer than four letters, a verb's
infinitive, and a word some passage holds are left as they are. A Russian word
borrowed from English or German may meet its source ("драйвер" → "driver") where the
reader's documents say nothing in Russian for it: that is what they write for it."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ragox.access import Principal
from ragox.search._analyze import analyze_query, index_form, is_search_stopword
from ragox.search._search import scope_of
from ragox.store import SearchIndex

__all__ = ["Respelling", "latin_spellings", "readable_terms", "respell"]

#: how a Cyrillic letter is written in the Latin names Russian readers transliterate
#: (first the most usual: a spelling found earlier wins)
_LETTERS: Final[Mapping[str, tuple[str, ...]]] = {
    "а": ("a",),
    "б": ("b",),
    "в": ("v", "w"),
    "г": ("g", "h"),
    "д": ("d",),
    "е": ("e",),
    "ё": ("e", "yo"),
    "ж": ("zh", "j", "g"),
    "з": ("z", "s"),
    "и": ("i", "y", "ee"),
    "й": ("y", "i"),
    "к": ("k", "c", "ck"),
    "л": ("l", "ll"),
    "м": ("m",),
    "н": ("n",),
    "о": ("o",),
    "п": ("p", "pp"),
    "р": ("r",),
    "с": ("s", "c", "ss"),
    "т": ("t", "th", "tt"),
    "у": ("u", "oo", "ou"),
    "ф": ("f", "ph", "ff"),
    "х": ("h", "kh", "ch"),
    "ц": ("ts", "c", "z"),
    "ч": ("ch",),
    "ш": ("sh",),
    "щ": ("shch", "sch"),
    "ъ": ("",),
    "ы": ("y", "i"),
    "ь": ("",),
    "э": ("e", "a"),
    "ю": ("yu", "u"),
    "я": ("ya", "ia"),
}
#: letter pairs written as one Latin letter or pair ("линукс" → "linux", "джава" →
#: "java", "файрфокс" → "firefox")
_PAIRS: Final[Mapping[str, tuple[str, ...]]] = {
    "кс": ("x", "ks", "cs"),
    "дж": ("j", "g", "dzh"),
    "ай": ("ai", "i", "y", "ay"),
}
#: a Russian case ending after a name ("на убунт*е*", "с апач*ем*", "докер*а*"); the
#: name itself may end in a vowel the ending replaced ("убунте" → "ubuntu")
_ENDING: Final = re.compile(r"(?:ами|ями|ом|ем|ой|ей|ах|ях|ам|ям|е|у|а|ы|и|ю|я)$")
_ENDING_VOWELS: Final = ("e", "u", "o", "a", "")
_CYRILLIC: Final = re.compile(r"[а-яё]+")
#: the endings of a Russian verb's infinitive: a name is no verb ("перенести",
#: "перейти")
_VERB: Final = re.compile(r"(?:ть|ти|чь|ться|тись)$", re.IGNORECASE)
#: the least letters of a word that is respelt
MIN_LETTERS: Final = 4
#: the most letters an English stem may cut from a spelling for it to count
MAX_CUT: Final = 2
#: the most words of a question respelt (a long query of made-up words costs no more)
MAX_WORDS: Final = 6
#: the most spellings tried for a word (and as many for it without its ending)
MAX_SPELLINGS: Final = 256


@dataclass(frozen=True, slots=True)
class Respelling:
    """A question with its Cyrillic names spelt as the documents write them."""

    question: str
    #: each respelt word of the question and the spelling it took
    words: tuple[tuple[str, str], ...]


def latin_spellings(word: str) -> list[str]:
    """Latin spellings of a Cyrillic word, the most usual first: at most
    ``MAX_SPELLINGS``, and as many of it without a case ending, each with or without a
    vowel the ending may have replaced. None for a word with other letters."""
    folded = word.casefold()
    if not _CYRILLIC.fullmatch(folded):
        return []
    spellings = dict.fromkeys(_spell(folded))
    ending = _ENDING.search(folded)
    if ending and len(folded) - len(ending.group()) >= MIN_LETTERS - 1:
        stems = _spell(folded[: ending.start()])
        spellings.update(dict.fromkeys(s + v for v in _ENDING_VOWELS for s in stems))
    return [spelling for spelling in spellings if spelling]


def _spell(word: str) -> list[str]:
    parts: list[tuple[str, ...]] = []
    at = 0
    while at < len(word):
        pair = _PAIRS.get(word[at : at + 2])
        if pair is not None:
            parts.append(pair)
            at += 2
        else:
            parts.append(_LETTERS.get(word[at], ("",)))
            at += 1
    spellings = itertools.islice(itertools.product(*parts), MAX_SPELLINGS)
    return ["".join(letters) for letters in spellings]


def respell(question: str, held: Callable[[Sequence[str]], Collection[str]]) -> Respelling:
    """``question`` with each Cyrillic word of at least ``MIN_LETTERS`` letters that no
    passage holds replaced by its first Latin spelling that one does.

    ``held``: of some index terms, those that a passage the reader may read holds."""
    words = [
        word
        for word in dict.fromkeys(re.findall(r"\w+", question))
        if len(word) >= MIN_LETTERS
        and _CYRILLIC.fullmatch(word.casefold())
        and not is_search_stopword(word)
    ]
    if not words:
        return Respelling(question, ())
    own = {word: analyze_query(word, ["ru"]) for word in words}
    found = set(held(sorted({term for terms in own.values() for term in terms})))
    absent = [word for word in words if not found & set(own[word])][:MAX_WORDS]
    if not absent:
        return Respelling(question, ())
    spellings = {word: latin_spellings(word) for word in absent if not _VERB.search(word)}
    # a spelling counts as the very term a passage holds, or as its English stem where
    # that cuts an ending only ("apache" is stored "apach", "kubernetes" "kubernet"),
    # never by a stem that cuts more: German's stem of "pereneste" (for "перенести")
    # is "peren", which a manual holds
    forms = {
        spelling: {spelling, *_english_stem(spelling)}
        for candidates in spellings.values()
        for spelling in candidates
    }
    found = set(held(sorted(set().union(*forms.values())))) if forms else set()
    replaced: dict[str, str] = {}
    for word, candidates in spellings.items():
        # (not a function word: "мире" is no "mir")
        spelling = next(
            (s for s in candidates if forms[s] & found and not is_search_stopword(s)), None
        )
        if spelling is not None:
            replaced[word] = spelling
    if not replaced:
        return Respelling(question, ())
    respelt = re.sub(r"\w+", lambda m: replaced.get(m.group(), m.group()), question)
    return Respelling(respelt, tuple(replaced.items()))


def readable_terms(index: SearchIndex, principal: Principal) -> Callable[[Sequence[str]], set[str]]:
    """Of some index terms, those that a passage the principal may read now holds."""

    def held(terms: Sequence[str]) -> set[str]:
        # a Russian stem is stored cut to six letters (``index_form``): looked up as it
        # is, "зашифрова" counted no row of a manual that says "зашифрованного", and the
        # abstention said no passage mentions it
        forms = {term: index_form(term) for term in terms}
        looked_up = sorted(set(terms) | set(forms.values()))
        _, frequencies = index.term_statistics(scope_of(principal), looked_up)
        return {term for term in terms if frequencies.get(term) or frequencies.get(forms[term])}

    return held


def _english_stem(spelling: str) -> list[str]:
    """The English stem of a spelling, where it cuts at most ``MAX_CUT`` letters."""
    return [
        stem
        for stem in analyze_query(spelling, ["en"])
        if spelling.startswith(stem) and len(spelling) - len(stem) <= MAX_CUT
    ]
