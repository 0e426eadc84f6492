"""The HTTP API against a real uvicorn process: authentication on every route,
revoked keys, scope answered like missing, upload limits, concurrent asks."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest

from conftest import chat_reply, serving
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

MANUAL = (
    "Pump P-200 service manual.\n\n"
    "The seal is checked every 500 operating hours. A worn seal causes leaks.\n\n"
    "Disconnect power before opening the cover.\n"
)


@dataclass
class Server:
    url: str
    staff: str
    outsider: str
    other_tenant: str
    revoked: str
    home: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("api") / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    keys = {
        "staff": app.create_key(
            Principal("sam", groups=frozenset({"staff"}), write=frozenset({"staff/"}))
        ),
        "outsider": app.create_key(Principal("oz", groups=frozenset({"sales"}))),
        "other": app.create_key(Principal("eve", tenant="acme", groups=frozenset({"staff"}))),
        "revoked": app.create_key(Principal("rex", groups=frozenset({"staff"}))),
    }
    assert app.revoke_key(keys["revoked"])
    app.close()
    with serving(home, "--upload-limit", "20000") as url:
        yield Server(url, keys["staff"], keys["outsider"], keys["other"], keys["revoked"], home)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _routes(server: Server) -> list[tuple[str, str]]:
    spec = httpx.get(f"{server.url}/v1/openapi.json").json()
    found = []
    for path, methods in spec["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "x", path)
        found.extend((method.upper(), concrete) for method in methods)
    return found


def test_every_route_requires_a_valid_key(server: Server) -> None:
    """Each route from the OpenAPI document: no key, a wrong key or a revoked key → 401."""
    routes = _routes(server)
    assert len(routes) >= 9
    for method, path in routes:
        for headers in ({}, _auth("rgx_wrong"), _auth(server.revoked)):
            response = httpx.request(method, server.url + path, headers=headers)
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
            assert response.json()["status"] == 401


def test_outside_scope_answers_like_missing(server: Server) -> None:
    """Another tenant's and another group's requests get the same 404 as a missing id."""
    missing = httpx.get(f"{server.url}/v1/documents/no-such.txt", headers=_auth(server.staff))
    for key in (server.outsider, server.other_tenant):
        response = httpx.get(f"{server.url}/v1/documents/manual.txt", headers=_auth(key))
        assert response.status_code == missing.status_code == 404
        assert response.json() == missing.json()
        text = httpx.get(
            f"{server.url}/v1/documents/manual.txt/revisions/r1/text", headers=_auth(key)
        )
        assert text.status_code == 404 and "seal" not in text.text
    ok = httpx.get(f"{server.url}/v1/documents/manual.txt", headers=_auth(server.staff))
    assert ok.status_code == 200 and ok.json()["current_revision"] == "r1"


def test_an_upload_whose_file_name_cannot_be_an_id_needs_one(server: Server) -> None:
    """Without ``document_id`` the file name is the id; a name that cannot be one (a line
    break, "..", none) is 422, and nothing is stored (before: each became the next
    revision of ``staff/upload``, so unrelated uploads replaced each other as current)."""
    before = httpx.get(f"{server.url}/v1/documents/staff/upload", headers=_auth(server.staff))
    for name in (b"Q3 report\n.txt", b"..", b""):
        # written by hand: httpx would percent-encode the line break
        body = (
            b'--B\r\nContent-Disposition: form-data; name="file"; filename="' + name + b'"\r\n'
            b"Content-Type: text/plain\r\n\r\nRevenue grew by four percent.\n\r\n--B--\r\n"
        )
        response = httpx.post(
            f"{server.url}/v1/documents",
            headers={**_auth(server.staff), "Content-Type": "multipart/form-data; boundary=B"},
            content=body,
        )
        assert response.status_code == 422, (name, response.text)
        assert "document_id" in response.json()["detail"]
    after = httpx.get(f"{server.url}/v1/documents/staff/upload", headers=_auth(server.staff))
    assert before.status_code == after.status_code == 404
    named = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.staff),
        files={"file": ("..", b"Revenue grew by four percent.\n")},
        data={"document_id": "staff/q3-report.txt"},
    )
    assert named.status_code == 202 and named.json()["document_id"] == "staff/q3-report.txt"


def test_upload_is_202_then_ready_and_limits_apply(server: Server) -> None:
    """An upload answers 202 with its state (an id without one is the file name in the
    key's write prefix), becomes READY, and oversize is 413."""
    response = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.staff),
        files={"file": ("notes.md", b"# Notes\n\nThe impeller is inspected yearly.\n")},
    )
    assert response.status_code == 202
    body = response.json()
    assert body["document_id"] == "staff/notes.md" and body["state"] in {"RECEIVED", "READY"}
    deadline = time.time() + 30
    while time.time() < deadline:
        state = httpx.get(
            f"{server.url}/v1/documents/staff/notes.md", headers=_auth(server.staff)
        ).json()["revisions"][0]["state"]
        if state == "READY":
            break
        time.sleep(0.2)
    assert state == "READY"
    too_big = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.staff),
        files={"file": ("big.txt", b"x" * 30000)},
    )
    assert too_big.status_code == 413
    foreign = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.staff),
        files={"file": ("g.txt", b"hello world text")},
        data={"groups": "board"},
    )
    assert foreign.status_code == 403


