"""What a hit shows (issue 15): hits are built in one read from each chunk's own span,
and carry the same snippet, document, revision and PDF pages as the chunk itself."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ragox.access import Principal
from ragox.extract import plain
from ragox.search import SearchMode
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

READER = Principal("reader", groups=frozenset({"staff"}))


def _three_page_pdf() -> bytes:
    document = pymupdf.open()
    for words in (
        "The boiler manual starts with safety rules for every operator.",
        "The pressure valve of the boiler is tested every Tuesday by the night shift.",
        "Spare parts are ordered through the maintenance office.",
    ):
        page = document.new_page()
        page.insert_text((72, 72), words)
    data: bytes = document.tobytes()
    document.close()
    return data


def _reports(app: Ragox, sentences: list[str]) -> None:
    """Documents r00, r01, … of each sentence three times, for the staff."""
    for number, sentence in enumerate(sentences):
        outcome = app.ingestor.ingest_bytes(
            (sentence * 3).encode(),
            f"r{number}.txt",
            f"r{number:02d}",
            groups=frozenset({"staff"}),
            tenant="default",
        )
        assert outcome.error_code is None


def test_pdf_hit_names_its_page_and_quotes_its_chunk(app: Ragox) -> None:
    """A hit on page 2 of a PDF says page 2, and its snippet is its chunk's text."""
    outcome = app.ingestor.ingest_bytes(
        _three_page_pdf(),
        "boiler.pdf",
        "boiler",
        groups=frozenset({"staff"}),
        tenant="default",
    )
    assert outcome.error_code is None
    hits = app.search("pressure valve tested", READER, SearchMode.LEXICAL, limit=3)
    assert hits
    best = hits[0]
    assert best.document_id == "boiler"
    assert best.revision == outcome.revision
    assert best.pages == (2,)
    text = app.store.text(best.manifest_id)
    assert "pressure valve" in best.snippet
    assert best.snippet == text[best.start : best.end]


def test_hits_of_many_documents_keep_rank_and_text(app: Ragox, tmp_path: Path) -> None:
    """Hits from many documents come back in rank order, each with its own span."""
    _reports(app, [f"Report {n}: the cooling pump number {n} was inspected. " for n in range(30)])
    hits = app.search("cooling pump inspected", READER, SearchMode.LEXICAL, limit=10)
    assert len(hits) == 10
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for hit in hits:
        text = app.store.text(hit.manifest_id)
        assert hit.snippet.strip("…") in text[hit.start : hit.end]
        assert hit.document_id.startswith("r")
        assert hit.pages == ()


def test_an_answers_hits_are_the_searchs_without_snippets(app: Ragox) -> None:
    """An answer quotes its evidence, never a hit's snippet: its searches make none, and
    find the same hits (copies under them too) as a search that shows them."""
    _reports(
        app,
        [f"Report {n % 4}: the cooling pump was inspected and found sound. " for n in range(12)],
    )
    searcher = app.searcher()

    def found(snippets: bool) -> list[tuple[str, tuple[str, ...], str]]:
        hits = searcher.search(
            "cooling pump inspected",
            READER,
            SearchMode.LEXICAL,
            limit=3,
            collapse=True,
            snippets=snippets,
        )
        return [(h.chunk_id, tuple(o.chunk_id for o in h.also_in), h.snippet) for h in hits]

    shown, bare = found(True), found(False)
    assert len(shown) == 3 and all(also for _, also, _ in shown)  # copies collapsed
    assert all("cooling pump" in snippet for _, _, snippet in shown)
    assert [(chunk, also) for chunk, also, _ in bare] == [(c, a) for c, a, _ in shown]
    assert all(snippet == "" for _, _, snippet in bare)


@pytest.mark.sqlite_only
def test_hits_read_each_text_once_and_forget_it_after_a_deletion(app: Ragox, home: Path) -> None:
    """The searches of one answer meet the same documents: a text read whole (for a
    resolution, or for a search's hits holding several of its chunks) is not read again
    for the next hits; a deletion by another process empties what this one holds before
    its next hits are built. A document with one chunk among the hits, whose text is
    not held, has only that chunk's span read."""
    for name, words in (("valves.txt", "The valve is tested weekly."), ("pumps.txt", "The pump")):
        outcome = app.ingestor.ingest_bytes(
            f"{words} by the night shift.\n".encode(),
            name,
            name,
            groups=frozenset({"staff"}),
            tenant="default",
        )
        assert outcome.error_code is None
    app.close()
    app = Ragox(home)  # as a server started after the ingestion: nothing cached
    reads: list[str] = []
    conn = app.store._connection()  # type: ignore[attr-defined]
    conn.set_trace_callback(lambda sql: reads.append(sql) if "rep.text" in sql else None)
    first = app.search("valve tested", READER, SearchMode.LEXICAL)
    assert first and reads and all("substr(rep.text" in sql for sql in reads)  # its span
    held = first[0].manifest_id
    assert held not in app.store._texts  # type: ignore[attr-defined]
    app.store.text(held)  # read whole, as a resolution or an answer's context reads it
    reads.clear()
    assert app.search("valve tested weekly", READER, SearchMode.LEXICAL) and not reads
    assert held in app.store._texts  # type: ignore[attr-defined]
    other = Ragox(home)
    try:
        assert other.delete("valves.txt")
    finally:
        other.close()
    assert app.search("night shift", READER, SearchMode.LEXICAL)  # the pumps remain
    assert held not in app.store._texts  # type: ignore[attr-defined]
    conn.set_trace_callback(None)
    app.close()


