"""Rules that a deliberate bug once broke without any test noticing (issue 10, item 7).

Each test here is named in ``scripts/mutation_check.py``, which applies that bug to a
copy of the tree and expects the test to fail: an outsider's key downloading an
original or a page image, API keys stored in plain text, a search with another
embedder's vectors, the reader's scope applied after the lexical top-k, the original
download without its sandbox headers, and one document flooding the context.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import pytest

from conftest import DATA, serving
from ragox.access import Principal
from ragox.answer import ContextConfig, select_context
from ragox.search import (
    EmbedderIdentity,
    Hit,
    ListRank,
    Searcher,
    SearchError,
    SearchMode,
    reindex,
    tokens,
)
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))
OUTSIDER = Principal("oz", groups=frozenset({"sales"}))
PDF = DATA / "pdf" / "multicolumn.pdf"
MANUAL = "Pump manual.\n\nThe seal is checked every 500 operating hours.\n"


@dataclass
class Site:
    url: str
    staff: str
    outsider: str
    pdf_revision: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Site]:
    """A served home with one staff-only PDF and one staff-only text."""
    home = tmp_path_factory.mktemp("regressions") / "home"
    app = Ragox(home)
    item = app.ingest_path(PDF, PDF.parent, groups=frozenset({"staff"}))
    assert item.outcome is not None and item.outcome.state.value == "READY"
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    staff, outsider = app.create_key(STAFF), app.create_key(OUTSIDER)
    revision = item.outcome.revision
    app.close()
    with serving(home) as url:
        yield Site(url, staff, outsider, revision)


def _get(site: Site, path: str, key: str) -> httpx.Response:
    return httpx.get(f"{site.url}{path}", headers={"Authorization": f"Bearer {key}"}, timeout=60)


# -- originals and page images follow the reader's groups -------------------------------


@pytest.mark.parametrize("what", ["original", "pages/1"])
def test_outsider_key_gets_no_original_or_page(site: Site, what: str) -> None:
    """A key of the same tenant without the document's group gets exactly the 404 of a
    missing document for the original bytes and for a page image; the reader gets them."""
    path = f"/v1/documents/multicolumn.pdf/revisions/{site.pdf_revision}/{what}"
    allowed = _get(site, path, site.staff)
    assert allowed.status_code == 200 and len(allowed.content) > 1000
    refused = _get(site, path, site.outsider)
    missing = _get(site, path.replace("multicolumn.pdf", "no-such.pdf"), site.outsider)
    assert refused.status_code == 404
    assert refused.content == missing.content
    assert allowed.content[:64] not in refused.content


def test_original_download_is_a_sandboxed_attachment(site: Site) -> None:
    """The original bytes come as an attachment, under a sandboxing CSP and nosniff, so
    that a hostile HTML or PDF never renders in the viewer's origin."""
    response = _get(site, "/v1/documents/manual.txt/revisions/r1/original", site.staff)
    assert response.status_code == 200 and response.content == MANUAL.encode()
    assert response.headers["content-disposition"].startswith("attachment")
    policy = response.headers["content-security-policy"]
    assert "sandbox" in policy and "default-src 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


# -- API keys -------------------------------------------------------------------------------


def test_api_keys_never_stored_in_plain_text(app: Ragox, home: Path) -> None:
    """Only a digest of a key is stored: no file of the home (database, WAL, anything)
    contains the key, before or after it was used and revoked."""
    key = app.create_key(STAFF)
    assert app.authenticate(key) == STAFF

    def leaked() -> list[str]:
        return [
            str(path.relative_to(home))
            for path in sorted(home.rglob("*"))
            if path.is_file() and key.encode() in path.read_bytes()
        ]

    assert leaked() == []
    assert app.revoke_key(key) and app.authenticate(key) is None
    assert leaked() == []


# -- vectors of one embedder are never searched with another --------------------------------


