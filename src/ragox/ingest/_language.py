"""A document's language when ingestion is not told: the search analyzer's guess
(English, German, Russian: the languages it stems), else the right-to-left script
the text is mostly written in.

Hebrew script is Hebrew (``he``). Arabic script is Arabic (``ar``) unless letters
that Arabic lacks say Persian (``fa``: پ چ ژ گ and the Persian kāf and yeh) or Urdu
(``ur``: ٹ ڈ ڑ ں ے). Such a language is shown to readers and stored with the
representation; the lexical index treats it as a language it does not stem (the
words as written, beside their English, German and Russian stems).
"""

from __future__ import annotations

from typing import Final

import regex

from ragox.search import detect_language

__all__ = ["document_language"]

_LETTER: Final = regex.compile(r"\p{L}")
_HEBREW: Final = regex.compile(r"\p{Script=Hebrew}")
_ARABIC: Final = regex.compile(r"\p{Script=Arabic}")
_URDU: Final = regex.compile("[\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2]")
_PERSIAN: Final = regex.compile("[\u067e\u0686\u0698\u06af\u06a9\u06cc]")
_ARABIC_ONLY: Final = regex.compile("[\u0643\u064a\u0629]")  # kāf, yeh, tā' marbūṭa
#: Share of the letters a script must have for the text to count as written in it.
_SHARE: Final = 0.3


def document_language(text: str, sample: int = 20_000) -> str | None:
    """An ISO 639-1 code for ``text``, or None when nothing tells."""
    detected = detect_language(text, sample)
    if detected is not None:
        return detected
    head = text[:sample]
    if head.isascii():
        return None  # no Hebrew or Arabic letter
    letters = len(_LETTER.findall(head))
    if letters == 0:
        return None
    if len(_HEBREW.findall(head)) > _SHARE * letters:
        return "he"
    if len(_ARABIC.findall(head)) > _SHARE * letters:
        if _URDU.search(head):
            return "ur"
        if len(_PERSIAN.findall(head)) > len(_ARABIC_ONLY.findall(head)):
            return "fa"
        return "ar"
    return None
