"""Match counts (BM25 and IDF statistics) cached per index generation stay true."""

from __future__ import annotations

from ragox.access import Principal
from ragox.search import SearchMode
from ragox.search._search import scope_of
from ragox.service import Ragox


def _ingest(app: Ragox, document_id: str, text: str, groups: set[str]) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{document_id}.txt", document_id, groups=frozenset(groups), tenant="default"
    )
    assert outcome.error_code is None


def test_match_counts_follow_writes(app: Ragox) -> None:
    """A cached count is never served after a write: a new document, a deleted one and a
    group change each change the document frequency the next question sees."""
    reader = Principal("r", groups=frozenset({"a", "b"}))
    scope = scope_of(reader)
    _ingest(app, "d1", "zebra crossing near the station", {"a"})
    _ingest(app, "d2", "a quiet street without crossings", {"b"})
    index = app.store.index
    assert index.term_statistics(scope, ["zebra"])[1] == {"zebra": 1}
    assert index.term_statistics(scope, ["zebra"])[1] == {"zebra": 1}  # from the cache
    _ingest(app, "d3", "another zebra, two zebra stripes", {"b"})
    assert index.term_statistics(scope, ["zebra"])[1] == {"zebra": 2}
    hits = app.searcher().search("zebra", reader, SearchMode.LEXICAL)
    assert {h.document_id for h in hits} == {"d1", "d3"}
    assert app.delete("d1")
    assert index.term_statistics(scope, ["zebra"])[1] == {"zebra": 1}
    assert {h.document_id for h in app.searcher().search("zebra", reader, SearchMode.LEXICAL)} == {
        "d3"
    }
