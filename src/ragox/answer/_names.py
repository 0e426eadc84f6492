"""Names a question asks about that no passage the reader may read mentions.

"What TCP port does PostgreSQL listen on by default?" over manuals that never name
PostgreSQL was answered with the ports of Apache and SELinux: the question's other
words ("TCP", "port", "listen", "default") were all there, and the one that says what
it is about weighs a third of the question at most. A name the reader's documents never
mention cannot be answered from them, whatever else matches; the answer abstains and
says which name no passage mentions (the message an abstention gives already).

A name is a word that is one however the question is phrased: a word with a capital
after its first letter ("PostgreSQL", "GitLab", "NVIDIA"), a word of letters and
digits ("ext4", "x86"), a word of Latin letters in a Cyrillic question ("mdadm",
"Windows"), and in an English question a capitalised word that does not open a
sentence ("Firefox"). German capitalises every noun, so that rule is English only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import Final

import regex

from ragox.search import analyze_query, likely_language
from ragox.search._analyze import is_search_stopword
from ragox.search._synonyms import synonyms_of_word

__all__ = ["asked_names", "topic_names", "unmentioned_names", "writes_name"]

#: a word, with the dots, hyphens, pluses and underscores inside a name ("Node.js")
_WORD: Final = regex.compile(r"[\p{L}\p{N}]+(?:[._+-][\p{L}\p{N}]+)*")
_CYRILLIC: Final = regex.compile(r"\p{Cyrillic}")
_LATIN: Final = regex.compile(r"\p{Latin}")
_JOINER: Final = regex.compile(r"[._+-]")
_BRACKETED: Final = regex.compile(r"\([^()]*\)")
_SENTENCE_END: Final = frozenset(".!?:;\"'«»“”„()[]")
#: the parts of a name: its capitalised words, a run of capitals, a run of digits
#: ("SecureBoot": "Secure", "Boot"; "USB3": "USB", "3"; "PostgreSQL": "Postgre", "SQL")
_PART: Final = regex.compile(r"\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\d+")
#: shortest name (a two-letter word is a unit, an article or an abbreviation)
_MIN_NAME: Final = 3


def asked_names(question: str) -> list[str]:
    """The names ``question`` writes, each once, in order."""
    cyrillic = len(_CYRILLIC.findall(question)) > len(_LATIN.findall(question))
    english = not cyrillic and likely_language(question) == "en"
    found: dict[str, None] = {}
    for match in _WORD.finditer(question):
        word = match.group()
        if len(word) < _MIN_NAME or is_search_stopword(word.casefold()):
            continue
        letters = [c for c in word if c.isalpha()]
        if not letters:
            continue  # a number
        before = question[: match.start()].rstrip()
        opens = not before or before[-1] in _SENTENCE_END
        if (
            any(c.isupper() for c in word[1:])
            or any(c.isdigit() for c in word)
            or (cyrillic and not _CYRILLIC.search(word))
            or (english and word[0].isupper() and not opens)
        ):
            found[word] = None
    return list(found)


def topic_names(question: str) -> list[str]:
    """The names of ``question`` (:func:`asked_names`) that say what it is about, and
    of a joined name its pieces that do: "SFTP" of "SFTP-Server", "IPv6" of
    "IPv6-Adresse", "PostgreSQL", "Firefox".

    Not a German compound ("CD-Laufwerk": "CD" is too short, "Laufwerk" a noun),
    "Node.js", a gloss in brackets ("предварительной версии (release candidate)"), a
    name in lower case with digits ("amd64", "ext4": the installation guide for amd64
    never writes "amd64" beside its hardware requirements), the asker's own thing or
    one they do without ("my Raspberry Pi", "ohne NetworkManager": the host name is
    changed the same way on it), nor a capitalised word of a question in Title Case."""
    cyrillic = len(_CYRILLIC.findall(question)) > len(_LATIN.findall(question))
    words = list(_WORD.finditer(question))
    # a gloss in brackets repeats what the words before it say
    bracketed = [(m.start(), m.end()) for m in _BRACKETED.finditer(question)]
    # (the first word and "I" are capitalised in any question)
    capitalised = [
        m.group()[0].isupper() for m in words[1:] if m.group()[0].isalpha() and m.group() != "I"
    ]
    title_case = len(capitalised) > 3 and sum(capitalised) > 0.6 * len(capitalised)
    asked = set(asked_names(question))
    found: dict[str, None] = {}
    for index, match in enumerate(words):
        name = match.group()
        if name not in asked or any(a <= match.start() < b for a, b in bracketed):
            continue
        before = {w.group().casefold() for w in words[max(0, index - 2) : index]}
        if before & _CONTEXT_WORDS:
            continue
        pieces = _JOINER.split(name)
        for piece in pieces:
            if len(piece) < _MIN_NAME or (
                piece == piece.casefold() and any(c.isdigit() for c in piece)
            ):
                continue
            if (
                any(c.isupper() for c in piece[1:])
                or (cyrillic and not _CYRILLIC.search(piece))
                or (len(pieces) == 1 and piece[0].isupper() and not title_case)
            ):
                found[piece] = None
    return _phrases(question, list(found))


def _phrases(question: str, names: list[str]) -> list[str]:
    """Capitalised words written one after the other as one name: "Secure Boot", not
    "Secure" and "Boot" ("How do I enable Secure Boot?" is not answered by how a
    service is enabled at boot)."""
    out: list[str] = []
    for name in names:
        if out and " " + name in question and f"{out[-1].rsplit(' ', 1)[-1]} {name}" in question:
            out[-1] = f"{out[-1]} {name}"
        else:
            out.append(name)
    return out


#: words before a name that make it the asker's context, not the topic: their own
#: machine ("my Raspberry Pi", "meinem MacBook", "на моём ThinkPad") or what they do
#: without ("ohne NetworkManager", "без systemd")
_CONTEXT_WORDS: Final = frozenset(
    {
        "my", "our", "without", "mein", "meine", "meinem", "meinen", "meiner", "meines",
        "unser", "unsere", "unserem", "unseren", "unserer", "ohne", "мой", "моя", "моё",
        "мое", "моём", "моем", "моего", "моей", "мою", "моих", "мои", "наш", "наша",
        "нашем", "нашего", "нашей", "нашу", "наших", "без",
    }
)  # fmt: skip


def writes_name(name: str, text: str) -> bool:
    """Whether ``text`` (case-folded) writes ``name`` however it is spelt there, each
    way at the start of a word (inflected as it may be: "SFTP-Servers", "Apache'а"; not
    "rust" in "trust"): as it is, its first three quarters ("PostgreSQL": "Postgres"),
    without a version number ("GRUB2": "GRUB 2"), its parts of two letters or more one
    after the other ("NetworkManager": "network-manager", "LibreOffice": "Libre
    Office"), or its last part that is a name in capitals ("OpenSSH": "ssh")."""
    folded = name.casefold()
    forms = [folded]
    if len(folded) >= 8 and " " not in folded:
        forms.append(folded[: len(folded) * 3 // 4])
    bare = folded.rstrip("0123456789")
    if len(bare) >= _MIN_NAME and bare != folded:
        forms.append(bare)
    parts = [part for part in _PART.findall(name) if len(part) > 1 and part.isalpha()]
    patterns = [re.escape(form) for form in forms]
    if len(parts) > 1:
        patterns.append(r"[\s._-]?".join(re.escape(part.casefold()) for part in parts))
        capitals = [part for part in parts if part.isupper() and len(part) >= _MIN_NAME]
        if capitals:
            patterns.append(re.escape(capitals[-1].casefold()))
    # (a letter or digit before it makes it part of another word; an underscore joins
    # a name's pieces: "shlibdeps" in "dh_shlibdeps")
    return re.search(r"(?<![^\W_])(?:" + "|".join(patterns) + ")", text) is not None


def unmentioned_names(
    question: str,
    mentioned: Callable[[Sequence[str]], Collection[str]],
    *,
    every_word: bool = False,
) -> list[str]:
    """The names of ``question`` (:func:`asked_names`) that no readable passage holds:
    ``mentioned`` tells which of some index terms a passage the reader may read holds.
    A name is mentioned when any of its stems (in English, German or Russian) or of its
    synonyms' is: "Node.js" by a passage on "node"; or when each of its parts is (a
    name the documents write apart: "SecureBoot" as "Secure Boot"). ``every_word``:
    each word of ``question`` is taken for a name (one word a message names)."""
    names = list(dict.fromkeys(_WORD.findall(question))) if every_word else asked_names(question)
    if not names:
        return []
    said = {name: _stems(name) for name in names}
    # a name the documents may write apart: "SecureBoot" as "Secure Boot", "USB3" as
    # "USB 3" (its parts of two letters or more; digits say little alone)
    parts = {
        name: [_stems(part) for part in _PART.findall(name) if len(part) > 1 and part.isalpha()]
        for name in names
    }
    parts = {name: found for name, found in parts.items() if found and found[0] != said[name]}
    asked = set().union(*said.values(), *(stems for found in parts.values() for stems in found))
    held = set(mentioned(sorted(asked)))
    return [
        name
        for name in names
        if said[name]
        and not said[name] & held
        and not (name in parts and all(stems & held for stems in parts[name]))
    ]


def _stems(word: str) -> set[str]:
    """A word's stems in English, German and Russian, and its synonyms'."""
    return set(analyze_query(word, ["en", "de", "ru"])) | set(synonyms_of_word(word))
