"""The listing of a principal's documents a page at a time (issue 15): `ragox status
--all|--json --limit N --after ID` and `GET /v1/documents?limit=N&after=ID`. Pages
follow the ids in byte order on both backends, hold only what the reader may read,
exactly ``limit`` of them until the last, and joined they are the whole listing; the
listing without paging keeps its output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import run_ragox, serving
from ragox.access import Principal
from ragox.service import Ragox

OPERATOR = Principal.local_operator()
STAFF = Principal("sam", groups=frozenset({"staff"}))
OUTSIDER = Principal("oz", groups=frozenset({"sales"}))

#: ids whose byte order differs from a locale's (capitals first, then lowercase, then
#: non-ASCII letters), and an id of a nested folder
IDS = (
    "Zeta.txt", "alpha.txt", "beta/gamma.txt", "beta.txt", "delta.txt", "epsilon.txt",
    "Ärger.txt", "ärger.txt", "ёлка.txt", "Яблоко.txt", "10.txt", "9.txt", "a b.txt",
)  # fmt: skip


def _fill(app: Ragox) -> None:
    for number, doc in enumerate(IDS):
        groups = frozenset({"staff"}) if number % 3 else frozenset({"eng"})
        outcome = app.ingestor.ingest_bytes(
            f"Note {number}: the pump {number} is checked.".encode(),
            doc,
            doc,
            groups=groups,
            tenant="default",
        )
        assert outcome.state.value == "READY"


def _timeless(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listing without the ages a job's record is given when it is printed."""
    for document in documents:
        for revision in document["revisions"]:
            if revision.get("job"):
                revision["job"].pop("age_seconds")
                revision["job"].pop("heartbeat_age_seconds")
    return documents


def _ids(statuses: Any) -> list[str]:
    return [status.document.document_id for status in statuses]


def _all_pages(app: Ragox, who: Principal, limit: int) -> list[list[str]]:
    pages: list[list[str]] = []
    after: str | None = None
    while True:
        page = app.documents_page(who, limit, after)
        pages.append(_ids(page.documents))
        if page.next_after is None:
            return pages
        assert page.next_after == pages[-1][-1]
        after = page.next_after


