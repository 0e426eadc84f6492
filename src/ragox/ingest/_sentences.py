"""Sentence boundaries for English, German and Russian, with positions from the cursor.

Rule-based on purpose: boundaries are decided while scanning, so every sentence
carries the offsets where it was found (never searched for afterwards, which
picks the wrong one when a sentence repeats).
"""

from __future__ import annotations

import re
from typing import Final

import regex

from ragox.search._analyze import is_stopword

__all__ = ["SPLITTER_VERSION", "split_sentences", "token_count", "token_spans"]

#: Recorded on every chunk cut at these boundaries: change it with any rule below.
#: 2: a short line that goes on the wrapped line before it is no heading (``_wrapped``);
#: 3: nor one whose sentence the next line ends (``_goes_on``).
SPLITTER_VERSION: Final = "sentences@3"

_WORD: Final = regex.compile(r"\w+", regex.UNICODE)
#: ``_WORD`` for an ASCII text: the same matches (``[A-Za-z0-9_]+``), found faster
_ASCII_WORD: Final = re.compile(r"\w+", re.ASCII)

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
        "chr",
        "geb",
        "gest",
        "hrsg",
        "ehem",
        "bd",
        # English, more titles and citations
        "rev",
        "al",
        "gen",
        "col",
        "lt",
        "capt",
        "gov",
        "sen",
        "rep",
        "mt",
        "ft",
        "hon",
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
        "ок",
        "напр",
        "т.н",
        "т.к",
        "обл",
        "р",
    }
)

#: German ordinals ("am 7. Januar", "im 19. Jahrhundert") are numbers with a
#: full stop; they end no sentence after these words or before these nouns
_ORDINAL_BEFORE: Final = frozenset(
    {
        "am",
        "im",
        "vom",
        "zum",
        "beim",
        "bis",
        "seit",
        "ab",
        "der",
        "die",
        "das",
        "dem",
        "den",
        "des",
        "ein",
        "eine",
        "einem",
        "einer",
        "eines",
        "zwischen",
        "und",
        "oder",
        "bzw",
        "um",
        "nach",
        "vor",
        "jeden",
        "jedem",
    }
)
_ORDINAL_AFTER: Final = regex.compile(
    r"(?:januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober"
    r"|november|dezember|jahrhundert|jh|jahrtausend|mal|lebensjahr|platz|stock|kapitel"
    r"|auflage|ausgabe|armee|division|legislaturperiode)",
    regex.IGNORECASE,
)
_INITIALS: Final = regex.compile(r"(?:\w\.)+\w")


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


