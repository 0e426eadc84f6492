"""API replicas: two `ragox serve` processes over one store hold nothing that decides
correctness in a process cache. A key revoked and a document deleted by another
process mid-run are refused and gone in both for every request that
starts after the commit."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conftest import serving
from ragox.access import Principal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

READERS = 20
STAFF = frozenset({"staff"})
GONE = "staff/gone.txt"
KEPT = "staff/kept.txt"
WORD = "zephyrquartzx"  # only the deleted document has it


@dataclass(frozen=True)
class Call:
    kind: str
    started: float
    status: int
    #: the document to delete was seen (search hit, text, RESOLVED anchor)
    saw_gone: bool


def _call(client: httpx.Client, url: str, kind: str, keys: dict[str, str], anchor: dict) -> Call:
    started = time.monotonic()
    if kind == "me":  # with the key that is revoked
        answer = client.get(f"{url}/v1/me", headers=_auth(keys["revoked"]))
        return Call(kind, started, answer.status_code, False)
    auth = _auth(keys["kept"])
    if kind == "search":
        answer = client.get(f"{url}/v1/search", headers=auth, params={"q": WORD})
        hits = answer.json()["hits"] if answer.status_code == 200 else []
        saw = any(h["document_id"] == GONE for h in hits)
    elif kind == "text":
        answer = client.get(f"{url}/v1/documents/{GONE}/revisions/r1/text", headers=auth)
        saw = answer.status_code == 200
    else:
        answer = client.post(f"{url}/v1/resolve", headers=auth, json=anchor)
        saw = answer.status_code == 200 and answer.json()["status"] == "RESOLVED"
    return Call(kind, started, answer.status_code, saw)


def _seen_everywhere(calls: list[Call], lock: threading.Lock) -> bool:
    """The key accepted and the document seen through each route, so far."""
    with lock:
        return any(c.kind == "me" and c.status == 200 for c in calls) and all(
            any(c.kind == kind and c.saw_gone for c in calls)
            for kind in ("search", "text", "resolve")
        )


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_two_replicas_refuse_a_revoked_key_and_forget_a_deleted_document(
    tmp_path: Path, backend: str
) -> None:
    """20 concurrent readers over 2 API processes; a key revoked and a document deleted
    by a third process mid-run: no request started after either commit sees the key
    accepted or the document (search, text, anchor resolution, in either process)."""
    home = tmp_path / "home"
    app = Ragox(home)
    for doc_id, text in (
        (GONE, f"The {WORD} valve is inspected weekly.\n\nIt holds the pressure.\n"),
        (KEPT, "The pump is inspected monthly.\n\nIt moves the water.\n"),
    ):
        app.ingestor.ingest_bytes(text.encode(), doc_id, doc_id, groups=STAFF, tenant="default")
    reader = Principal("rita", groups=STAFF)
    keys = {"revoked": app.create_key(reader), "kept": app.create_key(reader)}
    anchor = app.create_anchor(GONE, 4, 17, reader).anchor.to_json()
    app.close()

    kinds = ("me", "search", "text", "resolve")
    calls: list[Call] = []
    lock = threading.Lock()
    stop = threading.Event()
    with serving(home) as first, serving(home) as second:
        urls = (first, second)

        def read(number: int) -> None:
            with httpx.Client(timeout=60) as client:
                turn = number
                while not stop.is_set():
                    url, kind = urls[turn % 2], kinds[(turn // 2) % len(kinds)]
                    turn += 1
                    try:
                        call = _call(client, url, kind, keys, anchor)
                    except httpx.TransportError:
                        # a kept-alive connection the server closed as it was reused:
                        # says nothing about what the request would have seen
                        continue
                    with lock:
                        calls.append(call)

        threads = [threading.Thread(target=read, args=(n,)) for n in range(READERS)]
        for thread in threads:
            thread.start()
        try:
            deadline = time.monotonic() + 120
            while not _seen_everywhere(calls, lock) and time.monotonic() < deadline:
                time.sleep(0.2)
            # a third process (this one) commits; each call returns after its commit
            operator = Ragox(home)
            assert operator.revoke_key(keys["revoked"])
            revoked_at = time.monotonic()
            time.sleep(2)
            assert operator.delete(GONE)
            deleted_at = time.monotonic()
            operator.close()
            time.sleep(3)
        finally:
            stop.set()
            for thread in threads:
                thread.join()

    by_kind = {kind: [c for c in calls if c.kind == kind] for kind in kinds}
    # before: the key worked and the document was seen, through every route
    assert any(c.status == 200 for c in by_kind["me"] if c.started < revoked_at)
    for kind in ("search", "text", "resolve"):
        assert any(c.saw_gone for c in by_kind[kind] if c.started < revoked_at), kind
    after_revoke = [c for c in by_kind["me"] if c.started > revoked_at]
    after_delete = [c for c in calls if c.kind != "me" and c.started > deleted_at]
    assert after_revoke and all(c.status == 401 for c in after_revoke)
    assert after_delete and not any(c.saw_gone for c in after_delete)
    assert all(c.status in (200, 404) for c in after_delete)
    print(
        f"\n{backend}: {len(calls)} requests by {READERS} readers over 2 replicas; "
        f"{len(after_revoke)} with the revoked key after the revoke, all 401; "
        f"{len(after_delete)} after the delete, none saw the document"
    )
