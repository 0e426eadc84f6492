"""What a hit shows (issue 15): hits are built in one read from each chunk's own span,
and carry the same snippet, document, revision and PDF pages as the chunk itself."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ragox.access import Principal
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
    for number in range(30):
        body = f"Report {number}: the cooling pump number {number} was inspected. " * 3
        outcome = app.ingestor.ingest_bytes(
            body.encode(),
            f"r{number}.txt",
            f"r{number:02d}",
            groups=frozenset({"staff"}),
            tenant="default",
        )
        assert outcome.error_code is None
    hits = app.search("cooling pump inspected", READER, SearchMode.LEXICAL, limit=10)
    assert len(hits) == 10
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for hit in hits:
        text = app.store.text(hit.manifest_id)
        assert hit.snippet.strip("…") in text[hit.start : hit.end]
        assert hit.document_id.startswith("r")
        assert hit.pages == ()


def test_a_hit_cut_from_a_text_at_hand_is_the_one_read_from_the_store(app: Ragox) -> None:
    """A chunk of a representation whose text the store holds in memory is cut from
    it, the others are read (SQLite); both give each chunk's own code points, past
    characters of one, two, three and four UTF-8 bytes."""
    paragraph = "Ölwechsel ✓ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 Prüfung der Pumpe {n}: alle 500 Stunden (𝄞 Takt {n}).\n\n"
    text = "".join(paragraph.format(n=n) * 6 for n in range(40))
    outcome = app.ingestor.ingest_bytes(
        text.encode(), "pumps.txt", "pumps", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.error_code is None
    manifest_id = app.store.revisions("default", "pumps")[-1].manifest_id
    assert manifest_id is not None
    fresh = Ragox(app.home)  # a store that holds no text yet
    try:
        chunks = fresh.store.chunks(manifest_id)
        assert len(chunks) > 3
        ids = [chunk.chunk_id for chunk in chunks]
        read = fresh.store.hit_sources(ids)
        held = fresh.store.text(manifest_id)
        cut = fresh.store.hit_sources(ids)
    finally:
        fresh.close()
    assert read == cut
    assert all(cut[c.chunk_id].text == held[c.start : c.end] for c in chunks)
    assert any(ord(ch) > 0xFFFF for c in chunks for ch in cut[c.chunk_id].text)
