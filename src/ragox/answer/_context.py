"""Context selection: permitted hits → evidence items S1, S2, … (seed 001).

Overlapping or adjacent chunks of one representation are merged into one
passage; a passage that ends with a sentence introducing a block ("…as
follows:") is extended to the block's end, so that the command or the steps
are in the evidence; passages are taken round-robin across documents (diversity) in rank
order until a token budget is spent: at most three of one document, or, in a document
with numbered section headings, of one section (and five of the document).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from ragox.answer._blocks import block_end, is_introducer, may_introduce
from ragox.answer._model import Evidence
from ragox.ingest import split_sentences, token_count
from ragox.search import Hit
from ragox.store import Store

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


def _merge(hits: Sequence[Hit]) -> list[_Passage]:
    """Hits of one representation that overlap or touch become one passage."""
    passages: list[_Passage] = []
    for rank, hit in enumerate(hits):
        for passage in passages:
            if (
                passage.manifest_id == hit.manifest_id
                and hit.start <= passage.end + 2
                and passage.start <= hit.end + 2
            ):
                passage.start = min(passage.start, hit.start)
                passage.end = max(passage.end, hit.end)
                passage.chunk_ids.append(hit.chunk_id)
                passage.pages.update(hit.pages)
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
                )
            )
    return passages


#: how far past a passage's end the block an introducer announces may reach
_BLOCK_REACH = 1600


def _with_introduced_block(full: str, start: int, end: int) -> int:
    """The passage's end, moved past the block (a command, steps) that one of its last
    sentences introduces when the chunk ended before the block did."""
    if not may_introduce(full, start, end):
        return end  # no sentence of it announces anything
    for s_start, s_end in split_sentences(full, start, end)[-3:]:
        sentence = full[s_start:s_end]
        if not is_introducer(sentence):
            continue
        limit = min(len(full), s_end + _BLOCK_REACH)
        finish = block_end(full, s_end, sentence.rstrip().endswith(":"), limit, s_start)
        if finish is not None and finish > end:
            return finish
    return end


_HEADING = regex.compile(r"^[ \t]*\d+(?:\.\d+)+\.?[ \t]+\S", regex.MULTILINE)


def _section(full: str, start: int) -> int:
    """Where the section holding ``start`` begins (its numbered heading), or -1."""
    found = -1
    for match in _HEADING.finditer(full, 0, start + 1):
        found = match.start()
    return found


def select_context(
    store: Store, hits: Sequence[Hit], config: ContextConfig = ContextConfig()
) -> list[Evidence]:
    """Evidence for a generator, best first, within the budget, at most ``per_document``
    passages from any one document."""
    chosen: list[Evidence] = []
    per_section: dict[tuple[str, int], int] = {}
    per_document: dict[str, int] = {}
    spent = 0
    for passage in sorted(_merge(hits), key=lambda p: p.rank):
        if len(chosen) >= config.max_items:
            break
        full = store.text(passage.manifest_id)
        where = (passage.document_id, _section(full, passage.start))
        if (
            per_section.get(where, 0) >= config.per_document
            or per_document.get(passage.document_id, 0) >= config.per_document_sections
        ):
            continue  # leave room for other documents
        per_section[where] = per_section.get(where, 0) + 1
        per_document[passage.document_id] = per_document.get(passage.document_id, 0) + 1
        passage.end = _with_introduced_block(full, passage.start, passage.end)
        text = full[passage.start : passage.end]
        tokens = token_count(text)
        if chosen and spent + tokens > config.token_budget:
            continue
        spent += tokens
        chosen.append(
            Evidence(
                source_id=f"S{len(chosen) + 1}",
                document_id=passage.document_id,
                revision=passage.revision,
                manifest_id=passage.manifest_id,
                chunk_ids=tuple(passage.chunk_ids),
                start=passage.start,
                end=passage.end,
                text=text,
                pages=tuple(sorted(passage.pages)),
            )
        )
    return chosen
