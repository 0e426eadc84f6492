"""A German question's compound that no readable passage writes, matched by its parts.

A German reader asks "Wie ändere ich die Zugriffsrechte einer Datei?" of a manual that
says "Rechte" and "Zugriff", never "Zugriffsrechte"; "Paketverwaltung" of one that
says "Verwaltung der Pakete". Documents already carry the parts of their own compounds
(:func:`~ragox.search.compound_parts` at indexing); a question's compound is cut
here, at query time, against the index the asker may read: only a word that no
readable chunk holds is cut, and only where both parts (the first without its linking
element: "Zugriff|s|rechte") are words that readable chunks hold. The cut takes no
word list, and a word the index knows is never cut, so questions whose words the
documents use search as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from ragox.search._analyze import _LINKS, MAX_STEMMED_CHARS, _stemmer, tokens

__all__ = ["COMPOUND_MIN", "absent_compounds", "compound_splits"]

#: the shortest word that is cut, and the shortest part
COMPOUND_MIN: Final = 8
_PART_MIN: Final = 4

#: ``frequencies(terms) -> {term: number of readable chunks that hold it}``
Frequencies = Callable[[Sequence[str]], Mapping[str, int]]


def compound_splits(word: str) -> list[tuple[str, str]]:
    """The ways to cut ``word`` into a first and a last part of :data:`_PART_MIN`
    letters or more, the first without a linking element (the ones documents' compounds
    are cut with, :func:`~ragox.search.compound_parts`: "zugriffsrechte" →
    ("zugriff", "rechte"), ("zugriffs", "rechte"), …)."""
    if not COMPOUND_MIN <= len(word) <= MAX_STEMMED_CHARS or not word.isalpha():
        return []
    found: dict[tuple[str, str], None] = {}
    for cut in range(_PART_MIN, len(word) - _PART_MIN + 1):
        head, tail = word[:cut], word[cut:]
        for link in _LINKS:
            if head.endswith(link) and len(head) - len(link) >= _PART_MIN:
                found[(head[: len(head) - len(link)], tail)] = None
    return list(found)


def absent_compounds(query: str, frequencies: Frequencies) -> dict[str, tuple[str, str]]:
    """The German stems of the query's long words that no readable chunk holds, each
    with the stems of the two parts it is cut into (both held by readable chunks; of
    several cuts, the one whose shorter part is longest): {"zugriffsrecht": ("zugriff",
    "recht")}."""
    stemmer = _stemmer("de")

    def stem(word: str) -> str:
        (stemmed,) = stemmer.stemWords([word])
        return str(stemmed)

    words = list(dict.fromkeys(w for w in tokens(query) if len(w) >= COMPOUND_MIN))
    if not words:
        return {}
    wholes = {word: stem(word) for word in words}
    known = frequencies(sorted(set(wholes.values())))
    absent = [word for word in words if not known.get(wholes[word], 0)]
    splits = {
        word: [(stem(head), stem(tail)) for head, tail in compound_splits(word)] for word in absent
    }
    parts = sorted({part for pairs in splits.values() for pair in pairs for part in pair})
    if not parts:
        return {}
    held = frequencies(parts)
    out: dict[str, tuple[str, str]] = {}
    for word, pairs in splits.items():
        both = [pair for pair in pairs if held.get(pair[0], 0) and held.get(pair[1], 0)]
        if both:
            out[wholes[word]] = max(both, key=lambda pair: (min(map(len, pair)), pair))
    return out
