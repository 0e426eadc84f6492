"""The strict resolver (DESIGN §6).

It checks, in order, and stops at the first failure: access now, manifest
integrity, source bytes, parser, profile, text, range, quote with context, and
position. It never repairs an anchor by picking a match, and a failure carries a
status and a reason code, never the protected text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ragox.anchor._create import check_range, find_occurrences
from ragox.anchor._model import (
    MEMO_QUOTE_LIMIT,
    Anchor,
    Manifest,
    Resolution,
    ResolutionStatus,
    ViewerTarget,
    _anchor_id,
)
from ragox.text import Coordinates, Span

__all__ = ["AnchorLookup", "StoredManifest", "forget_memos", "resolve"]


@dataclass(frozen=True, slots=True)
class StoredManifest:
    """A manifest as the store holds it, with the outcome of its HMAC check."""

    manifest: Manifest
    manifest_id: str
    authentic: bool
    #: This representation is the current one of its revision, and the revision
    #: is the document's current revision.
    current: bool


class AnchorLookup(Protocol):
    """What the resolver needs from a store; access is decided on every call."""

    def can_read(self, document_id: str, revision: str) -> bool:
        """Whether the caller may read this revision now (never from a cache)."""
        ...

    def manifests(self, document_id: str, revision: str) -> Sequence[StoredManifest]:
        """Retained representations of the revision, the current one first."""
        ...

    def text(self, manifest_id: str) -> str:
        """The representation text of a manifest."""
        ...

    def target(self, manifest_id: str, span: Span) -> ViewerTarget | None:
        """Blocks and page rectangles that a verified range covers."""
        ...


def _fail(anchor_id: str, status: ResolutionStatus, reason: str) -> Resolution:
    return Resolution(status=status, reason=reason, anchor_id=anchor_id)


def _choose(anchor: Anchor, manifests: Sequence[StoredManifest]) -> StoredManifest:
    """The representation the anchor names, else the current one to compare with."""
    wanted = anchor.identity
    for stored in manifests:
        if stored.manifest.identity == wanted:
            return stored
    return manifests[0]


# The verdict of steps 6–8 is a pure function of the text and the anchor's range and
# quote. The text is named by its SHA-256, which step 5 has just found equal in the
# anchor and in the HMAC-checked manifest, so a verdict is remembered by that digest
# instead of scanning a long text for the quote on every resolution. Steps 1–5
# (access, manifest integrity, identities) are never remembered.
_VerdictKey = tuple[str, int, int, str, str, str]
_VERDICTS: OrderedDict[_VerdictKey, tuple[ResolutionStatus, str] | None] = OrderedDict()
_VERDICTS_LOCK = threading.Lock()
_VERDICTS_LIMIT: Final = 8192


def forget_memos() -> None:
    """Drop every remembered verdict and anchor id: their keys hold quotes, which are
    document text. Called when a document is deleted or records are purged."""
    with _VERDICTS_LOCK:
        _VERDICTS.clear()
    _anchor_id.cache_clear()


def _text_verdict(
    text_sha256: str, text: str, anchor: Anchor
) -> tuple[ResolutionStatus, str] | None:
    quote = anchor.quote
    if len(quote.prefix) + len(quote.exact) + len(quote.suffix) > MEMO_QUOTE_LIMIT:
        return _check_text(text, anchor)
    key = (text_sha256, anchor.start, anchor.end, quote.prefix, quote.exact, quote.suffix)
    with _VERDICTS_LOCK:
        if key in _VERDICTS:
            _VERDICTS.move_to_end(key)
            return _VERDICTS[key]
    verdict = _check_text(text, anchor)
    with _VERDICTS_LOCK:
        _VERDICTS[key] = verdict
        if len(_VERDICTS) > _VERDICTS_LIMIT:
            _VERDICTS.popitem(last=False)
    return verdict


def _check_text(text: str, anchor: Anchor) -> tuple[ResolutionStatus, str] | None:
    """Steps 6–8 on the text itself: the failure, or None when the passage is verified."""
    # 6. A well-formed range inside the text, on grapheme boundaries.
    reason = check_range(text, anchor.start, anchor.end)
    if reason is not None:
        return ResolutionStatus.INVALID_RANGE, reason
    # 7. Every occurrence of prefix + exact + suffix; exactly one may remain.
    quote = anchor.quote
    if not quote.exact:
        return ResolutionStatus.QUOTE_NOT_FOUND, "empty_quote"
    occurrences = find_occurrences(text, quote.prefix + quote.exact + quote.suffix, limit=2)
    if not occurrences:
        return ResolutionStatus.QUOTE_NOT_FOUND, "quote_not_in_text"
    if len(occurrences) > 1:
        return ResolutionStatus.AMBIGUOUS, "quote_occurs_more_than_once"
    # 8. The single occurrence must be the stored position, both ends.
    found = occurrences[0] + len(quote.prefix)
    if found != anchor.start or found + len(quote.exact) != anchor.end:
        return ResolutionStatus.POSITION_MISMATCH, "position_differs"
    return None


def resolve(anchor: Anchor, lookup: AnchorLookup) -> Resolution:
    """Resolve ``anchor`` for the caller behind ``lookup``."""
    anchor_id = anchor.anchor_id
    ident = anchor.identity
    # 1. Access, decided now. Unknown documents look exactly like forbidden ones.
    if not lookup.can_read(ident.document_id, ident.revision):
        return _fail(anchor_id, ResolutionStatus.ACCESS_DENIED, "access_denied")
    manifests = lookup.manifests(ident.document_id, ident.revision)
    if not manifests:
        return _fail(anchor_id, ResolutionStatus.ACCESS_DENIED, "access_denied")
    stored = _choose(anchor, manifests)
    if not stored.authentic:
        return _fail(anchor_id, ResolutionStatus.MANIFEST_INVALID, "manifest_hmac_mismatch")
    manifest = stored.manifest
    # 2.–5. The three identities, most fundamental first.
    if ident.source_sha256 != manifest.source_sha256:
        return _fail(anchor_id, ResolutionStatus.SOURCE_CHANGED, "source_sha256_differs")
    if ident.parser != manifest.parser:
        return _fail(anchor_id, ResolutionStatus.PARSER_MISMATCH, "parser_differs")
    if ident.profile != manifest.profile:
        return _fail(anchor_id, ResolutionStatus.PROFILE_MISMATCH, "profile_differs")
    if ident.text_sha256 != manifest.text_sha256:
        return _fail(anchor_id, ResolutionStatus.TEXT_CHANGED, "text_sha256_differs")
    # 6. A well-formed range inside the text, on grapheme boundaries.
    if anchor.coordinates is not Coordinates.CODEPOINT:
        return _fail(anchor_id, ResolutionStatus.INVALID_RANGE, "coordinates_not_codepoint")
    text = lookup.text(stored.manifest_id)
    # 6.–8. depend on nothing but the text and the anchor's range and quote.
    verdict = _text_verdict(manifest.text_sha256, text, anchor)
    if verdict is not None:
        return _fail(anchor_id, *verdict)
    span = Span(Coordinates.CODEPOINT, anchor.start, anchor.end)
    return Resolution(
        status=ResolutionStatus.RESOLVED,
        reason="verified",
        anchor_id=anchor_id,
        manifest_id=stored.manifest_id,
        range=span,
        exact=text[anchor.start : anchor.end],
        current=stored.current,
        target=lookup.target(stored.manifest_id, span),
    )
