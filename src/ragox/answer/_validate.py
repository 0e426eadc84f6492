"""Citation validation: the seed's ``resolve_sources`` made strict (seed 001, 000).

A citation of an id that was not supplied never becomes a link; duplicates
collapse; a quote must occur exactly in the cited evidence and becomes an anchor
that resolves before it is shown; anything else is dropped as unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ragox.anchor import AnchorLookup, Refusal, create_anchor, find_occurrences, resolve
from ragox.answer._blocks import same_passage_key
from ragox.answer._model import (
    Citation,
    CitationStatus,
    Claim,
    Draft,
    DroppedClaim,
    Evidence,
)
from ragox.store import Store

__all__ = ["Validated", "ValidatedClaim", "validate"]


@dataclass(frozen=True, slots=True)
class ValidatedClaim:
    """A claim shown in the answer with its verified citation."""

    text: str
    citation: Citation


@dataclass(frozen=True, slots=True)
class Validated:
    claims: tuple[ValidatedClaim, ...]
    citations: tuple[Citation, ...]  # distinct, in order of first use
    dropped: tuple[DroppedClaim, ...]


def validate(
    draft: Draft, evidence: Sequence[Evidence], store: Store, lookup: AnchorLookup
) -> Validated:
    by_id = {item.source_id: item for item in evidence}
    claims: list[ValidatedClaim] = []
    citations: dict[str, Citation] = {}
    #: passage key → anchor id of the citation that stands for those words
    first_of: dict[str, str] = {}
    dropped: list[DroppedClaim] = []
    for claim in draft.claims:
        outcome = _check(claim, by_id, store, lookup)
        if isinstance(outcome, DroppedClaim):
            dropped.append(outcome)
            continue
        key = same_passage_key(outcome.anchor.quote.exact)
        first = first_of.setdefault(key, outcome.anchor.anchor_id)
        if first != outcome.anchor.anchor_id:
            # the same words elsewhere (HTML and PDF of one manual): cited once
            known = citations[first]
            if all(c.anchor.anchor_id != outcome.anchor.anchor_id for c in known.also_in):
                citations[first] = replace(known, also_in=(*known.also_in, outcome))
            continue
        citations.setdefault(outcome.anchor.anchor_id, outcome)
        claims.append(ValidatedClaim(claim.text, citations[outcome.anchor.anchor_id]))
    final = tuple(citations.values())
    by_anchor = {c.anchor.anchor_id: c for c in final}
    shown = tuple(ValidatedClaim(c.text, by_anchor[c.citation.anchor.anchor_id]) for c in claims)
    return Validated(shown, final, tuple(dropped))


def _check(
    claim: Claim, by_id: dict[str, Evidence], store: Store, lookup: AnchorLookup
) -> Citation | DroppedClaim:
    source = by_id.get(claim.source_id or "")
    if source is None:
        return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNKNOWN_SOURCE)
    quote = (claim.quote or "").strip()
    if not quote:
        return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
    if claim.quote_start is not None:
        # the generator says where it copied from: verify exactly that place
        offset = claim.quote_start + (claim.quote or "").find(quote)
        if source.text[offset : offset + len(quote)] != quote:
            return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
    else:
        hits = find_occurrences(source.text, quote, limit=2)
        if len(hits) != 1:
            # absent, or twice in the same passage: we do not pick one for the reader
            return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
        offset = hits[0]
    start = source.start + offset
    end = start + len(quote)
    record = store.get_manifest(source.manifest_id)
    if record is None:
        return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
    text = store.text(source.manifest_id)
    created = create_anchor(text, start, end, record.manifest.identity)
    if isinstance(created, Refusal):
        return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
    resolution = resolve(created, lookup)
    if not resolution.resolved:
        return DroppedClaim(claim.text, claim.source_id, CitationStatus.UNSUPPORTED)
    return Citation(source.source_id, created, resolution.status)
