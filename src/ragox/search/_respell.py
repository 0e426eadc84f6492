"""Names a Russian question writes in Cyrillic that the documents write in Latin letters.

A Russian reader types "как поставить апаче на убунту?" or "кто был первым лидером
проекта дебиан": the manuals say "Apache", "Ubuntu", "Debian". No passage holds
"апаче", so search found nothing by it and the abstention said that no passage mentions
"апаче" while the reader's manuals said "Apache" on every page (new-user passes over the
Apache manual, nu15, and Debian's history, nu16). A Cyrillic word of the question that
no passage the reader may read holds is spelt in Latin letters the ways such names are
("апаче" → "apache", "убунту" → "ubuntu", "докер" → "docker", "питон" → "python",
"линуксе" → "linux"); the first spelling that a Russian passage the reader may read
writes takes the word's place in what is searched and answered. The question the
reader sees stays as written, and the answer's trace names each word respelt.

Only a Russian passage counts: a Russian manual writes a name in Latin letters as it
is, while a word that only an English or German manual holds is that language's word,
not the reader's name for it ("пакет" is no "packet", "байт" no "bit", "старте" no
German "starte": a red team's and a regression's cases). Not a function word ("мире" is
no "mir"), not a verb's infinitive, not a word of fewer than five letters ("комп" is no
"comp", which a Russian TeX manual writes) or more than twenty, not a word some passage
holds, and at most three words of a question's first sixteen candidates, spelt at most
128 ways in all (those that write fewer letters otherwise first): the lookups are the
reader's partitions' own, and a question of made-up words costs little more. Homes
without Russian documents are not looked at.

An abbreviation is spelt though it is shorter: a word of three letters or more without
a vowel ("впн" → "vpn", "ссд" → "ssd"; not "цп", a Russian one as short as a command's
name) or one that reads as the names of Latin letters ("айпи" → "ip", "юэсби" → "usb")
is no Russian word (nu17, GNOME Help: "что такое айпи адрес" abstained naming
"айпи" while the manual's page on IP addresses ranked first)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ragox.access import Principal
from ragox.search._analyze import analyze_query, index_form, is_search_stopword
from ragox.search._search import scope_of
from ragox.store import SearchIndex

__all__ = [
    "Respelling",
    "abbreviation_spellings",
    "latin_spellings",
    "readable_terms",
    "respell",
    "russian_terms",
    "with_words",
]

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
#: "java", "майкрософт" → "microsoft")
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
#: the names of Latin letters as a Russian reader spells an abbreviation out ("айпи":
#: IP, "юэсби": USB, "эсэсдэ": SSD), in English and in Russian; not those that are a
#: Russian word's everyday syllable ("и" for E, "ка" for K: "иэн", "пика")
_LETTER_NAMES: Final[Mapping[str, str]] = {
    "эй": "a", "би": "b", "бэ": "b", "си": "c", "цэ": "c", "ди": "d", "дэ": "d",
    "эф": "f", "джи": "g", "гэ": "g", "эйч": "h", "ай": "i",
    "джей": "j", "кей": "k", "эл": "l", "эм": "m", "эн": "n", "оу": "o",
    "пи": "p", "пэ": "p", "кью": "q", "ар": "r", "эр": "r", "эс": "s", "ти": "t",
    "тэ": "t", "ю": "u", "ви": "v", "вэ": "v", "экс": "x", "икс": "x", "уай": "y",
    "вай": "y", "зед": "z", "зи": "z", "зэ": "z",
}  # fmt: skip
_VOWELS: Final = frozenset("аеёиоуыэюя")
#: the letters of an abbreviation, and of one without a vowel
MIN_ABBREVIATION: Final = 2
MIN_CONSONANTS: Final = 3
MAX_ABBREVIATION: Final = 5
#: the least letters of a word that is respelt
MIN_LETTERS: Final = 5
#: the most letters of a word that is respelt (a name is shorter)
MAX_LETTERS: Final = 20
#: the most words of a question looked up at all (a question has fewer; a query of
#: hundreds of made-up words costs no more lookups than one of a few)
MAX_LOOKED_AT: Final = 16
#: the most words of a question respelt (a long query of made-up words costs no more)
MAX_WORDS: Final = 3
#: the most letters of a word written otherwise than most usually, and of a word
#: without its case ending
WORD_CHOICES: Final = 2
STEM_CHOICES: Final = 1
#: the most spellings tried for a word, and for all words of a question together
MAX_SPELLINGS: Final = 128


@dataclass(frozen=True, slots=True)
class Respelling:
    """A question with its Cyrillic names spelt as the documents write them."""

    question: str
    #: each respelt word of the question and the spelling it took
    words: tuple[tuple[str, str], ...]


def latin_spellings(word: str) -> list[str]:
    """Latin spellings of a Cyrillic word, the most usual first: those that write at
    most ``WORD_CHOICES`` of its letters otherwise than most usually ("питон" →
    "python": "y" and "th"), then those of it without a case ending that write at most
    one otherwise, each with or without a vowel the ending may have replaced ("убунте"
    → "ubuntu"); at most ``MAX_SPELLINGS``. None for a word with other letters."""
    folded = word.casefold()
    if not _CYRILLIC.fullmatch(folded):
        return []
    spellings = dict.fromkeys(_spell(folded, WORD_CHOICES))
    ending = _ENDING.search(folded)
    if ending and len(folded) - len(ending.group()) >= MIN_LETTERS - 1:
        stems = _spell(folded[: ending.start()], STEM_CHOICES)
        spellings.update(dict.fromkeys(s + v for s in stems for v in _ENDING_VOWELS))
    return [spelling for spelling in spellings if spelling][:MAX_SPELLINGS]


def abbreviation_spellings(word: str) -> list[str]:
    """The Latin abbreviation a Cyrillic word writes, if it is one: its letters without
    a vowel, three or more ("впн" → "vpn", "ссд" → "ssd"; a Russian word has a vowel,
    and a Russian abbreviation of two letters is no Latin one: "цп", "тз"), or the names of
    Latin letters spelt out ("айпи" → "ip", "юэсби" → "usb"), of
    :data:`MIN_ABBREVIATION` to :data:`MAX_ABBREVIATION` letters. None for any other
    word (a word of five letters or more is a name's spelling: :func:`latin_spellings`)."""
    folded = word.casefold()
    if not _CYRILLIC.fullmatch(folded):
        return []
    if not _VOWELS & set(folded):
        # (of three letters or more: a Russian abbreviation of two is as short as a
        # command's name, "цп" no "cp", "тз" no "tz", "лс" no "ls")
        if "ь" in folded or "ъ" in folded or not MIN_CONSONANTS <= len(folded) <= MAX_ABBREVIATION:
            return []
        spelt = _spell(folded, 1)
        return list(
            dict.fromkeys(s for s in spelt if MIN_ABBREVIATION <= len(s) <= MAX_ABBREVIATION)
        )
    # every way to read the word as letter names, the fewest letters first
    readings: dict[int, list[str]] = {0: [""]}
    for at in range(len(folded)):
        for written in readings.get(at, [])[:8]:
            for name, letter in _LETTER_NAMES.items():
                if folded.startswith(name, at) and len(written) < MAX_ABBREVIATION:
                    readings.setdefault(at + len(name), []).append(written + letter)
    spelt = [s for s in readings.get(len(folded), []) if len(s) >= MIN_ABBREVIATION]
    return list(dict.fromkeys(sorted(spelt, key=len)))


def _spell(word: str, choices: int) -> list[str]:
    """The word's spellings that write at most ``choices`` letters otherwise than most
    usually, those with fewer first."""
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
    found: list[tuple[int, str]] = []

    def walk(place: int, written: str, other: int) -> None:
        if place == len(parts):
            found.append((other, written))
            return
        usual, *rest = parts[place]
        walk(place + 1, written + usual, other)
        if other < choices:
            for letters in rest:
                walk(place + 1, written + letters, other + 1)

    walk(0, "", 0)
    return [spelling for _, spelling in sorted(found, key=lambda pair: pair[0])]


def respell(
    question: str,
    held: Callable[[Sequence[str]], Collection[str]],
    spoken: Callable[[Sequence[str]], Collection[str]],
) -> Respelling:
    """``question`` with each Cyrillic word of at least ``MIN_LETTERS`` letters, or
    abbreviation (:func:`abbreviation_spellings`), that no passage holds replaced by its
    first Latin spelling that a Russian passage writes.

    ``held``: of some index terms, those that a passage the reader may read holds;
    ``spoken``: those that such a passage in Russian holds. A Russian manual writes a
    name in Latin letters as it is ("Apache", stored "apache"); a word that only an
    English or German manual holds is that language's word, not the reader's name for
    it ("пакет" is no "packet", "байт" no "bit", "старте" no German "starte")."""
    words = [
        word
        for word in dict.fromkeys(re.findall(r"\w+", question))
        if (MIN_LETTERS <= len(word) <= MAX_LETTERS or abbreviation_spellings(word))
        and _CYRILLIC.fullmatch(word.casefold())
        and not is_search_stopword(word)
        and not _VERB.search(word)
    ][:MAX_LOOKED_AT]
    if not words:
        return Respelling(question, ())
    own = {word: analyze_query(word, ["ru"]) for word in words}
    found = set(held(sorted({term for terms in own.values() for term in terms})))
    absent = [word for word in words if not found & set(own[word])][:MAX_WORDS]
    if not absent:
        return Respelling(question, ())
    # (not a function word: "мире" is no "mir"; nor a spelling of fewer than
    # ``MIN_LETTERS`` letters, which a passage holds by chance: "марки" is no "mark",
    # a Russian paragraph's "Toyota Corona Mark II"); the words share
    # ``MAX_SPELLINGS`` spellings, so that a reader of many groups, whose partitions
    # are each looked in, waits no longer
    share = MAX_SPELLINGS // len(absent)
    # (an abbreviation, "впн" or "айпи", is spelt as one, however short: a word without
    # a vowel or of letter names is no Russian word)
    spellings = {
        word: [
            s
            for s in abbreviation_spellings(word)
            + [s for s in latin_spellings(word) if len(s) >= MIN_LETTERS]
            if not is_search_stopword(s)
        ][:share]
        for word in absent
    }
    found = set(spoken(sorted({s for candidates in spellings.values() for s in candidates})))
    replaced: dict[str, str] = {}
    for word, candidates in spellings.items():
        spelling = next((s for s in candidates if s in found), None)
        if spelling is not None:
            replaced[word] = spelling
    if not replaced:
        return Respelling(question, ())
    return Respelling(with_words(question, replaced), tuple(replaced.items()))


def with_words(question: str, replaced: Mapping[str, str]) -> str:
    """``question`` with each word (a ``\\w+`` run) that ``replaced`` names replaced."""
    return re.sub(r"\w+", lambda m: replaced.get(m.group(), m.group()), question)


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


def russian_terms(index: SearchIndex, principal: Principal) -> Callable[[Sequence[str]], set[str]]:
    """Of some index terms, those that a Russian passage the principal may read holds."""

    def spoken(terms: Sequence[str]) -> set[str]:
        return index.terms_in_language(scope_of(principal), terms, "ru")

    return spoken
