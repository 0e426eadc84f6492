"""The public names of the core packages are exactly the intended ones."""

from __future__ import annotations

import ragox.anchor
import ragox.text


def test_text_exports() -> None:
    """ragox.text exports its documented surface and nothing private."""
    assert set(ragox.text.__all__) == {
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
    }
    for name in ragox.text.__all__:
        assert getattr(ragox.text, name) is not None


def test_anchor_exports() -> None:
    """ragox.anchor exports its documented surface and nothing private."""
    assert set(ragox.anchor.__all__) == {
        "ANNO_CONTEXT",
        "MAX_CONTEXT",
        "RAGOX_NAMESPACE",
        "Anchor",
        "AnchorFormatError",
        "AnchorLookup",
        "BlockTarget",
        "Manifest",
        "ManifestSigner",
        "Migration",
        "MigrationMethod",
        "PageTarget",
        "Rect",
        "Refusal",
        "RepresentationIdentity",
        "Resolution",
        "ResolutionStatus",
        "StoredManifest",
        "TextQuote",
        "ViewerTarget",
        "canonical_json",
        "check_range",
        "create_anchor",
        "find_occurrences",
        "forget_memos",
        "from_web_annotation",
        "migrate_anchor",
        "resolve",
        "sha256_hex",
        "to_web_annotation",
        "web_selectors",
    }
    for name in ragox.anchor.__all__:
        assert getattr(ragox.anchor, name) is not None


def test_status_order_matches_design() -> None:
    """The statuses are declared in the order the resolver checks them (DESIGN §6)."""
    assert [s.value for s in ragox.anchor.ResolutionStatus] == [
        "RESOLVED",
        "ACCESS_DENIED",
        "MANIFEST_INVALID",
        "SOURCE_CHANGED",
        "PARSER_MISMATCH",
        "PROFILE_MISMATCH",
        "TEXT_CHANGED",
        "INVALID_RANGE",
        "QUOTE_NOT_FOUND",
        "AMBIGUOUS",
        "POSITION_MISMATCH",
    ]
