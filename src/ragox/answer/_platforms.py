"""The operating system a question asks about, and the ones a manual's sections are for.

A manual says how to do a thing once per system, under a label each ("Linux", "macOS",
"Windows"; or "Windows: Close GnuCash. …"). "Wie kann ich unter Linux die Sprache von
GnuCash umstellen?" was answered with the macOS and Windows paragraphs of the right
page: they repeat "Sprache" and "einstellen", the Linux one says "Umgebungsvariablen
LANGUAGE und LANG setzen". A sentence under another system's label does not answer a
question that names a system; one under a label that names the asked one, or none, may.

The systems are a closed list (a distribution is Linux, "OS X" is macOS); a common noun
that spells one ("close all windows", "the MAC address") is no system.
"""

from __future__ import annotations

from typing import Final

import regex

__all__ = ["asked_platforms", "labelled_platforms", "platforms"]

#: each system and how texts name it
_SYSTEMS: Final = (
    (
        "linux",
        r"(?:gnu/)?linux|ubuntu|kubuntu|xubuntu|debian|fedora|opensuse|suse|centos|rhel"
        r"|red hat|gentoo|arch linux|linux mint",
    ),
    ("windows", r"(?:microsoft |ms[- ])?windows(?: ?(?:xp|vista|7|8(?:\.1)?|10|11))?"),
    ("macos", r"mac ?os(?: ?x)?|os ?x|macintosh|mac(?![- ]?(?:address|adresse|адрес))"),
    ("bsd", r"freebsd|openbsd|netbsd"),
    ("android", r"android"),
    ("ios", r"ios|ipados"),
)
_NAMES: Final = regex.compile(
    "|".join(rf"(?P<{key}>\b(?:{pattern})\b)" for key, pattern in _SYSTEMS),
    regex.IGNORECASE,
)
#: in a question, "windows" is the system after a word that says "on" or "for" (or with
#: a capital or a version): "how do I close all windows" names none
_ON: Final = regex.compile(
    r"\b(?:on|under|in|for|with|from|unter|auf|für|mit|in|von|в|под|на|для|с|из)\s+"
    r"(?:(?:my|a|the|meinem|einem|dem|моей|моём|моем)\s+)?$",
    regex.IGNORECASE,
)
_VERSION: Final = regex.compile(r"windows ?(?:xp|vista|\d)", regex.IGNORECASE)
#: a label that names systems: a line of a few words ("Linux", "Mac OS X", "Unter
#: Windows"), or a sentence's lead-in before a colon ("Windows: Schließen Sie …")
_LABEL_WORDS: Final = 4
_LEAD_IN: Final = regex.compile(r"^\s*([^:\n]{1,40}):\s")


def platforms(text: str) -> frozenset[str]:
    """The systems ``text`` names."""
    return frozenset(
        key for found in _NAMES.finditer(text) for key, value in found.groupdict().items() if value
    )


def asked_platforms(question: str) -> frozenset[str]:
    """The systems a question names: "windows" only where it is one ("on windows 10",
    "Windows"), not the windows of a program."""
    found: set[str] = set()
    for match in _NAMES.finditer(question):
        key = next(key for key, value in match.groupdict().items() if value)
        if key == "windows" and not (
            match.group().startswith(("Windows", "Microsoft", "MS"))
            or _VERSION.match(match.group())
            or _ON.search(question, 0, match.start())
        ):
            continue
        found.add(key)
    return frozenset(found)


def labelled_platforms(text: str) -> frozenset[str] | None:
    """The systems a label names, when ``text`` is such a label ("macOS", "Unter Linux",
    "Windows: Start → Einstellungen …"'s lead-in); ``None`` when it is none."""
    stripped = text.strip()
    if len(stripped.split()) <= _LABEL_WORDS:
        named = platforms(stripped)
        if named:
            return named
    lead_in = _LEAD_IN.match(text)
    if lead_in is not None and len(lead_in.group(1).split()) <= _LABEL_WORDS:
        named = platforms(lead_in.group(1))
        if named:
            return named
    return None
