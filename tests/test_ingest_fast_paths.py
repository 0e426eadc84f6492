"""Ingestion's fast paths (issue 15) give exactly the output of the slow paths they
replace: each is checked against the original walk, written out here."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import regex
import Stemmer  # type: ignore[import-not-found]
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt, rules_block

import searchtext_reference
from ragox.extract import Block, BlockKind, ExtractionError, ExtractOptions
from ragox.extract.html import extract_html
from ragox.extract.markdown import _MARKS, _blocks, _Lines, _parser, extract_markdown
from ragox.extract.plain import _CONTROLS, control_count
from ragox.extract.rst import extract_rst
from ragox.ingest._pipeline import _Fresh
from ragox.ingest._searchtext import build_search_text
from ragox.ingest._sentences import _FINDALL_SPAN, token_count
from ragox.search import _analyze
from ragox.service import Ragox
from ragox.text import BASE_PROFILE, Alignment, AlignmentBuilder, Coordinates, Span, step_by_name
from ragox.text._normalize import _composable_seconds, _scan_composable_seconds

DATA = Path(__file__).parent / "data"

RUNS = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12)


@given(st.integers(0, 4), RUNS, st.integers(0, 2), st.integers(0, 6))
def test_replace_runs_appends_the_segments_of_the_copy_replace_loop(
    prefix: int, gaps_and_lengths: list[tuple[int, int]], width: int, tail: int
) -> None:
    """``AlignmentBuilder.replace_runs`` builds the alignment that the per-run
    ``copy``/``replace`` calls build, after whatever the builder already holds."""
    runs: list[tuple[int, int]] = []
    position = 0
    for gap, length in gaps_and_lengths:
        runs.append((position + gap, position + gap + length))
        position += gap + length
    length = position + tail
    slow, fast = AlignmentBuilder(), AlignmentBuilder()
    for builder in (slow, fast):
        builder.copy(prefix)
        builder.replace(1, 0)
    position = 0
    for start, end in runs:
        slow.copy(start - position)
        slow.replace(width, end - start)
        position = end
    slow.copy(length - position)
    assert fast.replace_runs(iter(runs), width, length) == len(runs)
    assert fast.build() == slow.build()


def test_replace_runs_refuses_overlapping_runs() -> None:
    with pytest.raises(ValueError, match="order"):
        AlignmentBuilder().replace_runs([(2, 4), (3, 5)], 1, 6)


WORDS = st.lists(st.sampled_from(["word", " ", "\n", "Ünïcode", "-", "42", "日本", "__"]))


@given(WORDS.map("".join), st.data())
def test_token_count_counts_the_word_matches(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected = sum(1 for _ in regex.finditer(r"\w+", text[start:end]))
    # a range cut inside a word counts the part inside, as the match walk did
    assert token_count(text, start, end) == expected


def test_token_count_of_a_range_longer_than_one_findall() -> None:
    """Past ``_FINDALL_SPAN`` the count is taken match by match: the same number."""
    text = "alpha beta-gamma " * (_FINDALL_SPAN // 8)
    assert len(text) > _FINDALL_SPAN
    assert token_count(text) == 3 * (_FINDALL_SPAN // 8)
    assert token_count(text, 3, len(text) - 2) == 3 * (_FINDALL_SPAN // 8)


@given(st.text(alphabet=st.sampled_from("\x01\x07\t\n\x0b\x0c\r\x0e\x1f a\x7f\x85"), max_size=60))
def test_control_characters_are_counted_as_one_by_one(text: str) -> None:
    assert control_count(text) == sum(1 for ch in text if ch in _CONTROLS)


def _lines_walk(text: str, parsed_from: int) -> tuple[list[int], list[int], list[int]]:
    """The general line walk (any line break), as ``_Lines`` did it for every text."""
    starts, ends = [parsed_from], []
    for found in re.finditer(r"\r\n?|\n", text):
        ends.append(found.start())
        starts.append(found.end())
    ends.append(len(text))
    md_starts, position = [], 0
    for start, end in zip(starts, ends, strict=True):
        md_starts.append(position)
        position += end - start + 1
    return starts, ends, md_starts


@given(st.lists(st.sampled_from(["a", "\n", "bc\n", "\n\n", "  x", "\r\n", "\r"])).map("".join))
def test_markdown_lines_match_the_general_walk(text: str) -> None:
    """The LF-only fast path of ``_Lines`` (and the CR path) give the walk's offsets."""
    for parsed_from, candidate in ((0, text), (1, "\ufeff" + text)):
        lines = _Lines(candidate, parsed_from)
        assert (lines.starts, lines.ends, lines.md_starts) == _lines_walk(candidate, parsed_from)


