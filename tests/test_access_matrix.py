"""The access test matrix of issue 10: 2 tenants × 3 groups × read/write/operate keys ×
(upload, replace, revision label, delete, ACL, answers, documents), each cell asked for
an object that exists but is forbidden and for a missing one: 0 differences in status
and body, no state change, and the same timing class.

Timing class is pinned down twice: structurally (a refused upload, delete or ACL change
reads nothing but the caller's key, and a refused replay one owner row, through the
service and through the app itself, so the existing and the missing id cost the same
work), and by latency over HTTP (medians of the two cases within a generous factor).
The search-statistics cells belong to the scope-only BM25 work and are not here."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import ragox.api._app as app_module
from conftest import serving
from ragox.access import Principal
from ragox.service import NotFound, Ragox, WriteRefused

pytestmark = pytest.mark.both_backends

TENANTS = ("default", "acme")
GROUPS = ("red", "green", "blue")
KINDS = ("read", "write", "operate")


def _text(tenant: str, group: str) -> bytes:
    return f"{tenant} {group} handbook. The {group} valve of {tenant} opens at 7 bar.\n".encode()


def _only(tenant: str, group: str) -> bytes:
    return f"Only {tenant} has this {group} note.\n".encode()


def _principal(tenant: str, group: str, kind: str) -> Principal:
    rights: dict[str, Any] = {}
    if kind == "write":
        rights["write"] = frozenset({f"{group}/"})
    if kind == "operate":
        rights["operator"] = True
    return Principal(f"{group}-{kind}", tenant=tenant, groups=frozenset({group}), **rights)


@dataclass
class Matrix:
    url: str
    home: Path
    keys: dict[tuple[str, str, str], str]
    #: the answer id each (tenant, group) reader asked
    answers: dict[tuple[str, str], str]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Matrix]:
    home = tmp_path_factory.mktemp("matrix") / "home"
    app = Ragox(home)
    keys, answers = {}, {}
    for tenant in TENANTS:
        for group in GROUPS:
            readers = frozenset({group})
            app.ingestor.ingest_bytes(
                _text(tenant, group), "h.txt", f"{group}/doc", groups=readers, tenant=tenant
            )
            app.ingestor.ingest_bytes(
                _only(tenant, group),
                "o.txt",
                f"{group}/only-{tenant}",
                groups=readers,
                tenant=tenant,
            )
            for kind in KINDS:
                keys[tenant, group, kind] = app.create_key(_principal(tenant, group, kind))
            asked = app.ask(f"When does the {group} valve open?", _principal(tenant, group, "read"))
            assert asked.citations
            answers[tenant, group] = asked.answer_id
    app.close()
    with serving(home) as url:
        yield Matrix(url, home, keys, answers)


@dataclass(frozen=True)
class Target:
    """An object the key may not touch, and a missing one of the same shape."""

    exists: str
    missing: str
    #: the bytes of the existing document (sent back to probe deduplication)
    data: bytes


def _targets(tenant: str, group: str, kind: str) -> list[Target]:
    """Another group's document of the key's tenant (not for operate keys, which read
    their whole tenant), and a document of the other tenant: of the key's own group
    (for a writer, of another group: its own collection is free to create in, since
    document ids are per tenant)."""
    other_tenant = next(t for t in TENANTS if t != tenant)
    there = next(g for g in GROUPS if g != group) if kind == "write" else group
    found = [
        Target(f"{there}/only-{other_tenant}", f"{there}/only-nowhere", _only(other_tenant, there))
    ]
    if kind != "operate":
        for other in GROUPS:
            if other != group:
                found.append(Target(f"{other}/doc", f"{other}/missing", _text(tenant, other)))
    return found


Action = Callable[[httpx.Client, str, Target, bool], httpx.Response]


def _upload(
    client: httpx.Client, doc_id: str, data: bytes, revision: str | None = None
) -> httpx.Response:
    form = {"document_id": doc_id, **({"revision": revision} if revision else {})}
    return client.post("/v1/documents", files={"file": ("f.txt", data)}, data=form)


def _pick(target: Target, exists: bool) -> str:
    return target.exists if exists else target.missing


ACTIONS: dict[str, Action] = {
    "upload": lambda c, k, t, e: _upload(c, _pick(t, e), b"A forged revision.\n"),
    # the hidden file's exact bytes: deduplication must not answer READY
    "replace": lambda c, k, t, e: _upload(c, _pick(t, e), t.data),
    # a label the hidden document has: must not answer 409
    "revision label": lambda c, k, t, e: _upload(c, _pick(t, e), b"Squat.\n", "r1"),
    "delete": lambda c, k, t, e: c.delete(f"/v1/documents/{_pick(t, e)}"),
    "acl": lambda c, k, t, e: c.put(
        f"/v1/documents/{_pick(t, e)}/groups", json={"groups": [k.split("-")[0]]}
    ),
    "documents": lambda c, k, t, e: c.get(f"/v1/documents/{_pick(t, e)}"),
    "text": lambda c, k, t, e: c.get(f"/v1/documents/{_pick(t, e)}/revisions/r1/text"),
}


def _snapshot(home: Path) -> dict[tuple[str, str], tuple[str | None, tuple[Any, ...]]]:
    """Every document of every tenant: current revision, revisions, bytes and groups."""
    app = Ragox(home)
    try:
        found = {}
        for tenant in TENANTS:
            for document in app.store.list_documents(tenant):
                revisions = app.store.revisions(tenant, document.document_id)
                found[tenant, document.document_id] = (
                    document.current_revision,
                    tuple((r.revision, r.source_sha256, sorted(r.groups)) for r in revisions),
                )
        return found
    finally:
        app.close()


@pytest.mark.alone  # compares latencies: no other test runs meanwhile (tests/conftest.py)
def test_exists_but_forbidden_answers_like_missing_in_every_cell(matrix: Matrix) -> None:
    """For every tenant, group, kind of key, action and forbidden object: the same status
    and body as for a missing object (a refusal), and nothing changes in the store."""
    before = _snapshot(matrix.home)
    cells = 0
    latencies: dict[tuple[str, bool], list[float]] = {}
    differences = []
    for (tenant, group, kind), key in matrix.keys.items():
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=matrix.url, headers=headers, timeout=30) as client:
            for name, action in ACTIONS.items():
                for target in _targets(tenant, group, kind):
                    answers = []
                    for exists in (True, False):
                        started = time.perf_counter()
                        response = action(client, f"{group}-{kind}", target, exists)
                        latencies.setdefault((name, exists), []).append(
                            time.perf_counter() - started
                        )
                        answers.append((response.status_code, response.text))
                    cells += 1
                    if answers[0] != answers[1] or answers[0][0] not in {403, 404}:
                        differences.append((tenant, group, kind, name, target.exists, answers))
            # Answers: another principal's answer in the tenant (for read and write keys
            # even their own group's reader's: an answer id is no read right), and any
            # answer of the other tenant, against an id that exists nowhere.
            other_tenant = next(t for t in TENANTS if t != tenant)
            foreign = [matrix.answers[other_tenant, group]]
            if kind != "operate":
                asker = group if kind == "read" else None  # the readers asked them
                foreign += [matrix.answers[tenant, g] for g in GROUPS if g != asker]
            for answer_id in foreign:
                pair = [client.get(f"/v1/answers/{i}") for i in (answer_id, "f" * 32)]
                cells += 1
                if (pair[0].status_code, pair[0].text) != (pair[1].status_code, pair[1].text):
                    differences.append((tenant, group, kind, "answers", answer_id, pair))
    assert [d[:5] for d in differences] == []
    assert cells >= 2 * 3 * 3 * 8
    assert _snapshot(matrix.home) == before
    # Timing class over HTTP: a generous bound that a lookup-free refusal meets on a
    # loaded machine (both cases run interleaved, ~30 requests each).
    for name in ACTIONS:
        hidden = statistics.median(latencies[name, True])
        missing = statistics.median(latencies[name, False])
        assert max(hidden, missing) <= 3 * min(hidden, missing) + 0.02, (name, hidden, missing)


def test_allowed_cells_work(matrix: Matrix) -> None:
    """The other side of each line: a reader reads its group's document and replays its
    own answer, a writer replaces its group's document, an operate key changes groups
    (and sees the result) and deletes, all within its tenant only."""
    tenant, group = "acme", "green"

    def client(kind: str) -> httpx.Client:
        key = matrix.keys[tenant, group, kind]
        return httpx.Client(
            base_url=matrix.url, headers={"Authorization": f"Bearer {key}"}, timeout=30
        )

    with client("read") as reader, client("write") as writer, client("operate") as operator:
        doc = reader.get(f"/v1/documents/{group}/doc").json()
        assert doc["current_revision"] == "r1"
        assert reader.get(f"/v1/answers/{matrix.answers[tenant, group]}").status_code == 200
        assert operator.get(f"/v1/answers/{matrix.answers[tenant, group]}").status_code == 200
        same = _upload(writer, f"{group}/doc", _text(tenant, group))
        assert same.status_code == 202 and same.json()["revision"] == "r1"
        assert same.json()["state"] == "READY"  # the same bytes, readable by the writer
        taken = _upload(writer, f"{group}/doc", b"Other bytes.\n", "r1")
        assert taken.status_code == 409
        created = _upload(writer, f"{group}/extra", b"An extra note.\n")
        assert created.status_code == 202
        # green/ has writers: its documents stay readable by green (else a 409, and
        # nothing changes) ...
        regroup = operator.put(f"/v1/documents/{group}/extra/groups", json={"groups": ["x"]})
        assert regroup.status_code == 409
        assert reader.get(f"/v1/documents/{group}/extra").status_code == 200
        # ... and may be readable by more groups.
        doc_groups = {"groups": ["x", group], "revision": "r1"}
        assert (
            operator.put(f"/v1/documents/{group}/extra/groups", json=doc_groups).status_code == 200
        )
        assert reader.get(f"/v1/documents/{group}/extra").json()["revisions"][0]["groups"] == [
            group,
            "x",
        ]
        assert operator.delete(f"/v1/documents/{group}/extra").status_code == 200
        assert operator.get(f"/v1/documents/{group}/extra").status_code == 404


class CountingStore:
    """The real store, with every attribute read from it counted (what a refused path
    touches before it refuses)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.touched: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.touched.append(name)
        return getattr(self._inner, name)