def _is_heading(line: str) -> bool:
    """A short line without end punctuation: a heading or a label, not prose."""
    stripped = line.strip()
    return (
        0 < len(stripped) <= 60 and len(stripped.split()) <= 6 and (stripped[-1] not in ".!?…:;,")
    )


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``[s, e)`` of ``text[start:end]`` in code points, white space trimmed.

    A short line without end punctuation followed by a line break (a heading such
    as "2. Maintenance") is a sentence of its own.
    """
    stop = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    unit = start
    position = start
    previous = ""
    while position < stop:
        newline = text.find("\n", position, stop)
        if newline < 0:
            break
        line = text[position:newline]
        if (
            _is_heading(line)
            and not _wrapped(previous, line)
            and not _goes_on(line, _lines_at(text, newline + 1, stop))
        ):
            spans.extend(_prose(text, unit, position))
            _append(text, spans, position, newline)
            unit = newline + 1
        previous = line
        position = newline + 1
    spans.extend(_prose(text, unit, stop))
    return spans


#: the most lines of a narrow column's sentence after its first
_WRAPPED_LINES: Final = 3


def _lines_at(text: str, start: int, stop: int) -> list[str]:
    """The lines of the paragraph from ``start`` on (up to ``_WRAPPED_LINES``)."""
    lines: list[str] = []
    while start < stop and len(lines) < _WRAPPED_LINES:
        end = text.find("\n", start, stop)
        line = text[start : stop if end < 0 else end]
        if not line.strip():
            break
        lines.append(line)
        if end < 0:
            break
        start = end + 1
    return lines


#: a list item's marker at a line's start ("o ", "- ", "• ", "1. ", "a) ")
_LIST_ITEM: Final = re.compile(r"\s*(?:[-*•+o·▪◦‣⁃]|\d{1,3}[.)]|[a-z][.)])\s")
#: a line that ends a sentence: its last character is end punctuation (maybe before
#: a closing quote or bracket)
_ENDS_SENTENCE: Final = re.compile(r"[.!?…][\"'”’»)\]]*\s*$")


def _goes_on(line: str, following: list[str]) -> bool:
    """Whether a short ``line`` is the start of a sentence that one of the ``following``
    lines of its paragraph ends, as a table cell or a narrow column wraps it ("Show which
    package a file" / "belongs to.", "Anzeigen, zu welchem Paket" / "eine Datei
    gehört.", "Установить новейшие" / "версии всех" / "установленных пакетов."): the
    next line opens in lower case or, in a few words that end the sentence, follows a
    function word ("Auflisten des Inhalts einer" / "Paketdatei."). A heading is followed
    by a sentence of its own, or by a command ("Dpkg" / "dpkg -l")."""
    ends = next((n for n, after in enumerate(following) if _ENDS_SENTENCE.search(after)), None)
    if ends is None or not any(c.isalpha() for c in line):
        # (a rule under a title, "-----", starts no sentence)
        return False
    # a line indented deeper, or opening with a list's marker, is a part below the
    # heading: "* Ada 2022" / "  o Added the -gnat2022 flag …", "1.14 May-13-97" /
    # "  libtool is now …" (NEWS files: a red team's cases)
    # (a list item's own lines may hang deeper: "* With '--recurse-submodules', all
    # submodules are" / "  recursively pushed.")
    indent = len(line) - len(line.lstrip())
    below = following[0]
    deeper = len(below) - len(below.lstrip()) > indent
    if _LIST_ITEM.match(below) or (deeper and not _LIST_ITEM.match(line)):
        return False
    first = below.lstrip()[:1]
    if first.isalpha() and first.islower():
        return True
    # (a few words only: "What to look for" / "Check the logs and the mail." is a
    # heading over its paragraph)
    words = line.split()
    said = sum(len(after.split()) for after in following[: ends + 1])
    return bool(words) and is_stopword(words[-1]) and first.isalpha() and said <= 3


def _wrapped(previous: str, line: str) -> bool:
    """Whether a short ``line`` goes on the sentence of the ``previous`` line of its
    paragraph (prose wrapped at a fixed width, as in a README): that line is no heading
    itself and ends with a comma, or with a word that the line goes on in lower case
    ("…, specified with `--fast=#`," / "offer faster compression and decompression
    speed" / "at the cost of compression ratio.")."""
    before = previous.rstrip()
    if not before or _is_heading(previous):
        return False
    if before[-1] == ",":
        return True
    first = line.lstrip()[:1]
    return before[-1].isalpha() and first.isalpha() and first.islower()


def _prose(text: str, start: int, stop: int) -> list[tuple[int, int]]:
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
                if _INITIALS.fullmatch(stem):
                    continue  # initials and dotted abbreviations: "T.T. Tsui", "U.S.A."
                if stem.isdigit() and len(stem) <= 2 and _german_ordinal(text, match, stop):
                    continue
                line_start = text.rfind("\n", 0, match.start()) + 1
                if (
                    stem.isdigit()
                    and len(stem) <= 3
                    and not text[line_start : match.start() - len(stem)].strip()
                ):
                    continue  # list numbering at the start of a line ("2. Maintenance")
            following = boundary
            while following < stop and text[following].isspace():
                following += 1
            if following < stop and not _starts_sentence(text, following):
                continue
        _append(text, spans, cursor, boundary)
        cursor = match.end()
    _append(text, spans, cursor, stop)
    return spans


def _german_ordinal(text: str, match: regex.Match[str], stop: int) -> bool:
    """``7.`` in "am 7. Januar 1943" or "im 19. Jahrhundert"."""
    before = text[max(0, match.start() - 40) : match.start()].split()
    if len(before) >= 2 and before[-2].casefold() in _ORDINAL_BEFORE:
        return True
    following = text[match.end() : min(stop, match.end() + 40)].lstrip()
    return _ORDINAL_AFTER.match(following) is not None


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
    word = _ASCII_WORD if text.isascii() else _WORD  # isascii: O(1) on a str
    if stop - start <= _FINDALL_SPAN:
        # One list of the words, counted: far cheaper than a Python loop over matches.
        return len(word.findall(text, start, stop))
    # A long range is counted match by match: no list of every word of a large text.
    return sum(1 for _ in word.finditer(text, start, stop))


#: Ranges up to this many code points are counted with one ``findall``.
_FINDALL_SPAN: Final = 1 << 16
