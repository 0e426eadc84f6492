"""What ingestion stores is exactly what its stages compute, whatever path the bytes
take to the store (issue 10's memory work streams lexical rows in batches, binds the
texts as UTF-8 and lets large texts and the source bytes go early): the representation
and search texts (as SQLite TEXT), the manifest's text hash, the chunks and one
lexical row per chunk with the analyzed body of its search-text range."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import DATA, store_class, store_sql
from ragox.extract import ExtractOptions, extractor_for
from ragox.ingest import _ahead
from ragox.ingest._chunker import search_text_and_chunks
from ragox.ingest._headings import row_headings
from ragox.search import compound_vocabulary, index_terms
from ragox.service import Ragox
from ragox.store import RevisionState
from ragox.store._records import BlockRange
from ragox.store._rows import block_ranges_json

#: paragraphs enough for more chunks than one lexical write batch (store._index._WRITE_BATCH)
_PARAGRAPHS = 2600


def _mixed_text(path: Path) -> bytes:
    """Real paragraphs in English, German and Russian (XQuAD), one chunk each."""
    paragraphs: list[str] = []
    for lang in ("en", "de", "ru"):
        data = json.loads((DATA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        paragraphs += [p["context"] for a in data["data"] for p in a["paragraphs"]]
    sentences = [s.strip() + "." for p in paragraphs for s in p.split(". ") if len(s) > 60]
    body = "\n\n".join(f"{i}: {sentences[i % len(sentences)]}" for i in range(_PARAGRAPHS))
    path.write_text(body + "\n", encoding="utf-8")
    return path.read_bytes()


@pytest.mark.both_backends
@pytest.mark.parametrize("cache", [True, False], ids=["text-cached", "text-not-cached"])
def test_stored_rows_are_what_the_stages_compute(
    app: Ragox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: bool
) -> None:
    if not cache:
        # A text over the cache bound is read back from the store for indexing.
        monkeypatch.setattr(f"{store_class().__module__}._TEXT_CACHE_CODE_POINTS", 1000)
    path = tmp_path / "mixed.txt"
    data = _mixed_text(path)
    item = app.ingest_path(path, tmp_path)
    assert item.outcome is not None and item.outcome.state is RevisionState.READY
    record = app.store.get_revision("default", item.outcome.document_id, item.outcome.revision)
    assert record is not None and record.manifest_id is not None
    manifest_id = record.manifest_id
    postgres = bool(os.environ.get("RAGOX_STORE"))
    typeof = "pg_typeof(text)::text" if postgres else "typeof(text)"

    def one(query: str) -> tuple[Any, ...]:
        [row] = store_sql(app.home, query, (manifest_id,))
        return row

    extraction = extractor_for("text/plain")(data, app.ingestor.profile, ExtractOptions())
    stored_type, stored_text = one(
        f"SELECT {typeof}, text FROM representations WHERE manifest_id=?"
    )
    assert (stored_type, stored_text) == ("text", extraction.text)
    manifest = app.store.get_manifest(manifest_id)
    assert manifest is not None
    expected_hash = hashlib.sha256(extraction.text.encode("utf-8")).hexdigest()
    assert manifest.manifest.text_sha256 == expected_hash

    search, chunks = search_text_and_chunks(manifest_id, extraction.text, extraction.blocks)
    search_type, search_text = one(f"SELECT {typeof}, text FROM search_texts WHERE manifest_id=?")
    assert (search_type, search_text) == ("text", search.text)

    assert len(chunks) > 2048  # more than one write batch
    assert app.store.chunks(manifest_id) == chunks

    (language,) = one("SELECT language FROM representations WHERE manifest_id=?")
    context = row_headings(extraction.text, extraction.blocks, chunks)
    vocabulary = compound_vocabulary(search.text) if language == "de" else frozenset()
    expected = {
        c.chunk_id: index_terms(
            f"{above} {search.text[c.search_start : c.search_end]}", language, vocabulary
        )
        for c, above in zip(chunks, context, strict=True)
    }
    if postgres:  # postings: (term, frequency) per chunk row
        from ragox.store.postgres._index import _body_terms

        postings: dict[str, Counter[str]] = {}
        for chunk_id, term, tf in store_sql(
            app.home,
            "SELECT c.chunk_id, p.term, p.tf FROM lexical_postings p "
            "JOIN chunks c ON c.rowid = p.rowid",
        ):
            postings.setdefault(chunk_id, Counter())[term] = tf
        assert postings == {chunk_id: _body_terms(body) for chunk_id, body in expected.items()}
    else:
        [(partition,)] = store_sql(app.home, "SELECT name FROM lexical_partitions")
        bodies = dict(
            store_sql(
                app.home,
                f"SELECT c.chunk_id, t.body FROM {partition} t JOIN chunks c ON c.rowid = t.rowid",
            )
        )
        assert bodies == expected
    (rows,) = one("SELECT COUNT(*) FROM lexical_rows WHERE manifest_id=?")
    assert rows == len(chunks)
    assert app.store.index_complete("default", record.document_id, record.revision)


@given(
    st.lists(st.sampled_from(["a", "b", " ", "\n", "\r", "\r\n", "\x0c", "\u2028", "é"])).map(
        "".join
    ),
    st.integers(1, 8),
)
def test_lines_by_slices_are_splitlines(text: str, size: int) -> None:
    """The paragraph finder's sliced line split is ``splitlines(keepends=True)``."""
    from ragox.extract import plain

    original = plain._LINES_SLICE
    try:
        plain._LINES_SLICE = size  # type: ignore[misc]
        assert list(plain._lines(text)) == text.splitlines(keepends=True)
    finally:
        plain._LINES_SLICE = original  # type: ignore[misc]


