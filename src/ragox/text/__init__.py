"""Text: normalization profiles, alignment maps, coordinates and grapheme checks.

Nothing here knows about storage or HTTP.
"""

from ragox.text._alignment import Alignment, AlignmentBuilder, MappedRange
from ragox.text._coords import (
    Coordinates,
    OffsetError,
    OffsetIndex,
    Span,
    codepoint_to_utf8,
    codepoint_to_utf16,
    convert,
    utf8_to_codepoint,
    utf16_to_codepoint,
)
from ragox.text._graphemes import (
    GRAPHEME_UNICODE_VERSION,
    grapheme_boundaries,
    is_grapheme_boundary,
    next_grapheme_boundary,
    previous_grapheme_boundary,
)
from ragox.text._normalize import (
    BASE_PROFILE,
    UNICODE_VERSION,
    DecodeError,
    Normalized,
    Profile,
    Step,
    decode_utf8_strict,
    step_by_name,
)
from ragox.text._passage import join_broken_words, near_same_passage, same_passage_key

__all__ = [
    "BASE_PROFILE",
    "GRAPHEME_UNICODE_VERSION",
    "UNICODE_VERSION",
    "Alignment",
    "AlignmentBuilder",
    "Coordinates",
    "DecodeError",
    "MappedRange",
    "Normalized",
    "OffsetError",
    "OffsetIndex",
    "Profile",
    "Span",
    "Step",
    "codepoint_to_utf8",
    "codepoint_to_utf16",
    "convert",
    "decode_utf8_strict",
    "grapheme_boundaries",
    "is_grapheme_boundary",
    "join_broken_words",
    "near_same_passage",
    "next_grapheme_boundary",
    "previous_grapheme_boundary",
    "same_passage_key",
    "step_by_name",
    "utf8_to_codepoint",
    "utf16_to_codepoint",
]