INPUTS = [
    DATA / "md" / "manual.md",
    DATA / "html" / "manual.html",
    DATA / "tables" / "parts.md",
    DATA / "tables" / "pump-specs.html",
    DATA / "pdf" / "ligatures.pdf",
]


@pytest.mark.both_backends
def test_indexing_from_memory_equals_indexing_from_the_store(app: Ragox, tmp_path: Path) -> None:
    """A run indexes the text and blocks it has just extracted and stored (``_Fresh``)
    instead of reading them back: they equal what the store gives back, and so do the
    search text, chunks and lexical rows built from them."""
    for source in INPUTS:
        item = app.ingest_path(source, source.parent)
        outcome = item.outcome
        assert outcome is not None and outcome.state.value == "READY", source
        record = app.store.get_revision("default", outcome.document_id, outcome.revision)
        assert record is not None and record.manifest_id is not None
        manifest_id = record.manifest_id
        _, extraction = app.ingestor.extract(record, source.read_bytes(), ExtractOptions())
        stored_text = app.store.text(manifest_id)
        stored_blocks = tuple(app.store.blocks(manifest_id))
        assert extraction.text == stored_text, source
        assert extraction.blocks == stored_blocks, source
        fresh = _Fresh(app.store, manifest_id, extraction.text, extraction.blocks)
        from_store = app.ingestor._index("default", outcome.document_id, manifest_id)
        from_memory = app.ingestor._index("default", outcome.document_id, manifest_id, fresh)
        assert from_memory[0] == from_store[0], source
        assert from_memory[1] == from_store[1], source
        assert list(from_memory[2].rows) == list(from_store[2].rows), source
        assert from_memory[2].language == from_store[2].language
        # and what the run stored is what indexing from the store builds
        assert [c.chunk_id for c in app.store.chunks(manifest_id)] == [
            c.chunk_id for c in from_store[1]
        ]


RST = b"""Title
=====

A paragraph with *emphasis*, spread
over two lines.

* an item
* another item

.. code-block:: text

   kept verbatim

Section
-------

Last words.
"""


@pytest.mark.parametrize("crlf", [False, True])
def test_verbatim_slices_source_ranges_are_the_alignments_map_back(crlf: bool) -> None:
    """Markdown and reStructuredText blocks of a text that normalization leaves as it
    is take their source range without an alignment lookup: the range the alignment
    gives (with CR LF line ends, the lookup itself)."""
    inputs = [
        (extract_markdown, (DATA / "md" / "manual.md").read_bytes()),
        (extract_markdown, (DATA / "tables" / "parts.md").read_bytes()),
        (extract_rst, RST),
    ]
    for extract, original in inputs:
        data = original.replace(b"\n", b"\r\n") if crlf else original
        extraction = extract(data, BASE_PROFILE, None)
        alignment = extraction.source_alignment
        assert alignment is not None and len(extraction.blocks) > 3
        for block in extraction.blocks:
            assert block.source is not None
            mapped = alignment.map_back(block.span.start, block.span.end)
            assert (block.source.start, block.source.end) == (mapped.start, mapped.end)