@pytest.mark.parametrize("ahead", [False, True], ids=["file-by-file", "extracted-ahead"])
def test_an_ingestion_writes_the_rows_holding_whole_texts_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: bool
) -> None:
    """SQLite writes a row again whole to change one of its columns: the row of a
    representation (its text, and a PDF's character boxes) and that of its search text
    are written once by an ingestion, with the language the lexical rows were analyzed
    in and the processing versions in that one write (a given language included)."""
    monkeypatch.setattr(_ahead, "ahead_wanted", lambda: True)
    monkeypatch.setattr(_ahead, "SHARE", False)  # with ahead: every text file is the worker's
    folder = tmp_path / "in"
    folder.mkdir()
    for source in (DATA / "pdf" / "ligatures.pdf", DATA / "md" / "manual.md"):
        shutil.copyfile(source, folder / source.name)
    _mixed_text(folder / "mixed.txt")
    (folder / "given.txt").write_text("The pump is serviced every spring.\n", encoding="utf-8")
    files = sorted(folder.iterdir())
    app = Ragox(tmp_path / "home")
    try:
        conn = app.store._connection()  # the connection this thread's writes go through
        conn.execute("CREATE TEMP TABLE rewrites(name TEXT)")
        for table in ("representations", "search_texts"):
            conn.execute(
                f"CREATE TEMP TRIGGER rewrite_{table} AFTER UPDATE ON main.{table} "
                f"BEGIN INSERT INTO rewrites VALUES('{table}'); END"
            )
        with app.extracting_ahead(files if ahead else []):
            for path in files:
                language = "de" if path.name == "given.txt" else None
                item = app.ingest_path(path, folder, language=language)
                assert item.outcome is not None
                assert item.outcome.state is RevisionState.READY, item.outcome
        assert conn.execute("SELECT name FROM rewrites").fetchall() == []
        stored = dict(
            conn.execute(
                "SELECT m.document_id, r.language FROM representations r "
                "JOIN manifests m ON m.manifest_id = r.manifest_id"
            ).fetchall()
        )
        assert stored["given.txt"] == "de"
        assert stored["manual.md"] == "en"
        assert conn.execute(
            "SELECT COUNT(*) FROM search_texts WHERE cleaner IS NULL OR splitter IS NULL "
            "OR chunker IS NULL OR analyzer IS NULL"
        ).fetchone() == (0,)
        # the triggers see a rewrite (the check above can fail)
        conn.execute("UPDATE representations SET language = 'ru' WHERE language = 'de'")
        assert conn.execute("SELECT name FROM rewrites").fetchall() == [("representations",)]
    finally:
        app.close()


@given(
    st.lists(
        st.tuples(st.integers(0, 2**40), st.integers(0, 2**40), st.integers(0, 2**40)),
        max_size=6,
    )
)
def test_block_ranges_are_stored_as_json_dumps_writes_them(ranges: list[tuple[int, ...]]) -> None:
    """A chunk row's block ranges: the very text ``json.dumps`` gives (and reads back)."""
    blocks = [BlockRange(*r) for r in ranges]
    text = block_ranges_json(blocks)
    assert text == json.dumps([list(r) for r in ranges])
    assert [BlockRange(*r) for r in json.loads(text)] == blocks
