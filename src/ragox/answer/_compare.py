"""Questions after the difference between two things, answered with both.

"What is the difference between a soft and a hard quota limit?" was answered with
three sentences on soft limits: each also held "quota" and "limit", and the sentence
that says what a hard limit is ("A “hard” limit can never be exceeded") scored below
them. An answer to such a question holds a sentence on each side: where the chosen
sentences speak of one side only and a passage has a sentence on each, those two are
quoted beside the best one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import regex

from ragox.search import analyze_query, is_stopword, tokens

if TYPE_CHECKING:
    from ragox.answer._extractive import ScoredSentence

__all__ = ["both_sides", "compared_sides"]

_END: Final = r"\s*[?.!]*\s*$"
#: "difference between A and B", "how does A differ from B", "Unterschied zwischen A und
#: B", "wie unterscheidet sich A von B", "разница между A и B", "чем A отличается от B"
_COMPARISONS: Final = tuple(
    regex.compile(pattern + _END, regex.IGNORECASE)
    for pattern in (
        r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)",
        r"\bhow\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+differ(?:ent)?\s+from\s+(?P<b>.+?)",
        r"\bunterschiede?\s+zwischen\s+(?P<a>.+?)\s+und\s+(?P<b>.+?)",
        r"\bunterscheide[nt]\s+sich\s+(?P<a>.+?)\s+von\s+(?P<b>.+?)",
        r"\b(?:разниц[аеу]|различи[ея]|отличи[ея])\s+между\s+(?P<a>.+?)\s+и\s+(?P<b>.+?)",
        r"\bчем\s+(?P<a>.+?)\s+отлича\w*\s+от\s+(?P<b>.+?)",
    )
)


def compared_sides(
    question: str, languages: Sequence[str]
) -> tuple[frozenset[str], frozenset[str]] | None:
    """The stems that name each of the two things a question compares, without the
    words they share: "a soft and a hard quota limit" gives "soft" and "hard" (the
    longer side's words past the shorter's length name both: "quota limit"). None for
    any other question, or when the two sides cannot be told apart."""
    for pattern in _COMPARISONS:
        found = pattern.search(question)
        if found is not None:
            break
    else:
        return None
    sides = []
    for side in (found.group("a"), found.group("b")):
        words = [word for word in tokens(side) if not is_stopword(word)]
        sides.append(list(dict.fromkeys(analyze_query(" ".join(words), list(languages)))))
    # the words after the shorter side's length name what both are: "a soft and a hard
    # quota limit", "мягкий лимит … от жёсткого"
    size = min(len(side) for side in sides)
    first, second = (side[:size] for side in sides)
    own_first = frozenset(first) - frozenset(second)
    own_second = frozenset(second) - frozenset(first)
    if not own_first or not own_second:
        return None
    return own_first, own_second


def both_sides(
    chosen: list[ScoredSentence],
    own: Sequence[ScoredSentence],
    sides: tuple[frozenset[str], frozenset[str]],
    most: int,
    floor: float,
) -> list[ScoredSentence]:
    """``chosen`` with a sentence on each side of the comparison. A chosen sentence that
    sets the two against each other ("Hard links can only be created on the same
    filesystem, while symbolic links are not subject to this limitation") answers as
    it is, and so do chosen sentences on each side alone. Otherwise the passage of a
    chosen sentence that has a sentence on each side alone, each scoring ``floor`` or
    more, gives both, beside the best sentence (``chosen[0]``), ``most`` at most."""
    first, second = sides

    def alone(sentence: ScoredSentence, side: frozenset[str], other: frozenset[str]) -> bool:
        return bool(side & sentence.covered) and not other & sentence.covered

    def contrasts(sentence: ScoredSentence) -> bool:
        quote = sentence.evidence.text[sentence.start : sentence.end]
        return (
            bool(first & sentence.covered)
            and bool(second & sentence.covered)
            and _CONTRAST.search(quote) is not None
        )

    if any(contrasts(s) for s in chosen) or (
        any(alone(s, first, second) for s in chosen)
        and any(alone(s, second, first) for s in chosen)
    ):
        return chosen
    passages = {s.evidence.source_id for s in chosen}
    for sentence in own:  # best first: the passage of the best sentence on one side
        if sentence.evidence.source_id not in passages or sentence.score < floor:
            continue
        if not (alone(sentence, first, second) or alone(sentence, second, first)):
            continue
        same = [
            s
            for s in own
            if s.evidence.source_id == sentence.evidence.source_id and s.score >= floor
        ]
        one = next((s for s in same if alone(s, first, second)), None)
        two = next((s for s in same if alone(s, second, first)), None)
        if one is None or two is None:
            continue
        pair = [one, two]
        best = chosen[0]
        kept = [best] if best not in pair else []
        return [*kept, *pair][:most]
    return chosen


#: words that set two things against each other in one sentence
_CONTRAST: Final = regex.compile(
    r"(?i)\b(?:while|whereas|but|unlike|instead|contrary|however|während|wohingegen"
    r"|aber|jedoch|hingegen|dagegen|im gegensatz|sondern|тогда как|в отличие|однако|но|а)\b"
)