def test_an_upload_of_an_older_revisions_bytes_says_nothing_changed(server: Server) -> None:
    """Uploading the bytes of r1 again while r2 is current makes nothing (no roll-back):
    the 202 names r1, says it is unchanged and that r2 is current, as the CLI says;
    before, it read as if r1 were live again (new-user find). A new upload says
    neither."""

    def upload(text: bytes) -> dict[str, object]:
        response = httpx.post(
            f"{server.url}/v1/documents",
            headers=_auth(server.staff),
            files={"file": ("rollback.txt", text)},
        )
        assert response.status_code == 202
        body: dict[str, object] = response.json()
        deadline = time.time() + 30
        while time.time() < deadline:
            revisions = httpx.get(
                f"{server.url}/v1/documents/staff/rollback.txt", headers=_auth(server.staff)
            ).json()["revisions"]
            if all(r["state"] == "READY" for r in revisions):
                break
            time.sleep(0.2)
        return body

    first = upload(b"The impeller is inspected yearly.\n")
    assert first["revision"] == "r1" and "unchanged" not in first
    second = upload(b"The impeller is inspected monthly.\n")
    assert second["revision"] == "r2" and "current_revision" not in second
    again = upload(b"The impeller is inspected yearly.\n")
    assert again["revision"] == "r1" and again["state"] == "READY"
    assert again["unchanged"] is True and again["current_revision"] == "r2"
    same = upload(b"The impeller is inspected monthly.\n")
    assert same["unchanged"] is True and "current_revision" not in same


def test_fifty_concurrent_asks(server: Server) -> None:
    """50 concurrent asks all answer with the verified passage."""

    def ask(_: int) -> httpx.Response:
        return httpx.post(
            f"{server.url}/v1/ask",
            headers=_auth(server.staff),
            timeout=60,
            json={"question": "How often is the seal checked?"},
        )

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(ask, range(50)))
    for response in responses:
        assert response.status_code == 200
        body = response.json()
        assert "every 500 operating hours" in body["answer"]
        assert body["citations"][0]["status"] == "RESOLVED"
    answer_id = responses[0].json()["answer_id"]
    replay = httpx.get(f"{server.url}/v1/answers/{answer_id}", headers=_auth(server.staff))
    assert replay.status_code == 200
    hidden = httpx.get(f"{server.url}/v1/answers/{answer_id}", headers=_auth(server.outsider))
    missing = httpx.get(f"{server.url}/v1/answers/{'0' * 32}", headers=_auth(server.outsider))
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json()


def test_resolve_and_errors_are_problem_details(server: Server) -> None:
    """Resolution through the API; malformed input is a problem without protected text."""
    answer = httpx.post(
        f"{server.url}/v1/ask",
        headers=_auth(server.staff),
        json={"question": "What must be done before opening the cover?"},
    ).json()
    anchor = answer["citations"][0]["anchor"]
    ok = httpx.post(f"{server.url}/v1/resolve", headers=_auth(server.staff), json=anchor)
    assert ok.status_code == 200 and ok.json()["status"] == "RESOLVED"
    by_id = httpx.get(f"{server.url}/v1/anchors/{anchor['anchor_id']}", headers=_auth(server.staff))
    assert by_id.json()["status"] == "RESOLVED"
    denied = httpx.post(f"{server.url}/v1/resolve", headers=_auth(server.outsider), json=anchor)
    assert denied.json() == {
        "status": "ACCESS_DENIED",
        "reason": "access_denied",
        "anchor_id": anchor["anchor_id"],
    }
    bad = httpx.post(f"{server.url}/v1/resolve", headers=_auth(server.staff), content=b"{not json")
    assert bad.status_code == 400
    assert bad.headers["content-type"].startswith("application/problem+json")
    empty = httpx.get(f"{server.url}/v1/search", params={"q": ""}, headers=_auth(server.staff))
    assert empty.status_code == 400 and empty.json()["detail"] == "EMPTY_QUERY"