def _rule_recording_parser() -> MarkdownIt:
    """The parser as it was: every leaf rule wrapped, recording the line marks of the
    rule's lines into each token it made (the reference for the tokenizer wrapper)."""

    def recording(rule: Any) -> Any:
        def wrapped(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
            first_token = len(state.tokens)
            matched = bool(rule(state, start_line, end_line, silent))
            if matched and not silent:
                marks = {
                    line: (
                        state.bMarks[line],
                        state.bMarks[line] + state.tShift[line],
                        state.eMarks[line],
                    )
                    for line in range(start_line, state.line)
                }
                for token in state.tokens[first_token:]:
                    token.meta[_MARKS] = marks
            return matched

        return wrapped

    md = MarkdownIt("commonmark", {"maxNesting": 100}).enable("table")
    md.disable(["inline", "text_join"])
    leaves = {
        "table": (rules_block.table, ["paragraph", "reference"]),
        "code": (rules_block.code, []),
        "fence": (rules_block.fence, ["paragraph", "reference", "blockquote", "list"]),
        "html_block": (rules_block.html_block, ["paragraph", "reference", "blockquote"]),
        "heading": (rules_block.heading, ["paragraph", "reference", "blockquote"]),
        "lheading": (rules_block.lheading, []),
        "paragraph": (rules_block.paragraph, []),
    }
    for name, (rule, alt) in leaves.items():
        md.block.ruler.at(name, recording(rule), {"alt": alt})
    return md


NESTED = """# Title

> quoted *text*
> over two lines
lazily continued
>
> > nested quote
> > - item in a quote
> >   continued
>
> ```
> code in a quote
> ```

1. first
   - inner item

     inner paragraph
         indented code in a list
   - | a | b |
     |---|---|
     | c | d \\| e |
2. second
   > quote in a list
   > ## heading in a quote

Setext heading
--------------

<div>
html block
</div>

    indented code
"""


def test_markdown_marks_per_tokenizer_call_equal_marks_per_rule_call() -> None:
    """Recording line marks when each block-tokenizer call returns (one wrapper call
    per container) gives the blocks and cells that recording them around every leaf
    rule call gave, on nested quotes, lists, tables and code."""
    reference = _rule_recording_parser()
    documents = [
        NESTED,
        (DATA / "md" / "manual.md").read_text(encoding="utf-8"),
        (DATA / "tables" / "parts.md").read_text(encoding="utf-8"),
    ]
    for text in documents:
        lines = _Lines(text, 0)
        found = []
        for parser in (_parser(), reference):
            cells: dict[int, Any] = {}
            blocks = _blocks(parser.parse(text, {}), text, lines, 100, cells)
            found.append((blocks, cells))
        assert found[0] == found[1]
        assert len(found[0][0]) > 5


# -- the search text's steps (tests/searchtext_reference.py holds them as they were) --

NORMALIZE_PIECES = st.sampled_from(
    [
        "a",
        "Z",
        " ",
        "\n",
        "\r\n",
        "\t",
        "\u00a0",  # NFKC: a space
        "\u2026",  # NFKC: three full stops
        "ﬁ",
        "ﬃ",
        "\uff21",  # full-width A
        "x\u00b2",
        "e\u0301",
        "\u0301",  # a combining mark, also at a line start
        "\u0323\u0307",  # two marks out of canonical order
        "q\u0307\u0323",
        "Å",
        "\u212b",  # a singleton: Å
        "\u1100\u1161\u11a8",  # conjoining jamo
        "\uac00\u11a8",  # a syllable and a trailing jamo
        "\u0b47\u0b3e",  # a composable second that is a starter
        "\u0f73",  # a mark that decomposes
        "\u0344",
        "👨\u200d👩",
        "日本",
        "\u00ad",
        "-",
        "word",
    ]
)
NORMALIZE_TEXTS = st.lists(NORMALIZE_PIECES, max_size=40).map("".join)


@given(NORMALIZE_TEXTS, st.sampled_from(["NFC", "NFKC"]))
def test_normalization_step_equals_the_code_point_walk(text: str, form: str) -> None:
    """The step finds the chunks that may change by a pattern of the text's code
    points of interest: the same text and segments as walking every line that is not
    normalized code point by code point."""
    assert form in ("NFC", "NFKC")
    expected_text, expected = searchtext_reference.normalize(
        "NFC" if form == "NFC" else "NFKC", text
    )
    found_text, found = step_by_name(form).apply(text)
    assert found_text == expected_text
    assert found.to_bytes() == expected.to_bytes()


def test_composable_seconds_table_equals_the_scan() -> None:
    """The table of composable seconds kept for this Unicode version is the scan's."""
    assert _composable_seconds() == _scan_composable_seconds()


ALIGNMENT_OPS = st.lists(
    st.tuples(st.sampled_from(["copy", "replace", "insert", "delete"]), st.integers(1, 5)),
    max_size=12,
)


def _built(ops: list[tuple[str, int]], data: st.DataObject) -> Alignment:
    builder = AlignmentBuilder()
    for op, length in ops:
        if op == "copy":
            builder.copy(length)
        elif op == "insert":
            builder.replace(length, 0)
        elif op == "delete":
            builder.replace(0, length)
        else:
            builder.replace(data.draw(st.integers(1, 5)), length)
    return builder.build()


@given(ALIGNMENT_OPS, st.data())
def test_compose_equals_the_segment_walk(ops: list[tuple[str, int]], data: st.DataObject) -> None:
    """``Alignment.compose`` (one function, state in locals) builds the segments of
    the cursor walk it replaced, for alignments of copies, replacements, insertions
    and deletions that meet anywhere."""
    inner = _built(ops, data)
    # an outer alignment whose input is the inner one's output
    builder = AlignmentBuilder()
    left = inner.output_length
    for op, length in data.draw(ALIGNMENT_OPS):
        if op == "insert":
            builder.replace(length, 0)
            continue
        taken = min(length, left)
        left -= taken
        if op == "copy":
            builder.copy(taken)
        elif op == "delete":
            builder.replace(0, taken)
        else:
            builder.replace(data.draw(st.integers(0, 4)), taken)
    builder.copy(left)
    outer = builder.build()
    expected = searchtext_reference.compose(outer, inner)
    assert outer.compose(inner).to_bytes() == expected.to_bytes()


@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.integers(0, 2), st.data())
def test_collapsed_equals_the_copy_replace_loop(
    kept: list[int], width: int, data: st.DataObject
) -> None:
    """``Alignment.collapsed`` from run lengths is what a builder's per-run calls give."""
    runs = data.draw(st.lists(st.integers(0, 4), min_size=len(kept) - 1, max_size=len(kept) - 1))
    builder = AlignmentBuilder()
    for length, run in zip(kept, runs, strict=False):
        builder.copy(length)
        builder.replace(width, run)
    builder.copy(kept[-1])
    assert Alignment.collapsed(kept, runs, width).to_bytes() == builder.build().to_bytes()


