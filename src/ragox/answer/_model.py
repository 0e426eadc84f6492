"""Value types of cited answers: evidence, claims, drafts, citations, answer records."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

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
    "Translation",
    "Translator",
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
    #: the source id of the passage this one repeats in another document (the PDF of
    #: an HTML manual; ``select_context``): there for "also in", so a generator that
    #: reads each passage once (a language model) leaves it out
    copy_of: str | None = None
    #: the HTML lists in ``text`` that a sentence of it may introduce, each as its
    #: items' spans (offsets in ``text``): the extractor's list items, which carry no
    #: marker in the text (``select_context``; empty where none was looked for)
    lists: tuple[tuple[tuple[int, int], ...], ...] = ()
    #: the language detected for the passage's whole document (``select_context``):
    #: an English paragraph left untranslated in a Russian manual is that manual's
    #: text for a Russian reader, not a passage of another language's manual
    document_language: str | None = None
    #: the title of the section the passage starts in (the last heading block before
    #: it, ``select_context``) when the passage does not open with it: a chunk that
    #: goes on a section ("With apt, you can set a package to hold using …" under
    #: "7.12. How do I put a package on hold?") is about what its title says
    section_title: str | None = None


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


@runtime_checkable
class Translator(Protocol):
    """A generator that can write in a reader's language and translate passages.

    Its translations are derived representations (seed 000): shown beside a quote,
    labelled with :attr:`name`, never anchored and never checked as a quote.
    """

    @property
    def name(self) -> str: ...

    def in_language(self, language: str) -> Translator:
        """This generator, writing its claims in ``language`` (an ISO 639-1 code) while
        its quotes stay verbatim in the evidence's language."""
        ...

    def generate(self, question: str, evidence: Sequence[Evidence]) -> Draft: ...

    def translate(self, passages: Sequence[str], language: str) -> tuple[str, ...]:
        """Each passage in ``language``, in order; raises :class:`GeneratorError`."""
        ...


@dataclass(frozen=True, slots=True)
class Translation:
    """A cited quote rendered in the reader's language: a derived representation of
    the anchor's exact text, which stays in the source's language. Never an anchor."""

    text: str
    #: ISO 639-1 code of ``text``
    language: str
    #: the source's language, when stored (given at ingestion or detected)
    source_language: str | None
    #: the identity of the generator that translated, e.g. ``openai:<model>``
    translator: str

    def to_json(self) -> dict[str, str | None]:
        return {
            "kind": "translation",
            "text": self.text,
            "language": self.language,
            "source_language": self.source_language,
            "translator": self.translator,
        }

    @classmethod
    def from_json(cls, data: dict[str, str | None]) -> Translation:
        return cls(
            str(data["text"]),
            str(data["language"]),
            data.get("source_language"),
            str(data["translator"]),
        )


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
    #: the quote in the reader's language (``ask --answer-language``), when the
    #: generator could translate it; the anchor keeps the source's exact text
    translation: Translation | None = None


@dataclass(frozen=True, slots=True)
class DroppedClaim:
    """A claim that is not shown as cited, and why (for the trace)."""

    text: str
    source_id: str | None
    reason: CitationStatus
