"""Sentences that introduce a block, instructions, and text as a reader should see it.

A manual says "You can change it by the following." and puts the command on its
own line; "…erfordert folgende Schritte:" is followed by numbered steps. The
introducing sentence alone answers nothing, so it is quoted together with the
block it introduces: the paragraphs after it that look like a command (a shell
prompt, or one line with options, paths or assignments), list items or
steps, or table rows. After a colon the first paragraph always belongs to the
block (it is what the colon announces).

Display text joins a word broken at a line end ("Schrit-\\nte" → "Schritte")
and turns a PDF's soft line breaks into spaces; the anchor keeps the exact text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import regex

from ragox.search import is_stopword
from ragox.text import join_broken_words, same_passage_key
from ragox.text._instructions import PARAGRAPH_BREAK as _PARAGRAPH
from ragox.text._instructions import (
    SENTENCE_END,
    command_lines,
    has_instruction,
    is_section_heading,
)
from ragox.text._instructions import command_like as _command_like

__all__ = [
    "ALTERNATIVE",
    "MAX_BLOCK_CHARS",
    "announces_by_name",
    "block_end",
    "display_text",
    "goes_on_after_block",
    "has_instruction",
    "is_introducer",
    "item_breaks",
    "labelled_command",
    "leads_into_block",
    "list_marker",
    "list_runs",
    "listed_block_end",
    "may_introduce",
    "runs_into_block",
    "same_passage_key",
]

_INTRODUCER: Final = re.compile(
    r":\s*$|\bas follows\b|\bthe following\b|\bfollowing (?:command|steps?)\b"
    r"|\bfolgende[mnrs]?\b|\bwie folgt\b|\bnachstehende[mnrs]?\b"
    r"|\bследующ\w*|\bниже\b|\bтак:\s*$"
    # "… add a password and restricted line as in the example below."
    r"|\bbelow\b|\bunten\b",
    re.IGNORECASE,
)
_LIST_ITEM: Final = re.compile(r"^(?:\d{1,2}[.)]|[a-z][.)]|[*•\-–+·▪◦])\s+\S")
#: a line break before a list item: in a PDF's text the items of a list are lines,
#: not paragraphs (no blank line between "· To configure the network:" and "1. Edit
#: …"), so each item starts at such a break
_ITEM_BREAK: Final = re.compile(r"\n[ \t]*(?=(?:\d{1,2}[.)]|[*•\-–+·▪◦])\s+\S)")
#: an item's marker: its number or letter form, or its bullet
_MARKER: Final = re.compile(r"^\s*(?:(\d{1,2})([.)])|([a-z])([.)])|([*•\-–+·▪◦]))\s+\S")
_ITEM_GOES_ON: Final = re.compile(
    r"(?:[,;]|\b(?:and|or|und|oder|sowie|и|или|а также))\s*$", re.IGNORECASE
)
_GAP: Final = re.compile(r"\s*")
#: most paragraphs and characters one block may add to a quote
_MAX_PARAGRAPHS: Final = 12
MAX_BLOCK_CHARS: Final = 1500
#: most words of a list item without a marker
_BARE_ITEM_WORDS: Final = 10
#: a command as typed at a shell's prompt ("# dpkg-reconfigure …", "$ make") or at
#: Python's (">>> yaml.safe_load(stream)")
_PROMPTED: Final = re.compile(r"^\s*(?:[$#%]|>>>)\s+\S")


def is_introducer(sentence: str) -> bool:
    """The sentence announces what follows ("…as follows", "folgende Schritte:")."""
    return bool(_INTRODUCER.search(sentence.strip()))


#: ``_INTRODUCER``'s words that name what follows (not a colon alone: "Fully stated,
#: this is the law:"); keep the two together
_ANNOUNCES: Final = re.compile(
    r"(?:\b(?:as follows|the following|folgende[mnrs]?|wie folgt|nachstehende[mnrs]?)\b"
    r"|\bследующ\w*\b)"
    # …not a time ("the following year", "im folgenden Jahr", "в следующем году", "при
    # следующем запуске")
    r"(?!\s+(?:year|month|week|day|morning|night|time|version|release|jahr|monat|woche"
    r"|tag|morgen|abend|mal|году|месяце|неделе|день|раз|запуске|версии)\b)",
    re.IGNORECASE,
)


def announces_by_name(text: str) -> bool:
    """The text announces what follows by words, not by a colon alone ("You should
    forward the following ports:", "Перенаправить нужно следующие порты:")."""
    return _ANNOUNCES.search(text) is not None


#: what every match of ``_INTRODUCER`` contains (its words without the word boundaries,
#: the colon), so that a text without any holds no introducer: keep the two together
_MAY_INTRODUCE: Final = re.compile(
    r":|as follows|the following|following (?:command|steps?)|folgende|wie folgt"
    r"|nachstehende|следующ|ниже|below|unten",
    re.IGNORECASE,
)


def may_introduce(text: str, start: int, end: int) -> bool:
    """False when no sentence inside ``text[start:end]`` can be an introducer (a quick
    test before splitting the range into sentences)."""
    return _MAY_INTRODUCE.search(text, start, end) is not None


#: a sentence that runs on into the command below it ("… you can run the command",
#: "… kann", "… выполните команду"): it ends on a word, without a full stop
_OPEN_END: Final = regex.compile(r"\p{L}\s*$")
#: fewer words than this is a heading or a label, not a sentence running on
_OPEN_MIN_WORDS: Final = 5


#: a label and the command it names on one line ("Удалить пакет (вместе с файлами
#: настроек): dpkg --purge foo"): what follows the last colon
_LABELLED: Final = re.compile(r":[ \t]+(?=\S)(?!.*:[ \t])")


def runs_into_block(sentence: str) -> bool:
    """The sentence has no end of its own: it continues in the block that follows."""
    stripped = sentence.strip()
    return (
        bool(_OPEN_END.search(stripped))
        and len(stripped.split()) >= _OPEN_MIN_WORDS
        # a numbered section's title ends on a word too: "5.14.3.3. Konfiguration von
        # Firewall-Regeln mittels ifup" runs into nothing
        and not is_section_heading(stripped)
        # nor does an item of a catalog that ends on its own command ("Удалить пакет
        # (но не его файлы настроек): dpkg --remove foo"): the next item ("…: dpkg
        # --purge foo") is another answer, not this one's block
        and not labelled_command(stripped)
    )


def leads_into_block(sentence: str) -> bool:
    """The sentence introduces a block ("… the following command:") or has no end of
    its own and continues in one ("… you could add")."""
    return is_introducer(sentence) or runs_into_block(sentence)


def goes_on_after_block(text: str, begin: int) -> bool:
    """Whether the paragraph at ``begin``, after a block, goes on with the sentence
    before the block: it opens with a function word in lower case ("to your
    /etc/dpkg/dpkg.cfg.", "und starten Sie …", "в файл …", "wobei Unterhalt …"). A list
    item whose marker the text lost opens otherwise ("enable the firewall rule …", "see
    also …")."""
    word = _FIRST_WORD.match(text, begin)
    return (
        word is not None
        and word.group()[0].islower()
        and (is_stopword(word.group()) or word.group() in _CONJUNCTIONS)
    )


#: conjunctions that no stop list holds, which go on a sentence after a formula or a
#: command ("wobei Unterhalt gleich …", "whereby …", "причём …")
_CONJUNCTIONS: Final = frozenset(
    {"wobei", "wodurch", "sodass", "whereby", "wherein", "where", "причём", "причем"}
)
#: the most characters of a line that completes a sentence without an end
_COMPLETION_CHARS: Final = 200


def _completes(text: str, paragraph: str, finish: int, stop: int) -> bool:
    """``paragraph`` (ending at ``finish``) is one line without a sentence's end, and
    the paragraph after it goes on with the sentence (:func:`goes_on_after_block`)."""
    line = paragraph.strip()
    if not line or "\n" in line or len(line) > _COMPLETION_CHARS or SENTENCE_END.search(line):
        return False
    gap = _GAP.match(text, finish, stop)
    after = gap.end() if gap else finish
    return after < stop and goes_on_after_block(text, after)


_FIRST_WORD: Final = regex.compile(r"\p{L}+")

#: a paragraph that is only a word offering another way, between two commands ("…
#: verwenden Sie" + "sha256sum filename.iso" + "bzw." + "sha512sum filename.iso" + "und
#: vergleichen Sie …": DocBook's markup of one sentence)
ALTERNATIVE: Final = regex.compile(
    r"(?:or|oder|bzw\.|beziehungsweise|resp\.|respectively|или|либо)[ \t]*(?:\n[ \t]*\n|$)",
    regex.IGNORECASE,
)


def labelled_command(line: str) -> bool:
    """The line is a label and its command: what follows its last colon looks like a
    command."""
    label = _LABELLED.search(line)
    return label is not None and "\n" not in line and _command_like(line[label.end() :])


def _bare_item(paragraph: str) -> bool:
    """A list item without a marker: one short line with no sentence's end, not a
    numbered section's heading ("1.2.8. i18nspector")."""
    line = paragraph.strip()
    return (
        bool(line)
        and "\n" not in line
        and len(line.split()) <= _BARE_ITEM_WORDS
        and not SENTENCE_END.search(line)
        and not line.endswith((":", "¶"))
        and not is_section_heading(line)
    )


#: one line of a configuration file: an option and its one value, ended by ";"
#: (``APT::Acquire::http::Dl-Limit "800";``, ``max_connections = 100;``), or a brace
#: that opens or closes a section (``server {``, ``};``)
_CONFIG_LINE: Final = re.compile(
    r"^[\w.:/-]+(?:\s*=\s*|\s+)(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"';]+)\s*;$"
    r"|^[\w.-]+\s*\{$|^\}\s*;?$"
)
#: a numbered section's title: its number with the closing dot, then a capital ("2.7.10.
#: Downgrade im Notfall"); a version ("3.10 (default)") or a step ("1.1 Download") has
#: no such dot
_SECTION_TITLE: Final = regex.compile(r"^\d+(?:\.\d+)+\.\s+\p{Lu}")


def _config_line(text: str) -> bool:
    return "\n" not in text and len(text) <= 200 and _CONFIG_LINE.search(text) is not None


def _block_like(paragraph: str) -> bool:
    text = paragraph.strip()
    if _LIST_ITEM.match(text) or _command_like(text) or _config_line(text):
        return True
    if command_lines(text):
        # a configuration or a script of several lines ("image=/boot/vmlinuz",
        # "label=Linux", "password=hackme", "restricted": lilo.conf's lines)
        return True
    return "\t" in text and "\n" not in text  # a table row with tab-separated cells


def item_breaks(text: str, start: int, end: int) -> list[int]:
    """Where list items start inside ``text[start:end]`` after a single line break (a
    PDF's list: one item a line)."""
    return [match.end() for match in _ITEM_BREAK.finditer(text, start, end)]


def list_marker(paragraph: str) -> tuple[str, str] | None:
    """The kind of an item's marker: ("1", ".") is a number with a dot, ("a", ")") a
    letter with a parenthesis, ("•", "") a bullet; None for no item."""
    match = _MARKER.match(paragraph)
    if match is None:
        return None
    if match.group(1):
        return ("1", match.group(2))
    if match.group(3):
        return ("a", match.group(4))
    return (match.group(5), "")


def block_end(
    text: str, position: int, colon: bool, limit: int | None = None, opening: int | None = None
) -> int | None:
    """Where the block introduced by a sentence ending at ``position`` ends in ``text``,
    or None when no block follows (prose after "the following" is not a block).

    ``limit`` bounds the search (the end of the evidence); a block cut by it is
    not a block. ``opening`` is where the introducing sentence starts: when it is a
    list item itself ("• To configure the network:" above its steps "1. …", "2. …"),
    its block ends before the next item of its own list (the next "•"), whose steps
    are another item's."""
    stop = len(text) if limit is None else limit
    own = list_marker(text[opening:position]) if opening is not None else None
    cursor = position
    end: int | None = None
    last = position  # where the block's last paragraph begins
    count = 0
    labelled = 0  # paragraphs that are a label and its command
    while count < _MAX_PARAGRAPHS:
        gap = _GAP.match(text, cursor, stop)
        begin = gap.end() if gap else cursor
        if begin >= stop:
            break
        found = _PARAGRAPH.search(text, begin, stop)
        item = _ITEM_BREAK.search(text, begin + 1, found.start() if found else stop)
        finish = item.start() if item else found.start() if found else stop
        if item is None and found is None and limit is not None and stop < len(text):
            break  # the paragraph runs past what we may read: not known to be complete
        paragraph = text[begin:finish]
        if own is not None and list_marker(paragraph) == own:
            break  # the next item of the introducer's own list
        if end is not None and _SECTION_TITLE.match(paragraph.strip()):
            break  # the next section ("2.7.10. Downgrade im Notfall") is no part of it
        first = count == 0 and (
            (colon and len(paragraph) <= 600)
            # a sentence without an end, a line that completes it, and the sentence
            # going on below: "Die Formel für die Berechnung der Einnahmen pro Zug ist
            # daher" + "2 + Dörfer – Maximum(0, Unterhalt – Dörfer)" + "wobei …"
            or (not colon and _completes(text, paragraph, finish, stop))
        )
        # a configuration line ("APT::Get::Show-Versions "1";") is no item of a list:
        # its ";" ends a statement, and the short line after it ("Warning") is another
        # part of the page
        configured = end is not None and _config_line(text[last:end].strip())
        # an enumeration goes on while its items end with a comma or "and" ("0 (halt),"
        # then "1 (single user),"): its next item belongs to the block
        listed = (
            end is not None
            and not configured
            and bool(_ITEM_GOES_ON.search(text[max(0, cursor - 40) : cursor]))
        )
        # a list whose items are bare lines ("broken symlinks", "Python modules not
        # byte-compiled", …: HTML list items without a marker) goes on while its
        # lines stay short and without a sentence's end, whatever letter opens them;
        # a command typed at a prompt is no such item, and the short lines after it
        # are another part of the page (a footer's "Prev", "Up", "Home", "Next")
        bare = (
            end is not None
            and not configured
            and _bare_item(text[last:end])
            and not _PROMPTED.match(text[last:end])
            and _bare_item(paragraph)
        )
        if not (first or listed or bare or _block_like(paragraph)):
            break
        if end is not None and finish - position > MAX_BLOCK_CHARS:
            break
        last = begin
        end = finish
        count += 1
        labelled += labelled_command(paragraph.strip())
        cursor = finish
    # a catalog of labelled commands ("Показать список всех параметров: dpkg --help",
    # "Удалить пакет …: dpkg --purge foo"): each item answers alone, under the
    # sentence that introduces them all the whole answers nothing
    return None if labelled >= 2 else end


#: an HTML list's item step in a block's locator ("li[2]", "dt", "dd[3]")
_ITEM_STEP: Final = re.compile(r"/(?:li|dt|dd)(?:\[\d+\])?(?=/|$)")


#: the list of the list items located by their ids: which list holds them is unknown
#: (LibreOffice's help gives every paragraph an id), so a run of them, one after the
#: other with nothing but white space between, is taken for one list of one item each
_BY_ID: Final = "#"


def _list_path(locator: str) -> str | None:
    """The path of the innermost HTML list (``ul``, ``ol``, ``dl``) whose item holds the
    block at ``locator`` ("/html/body/div/ul/li[2]/div" → "/html/body/div/ul"); None
    outside lists; :data:`_BY_ID` for a list item located by its id."""
    if locator.startswith(_BY_ID):
        return _BY_ID
    if not locator.startswith("/"):
        return None
    last = None
    for last in _ITEM_STEP.finditer(locator):  # noqa: B007 - the last one is wanted
        pass
    return None if last is None else locator[: last.start()]


def _item_of(locator: str, path: str) -> str | None:
    """The item step of list ``path`` that holds the block at ``locator`` ("li[2]"), or
    None when the block lies outside that list; a list item located by its id is an
    item of its own."""
    if path == _BY_ID:
        return locator if locator.startswith(_BY_ID) else None
    if not locator.startswith(path + "/"):
        return None
    step = _ITEM_STEP.match(locator, len(path))
    return None if step is None else step.group()


def list_runs(
    text: str, blocks: Sequence[tuple[int, int, str]]
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The HTML lists in ``text``, each as its items' spans: runs of ``blocks`` (``(start,
    end, locator)``, offsets in ``text``, reading order) inside items of one list
    (nested lists and an item's paragraphs included) with nothing but white space
    between them, of two items or more. The extractor's structure, where the text
    has no marker: HTML list items are bare paragraphs ("ListenAddress 192.168.0.1
    Have ssh listen only …", "PermitRootLogin no Try not to permit …"). ``blocks``
    located by an id (``#…``) must be list items (:meth:`Store.block_paths`)."""
    runs: list[tuple[tuple[int, int], ...]] = []
    path: str | None = None
    items: dict[str, tuple[int, int]] = {}
    end = 0

    def close() -> None:
        if len(items) >= 2:
            runs.append(tuple(sorted(items.values())))

    def add(item: str, start: int, stop: int) -> None:
        first, last = items.get(item, (start, stop))
        items[item] = (min(first, start), max(last, stop))

    for start, stop, locator in sorted(blocks):
        item = None if path is None else _item_of(locator, path)
        # inside what the run covers already (a nested list), or after it with only
        # white space between
        if path is not None and (start < end or (item is not None and not text[end:start].strip())):
            if item is not None:
                add(item, start, stop)
            end = max(end, stop)
            continue
        close()
        path = _list_path(locator)
        items = {}
        if path is not None:
            step = _item_of(locator, path)
            assert step is not None  # the path was read from this locator
            add(step, start, stop)
            end = stop
    close()
    return tuple(runs)


#: a colon that ends a line inside a list item: the item introduces a block of its own
_OWN_INTRODUCER: Final = re.compile(r":[ \t]*\n")


def _own_command(item: str) -> bool:
    """A list item that introduces its own command: a line ending with a colon inside
    it, or a label and its command on its one line."""
    return _OWN_INTRODUCER.search(item) is not None or labelled_command(item.strip())


def listed_block_end(
    text: str, position: int, runs: Sequence[Sequence[tuple[int, int]]]
) -> int | None:
    """Where the HTML list right after ``position`` (an introducing sentence's end) ends:
    its last item within :data:`MAX_BLOCK_CHARS` of ``position`` (at least its first), or
    None when no list of ``runs`` starts there."""
    gap = _GAP.match(text, position)
    begin = gap.end() if gap else position
    for items in runs:
        if items[0][0] != begin:
            continue
        if sum(1 for start, end in items if _own_command(text[start:end])) >= 2:
            # a catalog whose items each introduce their own command ("Die Liste …
            # aktualisieren:" then "apt update", "… installieren:" then "apt install
            # foo"; "Удалить пакет (…): dpkg --purge foo" on one line): each item
            # answers alone, the list as a whole answers nothing
            return None
        end = items[0][1]
        for _, item_end in items[1:]:
            if item_end - position > MAX_BLOCK_CHARS:
                break
            end = item_end
        return end
    return None


_SOFT_BREAK: Final = re.compile(
    r"(?<!\n)[ \t\xa0]*\n[ \t\xa0]*(?!\n|(?:\d{1,2}[.)]|[*•\-–+·▪◦]|[$#])\s)"
)


def _soft_break(found: re.Match[str]) -> str:
    """A line break of prose read as a space; none in a path or a web address broken
    after a slash ("/usr/" / "share", "https:" / "//tug.org")."""
    text, start, end = found.string, found.start(), found.end()
    before = text[start - 1] if start else ""
    if (before == "/" and _PATH_GOES_ON.match(text, end)) or (
        before == ":" and _HOST.match(text, end) and _SCHEME.search(text, 0, start)
    ):
        return ""
    return " "


#: a web address's scheme right before a line break ("https:" / "//tug.org"), as a
#: word of its own
_SCHEME: Final = re.compile(r"(?<!\S)(?:https?|ftps?|sftp):$", re.IGNORECASE)
#: …and its host on the next line
_HOST: Final = re.compile(r"//[\w.-]")
#: a path going on after a slash at a line end ("/usr/" / "share/doc"): a name with a
#: path's punctuation in it before any space, not a sentence going on ("~/.config/" /
#: "Restart GnuCash …", "sources.list.d/" / "and run apt update")
_PATH_GOES_ON: Final = re.compile(r"[a-z0-9_~%$-]*[/.][a-z0-9]")


#: white space that lines up columns inside a line: two or more spaces (or a tab)
#: between two visible characters, not after a sentence's end (prose typed with two
#: spaces after a full stop: "…an error.  The client then retries")
_COLUMN_GAP: Final = re.compile(r"[^\s.!?:;](?: {2,}|\t)[ \t]*\S")


def _in_columns(paragraph: str) -> bool:
    """Lines laid out in columns ("apt-get install package    ->  apt install
    package"; a preformatted table): at least two lines, and most of them hold a gap
    that aligns a column. Joined into one line, the columns run together; prose
    wrapped at line ends has single spaces."""
    lines = [line for line in paragraph.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    aligned = sum(1 for line in lines if _COLUMN_GAP.search(line.strip()))
    return 2 * aligned > len(lines)


def _session_start(lines: list[str]) -> int | None:
    """Where a terminal session starts among a paragraph's lines: a command typed at a
    prompt ("$ date"), then what it printed ("Thu Sep  2 22:29:48 CEST 2021"). Prose
    whose line happens to open with such a mark is none ("… um etwa 20" / "% auf
    insgesamt …", "… costs US" / "$ 49 per seat", "Lines that begin with" / "# are
    comments."): what follows the mark must look like a command."""
    for index, line in enumerate(lines):
        if _PROMPTED.match(line) is None:
            continue
        if _command_like(_PROMPT_MARK.sub("", line, count=1).rstrip()):
            return index
    return None


#: a prompt and the space after it, before the command typed at it
_PROMPT_MARK: Final = re.compile(r"^\s*(?:[$#%]|>>>)\s+")


def _displayed(paragraph: str) -> str:
    """One paragraph of :func:`display_text`."""
    # a configuration's or a script's lines stay lines, and so do a text table's
    if command_lines(paragraph) or _in_columns(paragraph):
        return "\n".join(line.strip() for line in paragraph.strip().splitlines())
    lines = paragraph.strip().splitlines()
    start = _session_start(lines)
    if start is None:
        return _SOFT_BREAK.sub(_soft_break, paragraph).strip()
    # …and a session's, as the terminal showed them (indented output too), after the
    # prose that leads into it
    prose = _SOFT_BREAK.sub(_soft_break, "\n".join(lines[:start])).strip()
    shown = [line.rstrip() for line in lines[start:]]
    return "\n".join([prose, *shown] if prose else shown)


#: the Latin ligatures of Unicode's Alphabetic Presentation Forms, as their letters
_LIGATURES: Final = str.maketrans(
    {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
)


def display_text(quote: str) -> str:
    """The quote as a reader sees it: a word broken at a line end is joined
    ("Schrit-\\nte" → "Schritte"), single line breaks of prose become spaces (none in
    a path broken after a slash), paragraph breaks (before a command or a step) stay,
    and a ligature reads as its letters ("ﬁ" → "fi")."""
    joined = join_broken_words(quote.translate(_LIGATURES))
    paragraphs = _PARAGRAPH.split(joined)
    return "\n".join(_displayed(paragraph) for paragraph in paragraphs if paragraph.strip())