SEARCH_INPUTS = [
    *sorted((DATA / "html").rglob("*.html")),
    DATA / "tables" / "pump-specs.html",
    DATA / "md" / "manual.md",
    DATA / "tables" / "parts.md",
]


@pytest.mark.parametrize("source", SEARCH_INPUTS, ids=lambda p: p.name)
def test_search_text_equals_the_reference_steps(source: Path) -> None:
    """``build_search_text`` (identity when nothing is dropped or inserted, white space
    collapsed from run lengths, the fast steps above) gives the reference's text,
    alignment and dropped blocks, with and without chunk spans."""
    data = source.read_bytes()
    try:
        if source.suffix == ".md":
            extraction = extract_markdown(data, BASE_PROFILE)
        else:
            extraction = extract_html(data, BASE_PROFILE)
    except ExtractionError:
        return  # a refused file has no search text
    text, blocks = extraction.text, extraction.blocks
    spans = [(b.span.start, b.span.end) for b in sorted(blocks, key=lambda b: b.span.start)]
    for chunk_spans in ((), spans[::2]):
        expected = searchtext_reference.build_search_text(text, blocks, chunk_spans)
        found = build_search_text(text, blocks, chunk_spans)
        assert found.text == expected.text
        assert found.alignment.to_bytes() == expected.alignment.to_bytes()
        assert found.dropped_blocks == expected.dropped_blocks


@given(NORMALIZE_TEXTS)
def test_search_text_of_plain_text_equals_the_reference_steps(text: str) -> None:
    """Random texts with marks, compatibility characters, hyphens and white space, as
    one paragraph block."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n"))
    block = Block(0, BlockKind.PARAGRAPH, Span(Coordinates.CODEPOINT, 0, len(text)), "p")
    expected = searchtext_reference.build_search_text(text, [block])
    found = build_search_text(text, [block])
    assert found.text == expected.text
    assert found.alignment.to_bytes() == expected.alignment.to_bytes()


STEM_WORDS = st.lists(
    st.sampled_from(["running", "runs", "ran", "Häuser", "häuser", "установка", "a", ""]),
    max_size=20,
)


@given(st.lists(STEM_WORDS, max_size=6), st.sampled_from(["en", "de", "ru"]))
def test_remembered_stems_are_the_stemmers(calls: list[list[str]], language: str) -> None:
    """The stemmer that remembers its stems gives PyStemmer's, call after call, also
    when it starts again (a small limit here)."""
    stems = _analyze._Stems(Stemmer.Stemmer(_analyze.SUPPORTED_LANGUAGES[language]))
    plain = Stemmer.Stemmer(_analyze.SUPPORTED_LANGUAGES[language])
    limit = _analyze._STEMS_KEPT
    try:
        _analyze._STEMS_KEPT = 3  # type: ignore[misc]
        for words in calls:
            assert stems.stemWords(words) == plain.stemWords(words)
    finally:
        _analyze._STEMS_KEPT = limit  # type: ignore[misc]
    assert stems.stemWords(["running", "runs"]) == plain.stemWords(["running", "runs"])