class HashingEmbedder:
    """A real (if simple) embedder: hashed word counts. Its ``name`` is part of the
    identity, so two instances with other names make incompatible vectors."""

    def __init__(self, name: str, dimension: int = 64) -> None:
        self.identity = EmbedderIdentity(name, "hashing", "1", dimension, "", "")

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:  # type: ignore[type-arg]
        rows = np.zeros((len(texts), self.identity.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in tokens(text) or ["empty"]:
                digest = hashlib.sha256(f"{self.identity.name}:{word}".encode()).digest()
                rows[row, digest[0] % self.identity.dimension] += 1.0
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_search_with_another_embedder_is_refused(app: Ragox) -> None:
    """An index built with one embedder refuses a vector or hybrid search with another
    (EMBEDDER_MISMATCH) instead of silently ranking incompatible vectors."""
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    built = HashingEmbedder("hash-a")
    reindex(app.store, built, "hash-a")  # type: ignore[arg-type]
    hits = Searcher(app.store, built).search("seal", STAFF, SearchMode.VECTOR)  # type: ignore[arg-type]
    assert [hit.document_id for hit in hits] == ["manual.txt"]
    other = Searcher(app.store, HashingEmbedder("hash-b"))  # type: ignore[arg-type]
    for mode in (SearchMode.VECTOR, SearchMode.HYBRID):
        with pytest.raises(SearchError) as refused:
            other.search("seal", STAFF, mode)
        assert refused.value.code == "EMBEDDER_MISMATCH"


# -- the reader's scope is part of the lexical query ----------------------------------------


def test_scope_inside_the_lexical_query(app: Ragox) -> None:
    """A reader whose only matching chunk ranks below hundreds of better-matching chunks
    they may not read still finds it: the scope is applied inside the ranked query, not
    to the top of an unscoped ranking."""
    forbidden = "".join(
        f"Section {i}. " + "Zircon gaskets hold zircon seals in place. " * 30 + "\n\n"
        for i in range(70)
    )
    app.ingestor.ingest_bytes(
        forbidden.encode(), "board.txt", "board.txt", groups=frozenset({"board"}), tenant="default"
    )
    board = Principal("bo", groups=frozenset({"board"}))
    assert len(app.search("zircon", board, SearchMode.LEXICAL, limit=100)) >= 60
    mine = (
        "Staff notes. The pump housing is painted grey, the valves are brass, the cables "
        "are labelled, and a zircon washer sits under the inlet flange of the old pump.\n"
    )
    app.ingestor.ingest_bytes(
        mine.encode(), "staff.txt", "staff.txt", groups=frozenset({"staff"}), tenant="default"
    )
    # the reader's chunk really ranks below the forbidden ones in the unscoped ranking
    everything = app.search("zircon", Principal.local_operator(), SearchMode.LEXICAL, limit=100)
    assert "staff.txt" not in {hit.document_id for hit in everything[:60]}
    hits = app.search("zircon", STAFF, SearchMode.LEXICAL)
    assert [hit.document_id for hit in hits] == ["staff.txt"]


# -- one document cannot flood the context ---------------------------------------------------


def test_one_document_cannot_flood_the_context(app: Ragox) -> None:
    """Ten top-ranked passages of one document and one of another: the context takes at
    most ``per_document`` (3) passages of the first and still includes the second."""
    assert ContextConfig().per_document == 3
    paragraphs = "".join(
        f"Part {i}. " + " ".join(f"word{i}x{j}" for j in range(180)) + ".\n\n" for i in range(40)
    )
    for name in ("flood.txt", "other.txt"):
        app.ingestor.ingest_bytes(
            paragraphs.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
        )

    def hits_of(document_id: str, count: int) -> list[Hit]:
        status = app.status(document_id, STAFF)
        manifest_id = status.revisions[0].revision.manifest_id
        assert manifest_id is not None
        # every third chunk: chunks overlap only their neighbours, so none of these merge
        chunks = app.store.chunks(manifest_id)[::3][:count]
        assert len(chunks) == count
        return [
            Hit(c.chunk_id, document_id, "r1", manifest_id, 1.0, (), c.start, c.end, (), "")
            for c in chunks
        ]

    ranked = hits_of("flood.txt", 10) + hits_of("other.txt", 1)
    ranked = [
        Hit(
            h.chunk_id,
            h.document_id,
            h.revision,
            h.manifest_id,
            1.0 / rank,
            (ListRank("lexical", rank, 1.0 / rank),),
            h.start,
            h.end,
            h.pages,
            h.snippet,
        )
        for rank, h in enumerate(ranked, start=1)
    ]
    evidence = select_context(app.store, ranked, ContextConfig(token_budget=100_000))
    documents = [item.document_id for item in evidence]
    assert documents.count("flood.txt") == 3
    assert "other.txt" in documents
