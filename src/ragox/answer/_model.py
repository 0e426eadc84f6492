"""Value types of cited answers: evidence, claims, drafts, citations, answer records."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ragox.anchor import Anchor, ResolutionStatus

__all__ = [
    "Citation",
    "CitationStatus",
    "Claim",
    "Draft",
    "DroppedClaim",
    "Evidence",
    "Generator",
    "GeneratorError",
]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One passage supplied to a generator; ``source_id`` (S1, S2, …) is valid for one
    answer only. ``text`` is the representation text of ``[start, end)``."""

    source_id: str
    document_id: str
    revision: str
    manifest_id: str
    chunk_ids: tuple[str, ...]
    start: int  # representation code points
    end: int
    text: str
    pages: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Claim:
    """A statement of the answer with the source it cites and an exact supporting quote."""

    text: str
    source_id: str | None
    quote: str | None
    #: where the quote starts in the cited evidence text, when the generator knows it
    #: (the extractive one does); otherwise the quote must occur there exactly once
    quote_start: int | None = None


@dataclass(frozen=True, slots=True)
class Draft:
    """What a generator proposes; nothing in it is trusted until validated."""

    claims: tuple[Claim, ...]
    abstained: bool
    #: what the evidence lacks, in the generator's words (for abstentions)
    missing: str | None = None


class GeneratorError(Exception):
    """The generator failed (timeout, HTTP error, malformed reply): no answer at all."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Generator(Protocol):
    """Turns a question and evidence into a draft answer."""

    @property
    def name(self) -> str:
        """Identity recorded in the answer trace, e.g. ``extractive@1``."""
        ...

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft: ...


class CitationStatus(enum.Enum):
    """How a claim's citation ended up."""

    #: the quote was found in the cited evidence and its anchor resolves
    VERIFIED = "VERIFIED"
    #: the claim's source id was not among the supplied evidence: never a link
    UNKNOWN_SOURCE = "UNKNOWN_SOURCE"
    #: no quote, or the quote is not exactly in the cited evidence
    UNSUPPORTED = "UNSUPPORTED"


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified citation: a source id and the anchor of its exact quote."""

    source_id: str
    anchor: Anchor
    status: ResolutionStatus
    #: the same passage in other representations or documents (the PDF of an HTML
    #: manual), each verified like this one; cited once, listed as "also in"
    also_in: tuple[Citation, ...] = ()


@dataclass(frozen=True, slots=True)
class DroppedClaim:
    """A claim that is not shown as cited, and why (for the trace)."""

    text: str
    source_id: str | None
    reason: CitationStatus
