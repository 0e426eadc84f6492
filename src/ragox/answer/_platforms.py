"""The operating system a question asks about, and the ones a manual's sections are for.

A manual says how to do a thing once per system, under a label each ("Linux", "macOS",
"Windows"; or "Windows: Close GnuCash. …"). "Wie kann ich unter Linux die Sprache von
GnuCash umstellen?" was answered with the macOS and Windows paragraphs of the right
page: they repeat "Sprache" and "einstellen", the Linux one says "Umgebungsvariablen
LANGUAGE und LANG setzen". A sentence under another system's label does not answer a
question that names a system; one under a label that names the asked one, or none, or
one that names the asked system itself, may.

The systems are a closed list (a distribution is Linux, "OS X" is macOS). A label
names systems only when it is nothing else: "Windows", "Mac OS X", "Unter Linux",
"Windows 10", not "Managing Windows" nor "Tabs and Windows"; and a common noun that
spells one ("close all windows", "the MAC address") is no system.
"""

from __future__ import annotations

from typing import Final

import regex

__all__ = ["asked_platforms", "is_part_title", "labelled_platforms", "platforms"]

#: each system and how texts name it ("Mac" in title case only: "MAC" is an address)
_SYSTEMS: Final = (
    (
        "linux",
        r"(?:gnu/)?linux|ubuntu|kubuntu|xubuntu|debian|fedora|opensuse|suse|centos|rhel"
        r"|red hat|gentoo|arch linux|linux mint",
    ),
    ("windows", r"(?:microsoft |ms[- ])?windows(?: ?(?:xp|vista|7|8(?:\.1)?|10|11))?"),
    (
        "macos",
        r"mac ?os(?: ?x)?|os ?x|macintosh|(?-i:Mac)(?![- ]?(?:address|adresse|адрес))",
    ),
    ("bsd", r"freebsd|openbsd|netbsd"),
    ("android", r"android"),
    ("ios", r"ios|ipados"),
)
_NAMES: Final = regex.compile(
    "|".join(rf"(?P<{key}>\b(?:{pattern})\b)" for key, pattern in _SYSTEMS),
    regex.IGNORECASE,
)
#: the names as a question writes them: "mac" in any case, its test below
_ASKED_NAMES: Final = regex.compile(_NAMES.pattern.replace("(?-i:Mac)", "mac"), regex.IGNORECASE)
#: in a question, "windows" or "mac" is the system after a word that says "on" or "for"
#: (or with a capital or a version): "how do I close all windows" names none
_ON: Final = regex.compile(
    r"\b(?:on|under|in|for|with|from|unter|auf|für|mit|von|в|под|на|для|с|из)\s+"
    r"(?:(?:my|a|the|meinem|einem|dem|моей|моём|моем)\s+)?$",
    regex.IGNORECASE,
)
_VERSION: Final = regex.compile(r"windows ?(?:xp|vista|\d)", regex.IGNORECASE)
#: the words a label may hold beside systems ("Unter Linux", "On Windows 10", "Для
#: macOS", "Linux (Debian)")
_LABEL_FILLER: Final = frozenset(
    {
        "on",
        "under",
        "for",
        "with",
        "in",
        "unter",
        "auf",
        "für",
        "mit",
        "в",
        "под",
        "на",
        "для",
        "and",
        "or",
        "und",
        "oder",
        "и",
        "или",
        "x",
        "xp",
        "vista",
        "systems",
        "system",
        "systeme",
        "systemen",
        "системы",
        "системах",
    }
)
_WORD: Final = regex.compile(r"[\p{L}\p{N}.]+")
#: a label is a line of a few words, or a sentence's lead-in before a colon ("Windows:
#: Schließen Sie …")
_LABEL_WORDS: Final = 5
_LEAD_IN: Final = regex.compile(r"^\s*([^:\n]{1,40}):\s")
#: labels of a note inside a system's part, which go on with that system
_NOTES: Final = frozenset(
    {
        "note",
        "notes",
        "tip",
        "tips",
        "warning",
        "caution",
        "important",
        "hint",
        "example",
        "hinweis",
        "tipp",
        "warnung",
        "achtung",
        "beispiel",
        "wichtig",
        "примечание",
        "совет",
        "внимание",
        "предупреждение",
        "пример",
        "важно",
    }
)


def platforms(text: str) -> frozenset[str]:
    """The systems ``text`` names anywhere in it."""
    return frozenset(
        key for found in _NAMES.finditer(text) for key, value in found.groupdict().items() if value
    )


def asked_platforms(question: str) -> frozenset[str]:
    """The systems a question names: "windows" and "mac" only where they are one ("on
    windows 10", "Windows", "on my mac"), not a program's windows or a MAC address."""
    found: set[str] = set()
    for match in _ASKED_NAMES.finditer(question):
        key = next(key for key, value in match.groupdict().items() if value)
        written = match.group()
        if key == "windows" and not (
            written.startswith(("Windows", "Microsoft", "MS"))
            or _VERSION.match(written)
            or _ON.search(question, 0, match.start())
        ):
            continue
        if (
            key == "macos"
            and written.casefold() == "mac"
            and not (written == "Mac" or _ON.search(question, 0, match.start()))
        ):
            continue
        found.add(key)
    return frozenset(found)


def labelled_platforms(text: str) -> frozenset[str] | None:
    """The systems a label names, when ``text`` is such a label ("macOS", "Unter Linux",
    "Windows 10", "Windows: Start → Einstellungen …"'s lead-in): every other word of it
    is a preposition or a version. ``None`` when it is no such label."""
    stripped = text.strip()
    if len(stripped.split()) <= _LABEL_WORDS:
        named = _system_label(stripped)
        if named:
            return named
    lead_in = _LEAD_IN.match(text)
    if lead_in is not None and len(lead_in.group(1).split()) <= _LABEL_WORDS:
        return _system_label(lead_in.group(1))
    return None


def _system_label(label: str) -> frozenset[str] | None:
    found = list(_NAMES.finditer(label))
    if not found:
        return None
    if any(match.group().casefold() == "windows" and match.group() != "Windows" for match in found):
        return None  # "windows" in lower case: a program's
    rest = label
    for match in reversed(found):
        rest = rest[: match.start()] + " " + rest[match.end() :]
    for word in _WORD.findall(rest):
        if word.casefold() not in _LABEL_FILLER and not word.replace(".", "").isdigit():
            return None
    return frozenset(key for match in found for key, value in match.groupdict().items() if value)


def is_part_title(text: str) -> bool:
    """A title of a part for every system ("Configuration", "Where settings are kept"):
    a few words, the first capitalised, letters only, no sentence end; not a note's
    label ("Tip", "Hinweis"), a path ("C:\\Program Files\\gnucash"), a registry key
    nor a caption ("Screenshot 3"), which go on within the part they are in."""
    stripped = text.strip()
    words = stripped.split()
    return (
        0 < len(words) <= _TITLE_WORDS
        and stripped[0].isupper()
        and _TITLE.fullmatch(stripped) is not None
        and stripped.rstrip(":").strip().casefold() not in _NOTES
    )


#: a part's title: words of letters, spaces, hyphens and apostrophes (and a colon after)
_TITLE: Final = regex.compile(r"[\p{L}][\p{L}' -]*:?")
_TITLE_WORDS: Final = 7
