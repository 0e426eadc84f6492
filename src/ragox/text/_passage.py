"""When two texts are the same passage for a reader (issue 16).

A manual ingested as HTML and as PDF, or one text in two documents, holds the same
words with different white space, line-end hyphens ("Schrit-\\nte"), quotation marks
and list markers ("•" in the PDF, an HTML list item). Answers cite such a passage
once and search lists it once; the others are listed as "also in".
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from typing import Final

import regex

__all__ = [
    "PassageGroups",
    "join_broken_words",
    "near_same_counted",
    "near_same_passage",
    "passage_words",
    "same_passage_key",
]

#: a word and a hyphen at a line end, and a letter on the next line
_BROKEN_WORD: Final = regex.compile(r"(\p{L})-\n[ \t]*(?=(\p{L}))")
#: the scripts whose letters a broken word may join: a word is never hyphenated from
#: one script into another, so "Unix-" / "версия" is a compound written with a hyphen
_SCRIPTS: Final = tuple(
    regex.compile(rf"\p{{{script}}}") for script in ("Latin", "Cyrillic", "Greek")
)
_WORDS: Final = regex.compile(r"\w+")
#: a list item's marker at the start of a line: a PDF writes "•" or "1." where the
#: HTML of the same manual has a list item whose number the browser draws
_LIST_MARKER: Final = regex.compile(
    r"^[ \t]*(?:[•*\-–—+·▪◦‣⁃]|\(?(?:\d{1,2}|[a-z])[.)])[ \t]+", regex.MULTILINE
)
#: share of the longer text's words that may stand outside the shorter one when one
#: holds the other: a chunk boundary that takes in an admonition's "Tip" or the next
#: section's heading in one representation and not in the other (measured on the
#: Debian reference's HTML and PDF: 1 to 5 words at one edge)
_NEAR_EXTRA: Final = 0.2


#: a conjunction after a hyphen at a line end: the hyphen stands for a word's part said
#: once ("Wort- und Satzzeichen", "pre- and post-processing", "радио- и телевидение"),
#: no word was broken there
_SUSPENDED: Final = regex.compile(r"(?:und|oder|bzw|sowie|and|и|или)\b", regex.IGNORECASE)


def join_broken_words(text: str) -> str:
    """``text`` with each word broken at a line end joined ("Schrit-\\nte" → "Schritte");
    a compound keeps its hyphen, without the line break: its capitalised part
    ("Debian-\\nSystem" → "Debian-System") and a part in another script ("Unix-\\nверсия"
    → "Unix-версия"); before a conjunction the hyphen stands for a part said once
    ("Wort-\\nund" → "Wort- und")."""
    return _BROKEN_WORD.sub(_rejoined, text)


def _rejoined(found: regex.Match[str]) -> str:
    last, first = found.group(1), found.group(2)
    if _SUSPENDED.match(found.string, found.end()):
        return f"{last}- "  # "Wort- und Satzzeichen", "радио- и телевидение"
    if last.islower() and first.islower() and _same_script(last, first):
        return last
    return f"{last}-"


def _same_script(one: str, other: str) -> bool:
    return any(script.match(one) and script.match(other) for script in _SCRIPTS)


def same_passage_key(text: str) -> str:
    """Equal for the same words in two representations: case-folded words only, so white
    space, punctuation and quotation marks do not count, nor a list item's marker at the
    start of a line ("•", "–", "1.", "a)": the HTML's list item has it only on screen)."""
    unmarked = _LIST_MARKER.sub("", join_broken_words(text))
    return " ".join(_WORDS.findall(unmarked.casefold()))


def near_same_passage(one: str, other: str) -> bool:
    """Two passage keys (:func:`same_passage_key`) of the same passage: equal, or one
    holds the other as a run of whole words with at most a fifth of its words more."""
    return near_same_counted(one, passage_words(one), other, passage_words(other))


def passage_words(key: str) -> int:
    """How many words a passage key (:func:`same_passage_key`) holds."""
    return key.count(" ") + 1 if key else 0


def near_same_counted(one: str, one_words: int, other: str, other_words: int) -> bool:
    """:func:`near_same_passage` of two keys whose word counts (:func:`passage_words`)
    are known: a collapsed search compares every candidate with every passage it keeps
    and counts each key's words once."""
    if one == other:
        return True
    if one_words <= other_words:
        shorter, shorter_words, longer, longer_words = one, one_words, other, other_words
    else:
        shorter, shorter_words, longer, longer_words = other, other_words, one, one_words
    # the cheap tests first: the word counts, then the words without copying the keys
    if not shorter_words or shorter_words < (1 - _NEAR_EXTRA) * longer_words:
        return False
    return shorter in longer and f" {shorter} " in f" {longer} "


class PassageGroups:
    """Passage keys (:func:`same_passage_key`, with their :func:`passage_words`) kept in
    numbered groups; :meth:`first` names the first group that holds a key, exactly or
    as the same passage by :func:`near_same_counted`.

    That is what a scan of every group's keys in group order answers, but a key is
    compared only with the keys of near word counts (the others cannot be the same
    passage: one holds at most a fifth more words than the other) and an exact key is
    found by lookup. A collapsed search asks once per candidate chunk (200 of them at
    1M chunks, against up to 30 groups).
    """

    __slots__ = ("_counts", "_exact", "_kept", "_of_count")

    def __init__(self) -> None:
        #: each key's first group
        self._exact: dict[str, int] = {}
        #: the word counts kept, ascending, and each one's keys with their groups
        self._counts: list[int] = []
        self._of_count: dict[int, list[tuple[str, int]]] = {}
        self._kept: set[tuple[str, int]] = set()

    def first(self, key: str, words: int) -> int | None:
        """The first group holding ``key`` (of ``words`` words), None when none does."""
        best = self._exact.get(key)
        if words:
            # a safe window of word counts: near_same_counted decides inside it
            low = bisect_left(self._counts, math.floor((1 - _NEAR_EXTRA) * words) - 1)
            high = bisect_right(self._counts, math.ceil(words / (1 - _NEAR_EXTRA)) + 1)
            for count in self._counts[low:high]:
                for other, group in self._of_count[count]:
                    if (best is None or group < best) and near_same_counted(
                        key, words, other, count
                    ):
                        best = group
        return best

    def add(self, key: str, words: int, group: int) -> None:
        """``key`` (of ``words`` words) is held by ``group`` from now on."""
        if (key, group) in self._kept:
            return
        self._kept.add((key, group))
        known = self._exact.get(key)
        if known is None or group < known:
            self._exact[key] = group
        keys = self._of_count.get(words)
        if keys is None:
            self._of_count[words] = keys = []
            self._counts.insert(bisect_left(self._counts, words), words)
        keys.append((key, group))