@pytest.mark.parametrize("document_id", ["red/doc", "red/missing"])
def test_refused_writes_touch_no_store(matrix: Matrix, document_id: str) -> None:
    """Timing class, structurally: an upload outside the write prefixes, and a delete or
    groups change by a key that does not operate, are refused before the store is asked
    anything (for an existing and a missing id alike)."""
    app = Ragox(matrix.home)
    counting = CountingStore(app.store)
    app.store = counting
    app.ingestor.store = counting
    try:
        for kind, group in (("read", "red"), ("write", "green"), ("operate", "red")):
            who = _principal("default", group, kind)
            with pytest.raises(WriteRefused):
                app.upload(who, b"Forged.\n", "f.txt", document_id)
            if kind != "operate":
                with pytest.raises(NotFound):
                    app.delete_as(who, document_id)
                with pytest.raises(NotFound):
                    app.set_groups_as(who, document_id, frozenset({group}))
        assert counting.touched == []
    finally:
        app.store = counting._inner
        app.close()


@pytest.mark.parametrize("whose", ["another principal's", "missing"])
def test_a_refused_replay_reads_only_the_owner(matrix: Matrix, whose: str) -> None:
    """Timing class of answers: refusing another principal's answer reads the same one
    indexed row (tenant, asker) as a missing id, never the record with its question."""
    app = Ragox(matrix.home)
    counting = CountingStore(app.store)
    app.store = counting
    answer_id = matrix.answers["default", "red"] if whose != "missing" else "f" * 32
    try:
        for who in (_principal("default", "red", "write"), _principal("acme", "red", "read")):
            with pytest.raises(NotFound):
                app.show_answer(answer_id, who)
        assert counting.touched == ["answer_owner", "answer_owner"]
    finally:
        app.store = counting._inner
        app.close()


