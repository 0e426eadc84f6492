"""The pieces of an English contraction are no query terms (issue 16, a new user's
question on aptitude's manual): "Why can't I select text with my mouse in xterm …?"
searched for "t", and its answer was scored on "t"; "doesn't" gave "doesn". The
documents' index is unchanged: only what a question asks for is."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer import score_sentences
from ragox.answer._model import Evidence
from ragox.search import analyze_query
from ragox.search._analyze import analyze_search_query, contraction_pieces
from ragox.service import Ragox


@pytest.mark.parametrize(
    ("question", "pieces"),
    [
        ("Why can't I select text?", {"t"}),
        ("Why doesn't apt work?", {"doesn", "t"}),
        ("What is aptitude's default?", {"s"}),
        ("Why won’t it start? I'd like to know.", {"won", "t", "d"}),
        ("Who won the cup?", set()),
        ("Warum geht's nicht?", {"s"}),
    ],
)
def test_the_pieces_of_a_contraction(question: str, pieces: set[str]) -> None:
    assert contraction_pieces(question) == pieces


def test_a_question_with_contractions_has_no_pieces_as_terms() -> None:
    for question in ("Why doesn't apt work?", "Why can't I select aptitude's text?"):
        for terms in (
            analyze_query(question, ["en"]),
            analyze_search_query(question, ["en"]).terms,
        ):
            assert not {"t", "s", "doesn"} & set(terms), (question, terms)
    # a word that only looks like one stays: "won" of "Who won the cup?"
    assert "won" in analyze_query("Who won the cup?", ["en"])


def test_the_answer_is_not_scored_on_the_pieces() -> None:
    text = "Normally, you cannot select text in an xterm while aptitude uses the mouse."
    evidence = [Evidence("S1", "ch03", "r1", "m1", ("c1",), 0, len(text), text)]
    scoring = score_sentences("Why can't I select text in xterm?", evidence)
    assert "t" not in scoring.weights
    assert {"select", "text", "xterm"} <= set(scoring.weights)


def test_a_search_does_not_find_the_letter_t(tmp_path: Path) -> None:
    """A passage that shares only the contraction's "t" ("don't") is no hit."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Please don't panic when the build fails.", encoding="utf-8")
    (folder / "b.txt").write_text("The terminal can select text with the mouse.", encoding="utf-8")
    app = Ragox(tmp_path / "home")
    for name in ("a.txt", "b.txt"):
        app.ingest_path(folder / name, folder, language="en")
    hits = app.search("Why can't I select text?", OPERATOR)
    app.close()
    assert [hit.document_id for hit in hits] == ["b.txt"]
