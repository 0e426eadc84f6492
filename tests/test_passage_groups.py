"""The index a collapsed search groups its candidates with (``PassageGroups``) names the
group a scan of every group's keys in order names, for exact copies, near copies (a
few words more at one edge) and keys of every word count, the empty one included."""

from __future__ import annotations

import random

from ragox.text._passage import PassageGroups, near_same_counted, passage_words

WORDS = ("valve", "pump", "line", "gauge", "seal", "the", "of", "is", "read")


def _first_by_scan(groups: list[dict[str, int]], key: str, words: int) -> int | None:
    """The group the search found before the index: the first whose keys hold ``key``."""
    for number, keys in enumerate(groups):
        if key in keys or any(near_same_counted(key, words, k, n) for k, n in keys.items()):
            return number
    return None


def _candidates(rng: random.Random, count: int) -> list[str]:
    """Passage keys: new ones of 0 to 40 words, exact copies, and near copies with one
    to six words more or fewer at an edge (some within a fifth of the words, some not)."""
    keys: list[str] = []
    for _ in range(count):
        choice = rng.random()
        if keys and choice < 0.3:
            keys.append(rng.choice(keys))
        elif keys and choice < 0.7:
            words = rng.choice(keys).split()
            extra = [rng.choice(WORDS) for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.5:
                words = extra + words if rng.random() < 0.5 else words + extra
            else:
                words = words[len(extra) :] if rng.random() < 0.5 else words[: -len(extra)]
            keys.append(" ".join(words))
        else:
            keys.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40))))
    return keys


def test_the_index_names_the_group_a_scan_of_every_group_names() -> None:
    rng = random.Random(7)
    near_found = 0
    for _ in range(300):
        limit = rng.randint(1, 30)
        scanned: list[dict[str, int]] = []
        index = PassageGroups()
        for key in _candidates(rng, rng.randint(1, 200)):
            words = passage_words(key)
            expected = _first_by_scan(scanned, key, words)
            assert index.first(key, words) == expected, (key, scanned)
            if expected is None:
                if len(scanned) >= limit:
                    continue
                scanned.append({key: words})
                index.add(key, words, len(scanned) - 1)
            else:
                near_found += key not in scanned[expected]
                scanned[expected][key] = words
                index.add(key, words, expected)
    # the comparison met near copies, not only exact ones and strangers
    assert near_found > 1000


def test_a_key_held_exactly_by_a_later_group_goes_to_an_earlier_group_that_near_holds_it() -> None:
    index = PassageGroups()
    long = " ".join(["valve"] * 9 + ["pump"])  # ten words
    index.add(long, 10, 0)
    short = " ".join(["valve"] * 9)
    index.add(short, 9, 1)
    assert index.first(short, 9) == 0
    assert index.first("pump valve", 2) is None
    # a key of no words (a chunk of punctuation alone) is held exactly or not at all
    index.add("", 0, 2)
    index.add("", 0, 3)
    assert index.first("", 0) == 2
