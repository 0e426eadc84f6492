"""Shortcuts of the answer step that must not change any answer (issue 15)."""

from __future__ import annotations

import random

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ragox.answer._blocks import is_introducer, may_introduce
from ragox.answer._extractive import _PARAGRAPH_TEXT, _heading_paragraphs

_WORDS = st.sampled_from(
    [
        "As follows",
        "THE FOLLOWING",
        "following command",
        "folgenden",
        "Wie folgt",
        "nachstehendes",
        "следующие",
        "Ниже",
        "так:",
        ":",
        " ",
        "\n",
        "\n\n",
        "x",
        "1.2. Setup",
        ".",
        "Run it",
        "as",
        "follows",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_WORDS, max_size=12).map("".join), st.data())
def test_no_introducer_hides_from_the_quick_test(text: str, data: st.DataObject) -> None:
    """Every sentence ``is_introducer`` accepts lies in a range ``may_introduce`` keeps."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    if is_introducer(text[start:end]):
        assert may_introduce(text, start, end)
    assert may_introduce("Do this as follows: run it", 0, 26)
    assert not may_introduce("Nothing is announced here. Really.", 0, 34)


def test_heading_paragraphs_pattern_is_the_old_one() -> None:
    """The line-at-a-time paragraph pattern finds the paragraphs the old one found."""
    old = regex.compile(r"[^\n](?:[^\n]|\n(?![ \t]*\n))*")
    rng = random.Random(15)
    for _ in range(20_000):
        text = "".join(rng.choice("ab \t\n\n1.") for _ in range(rng.randint(0, 30)))
        assert [m.span() for m in _PARAGRAPH_TEXT.finditer(text)] == [
            m.span() for m in old.finditer(text)
        ]
    text = "Intro.\n\n2.3. Setting up\n\nText.\n\n3.1. Next one\nwith two lines\n"
    assert _heading_paragraphs(text) == [(8, 23), (32, 61)]
