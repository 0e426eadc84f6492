"""Sentence boundaries for English, German and Russian, with positions from the cursor.

Rule-based on purpose: boundaries are decided while scanning, so every sentence
carries the offsets where it was found (never searched for afterwards, which
picks the wrong one when a sentence repeats).
"""

from __future__ import annotations

from typing import Final

import regex

__all__ = ["split_sentences", "token_count", "token_spans"]

_WORD: Final = regex.compile(r"\w+", regex.UNICODE)

# A candidate end: terminal punctuation, optional closing quotes/brackets, then
# white space (or the end of the text).
_END: Final = regex.compile(r"[.!?…。]+[\"'”’»)\]]*(?=\s|$)|\n[ \t]*\n")

_ABBREVIATIONS: Final = frozenset(
    {
        # English
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "e.g",
        "i.e",
        "etc",
        "vs",
        "inc",
        "ltd",
        "no",
        "fig",
        "cf",
        "approx",
        "jr",
        "sr",
        "dept",
        "est",
        "vol",
        "pp",
        "ca",
        "co",
        "corp",
        # German
        "z.b",
        "bzw",
        "nr",
        "abs",
        "vgl",
        "usw",
        "hr",
        "fr",
        "ggf",
        "inkl",
        "evtl",
        "s",
        "d.h",
        "u.a",
        "z.t",
        "bspw",
        "sog",
        "str",
        "tel",
        "max",
        "min",
        "mio",
        "mrd",
        "jh",
        # Russian
        "т.е",
        "т.д",
        "т.п",
        "г",
        "гг",
        "им",
        "др",
        "стр",
        "ул",
        "см",
        "рис",
        "т",
        "н.э",
        "в",
        "вв",
        "тыс",
        "млн",
        "млрд",
        "руб",
        "коп",
        "проф",
        "акад",
    }
)


def _previous_token(text: str, position: int) -> str:
    start = position
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:position].lower().lstrip("(\"'«„“")


def _starts_sentence(text: str, position: int) -> bool:
    """Whether the first visible character at ``position`` can begin a sentence."""
    while position < len(text) and text[position] in "\"'«„“‚‘([":
        position += 1
    if position >= len(text):
        return True
    ch = text[position]
    return ch.isupper() or ch.isdigit() or not ch.isalpha()


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``[s, e)`` of ``text[start:end]`` in code points, white space trimmed."""
    stop = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cursor = start
    for match in _END.finditer(text, start, stop):
        boundary = match.end()
        if match.group().startswith("\n"):
            boundary = match.start()
        else:
            token = _previous_token(text, match.start())
            punctuation = match.group()
            if punctuation.startswith(".") and len(punctuation.rstrip("\"'”’»)]")) == 1:
                stem = token.rstrip(".")
                if stem in _ABBREVIATIONS or (len(stem) == 1 and stem.isalpha()):
                    continue
            following = boundary
            while following < stop and text[following].isspace():
                following += 1
            if following < stop and not _starts_sentence(text, following):
                continue
        _append(text, spans, cursor, boundary)
        cursor = match.end()
    _append(text, spans, cursor, stop)
    return spans


def _append(text: str, spans: list[tuple[int, int]], start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def token_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Word tokens (``\\w+``) of ``text[start:end]`` as code-point spans."""
    stop = len(text) if end is None else end
    return [m.span() for m in _WORD.finditer(text, start, stop)]


def token_count(text: str, start: int = 0, end: int | None = None) -> int:
    stop = len(text) if end is None else end
    return sum(1 for _ in _WORD.finditer(text, start, stop))