@pytest.mark.both_backends
def test_a_hits_span_counts_code_points_whether_read_alone_or_cut_from_its_text(
    app: Ragox,
) -> None:
    """A lone chunk's span is read by itself (``substr``), several chunks of one text
    are cut from the whole text: both count code points, so letters of two and three
    bytes in UTF-8 and characters outside the BMP give the same spans."""
    paragraph = "Ёлка 🌲 und Größe: die Prüfung der Ventile 𝔘 erfolgt wöchentlich. "
    body = "\n\n".join(f"{n} {paragraph * 12}" for n in range(40))
    outcome = app.ingestor.ingest_bytes(
        body.encode(), "long.txt", "long", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.error_code is None
    record = app.store.get_revision("default", "long", outcome.revision)
    assert record is not None and record.manifest_id is not None
    text = app.store.text(record.manifest_id)
    chunks = app.store.chunks(record.manifest_id)
    assert len(chunks) > 2
    app.close()
    reopened = Ragox(app.home)  # nothing cached
    try:
        alone = reopened.store.hit_sources([chunks[1].chunk_id])
        together = reopened.store.hit_sources([c.chunk_id for c in chunks])
    finally:
        reopened.close()
    assert alone[chunks[1].chunk_id].text == text[chunks[1].start : chunks[1].end]
    for chunk in chunks:
        assert together[chunk.chunk_id].text == text[chunk.start : chunk.end]
        assert together[chunk.chunk_id].document_id == "long"


@pytest.mark.sqlite_only
def test_a_lone_span_after_a_nul_is_the_slice_of_its_text(
    app: Ragox, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite's substr stops at a NUL, which a text stored before NUL was refused
    everywhere may hold past the first 64 Ki characters (red-team): a lone chunk's span
    read by itself came back cut there (an empty span after it), and two unrelated
    passages with empty keys were shown as one. Such a span is cut from the whole
    text instead."""
    refuse = plain.reject_binary
    # as ingestion did before: only the first 64 Ki characters were looked at
    monkeypatch.setattr(plain, "reject_binary", lambda text: refuse(text[:65536]))
    filler = "\n\n".join(f"Paragraph {n} says nothing in particular today." for n in range(1400))
    after = "\n\n".join(f"Filler section {n} talks about the weather." for n in range(60))
    expected: dict[str, str] = {}  # chunk id: its span, from the whole text
    for name, tail in (
        ("a.txt", "The zanzibar valve is tested weekly by the night shift."),
        ("b.txt", "The zanzibar pump is replaced yearly by the day shift."),
    ):
        body = f"{filler}\n\nA stray\x00 byte.\n\n{after}\n\n{tail}\n"
        outcome = app.ingestor.ingest_bytes(
            body.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
        )
        assert outcome.error_code is None
        record = app.store.get_revision("default", name, outcome.revision)
        assert record is not None and record.manifest_id is not None
        text = app.store.text(record.manifest_id)
        for chunk in app.store.chunks(record.manifest_id):
            expected[chunk.chunk_id] = text[chunk.start : chunk.end]
    app.close()
    server = Ragox(home)  # nothing cached, as a server started after the ingestion
    try:
        hits = server.search("zanzibar", READER, SearchMode.LEXICAL, limit=5, collapse=True)
        assert sorted(h.document_id for h in hits) == ["a.txt", "b.txt"]
        assert all("zanzibar" in h.snippet and not h.also_in for h in hits)
    finally:
        server.close()
    # the chunk holding the NUL and the one after it, each read alone, uncached
    stray = next(i for i, span in enumerate(expected.values()) if "\x00" in span)
    for chunk_id in list(expected)[stray : stray + 2]:
        reopened = Ragox(home)
        try:
            assert reopened.store.hit_sources([chunk_id])[chunk_id].text == expected[chunk_id]
        finally:
            reopened.close()
