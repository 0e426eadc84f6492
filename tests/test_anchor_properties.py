"""Property tests: created anchors resolve to exactly their range; mutations never
resolve to a different one."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchorlookup import MemoryLookup
from ragox.anchor import Anchor, Refusal, ResolutionStatus, TextQuote, create_anchor, resolve
from ragox.text import grapheme_boundaries

PIECES = st.sampled_from(
    [
        "Prüfung",
        "Mu\u0308ller",
        "\r\n",
        "\n",
        " ",
        "👨\u200d👩\u200d👧",
        "🔧",
        "e\u0301",
        "q\u0307",
        "\u00a0",
        "Oﬃce",
        "ﬁ",
        "A:",
        "Seal",
        "seal",
        "🇩🇪",
        "x",
        ".",
        "Warnung",
    ]
)
TEXTS = st.lists(PIECES, min_size=1, max_size=50).map("".join)


def _grapheme_range(text: str, data: st.DataObject) -> tuple[int, int]:
    bounds = list(grapheme_boundaries(text))
    i = data.draw(st.integers(0, len(bounds) - 2))
    j = data.draw(st.integers(i + 1, len(bounds) - 1))
    return bounds[i], bounds[j]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.data())
def test_created_anchors_resolve_to_exactly_their_range(source: str, data: st.DataObject) -> None:
    """Every grapheme-aligned range whose anchor can be created resolves to that range."""
    lookup = MemoryLookup.of_source(source)
    text = lookup.text_value
    if not text:
        return
    start, end = _grapheme_range(text, data)
    created = create_anchor(text, start, end, lookup.identity)
    if isinstance(created, Refusal):
        assert created.status is ResolutionStatus.AMBIGUOUS
        return
    assert created.quote.exact == text[start:end]
    result = resolve(created, lookup)
    assert result.status is ResolutionStatus.RESOLVED
    assert result.range is not None
    assert (result.range.start, result.range.end) == (start, end)
    assert result.exact == text[start:end]
    roundtrip = Anchor.from_json(created.to_json())
    assert roundtrip == created and roundtrip.anchor_id == created.anchor_id


MUTATION_KINDS = ["exact", "prefix", "suffix", "start", "end", "shift"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.data())
def test_mutations_never_resolve_elsewhere(source: str, data: st.DataObject) -> None:
    """A mutated quote, context or position is refused or still names the same passage."""
    lookup = MemoryLookup.of_source(source)
    text = lookup.text_value
    if not text:
        return
    start, end = _grapheme_range(text, data)
    created = create_anchor(text, start, end, lookup.identity)
    if isinstance(created, Refusal):
        return
    kind = data.draw(st.sampled_from(MUTATION_KINDS))
    piece = data.draw(st.text(min_size=0, max_size=4))
    delta = data.draw(st.integers(-5, 5))
    quote = created.quote
    mutated: Anchor
    if kind == "exact":
        mutated = dataclasses.replace(created, quote=TextQuote(piece, quote.prefix, quote.suffix))
    elif kind == "prefix":
        mutated = dataclasses.replace(created, quote=TextQuote(quote.exact, piece, quote.suffix))
    elif kind == "suffix":
        mutated = dataclasses.replace(created, quote=TextQuote(quote.exact, quote.prefix, piece))
    elif kind == "start":
        mutated = dataclasses.replace(created, start=created.start + delta)
    elif kind == "end":
        mutated = dataclasses.replace(created, end=created.end + delta)
    else:
        mutated = dataclasses.replace(created, start=created.start + delta, end=created.end + delta)
    result = resolve(mutated, lookup)
    if result.status is ResolutionStatus.RESOLVED:
        assert result.range is not None
        assert (result.range.start, result.range.end) == (start, end)
        assert result.exact == text[start:end]
        assert result.exact == mutated.quote.exact


def test_access_is_checked_first() -> None:
    """Access is decided before anything else, even for a broken anchor."""
    lookup = MemoryLookup.of_source("Prüfung A\nPrüfung B\n")
    created = create_anchor(lookup.text_value, 0, 7, lookup.identity)
    assert isinstance(created, Anchor)
    lookup.readable = False
    broken = dataclasses.replace(created, start=99, end=3)
    assert resolve(broken, lookup).status is ResolutionStatus.ACCESS_DENIED
