"""Context selection: permitted hits → evidence items S1, S2, … (seed 001).

Overlapping or adjacent chunks of one representation are merged into one
passage; a passage that ends with a sentence introducing a block ("…as
follows:") is extended to the block's end, so that the command or the steps
are in the evidence; passages are taken round-robin across documents (diversity) in rank
order until a token budget is spent: at most three of one document, or, in a document
with numbered section headings, of one section (and five of the document).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import regex

from ragox.answer._blocks import (
    ALTERNATIVE,
    block_end,
    goes_on_after_block,
    is_introducer,
    leads_into_block,
    list_runs,
    listed_block_end,
    may_introduce,
)
from ragox.answer._model import Evidence
from ragox.answer._support import points_back
from ragox.ingest import split_sentences, token_count
from ragox.search import Hit
from ragox.store import Store, StoreError

__all__ = ["ContextConfig", "select_context"]


@dataclass(frozen=True, slots=True)
class ContextConfig:
    #: most word tokens of evidence handed to a generator
    token_budget: int = 1500
    #: most evidence items from one document before others get a turn; in a document
    #: with numbered section headings, from one section (a handbook's long chapter
    #: holds the answer in another section than its first three hits)
    per_document: int = 3
    #: …and from one document over all its sections
    per_document_sections: int = 5
    max_items: int = 8


@dataclass
class _Passage:
    document_id: str
    revision: str
    manifest_id: str
    start: int
    end: int
    chunk_ids: list[str]
    pages: set[int]
    rank: int
    #: the same passage in other chunks (a collapsed search's ``also_in``)
    copies: list[Hit] = field(default_factory=list)


def _touch(one: Hit | _Passage, other: Hit) -> bool:
    """Ranges of one representation that overlap or touch."""
    return (
        one.manifest_id == other.manifest_id
        and one.start <= other.end + 2
        and other.start <= one.end + 2
    )


def _merge(hits: Sequence[Hit]) -> list[_Passage]:
    """Hits of one representation that overlap or touch become one passage; so do a
    hit and the chunks listed as its copies that overlap it (two overlapping chunks of
    one text look alike): those are part of its passage, the others are copies."""
    flat: list[tuple[Hit, tuple[Hit, ...]]] = []
    for hit in hits:
        own = tuple(other for other in hit.also_in if _touch(hit, other))
        flat.append((hit, tuple(other for other in hit.also_in if other not in own)))
        flat.extend((other, ()) for other in own)
    passages: list[_Passage] = []
    for rank, (hit, copies) in enumerate(flat):
        for passage in passages:
            if _touch(passage, hit):
                passage.start = min(passage.start, hit.start)
                passage.end = max(passage.end, hit.end)
                passage.chunk_ids.append(hit.chunk_id)
                passage.pages.update(hit.pages)
                passage.copies.extend(copies)
                break
        else:
            passages.append(
                _Passage(
                    hit.document_id,
                    hit.revision,
                    hit.manifest_id,
                    hit.start,
                    hit.end,
                    [hit.chunk_id],
                    set(hit.pages),
                    rank,
                    list(copies),
                )
            )
    return passages


#: how far past a passage's end the block an introducer announces may reach
_BLOCK_REACH = 1600


_Lists = tuple[tuple[tuple[int, int], ...], ...]


def _extended(
    store: Store, manifest_id: str, full: str, start: int, end: int, steps: bool = False
) -> tuple[int, _Lists]:
    """The passage's end, moved past the block (a command, steps, an HTML list) that one
    of its last sentences introduces when the chunk ended before the block did; and
    the HTML lists inside the passage so extended (offsets in its text). The blocks
    are read once, and only where a sentence of the passage may introduce one, or
    for a how-to question (``steps``: a list of steps under its section's title is
    quoted whole, introduced by no sentence)."""
    goes_on = _sentence_goes_on(full, start, end)
    if not may_introduce(full, start, end):
        runs: _Lists = _lists(store, manifest_id, full, start, end) if steps else ()
        extended = goes_on  # no sentence of it announces anything
    else:
        runs = _lists(store, manifest_id, full, start, min(len(full), end + _BLOCK_REACH))
        extended = max(goes_on, _with_introduced_block(full, start, end, runs))
    if extended > end:
        # never into a page's navigation (a menu's items after "see the following
        # pages:"): it is no part of the text, and no answer quotes it
        stop = store.navigation_start(manifest_id, end, extended)
        if stop is not None:
            while stop > end and full[stop - 1].isspace():
                stop -= 1
            extended = max(end, stop)
    end = extended
    inside = (tuple((s - start, e - start) for s, e in items if e <= end) for items in runs)
    return end, tuple(items for items in inside if len(items) >= 2)


#: the longest paragraph taken in before such a passage: a release's head line ("Debian
#: 8 Jessie (April 2015): …"), a heading, not a section's text
_LEAD_CHARS: Final = 300


def _led(full: str, start: int) -> int:
    """The start of the short paragraph right before a passage that opens by pointing
    back, else ``start``."""
    # (the passage's first paragraph: one that opens with a heading is named by it)
    first = full[start : start + 200].split("\n\n", 1)[0]
    if not points_back(first):
        return start
    end = start  # the end of what comes before, white space left out
    while end > 0 and full[end - 1].isspace():
        end -= 1
    # (searched in place: the whole text before a passage is not copied)
    lead = full.rfind("\n\n", 0, end) + 2 if end else 0
    if lead == 1:  # no paragraph break before it: the text's first paragraph
        lead = 0
    if not end or end - lead > _LEAD_CHARS:
        return start
    return lead


def _sentence_goes_on(full: str, start: int, end: int) -> int:
    """The end of the sentence that the passage's last one goes on with after its
    block, when the chunk ended with the block: the passage's last paragraph follows a
    sentence that runs into it or introduces it ("… you could add" + "log
    /var/log/dpkg.log", "… a file containing the line:" + "blacklist tulip"), and the
    next paragraph goes on with that sentence (:func:`goes_on_after_block`: "to your
    /etc/dpkg/dpkg.cfg."); else ``end``."""
    begin = len(full) - len(full[end:].lstrip())
    if begin >= len(full) or begin - end > _CONTINUATION_GAP:
        return end
    if not goes_on_after_block(full, begin):
        return end
    block = full.rfind("\n\n", start, len(full[:end].rstrip()))
    before = split_sentences(full, start, block) if block > start else []
    last = full[before[-1][0] : before[-1][1]] if before else ""
    # the block may be another way's ("… verwenden Sie" + "sha256sum …" + "bzw." +
    # "sha512sum …"): the sentence that runs into the first one is the one going on
    for _ in range(_ALTERNATIVES):
        if not before or not ALTERNATIVE.fullmatch(last.strip() + "\n\n"):
            break
        block = full.rfind("\n\n", start, len(full[: before[-1][0]].rstrip()))
        before = split_sentences(full, start, block) if block > start else []
        last = full[before[-1][0] : before[-1][1]] if before else ""
    if not leads_into_block(last):
        return end
    sentences = split_sentences(full, begin, min(len(full), begin + _BLOCK_REACH))
    if not sentences:
        return end
    # "or (preferred):" above a command of its own is another way, not the sentence's end
    going_on = full[sentences[0][0] : sentences[0][1]]
    return end if leads_into_block(going_on) else sentences[0][1]


#: the most other ways' blocks gone back over
_ALTERNATIVES: Final = 3
#: the most white space between a passage's end and the sentence it goes on with
_CONTINUATION_GAP: Final = 8


def _with_introduced_block(full: str, start: int, end: int, runs: _Lists) -> int:
    for s_start, s_end in split_sentences(full, start, end)[-3:]:
        sentence = full[s_start:s_end]
        if not is_introducer(sentence):
            continue
        limit = min(len(full), s_end + _BLOCK_REACH)
        finish = block_end(full, s_end, sentence.rstrip().endswith(":"), limit, s_start)
        listed = listed_block_end(full, s_end, runs)
        if listed is not None and (finish is None or listed > finish):
            finish = listed
        if finish is not None and finish > end:
            return finish
    return end


def _lists(store: Store, manifest_id: str, full: str, start: int, end: int) -> _Lists:
    """The HTML lists of ``full[start:end]`` from the representation's blocks (offsets
    in ``full``); none in a text without lists (a PDF's blocks are no list items)."""
    blocks = [  # an HTML element's path; a PDF's blocks are located by their page
        (max(b_start, start), min(b_end, end), locator)
        for b_start, b_end, locator in store.block_paths(manifest_id, start, end)
    ]
    return list_runs(full, [b for b in blocks if b[0] < b[1]])


#: a numbered heading's line, from its start to the first character of its title
_HEADING_BODY: Final = r"[ \t]*\d+(?:\.\d+)+\.?[ \t]+\S"
_HEADING = regex.compile("^" + _HEADING_BODY, regex.MULTILINE)


#: a numbered heading that opens a line after the text's first, with that line's
#: "\n" (a pattern that starts with a literal is looked for ten times faster)
_HEADING_LINE: Final = re.compile("\n" + _HEADING_BODY)
#: how far back, in code points, each step of the search for a section's heading looks
_HEADING_WINDOW: Final = 4096


def _section(full: str, start: int) -> int:
    """Where the section holding ``start`` begins (its numbered heading, :data:`_HEADING`:
    the last one that ends by ``start + 1``), or -1. Looked for backwards, whole lines
    at a time: a heading lies within its line, so the lines of a window hold the
    headings a scan from the text's start would find there, and the cost is the
    distance to the heading, not to the text's start (a manual's chapter is 400 kB)."""
    end = start + 1
    while True:
        newline = full.rfind("\n", 0, max(0, end - _HEADING_WINDOW))  # -1: none before
        found = -1
        for match in _HEADING_LINE.finditer(full, max(newline, 0), end):
            found = match.start() + 1
        if found >= 0:
            return found
        if newline < 0:  # the window reached the first line
            return 0 if _HEADING.match(full, 0, end) else -1
        end = newline  # the lines before this window's first


def select_context(
    store: Store,
    hits: Sequence[Hit],
    config: ContextConfig = ContextConfig(),
    lead: bool = False,
    steps: bool = False,
) -> list[Evidence]:
    """Evidence for a generator, best first, within the budget, at most ``per_document``
    passages from any one document.

    Hits of a collapsed search bring the same passage in other documents (``also_in``:
    the PDF of an HTML manual, its reStructuredText source) with them: each copy of a
    chosen passage follows it as evidence of its own, so that an answer can list it
    as "also in", but takes no place, budget or document share from other passages
    (four copies of one section took most of the evidence for a question about a
    manual ingested as HTML, PDF and source).

    With ``lead`` (a question after which version did something), a passage that opens
    by pointing back ("In dieser Veröffentlichung wird erstmals systemd …") begins with
    the short paragraph before it, which names what it points at (:func:`_led`). With
    ``steps`` (a how-to question) every passage's HTML lists are read (:func:`_extended`)."""
    chosen: list[Evidence] = []
    per_section: dict[tuple[str, int], int] = {}
    per_document: dict[str, int] = {}
    spent = 0
    places = 0  # evidence items that are no copies
    for passage in sorted(_merge(hits), key=lambda p: p.rank):
        if places >= config.max_items:
            break
        if _taken(passage, [item for item in chosen if item.copy_of is not None]):
            continue  # evidence already, as the copy of a passage chosen before
        try:
            full = store.text(passage.manifest_id)
        except StoreError:
            continue  # deleted (by another process) since its hits were read
        where = (passage.document_id, _section(full, passage.start))
        if (
            per_section.get(where, 0) >= config.per_document
            or per_document.get(passage.document_id, 0) >= config.per_document_sections
        ):
            continue  # leave room for other documents
        per_section[where] = per_section.get(where, 0) + 1
        per_document[passage.document_id] = per_document.get(passage.document_id, 0) + 1
        if lead:
            passage.start = _led(full, passage.start)
        passage.end, lists = _extended(
            store, passage.manifest_id, full, passage.start, passage.end, steps
        )
        text = full[passage.start : passage.end]
        tokens = token_count(text)
        if chosen and spent + tokens > config.token_budget:
            continue
        spent += tokens
        places += 1
        original = _evidence(passage, text, len(chosen) + 1, lists=lists)
        chosen.append(original)
        for copy in _merge(passage.copies):
            if _taken(copy, chosen):
                continue  # already evidence (a hit of its own, or another's copy)
            try:
                copy_text = store.text(copy.manifest_id)
            except StoreError:
                continue  # deleted since its hits were read
            copy.end, copy_lists = _extended(
                store, copy.manifest_id, copy_text, copy.start, copy.end, steps
            )
            copied = copy_text[copy.start : copy.end]
            chosen.append(
                _evidence(
                    copy,
                    copied,
                    len(chosen) + 1,
                    original.source_id,
                    copy_lists,
                )
            )
    languages = store.index.representation_languages(sorted({e.manifest_id for e in chosen}))
    return [
        replace(
            e,
            document_language=languages.get(e.manifest_id),
            section_title=_section_title(store, e.manifest_id, e.start),
        )
        for e in chosen
    ]


#: the most of a section's title an evidence item carries
_TITLE_CHARS = 300
#: how far before a passage its section's title may end: a heading further back is
#: no title of the passage (a page's only heading above a thousand paragraphs, or
#: sections the markup does not mark as headings)
_TITLE_REACH = 4000


def _section_title(store: Store, manifest_id: str, start: int) -> str | None:
    """The text of the last heading block that ends by ``start`` (the passage does not
    open with it) and at most :data:`_TITLE_REACH` before it, white space collapsed;
    None without one."""
    # (a heading that ends within reach starts a title's length before that at most)
    found = store.heading_before(manifest_id, start, start - _TITLE_REACH - _TITLE_CHARS)
    if found is None or found[1] > start or start - found[1] > _TITLE_REACH:
        return None
    title = " ".join(store.text(manifest_id)[found[0] : found[1]].split())
    return title[:_TITLE_CHARS] or None


def _taken(passage: _Passage, chosen: Sequence[Evidence]) -> bool:
    """Some of the passage's range is evidence already."""
    return any(
        item.manifest_id == passage.manifest_id
        and passage.start < item.end
        and item.start < passage.end
        for item in chosen
    )


def _evidence(
    passage: _Passage,
    text: str,
    number: int,
    copy_of: str | None = None,
    lists: _Lists = (),
) -> Evidence:
    return Evidence(
        source_id=f"S{number}",
        document_id=passage.document_id,
        revision=passage.revision,
        manifest_id=passage.manifest_id,
        chunk_ids=tuple(passage.chunk_ids),
        start=passage.start,
        end=passage.end,
        text=text,
        pages=tuple(sorted(passage.pages)),
        copy_of=copy_of,
        lists=lists,
    )
