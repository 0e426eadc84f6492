"""Lexical analysis: language detection, Snowball stemming, safe FTS5 queries.

Documents are stemmed in the language they are written in; a document whose
language is unknown (a copyright file, a three-word note) is indexed with each
word as written and its English, German and Russian stems, so that any analysis
of a query finds it. A question is stemmed in every language present in the
scope and in its own when recognisable, and the union of the terms is matched;
stop words of its (likely) language are dropped. User text never reaches FTS5
as syntax: every term is a quoted string, so operators and punctuation cannot
raise errors.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

import regex
import Stemmer  # type: ignore[import-not-found]

from ragox.search._stopwords import SNOWBALL_STOPWORDS
from ragox.text._passage import join_broken_words

__all__ = [
    "ANALYZER_VERSION",
    "LEXICAL_ANALYZER_VERSION",
    "SUPPORTED_LANGUAGES",
    "QueryAnalysis",
    "analyze_document",
    "analyze_query",
    "analyze_search_query",
    "compound_parts",
    "compound_vocabulary",
    "detect_language",
    "fts_match",
    "index_form",
    "index_terms",
    "is_stopword",
    "joined_names",
    "joined_pairs",
    "likely_language",
    "named_joins",
    "tokens",
]

#: ISO 639-1 code → Snowball algorithm
SUPPORTED_LANGUAGES: Final = {"en": "english", "de": "german", "ru": "russian"}

#: Version of what :func:`index_terms` writes and :func:`analyze_search_query` matches
#: (tokenizer, stemmers, stop lists, terms of unknown-language documents, the heading
#: words ingestion writes into a chunk's row beside its text). Lexical rows
#: written by another version may not be found the same way: reindex them.
#: 1: documents of unknown language unstemmed; 2: unknown language with every stem,
#: queries analyzed in every scope language, Snowball stop lists; 3: German documents
#: also carry the parts of their compounds; 4: derived words meet (:func:`index_form`);
#: 5: a chunk's row carries its own headings once more (``ragox.ingest._headings``);
#: 6: a name written with dots or hyphens also as its words joined (:func:`joined_names`).
LEXICAL_ANALYZER_VERSION: Final = "6"
#: Recorded with the lexical rows (issue 13): a change of the analysis above makes
#: older rows stale, so that `ragox reprocess` rebuilds them.
ANALYZER_VERSION: Final = f"analyzer@{LEXICAL_ANALYZER_VERSION}"

_WORD: Final = regex.compile(r"\w+")
#: ``_WORD`` for an ASCII text (the same matches: ``\w`` of an ASCII character is
#: ``[A-Za-z0-9_]`` in both engines), with ``re``'s faster ASCII matching
_ASCII_WORD: Final = re.compile(r"\w+", re.ASCII)
#: ``_LETTER_RUN`` for an ASCII text
_ASCII_LETTER_RUN: Final = re.compile(r"[A-Za-z]+")
#: letter runs, counted by their lengths (a list of runs, not of every letter)
_CYRILLIC_RUN: Final = regex.compile(r"\p{Cyrillic}+")
_LETTER_RUN: Final = regex.compile(r"\p{L}+")

_STOPWORDS: Final = {
    "en": frozenset(
        [
            # contractions typed without their apostrophe ("what is anacron for, isnt
            # cron enough?" was refused naming "isnt", nu21)
            # (not "cant", "wont", "ive", real words and names; nor French "dont")
            *("isnt", "arent", "wasnt", "werent", "doesnt", "didnt", "couldnt"),
            *("wouldnt", "shouldnt", "hasnt", "havent", "hadnt", "whats", "thats"),
            *("hows", "wheres", "whos", "youre", "theyre"),
            # question words
            "whom",
            "whose",
            "a",
            "an",
            "and",
            "are",
            "as",
            "at",
            "be",
            "by",
            "for",
            "from",
            "has",
            "have",
            "he",
            "in",
            "is",
            "it",
            "its",
            "of",
            "on",
            "or",
            "that",
            "the",
            "their",
            "there",
            "must",
            "should",
            "can",
            "could",
            "would",
            "may",
            "might",
            "shall",
            "been",
            "being",
            "into",
            "than",
            "then",
            "also",
            "any",
            "some",
            "such",
            "this",
            "to",
            "was",
            "were",
            "which",
            "who",
            "will",
            "with",
            "what",
            "when",
            "where",
            "why",
            "how",
            "did",
            "do",
            "does",
        ]
    ),
    "de": frozenset(
        [
            # "andere" (other) in every form: Snowball stems it "and", as it stems
            # "ändern" (to change), so that "Wie ändere ich …?" met every "anderen"
            "andere",
            "anderem",
            "anderen",
            "anderer",
            "anderes",
            # question words
            "welchen",
            "welchem",
            "wen",
            "wem",
            "wessen",
            "weshalb",
            "wieso",
            "woher",
            "wohin",
            "wofür",
            "womit",
            "wodurch",
            "worauf",
            "worin",
            "wovon",
            "woraus",
            "wozu",
            "der",
            "die",
            "das",
            "und",
            "ist",
            "in",
            "den",
            "von",
            "zu",
            "mit",
            "sich",
            "des",
            "auf",
            "für",
            "im",
            "dem",
            "nicht",
            "ein",
            "eine",
            "als",
            "auch",
            "es",
            "an",
            "werden",
            "aus",
            "er",
            "hat",
            "dass",
            "sie",
            "nach",
            "wird",
            "bei",
            "einer",
            "um",
            "am",
            "sind",
            "noch",
            "wie",
            "einem",
            "über",
            "einen",
            "so",
            "zum",
            "war",
            "haben",
            "nur",
            "oder",
            "aber",
            "vor",
            "zur",
            "bis",
            "mehr",
            "durch",
            "man",
            "was",
            "wer",
            "wann",
            "wo",
            "warum",
            "welche",
            "welcher",
            "welches",
            "wurde",
            "wurden",
            "muss",
            "müssen",
            "soll",
            "sollen",
            "kann",
            "können",
            "könnte",
            "wird",
            "darf",
            "dürfen",
            "sein",
            "seine",
            "ihre",
            "ihr",
            "wenn",
            "dann",
        ]
    ),
    "ru": frozenset(
        [
            # question words
            "кого",
            "кому",
            "кем",
            "ком",
            "чему",
            "какое",
            "какого",
            "какому",
            "каким",
            "какую",
            "какими",
            "каков",
            "какова",
            "каково",
            "каковы",
            "который",
            "которая",
            "которое",
            "которые",
            "которого",
            "которому",
            "которым",
            "котором",
            "которую",
            "которых",
            "которыми",
            "сколько",
            "скольких",
            "откуда",
            "почему",
            "чей",
            "чья",
            "чьё",
            "чьи",
            "чьего",
            "и",
            "в",
            "во",
            "не",
            "что",
            "он",
            "на",
            "я",
            "с",
            "со",
            "как",
            "а",
            "то",
            "все",
            "она",
            "так",
            "его",
            "но",
            "да",
            "ты",
            "к",
            "у",
            "же",
            "вы",
            "за",
            "бы",
            "по",
            "только",
            "ее",
            "мне",
            "было",
            "вот",
            "от",
            "меня",
            "еще",
            "нет",
            "о",
            "из",
            "ему",
            "теперь",
            "когда",
            "даже",
            "ну",
            "вдруг",
            "ли",
            "если",
            "уже",
            "или",
            "ни",
            "быть",
            "был",
            "него",
            "до",
            "вас",
            "нибудь",
            "опять",
            "уж",
            "вам",
            "ведь",
            "там",
            "потом",
            "себя",
            "ничего",
            "ей",
            "может",
            "они",
            "тут",
            "где",
            "есть",
            "надо",
            "ней",
            "для",
            "мы",
            "тебя",
            "их",
            "чем",
            "была",
            "сам",
            "чтобы",
            "без",
            "будто",
            "чего",
            "раз",
            "тоже",
            "себе",
            "под",
            "будет",
            "ж",
            "тогда",
            "кто",
            "этот",
            "того",
            "потому",
            "этого",
            "какой",
            "совсем",
            "ним",
            "здесь",
            "этом",
            "один",
            "почти",
            "мой",
            "тем",
            "чтобы",
            "нее",
            "сейчас",
            "были",
            "куда",
            "зачем",
            "всех",
            "какая",
            "много",
            "разве",
            "три",
            "эту",
            "моя",
            "впрочем",
            "хорошо",
            "свою",
            "этой",
            "перед",
            "иногда",
            "лучше",
            "чуть",
            "том",
            "нельзя",
            "такой",
            "им",
            "более",
            "всегда",
            "конечно",
            "всю",
            "между",
            "каком",
            "каких",
            "какие",
            "году",
            "должен",
            "должна",
            "должны",
            "нужно",
            "можно",
            "является",
            "это",
        ]
    ),
}

_local = threading.local()


#: Stems a :class:`_Stems` keeps before it starts again (up to about 10 MB per
#: language and thread; 300 files of /usr/share/doc hold about 24k distinct words).
_STEMS_KEPT: Final = 50_000
#: longer words are not stemmed (German's longest dictionary words have about 80
#: letters)
MAX_STEMMED_CHARS: Final = 120


class _Stems:
    """A Snowball stemmer with the stems it has made: a word's stem depends on the word
    alone, and a document repeats its words, so each distinct word is stemmed once
    (PyStemmer's own cache costs about as much as stemming)."""

    __slots__ = ("_stemmer", "_stems")

    def __init__(self, stemmer: Stemmer.Stemmer) -> None:
        self._stemmer = stemmer
        self._stems: dict[str, str] = {}

    def stemWords(self, words: Sequence[str]) -> list[str]:  # PyStemmer's name
        stems = self._stems
        try:
            return list(map(stems.__getitem__, words))
        except KeyError:
            pass
        new = [word for word in set(words) if word not in stems]
        if len(stems) + len(new) > _STEMS_KEPT:
            stems.clear()
            new = list(set(words))
        # a "word" longer than any word of a language (a base64 blob, a 16 MB run of
        # letters) is kept as written: Snowball's German stemmer takes time that grows
        # with the square of its length, and holds the interpreter while it runs
        words_of_language = [word for word in new if len(word) <= MAX_STEMMED_CHARS]
        if len(words_of_language) < len(new):
            stems.update((word, word) for word in new if len(word) > MAX_STEMMED_CHARS)
        stems.update(
            zip(words_of_language, self._stemmer.stemWords(words_of_language), strict=True)
        )
        return list(map(stems.__getitem__, words))


def _stemmer(language: str) -> _Stems:
    """A per-thread Snowball stemmer: PyStemmer objects are not thread-safe."""
    cache: dict[str, _Stems] | None = getattr(_local, "stemmers", None)
    if cache is None:
        cache = {}
        _local.stemmers = cache
    stemmer = cache.get(language)
    if stemmer is None:
        stemmer = _Stems(Stemmer.Stemmer(SUPPORTED_LANGUAGES[language]))
        cache[language] = stemmer
    return stemmer


def tokens(text: str) -> list[str]:
    """Case-folded word tokens (``\\w+``)."""
    if text.isascii():  # O(1): CPython records whether a string is ASCII
        # ASCII folds to lower case without changing any word boundary: one pass.
        return _ASCII_WORD.findall(text.lower())
    return list(map(str.casefold, _WORD.findall(text)))


#: an English contraction: a word, an apostrophe, and what is left of "not", "is",
#: "would", "will", "are", "have" or "am" ("doesn't", "aptitude's", "I'd")
_CONTRACTION: Final = re.compile(r"(\w+)['’](t|s|d|ll|re|ve|m)\b", re.IGNORECASE)


def contraction_pieces(text: str) -> frozenset[str]:
    """The tokens of ``text``'s English contractions that are no words: "t" and "doesn"
    of "doesn't", "s" of "aptitude's". A question is not about them ("Why can't I
    select text?" searched "t", and its answer was scored on it); a word before "'s"
    ("aptitude's") stays. Case-folded, as :func:`tokens` gives them."""
    if "'" not in text and "’" not in text:
        return frozenset()
    pieces: set[str] = set()
    for found in _CONTRACTION.finditer(text):
        word, rest = found.group(1).casefold(), found.group(2).casefold()
        pieces.add(rest)
        if rest == "t" and word.endswith("n") and word != "can":
            pieces.add(word)  # "doesn", "isn", "won" of "won't"
    return frozenset(pieces)


def detect_language(text: str, sample: int = 20_000) -> str | None:
    """``en``, ``de`` or ``ru`` by script and function words; None when unsure.

    Only languages we can stem matter for analysis, and whole documents give
    plenty of evidence; any other language is indexed unstemmed.
    """
    head = text[:sample]
    ascii_only = head.isascii()
    letters = sum(map(len, (_ASCII_LETTER_RUN if ascii_only else _LETTER_RUN).findall(head)))
    if letters == 0:
        return None
    if not ascii_only and sum(map(len, _CYRILLIC_RUN.findall(head))) > 0.3 * letters:
        return "ru"
    words = tokens(head)
    if not words:
        return None
    scores = {lang: sum(map(_STOPWORDS[lang].__contains__, words)) for lang in ("en", "de")}
    best = max(scores, key=lambda lang: scores[lang])
    if scores[best] < max(2, len(words) // 50) or scores["en"] == scores["de"]:
        return None
    return best


def is_stopword(word: str) -> bool:
    """A function word of English, German or Russian."""
    folded = word.casefold()
    return any(folded in words for words in _STOPWORDS.values())


def function_words(languages: Collection[str]) -> frozenset[str]:
    """The function words of ``languages`` (those we stem), case-folded."""
    return frozenset().union(*(_STOPWORDS[lang] for lang in languages if lang in _STOPWORDS))


def analyze_document(text: str, language: str | None, skip: Collection[str] = frozenset()) -> str:
    """Space-separated index terms of a search text, leaving out the words in ``skip``.

    A word broken at a line end with a hyphen counts whole (a PDF's "лиде-\\nром",
    "Schrit-\\nte": :func:`~ragox.text.join_broken_words`), as in the index, whose
    search text joins it (``ragox.ingest._searchtext``): the answer scorer reads the
    representation's sentences, which keep the break."""
    if "-\n" in text:
        text = join_broken_words(text)
    words = tokens(text)
    if skip:
        words = [word for word in words if word not in skip]
    if language in SUPPORTED_LANGUAGES:
        words = _stemmer(language).stemWords(words)
    return " ".join(words)


def analyze_query(text: str, languages: Collection[str | None]) -> list[str]:
    """Distinct query terms: stems in every index language (plain words too when some
    documents are in a language we cannot stem); function words are dropped unless
    nothing else is left."""
    pieces = contraction_pieces(text)
    words = [word for word in tokens(text) if word not in pieces] or tokens(text)
    stemmed = sorted({lang for lang in languages if lang in SUPPORTED_LANGUAGES})
    raw = not stemmed or any(lang not in SUPPORTED_LANGUAGES for lang in languages)
    stop: frozenset[str] = frozenset().union(*(_STOPWORDS[lang] for lang in stemmed))
    content = [w for w in words if w not in stop] or words
    terms: dict[str, None] = {}
    if raw:
        terms.update(dict.fromkeys(content))
    for lang in stemmed:
        terms.update(dict.fromkeys(_stemmer(lang).stemWords(content)))
    return list(terms)


#: German compounds: shortest compound split, shortest part kept, linking elements
_COMPOUND_MIN: Final = 9
_PART_MIN: Final = 5
_LINKS: Final = ("", "s", "es", "n", "en", "e")


def compound_vocabulary(text: str) -> frozenset[str]:
    """The words of a document that may be parts of its compounds (long enough)."""
    return frozenset(word for word in tokens(text) if len(word) >= _PART_MIN)


def compound_parts(word: str, vocabulary: frozenset[str]) -> list[str]:
    """The parts of a German compound that its own document also uses as words:
    "standardpapiergröße" → "standard", "papiergröße" when both stand alone there;
    "paketverwaltungssystem" → "paketverwaltung" (the linking "s" dropped), "system".
    A dictionary of the document itself, so no word list is shipped or guessed."""
    if not _COMPOUND_MIN <= len(word) <= MAX_STEMMED_CHARS or not word.isalpha():
        return []  # (each cut copies the word: a 1 MB "word" took hours)
    parts: dict[str, None] = {}
    for cut in range(_PART_MIN - 1, len(word) - _PART_MIN + 1):
        head, tail = word[:cut], word[cut:]
        if tail in vocabulary:
            parts[tail] = None
        for link in _LINKS:
            if not head.endswith(link):
                continue
            stem = head[: len(head) - len(link)]
            if len(stem) >= _PART_MIN and stem in vocabulary:
                parts[stem] = None
                break
    parts.pop(word, None)
    return list(parts)


#: Letters a Cyrillic stem keeps in the index (analyzer 4)
_CYRILLIC_STEM: Final = 6
#: Cyrillic and Cyrillic Supplement: the letters of a term cut to its first six
_CYRILLIC_FIRST: Final = "\u0400"
_CYRILLIC_LAST: Final = "\u052f"


def index_form(term: str) -> str:
    """The form in which the index stores a stem (or a word), and a query matches it.

    Snowball removes Russian inflections, not derivations, and keeps apart the words
    a question and a manual use for the same thing: "установил" (установ),
    "установленного" (установлен), "установка" (установк); "обновлять" (обновля) and
    "обновления" (обновлен). A Cyrillic term is cut to its first six letters: a
    truncation, known to match Russian's rich derivation about as well as a
    morphological analyzer. Other terms are kept as they are: English derivations
    already meet in the Porter stems, and German ones tried (an -ieren participle
    with its infinitive) found no more on the development set than they lost.

    Extractive answers still match and weigh Snowball stems: the IDF of a Russian
    stem longer than six letters, looked up as it is, counts no row and weighs it as
    a rare term. Counting its index form's rows instead answered less well on the
    development set and on XQuAD ru (CHANGELOG, analyzer 4).
    """
    if len(term) > _CYRILLIC_STEM and min(term) >= _CYRILLIC_FIRST and max(term) <= _CYRILLIC_LAST:
        return term[:_CYRILLIC_STEM]
    return term


def _index_forms(terms: list[str], text: str) -> str:
    """``terms`` (of ``text``) in their index forms, space-separated."""
    if text.isascii():  # O(1): no Cyrillic term
        return " ".join(terms)
    cut, first, last = _CYRILLIC_STEM, _CYRILLIC_FIRST, _CYRILLIC_LAST
    return " ".join(
        [t[:cut] if len(t) > cut and min(t) >= first and max(t) <= last else t for t in terms]
    )


#: a name of words joined by dots or hyphens, without spaces: a file ("sources.list",
#: "apt.conf"), a command ("dpkg-reconfigure"), a compound ("Debian-Paket")
_JOINED_NAME: Final = regex.compile(r"\w+(?:[.\-]\w+)+")
_ASCII_JOINED_NAME: Final = re.compile(r"\w+(?:[.\-]\w+)+", re.ASCII)


def joined_names(text: str) -> list[str]:
    """Each two neighbouring words of the dotted or hyphenated names of ``text``,
    joined and case-folded as written ("/etc/apt/sources.list" → "sourceslist"): the
    index stores them beside the words, and a query that writes the name (or its two
    words, "time zone" → "timezone") meets them exactly, whatever its language's
    stems. Only words of two letters or more, and of letters only ("e.g.", "1.2" and
    "x86-64" make none)."""
    return [joined for _, pairs in named_joins(text) for joined in pairs]


def named_joins(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The dotted and hyphenated names of ``text`` that make :func:`joined_names`, each
    as written with its joined pairs."""
    if "." not in text and "-" not in text:
        return []
    names = (_ASCII_JOINED_NAME if text.isascii() else _JOINED_NAME).findall(text)
    found = []
    for name in names:
        # (not a Cyrillic pair: the index keeps six of its letters, the first word's)
        pairs = tuple(
            first + second
            for first, second in itertools.pairwise(tokens(name))
            if len(first) > 1
            and len(second) > 1
            and first.isalpha()
            and second.isalpha()
            and index_form(first + second) == first + second
        )
        if pairs:
            found.append((name, pairs))
    return found


def index_terms(text: str, language: str | None, vocabulary: frozenset[str] = frozenset()) -> str:
    """Space-separated terms of a search text as the lexical index stores them, then
    the :func:`joined_names` of its dotted and hyphenated names (in their index form).

    A text in a language we stem gets its stems. A text of unknown (or unstemmable)
    language gets, word by word, the word as written and its English, German and
    Russian stems, each distinct form once: whatever language a query is analyzed
    in, its terms meet these. A German text also gets the stems of its compounds'
    parts that ``vocabulary`` (its document's words) holds, so that "Papiergröße"
    finds "Standardpapiergröße". Every term is stored in its :func:`index_form`.
    """
    terms = _word_terms(text, language, vocabulary)
    joined = joined_names(text)
    if not joined:
        return terms
    return " ".join([terms, *(joined if text.isascii() else map(index_form, joined))])


def _word_terms(text: str, language: str | None, vocabulary: frozenset[str]) -> str:
    words = tokens(text)
    if language == "de" and vocabulary:
        extra = [part for word in words for part in compound_parts(word, vocabulary)]
        return _index_forms(_stemmer(language).stemWords(words + extra), text)
    if language in SUPPORTED_LANGUAGES:
        return _index_forms(_stemmer(language).stemWords(words), text)
    stems = [_stemmer(lang).stemWords(words) for lang in SUPPORTED_LANGUAGES]
    terms: list[str] = []
    ascii_text = text.isascii()  # O(1): no Cyrillic term, every form its index form
    for index, word in enumerate(words):
        forms = (word, *(stemmed[index] for stemmed in stems))
        terms.extend(dict.fromkeys(forms if ascii_text else map(index_form, forms)))
    return " ".join(terms)


_SEARCH_STOPWORDS: Final = {
    lang: SNOWBALL_STOPWORDS[lang] | _STOPWORDS[lang] for lang in SUPPORTED_LANGUAGES
}


def is_search_stopword(word: str) -> bool:
    """A word a query drops in English, German or Russian (Snowball's stop lists and
    ours): "between", "zwischen", "между" are among them, not among
    :func:`is_stopword`'s."""
    folded = word.casefold()
    return any(folded in words for words in _SEARCH_STOPWORDS.values())


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    """The terms a query is matched with, and how they were chosen."""

    terms: tuple[str, ...]
    #: languages the query was stemmed in
    languages: tuple[str, ...]
    #: the words as written are among the terms (unknown-language documents in scope)
    unstemmed: bool
    #: the language whose stop words were dropped; None: those of every stemmed language
    stop_language: str | None


def likely_language(text: str) -> str | None:
    """The language of a text, guessed more eagerly than :func:`detect_language`: a
    short query with more German than English function words ("die Zeitzone") is
    likely German. None when nothing tells."""
    detected = detect_language(text)
    if detected is not None:
        return detected
    words = tokens(text)
    scores = {lang: sum(1 for w in words if w in _SEARCH_STOPWORDS[lang]) for lang in ("en", "de")}
    if scores["en"] == scores["de"]:
        return None
    return max(scores, key=lambda lang: scores[lang])


#: languages that write a compound as one word where a question may write two ("time
#: zone" for "timezone", "file system" for "filesystem", "Zeit Zone" for "Zeitzone")
JOINING_LANGUAGES: Final = frozenset({"en", "de"})


def joined_pairs(words: Sequence[str], stop: Collection[str]) -> list[tuple[str, str, str]]:
    """``(first, second, first + second)`` for each two neighbouring words of a query that
    are both content words of letters only: the compound a document may write as one
    word ("time zone" → "timezone")."""
    return [
        (first, second, first + second)
        for first, second in itertools.pairwise(words)
        if first not in stop
        and second not in stop
        and len(first) > 1
        and len(second) > 1
        and first.isalpha()
        and second.isalpha()
    ]


def analyze_search_query(text: str, scope_languages: Collection[str | None]) -> QueryAnalysis:
    """The terms to match a query with in a scope whose documents have these languages.

    The query is stemmed in every stemmed language of the scope (all of them when the
    scope has only documents of unknown language, which carry every stem) and in its
    own language when recognisable, and the union is matched: a keyword whose language
    cannot be told finds its documents, and a German question meets the names and
    numbers of English paragraphs through their English stems. The words as written
    are added when documents of unknown language are in scope (they carry them, for
    languages we cannot stem) and the query is not recognisably in a language we
    stem. Stop words of the query's likely
    language are dropped (of every language it is stemmed in when none is likely),
    unless nothing else is left. Each term is matched in its :func:`index_form`, and
    as it is when that differs, for rows an older analyzer wrote (until `ragox
    reprocess` rebuilds them).
    """
    pieces = contraction_pieces(text)
    words = [word for word in tokens(text) if word not in pieces] or tokens(text)
    present = {lang for lang in scope_languages if lang in SUPPORTED_LANGUAGES}
    unknown = any(lang not in SUPPORTED_LANGUAGES for lang in scope_languages)
    spoken = detect_language(text)
    if spoken is not None and spoken in present:
        # a question whose language is clear and which documents of the scope share is
        # stemmed in that language only: its other stemmings add forms ("files" as
        # Russian) that only stray text of other documents carries (an untranslated
        # English section of a Russian manual), and those rare forms outweighed the
        # documents in its own language
        chosen = {spoken}
    else:
        chosen = present or set(SUPPORTED_LANGUAGES)
        if spoken is not None:
            chosen.add(spoken)
    languages = sorted(chosen)
    likely = spoken or likely_language(text)
    stop_languages = [likely] if likely is not None else languages
    stop: frozenset[str] = frozenset().union(*(_SEARCH_STOPWORDS[lang] for lang in stop_languages))
    content = [w for w in words if w not in stop] or words
    found: dict[str, None] = {}
    # the words as written, for documents of a language we cannot stem; not for a
    # question recognisably in one we stem, whose stems documents of unknown language
    # carry too: its words as written met the untranslated English paragraphs of
    # Russian manuals, stemmed as Russian and so kept as written ("layers"), as rare
    # terms, and the Russian copy of GIMP's layer menu ranked 17.6 against the English
    # copy's 7.6 for an English question (nu20)
    raw = unknown and spoken is None
    if raw:
        found.update(dict.fromkeys(content))
    for lang in languages:
        found.update(dict.fromkeys(_stemmer(lang).stemWords(content)))
    # two words of the query written as one compound by a document ("time zone" finds
    # "timezone"): the compound is one more term, so it only adds to what matches
    compounds = [joined for *_, joined in joined_pairs(words, stop)]
    if compounds and raw:
        found.update(dict.fromkeys(compounds))
    # a dotted or hyphenated name ("sources.list") as the index stores it, unstemmed
    found.update(dict.fromkeys(joined_names(text)))
    for lang in languages:
        if compounds and lang in JOINING_LANGUAGES:
            found.update(dict.fromkeys(_stemmer(lang).stemWords(compounds)))
    terms: dict[str, None] = {}
    for term in found:
        terms[index_form(term)] = None
        terms[term] = None
    return QueryAnalysis(
        terms=tuple(terms),
        languages=tuple(languages),
        unstemmed=raw,
        stop_language=likely,
    )


def fts_match(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression: each term a quoted string, joined by OR."""
    quoted = ['"' + term.replace('"', '""') + '"' for term in terms if term]
    return " OR ".join(quoted) if quoted else None
