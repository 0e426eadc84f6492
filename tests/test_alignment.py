"""Alignment maps: normalize → align → map back, composition, persistence."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ragox.text import (
    BASE_PROFILE,
    Alignment,
    AlignmentBuilder,
    DecodeError,
    Profile,
    decode_utf8_strict,
    step_by_name,
)

PIECES = st.sampled_from(
    [
        "a",
        "b",
        "u\u0308",
        "ü",
        "\r\n",
        "\r",
        "\n",
        "e\u0301",
        "ﬁ",
        "ﬃ",
        "\u00a0",
        "👨\u200d👩\u200d👧",
        "\u1100\u1161\u11a8",
        "\u0b47\u0b3e",
        "q\u0307\u0323",
        "Å",
        "\u212b",
        "x",
        " ",
    ]
)
TEXTS = st.lists(PIECES, max_size=40).map("".join)


@given(TEXTS)
def test_base_profile_matches_stdlib(text: str) -> None:
    """The stepwise result equals NFC of CRLF→LF, and the alignment spans both texts."""
    normalized = BASE_PROFILE.normalize_text(text)
    assert normalized.text == unicodedata.normalize("NFC", text.replace("\r\n", "\n"))
    assert normalized.alignment.output_length == len(normalized.text)
    assert normalized.alignment.input_length == len(text)


@given(TEXTS, st.data())
def test_exact_ranges_map_back_to_their_source(text: str, data: st.DataObject) -> None:
    """An exactly mapped range re-normalizes to the same output text."""
    normalized = BASE_PROFILE.normalize_text(text)
    out = normalized.text
    start = data.draw(st.integers(0, len(out)))
    end = data.draw(st.integers(start, len(out)))
    mapped = normalized.alignment.map_back(start, end)
    assert 0 <= mapped.start <= mapped.end <= len(text)
    if mapped.exact:
        source_piece = text[mapped.start : mapped.end]
        assert unicodedata.normalize("NFC", source_piece.replace("\r\n", "\n")) == out[start:end]
    else:
        # Widened: the source piece covers at least the output range.
        widened = unicodedata.normalize(
            "NFC", text[mapped.start : mapped.end].replace("\r\n", "\n")
        )
        assert out[start:end] in widened or len(widened) >= end - start


@given(TEXTS, st.data())
def test_composition_equals_sequential_mapping(text: str, data: st.DataObject) -> None:
    """compose(B→A, C→B) maps every boundary like mapping through both in turn."""
    crlf = step_by_name("crlf-to-lf")
    nfkc = step_by_name("NFKC")
    mid, first = crlf.apply(text)
    out, second = nfkc.apply(mid)
    composed = second.compose(first)
    assert composed.output_length == len(out) and composed.input_length == len(text)
    start = data.draw(st.integers(0, len(out)))
    end = data.draw(st.integers(start, len(out)))
    direct = composed.map_back(start, end)
    step1 = second.map_back(start, end)
    step2 = first.map_back(step1.start, step1.end)
    if step1.exact and step2.exact:
        assert direct.exact
        assert (direct.start, direct.end) == (step2.start, step2.end)
    assert direct.start <= step2.start or not direct.exact
    assert direct.end >= step2.end or not direct.exact


def test_crlf_alignment_segments() -> None:
    """CR LF becomes a 1←2 replacement between copies."""
    out, alignment = step_by_name("crlf-to-lf").apply("ab\r\ncd")
    assert out == "ab\ncd"
    assert alignment.segments() == [(0, 2, 0, 2, True), (2, 3, 2, 4, False), (3, 5, 4, 6, True)]
    assert alignment.map_back(3, 5).start == 4
    assert alignment.map_forward(4, 6).start == 3


def test_inside_replacement_widens_and_says_so() -> None:
    """An end inside a replacement widens to its edge and is marked inexact."""
    out, alignment = step_by_name("NFKC").apply("Oﬃce")
    assert out == "Office"
    mapped = alignment.map_back(1, 2)  # the first 'f' of the expanded ligature
    assert (mapped.start, mapped.end, mapped.exact) == (1, 2, False)
    assert alignment.map_back(0, 6) == alignment.map_back(0, 6)
    assert alignment.map_back(0, 6).exact


def test_deletions_and_insertions() -> None:
    """Zero-length segments map tightly: deleted input is outside adjacent ranges."""
    builder = AlignmentBuilder()
    builder.copy(2)
    builder.replace(0, 3)  # three input code points removed
    builder.copy(2)
    alignment = builder.build()
    assert alignment.map_back(2, 4).start == 5
    assert alignment.map_back(0, 2).end == 2
    assert alignment.map_back(0, 4) == alignment.map_back(0, 4)
    forward = alignment.map_forward(2, 5)
    assert forward.start == forward.end == 2


def test_persistence_roundtrip() -> None:
    """to_bytes/from_bytes keep every segment."""
    normalized = BASE_PROFILE.normalize_text("🔧 Mu\u0308ller\r\nPrüfung\r\n")
    restored = Alignment.from_bytes(normalized.alignment.to_bytes())
    assert restored == normalized.alignment


def test_strict_decoding_names_the_byte_offset() -> None:
    """Invalid UTF-8 is refused with the offset of the first invalid sequence."""
    try:
        decode_utf8_strict(b"abc\xc3\x28def")
    except DecodeError as error:
        assert error.byte_offset == 3
    else:
        raise AssertionError("invalid UTF-8 was accepted")
    try:
        decode_utf8_strict("ok ü ".encode() + b"\xff")
    except DecodeError as error:
        assert error.byte_offset == 6
    else:
        raise AssertionError("invalid UTF-8 was accepted")


def test_profile_ids_roundtrip_and_refuse_other_unicode() -> None:
    """A profile id names its steps and Unicode version; another version is refused."""
    assert Profile.from_id(BASE_PROFILE.id).id == BASE_PROFILE.id
    try:
        Profile.from_id("utf8-strict;crlf-to-lf;NFC;unicode-1.0.0")
    except ValueError:
        pass
    else:
        raise AssertionError("a foreign Unicode version was accepted")


def test_source_bytes_of_a_range() -> None:
    """A representation range maps back to the original bytes."""
    data = "🔧 Mu\u0308ller\r\nPrüfung\r\n".encode()
    normalized = BASE_PROFILE.normalize_bytes(data)
    from ragox.text import Coordinates, Span

    mapped = normalized.to_source_bytes(Span(Coordinates.CODEPOINT, 2, 16))
    assert mapped.exact
    assert data[mapped.start : mapped.end] == "Mu\u0308ller\r\nPrüfung".encode()


def test_composable_seconds_table_matches_a_full_scan() -> None:
    """The scan that skips ranges without decompositions finds every composable second."""
    from ragox.text._normalize import _composable_seconds

    full = set()
    for code_point in range(0x110000):
        parts = unicodedata.decomposition(chr(code_point)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            second = chr(int(parts[1], 16))
            if unicodedata.combining(second) == 0:
                full.add(second)
    assert full <= _composable_seconds()


_OPS = st.lists(st.tuples(st.booleans(), st.integers(0, 4), st.integers(0, 4)), max_size=10)


def _split_identity(length: int) -> Alignment:
    """The identity as two copy segments: composing with it takes the full walk (a
    builder's identity, one segment, takes the shortcut). Lengths under 2: the
    builder's identity."""
    from array import array

    if length < 2:
        return Alignment.identity(length)

    copy = Alignment.identity(1).to_bytes()[-1]
    half = length // 2
    return Alignment(
        array("q", [0, half, length]), array("q", [0, half, length]), bytes([copy] * 2)
    )


@given(_OPS)
def test_composing_with_an_unchanged_step_keeps_the_alignment_exactly(
    ops: list[tuple[bool, int, int]],
) -> None:
    """An identity on either side of ``compose`` gives back the other alignment, the
    same as the segment walk builds it (ingestion takes this shortcut for steps that
    changed nothing; stored alignments must not change)."""
    builder = AlignmentBuilder()
    for is_copy, out_length, in_length in ops:
        if is_copy:
            builder.copy(out_length)
        else:
            builder.replace(out_length, in_length)
    changed = builder.build()
    after = Alignment.identity(changed.output_length)
    before = Alignment.identity(changed.input_length)
    assert after.compose(changed) == changed
    assert changed.compose(before) == changed
    if changed.segment_count > 1 or not changed.is_identity():
        # the full walk (no shortcut on either side) builds the same segments
        assert _split_identity(changed.output_length).compose(changed) == changed
        assert changed.compose(_split_identity(changed.input_length)) == changed
    assert after.compose(changed).to_bytes() == changed.to_bytes()