@pytest.mark.both_backends
@pytest.mark.parametrize("limit", [1, 4, 5])
def test_pages_join_into_the_listing_in_byte_order(app: Ragox, limit: int) -> None:
    """For the operator and a reader, pages of ``limit`` joined are the whole listing,
    in the byte order of the ids (on PostgreSQL too, whatever its collation), each page
    full but the last; a reader's pages hold only its documents."""
    _fill(app)
    by_bytes = sorted(IDS, key=lambda doc: doc.encode())
    assert _ids(app.documents(OPERATOR)) == by_bytes
    for who, expected in (
        (OPERATOR, by_bytes),
        (STAFF, [doc for doc in by_bytes if IDS.index(doc) % 3]),
        (OUTSIDER, []),
    ):
        pages = _all_pages(app, who, limit)
        assert [doc for page in pages for doc in page] == expected
        assert _ids(app.documents(who)) == expected
        assert all(len(page) == limit for page in pages[:-1])
        assert len(pages[-1]) <= limit
        assert len(pages) in (-(-len(expected) // limit), -(-len(expected) // limit) + 1)


@pytest.mark.both_backends
def test_a_page_after_an_id_that_is_no_document(app: Ragox) -> None:
    """``after`` need not name a document: the page starts at the next id in byte order;
    after the last id it is empty and ends the listing."""
    _fill(app)
    page = app.documents_page(OPERATOR, 3, "beta.t")
    assert _ids(page.documents) == ["beta.txt", "beta/gamma.txt", "delta.txt"]
    end = app.documents_page(OPERATOR, 3, "\uffff")
    assert end.documents == () and end.next_after is None
    rest = app.documents_page(OPERATOR, None, "epsilon.txt")
    assert _ids(rest.documents) == ["Ärger.txt", "ärger.txt", "Яблоко.txt", "ёлка.txt"]
    assert rest.next_after is None


@pytest.mark.both_backends
def test_after_holding_nul_and_an_empty_page(app: Ragox) -> None:
    """No id holds NUL: ``after`` "beta.txt\\0x" pages on after "beta.txt" on both
    backends (PostgreSQL, whose text holds no NUL, once found nothing); a page of no
    document is refused, not answered as the listing's end (red-team, 5ae3dd4)."""
    _fill(app)
    page = app.documents_page(OPERATOR, 3, "beta.txt\0x")
    assert _ids(page.documents) == ["beta/gamma.txt", "delta.txt", "epsilon.txt"]
    assert _ids(app.documents_page(OPERATOR, 2, "\0").documents) == ["10.txt", "9.txt"]
    for limit in (0, -1):
        with pytest.raises(ValueError):
            app.documents_page(OPERATOR, limit)


def test_cli_pages(home: Path) -> None:
    """`status --json --limit N` prints a page and the id the next starts after;
    `--after` goes on; without them the listing's JSON is what it was (no
    ``next_after``); people get the command for the next page."""
    app = Ragox(home)
    _fill(app)
    app.close()
    whole = run_ragox(home, "status", "--json")
    assert whole.code == 0
    listing: Any = whole.json()
    assert set(listing) == {"documents"}
    ids = [doc["document_id"] for doc in listing["documents"]]
    seen: list[dict[str, Any]] = []
    after: list[str] = []
    while True:
        page = run_ragox(home, "status", "--json", "--limit", "5", *after)
        assert page.code == 0, page.stderr
        body: Any = page.json()
        assert set(body) == {"documents", "next_after"}
        seen.extend(body["documents"])
        if body["next_after"] is None:
            break
        after = ["--after", body["next_after"]]
    assert _timeless(seen) == _timeless(listing["documents"]) and len(ids) == len(IDS)
    people = run_ragox(home, "status", "--all", "--limit", "2", "--principal", "sam",
                       "--groups", "staff")  # fmt: skip
    assert people.code == 0
    staff_ids = [doc for doc in ids if IDS.index(doc) % 3]
    assert f"more: ragox status --all --after {staff_ids[1]} --limit 2" in people.stdout
    assert staff_ids[0] in people.stdout and staff_ids[2] not in people.stdout
    # a page of no documents, or of more than any number of them, is a usage error
    for limit in ("0", str(2**63)):
        refused = run_ragox(home, "status", "--json", "--limit", limit)
        assert refused.code == 2 and "--limit" in refused.stderr, (limit, refused.stderr)
    # the summary's --limit is unchanged: how many needing attention it shows
    summary = run_ragox(home, "status", "--summary", "--json", "--limit", "1")
    assert summary.code == 0 and "next_after" not in summary.stdout


def test_api_pages(home: Path) -> None:
    """`GET /v1/documents?limit=N&after=ID` over HTTP: a reader's pages, joined, are its
    listing; without parameters the listing is what it was; a bad limit is a 422."""
    app = Ragox(home)
    _fill(app)
    key = app.create_key(STAFF)
    app.close()
    headers = {"Authorization": f"Bearer {key}"}
    with serving(home) as url:
        whole = httpx.get(f"{url}/v1/documents", headers=headers)
        assert whole.status_code == 200 and set(whole.json()) == {"documents"}
        expected = whole.json()["documents"]
        seen: list[dict[str, Any]] = []
        params: dict[str, Any] = {"limit": 3}
        while True:
            page = httpx.get(f"{url}/v1/documents", headers=headers, params=params)
            assert page.status_code == 200
            body = page.json()
            assert len(body["documents"]) <= 3
            seen.extend(body["documents"])
            if body["next_after"] is None:
                break
            params["after"] = body["next_after"]
        assert _timeless(seen) == _timeless(expected)
        assert len(seen) == sum(1 for n in range(len(IDS)) if n % 3)
        assert all(rev["language"] for doc in seen for rev in doc["revisions"])
        bad = httpx.get(f"{url}/v1/documents", headers=headers, params={"limit": 0})
        assert bad.status_code == 422
