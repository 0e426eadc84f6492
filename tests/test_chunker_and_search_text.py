"""Chunking and search text: positions from the cursor, grapheme-safe, aligned back."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragox.anchor import Rect
from ragox.extract import Block, BlockKind
from ragox.ingest import (
    ChunkingConfig,
    build_search_text,
    chunk_id,
    chunk_representation,
    split_sentences,
)
from ragox.text import Alignment, Coordinates, Span, is_grapheme_boundary


def _blocks(text: str, separator: str = "\n\n") -> list[Block]:
    blocks, position = [], 0
    for index, part in enumerate(text.split(separator)):
        blocks.append(
            Block(
                index,
                BlockKind.PARAGRAPH,
                Span(Coordinates.CODEPOINT, position, position + len(part)),
                f"p{index}",
            )
        )
        position += len(part) + len(separator)
    return blocks


def test_repeated_sentences_get_their_own_positions() -> None:
    """A sentence that occurs twice is chunked at both of its positions, not the first."""
    sentence = "Disconnect power before opening the cover. "
    block = ("Intro words here. " + sentence * 3 + "Closing words. ") * 30
    text = block.strip()
    config = ChunkingConfig(target_tokens=20, max_tokens=30, overlap_tokens=7)
    chunks = chunk_representation("m", text, _blocks(text), Alignment.identity(len(text)), config)
    assert len(chunks) > 10
    starts = [c.start for c in chunks]
    assert starts == sorted(starts)
    assert len(set(starts)) == len(starts)
    for chunk in chunks:
        piece = text[chunk.start : chunk.end]
        assert piece == piece.strip()
        assert chunk.chunk_id == chunk_id("m", chunk.start, chunk.end)
    # overlap: consecutive pieces of one long block share whole sentences
    assert any(b.start < a.end for a, b in itertools.pairwise(chunks))


def test_small_blocks_pack_but_paragraphs_stay_apart() -> None:
    """A heading joins its paragraph; two full paragraphs stay two chunks."""
    paragraph = " ".join(["word"] * 60) + "."
    text = "Heading\n\n" + paragraph + "\n\n" + paragraph
    chunks = chunk_representation("m", text, _blocks(text), Alignment.identity(len(text)))
    assert len(chunks) == 2
    assert text[chunks[0].start : chunks[0].end].startswith("Heading\n\nword")
    assert [b.block_index for b in chunks[0].blocks] == [0, 1]
    assert [b.block_index for b in chunks[1].blocks] == [2]
    assert chunks[1].blocks[0].start == chunks[1].start


PIECES = st.sampled_from(
    [
        "Wort ",
        "word. ",
        "Satz! ",
        "👨\u200d👩\u200d👧 ",
        "e\u0301",
        "q\u0307 ",
        "\n\n",
        "ﬁsh ",
        "\u00a0",
        "x" * 30,
        "Я. ",
    ]
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, min_size=1, max_size=120).map("".join))
def test_chunks_never_split_graphemes_and_cover_text(text: str) -> None:
    """Chunk bounds are grapheme boundaries inside their blocks; all words are covered."""
    config = ChunkingConfig(target_tokens=8, max_tokens=12, small_tokens=3, overlap_tokens=3)
    blocks = [b for b in _blocks(text) if b.span.end > b.span.start]
    search = build_search_text(text, blocks)
    chunks = chunk_representation("m", text, blocks, search.alignment, config)
    for chunk in chunks:
        assert is_grapheme_boundary(text, chunk.start) and is_grapheme_boundary(text, chunk.end)
        assert 0 <= chunk.search_start <= chunk.search_end <= len(search.text)
        by_index = {b.index: b for b in blocks}
        for part in chunk.blocks:
            block = by_index[part.block_index]
            assert block.span.start <= part.start < part.end <= block.span.end
    covered = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    for position, ch in enumerate(text):
        if ch.isalnum():
            assert position in covered


def test_search_text_joins_hyphens_expands_ligatures_collapses_space() -> None:
    """'ma-\\nintenance' is one word, 'ﬁ' becomes 'fi', runs of space become one; every
    search range maps back into the representation."""
    text = "Regular ma-\nintenance of the ﬁlter   is   required.\n\nNext    block."
    search = build_search_text(text, _blocks(text))
    assert search.text == "Regular maintenance of the filter is required. Next block."
    start = search.text.index("maintenance")
    back = search.alignment.map_back(start, start + len("maintenance"))
    assert text[back.start : back.end] == "ma-\nintenance"
    fi = search.text.index("filter")
    back = search.alignment.map_back(fi, fi + len("filter"))
    assert text[back.start : back.end] == "ﬁlter"
    assert back.exact


def test_repeated_page_headers_are_dropped_from_search_text_only() -> None:
    """A header repeated at the top of every page and page-number footers are not indexed."""
    parts, blocks, position = [], [], 0
    for page in range(1, 6):
        for kind, words, y in (
            ("h", "ACME Pump Manual — Confidential", 20.0),
            ("b", f"Body text of page {page} about seals.", 300.0),
            ("f", f"Page {page} of 5", 800.0),
        ):
            index = len(blocks)
            blocks.append(
                Block(
                    index,
                    BlockKind.PDF_BLOCK,
                    Span(Coordinates.CODEPOINT, position, position + len(words)),
                    f"page={page};block={kind}",
                    page=page,
                    bbox=Rect(50.0, y, 500.0, y + 12.0),
                )
            )
            parts.append(words)
            position += len(words) + 2
    text = "\n\n".join(parts)
    search = build_search_text(text, blocks)
    assert "ACME" not in search.text and "of 5" not in search.text
    assert search.text.count("Body text of page") == 5
    assert len(search.dropped_blocks) == 10
    body = search.text.index("page 3")
    back = search.alignment.map_back(body, body + 6)
    assert text[back.start : back.end] == "page 3"


def test_sentence_positions_come_from_the_cursor() -> None:
    """Identical sentences get distinct spans; abbreviations do not end sentences."""
    text = "Dr. Roth prüft z.B. Dichtungen. Dr. Roth prüft z.B. Dichtungen. Т.е. всё."
    spans = split_sentences(text)
    assert [text[s:e] for s, e in spans] == [
        "Dr. Roth prüft z.B. Dichtungen.",
        "Dr. Roth prüft z.B. Dichtungen.",
        "Т.е. всё.",
    ]
    assert spans[0] != spans[1]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Tesla starb am 7. Januar 1943. Seine Arbeit geriet in Vergessenheit.", "1943."),
        ("Im 19. Jahrhundert wuchs die Stadt. Dann kam die Bahn.", "Stadt."),
        ("Die Galerie T.T. Tsui öffnete 1991. Sie zeigt Kunst.", "1991."),
        ("Shown by Jones et al. 1998 and Briffa 2000. Later work agreed.", "2000."),
        ("Rev. Paul T. Stallsworth spoke first. Others followed.", "first."),
        ("Галерея Т.Т. Цуй открылась в 1991 году. Она большая.", "году."),
        ("He died in 1943. Then his work was forgotten.", "1943."),
        ("Er wurde 7. Dann ging er nach Hause.", "7."),
    ],
)
def test_sentence_ends_skip_ordinals_initials_and_citations(text: str, first: str) -> None:
    """German ordinal dates, initials and "et al." end no sentence; a year or count does."""
    spans = split_sentences(text)
    assert len(spans) == 2
    assert text[spans[0][0] : spans[0][1]].endswith(first)


def test_a_short_wrapped_line_goes_on_its_sentence_and_a_heading_stays_one() -> None:
    """A README wraps prose at a fixed width: "offer faster compression and decompression
    speed" (six words, no full stop) is no heading when the line before it ends with a
    comma or with a word it goes on in lower case; it was a sentence of its own, and an
    answer quoted "at the cost of compression ratio (compared to level 1)." without
    its subject. Headings and option lines still stand alone."""
    text = (
        "The negative compression levels, specified with `--fast=#`,\n"
        "offer faster compression and decompression speed\n"
        "at the cost of compression ratio (compared to level 1).\n\n"
        "Chapter 1\nIntroduction\n"
        "Options:\n  -v  verbose\n  -q  quiet\n"
        "Prose wrapped at seventy-two characters in a plain text manual goes on\n"
        "on the next line.\n"
        "Die Datei /etc/hostname sollte nur den Rechnernamen des Systems und,\n"
        "keinen Domänennamen\nenthalten."
    )
    assert [text[s:e] for s, e in split_sentences(text)] == [
        "The negative compression levels, specified with `--fast=#`,\n"
        "offer faster compression and decompression speed\n"
        "at the cost of compression ratio (compared to level 1).",
        "Chapter 1",
        "Introduction",
        "Options:",
        "-v  verbose",
        "-q  quiet",
        "Prose wrapped at seventy-two characters in a plain text manual goes on\non the next line.",
        "Die Datei /etc/hostname sollte nur den Rechnernamen des Systems und,\n"
        "keinen Domänennamen\nenthalten.",
    ]