def test_refused_api_requests_read_only_the_key(
    matrix: Matrix, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timing class through the real app (in process, real store): a refused upload,
    delete or groups change reads the caller's key and nothing else, and a refused
    replay also reads the answer's owner row, for existing and missing ids alike."""
    stores: list[CountingStore] = []

    class CountingRagox(Ragox):
        def __init__(self, home: Path) -> None:
            super().__init__(home)
            counting = CountingStore(self.store)
            self.store = counting
            self.ingestor.store = counting
            stores.append(counting)

    monkeypatch.setattr(app_module, "Ragox", CountingRagox)
    client = TestClient(app_module.create_app(matrix.home))
    (counting,) = stores
    red_writer = {"Authorization": f"Bearer {matrix.keys['default', 'red', 'write']}"}
    requests = {
        "upload": lambda i: client.post(
            "/v1/documents",
            headers=red_writer,
            files={"file": ("f.txt", _text("default", "green"))},
            data={"document_id": i},
        ),
        "delete": lambda i: client.delete(f"/v1/documents/{i}", headers=red_writer),
        "groups": lambda i: client.put(
            f"/v1/documents/{i}/groups", headers=red_writer, json={"groups": ["red"]}
        ),
    }
    try:
        for name, request in requests.items():
            for document_id in ("green/doc", "green/missing"):
                counting.touched.clear()
                assert request(document_id).status_code in {403, 404}
                # a route with a JSON body reads the key before the body and again
                # after it (a key revoked meanwhile is refused); the same for both ids
                reads = 2 if name == "groups" else 1
                assert counting.touched == ["key_principal"] * reads, (name, document_id)
        for answer_id in (matrix.answers["default", "green"], "f" * 32):
            counting.touched.clear()
            assert client.get(f"/v1/answers/{answer_id}", headers=red_writer).status_code == 404
            assert counting.touched == ["key_principal", "answer_owner"]
    finally:
        client.close()
        counting._inner.close()