def test_workers_share_the_home_and_a_revoked_key_stops_at_once(tmp_path: Path) -> None:
    """`ragox serve --workers 2`: every worker resolves, and a key revoked by another
    process is refused on the very next request, whichever worker takes it."""
    home = tmp_path / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    reader = Principal("sam", groups=frozenset({"staff"}))
    created = app.create_anchor("manual.txt", 0, 4, reader)
    assert not isinstance(created, Refusal)
    key = app.create_key(reader)
    app.close()
    anchor_url = "/v1/anchors/" + created.anchor.anchor_id
    with serving(home, "--workers", "2") as url:

        def get(_: int) -> httpx.Response:
            # a new connection each time, so that the kernel spreads them over workers
            return httpx.get(url + anchor_url, headers=_auth(key))

        with ThreadPoolExecutor(max_workers=8) as pool:
            before = list(pool.map(get, range(24)))
        assert {r.json()["status"] for r in before} == {"RESOLVED"}
        assert {r.json()["exact"] for r in before} == {"Pump"}
        revoker = Ragox(home)
        assert revoker.revoke_key(key)
        revoker.close()
        with ThreadPoolExecutor(max_workers=8) as pool:
            after = list(pool.map(get, range(24)))
        assert {r.status_code for r in after} == {401}
        assert all("Pump" not in r.text for r in after)


class _Recorder(BaseHTTPRequestHandler):
    """A chat-completions endpoint that records what it is sent and quotes the seal."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        type(self).received.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        claims = [
            {
                "text": "Every 500 hours.",
                "source_id": "S1",
                "quote": "The seal is checked every 500 operating hours.",
            }
        ]
        payload = json.dumps(chat_reply(claims)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    _Recorder.received = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", _Recorder.received
    httpd.shutdown()
    httpd.server_close()


def test_callers_cannot_choose_where_the_server_sends_evidence(
    server: Server, recorder: tuple[str, list[dict[str, Any]]]
) -> None:
    """A generator URL in an ask is refused (422) and nothing is sent anywhere: the server
    would hand the evidence, and its generator key, to whoever the caller named."""
    url, received = recorder
    for spec in (f"openai:{url}#m", "openai:http://169.254.169.254/latest#m", "bogus"):
        response = httpx.post(
            f"{server.url}/v1/ask",
            headers=_auth(server.staff),
            json={"question": "How often is the seal checked?", "generator": spec},
        )
        assert response.status_code == 422, spec
        assert response.headers["content-type"].startswith("application/problem+json")
    assert received == []


def test_the_operator_configures_the_generator(
    tmp_path: Path, recorder: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ragox serve --generator openai:…` answers through that server by default, with the
    key from the environment; a caller may still ask for the extractive generator."""
    url, received = recorder
    home = tmp_path / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    question = {"question": "How often is the seal checked?"}
    monkeypatch.setenv("RAGOX_GENERATOR_API_KEY", "sk-operator")
    with serving(home, "--generator", f"openai:{url}#m") as base:
        remote = httpx.post(f"{base}/v1/ask", headers=_auth(key), json=question).json()
        assert len(received) == 1
        assert received[0]["path"] == "/v1/chat/completions"
        assert received[0]["auth"] == "Bearer sk-operator"
        assert remote["answer"] == "Every 500 hours. [S1]"
        assert remote["citations"][0]["status"] == "RESOLVED"
        local = httpx.post(
            f"{base}/v1/ask", headers=_auth(key), json={**question, "generator": "extractive"}
        ).json()
        assert len(received) == 1  # the extractive answer sent nothing out
        assert "every 500 operating hours" in local["answer"]
