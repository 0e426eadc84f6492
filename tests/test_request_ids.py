"""Every API response carries an opaque request id (``X-Request-Id``; a problem's
body stays the same for every request), and ``ragox serve`` logs one line per request
with that id, the route template and the status, never the path, the question or a
document's text (non-negotiable 5: errors and logs carry status codes and opaque ids).
Before, errors had no id and the server logged nothing, so a caller could not report a
failure that the operator could find (found by a new-user pass)."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from conftest import serving
from ragox.access import Principal
from ragox.api._requests import RequestIds
from ragox.service import Ragox

SECRET_ID = "board/layoffs-2027.txt"
SECRET = b"Layoff plan. Forty roles in Lyon are cut in March.\n"


def _log_line(log: Path, request_id: str) -> str:
    lines = [line for line in log.read_text().splitlines() if f"request {request_id} " in line]
    assert len(lines) == 1, log.read_text()
    return lines[0]


def test_responses_and_log_lines_carry_an_opaque_request_id(tmp_path: Path) -> None:
    home = tmp_path / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        SECRET, "layoffs.txt", SECRET_ID, groups=frozenset({"board"}), tenant="default"
    )
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    log = tmp_path / "stderr.log"
    auth = {"Authorization": f"Bearer {key}"}
    with serving(home, stderr=log) as url:
        hidden = httpx.get(f"{url}/v1/documents/{SECRET_ID}", headers=auth)
        asked = httpx.post(
            f"{url}/v1/ask", headers=auth, json={"question": "Which roles in Lyon are cut?"}
        )
        anonymous = httpx.get(f"{url}/v1/documents")
        guarded = httpx.post(f"{url}/v1/ask", json={"question": "Which roles are cut?"})
        # a caller that leaves before its body is in: no bug, no traceback (red-team)
        where = urlsplit(url)
        assert where.hostname is not None and where.port is not None
        with socket.create_connection((where.hostname, where.port), timeout=15) as sock:
            sock.sendall(
                b"POST /v1/ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + f"Authorization: Bearer {key}\r\nContent-Length: 1000\r\n\r\n".encode()
                + b'{"question": "'
            )
            time.sleep(0.3)
        time.sleep(0.3)
        ids = [r.headers["X-Request-Id"] for r in (hidden, asked, anonymous, guarded)]
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids), ids
    assert len(set(ids)) == 4
    assert hidden.status_code == 404
    assert anonymous.status_code == 401
    assert asked.status_code == 200
    assert " GET /v1/documents/{document_id:path} 404 " in _log_line(log, ids[0])
    assert " POST /v1/ask 200 " in _log_line(log, ids[1])
    assert " GET /v1/documents 401 " in _log_line(log, ids[2])
    # answered by the body guard, before routing: still named by its route
    assert " POST /v1/ask 401 " in _log_line(log, ids[3])
    text = log.read_text()
    assert "Traceback" not in text and "failed" not in text
    assert " POST /v1/ask disconnected " in text
    for protected in ("layoffs", "Lyon", "roles", "board/"):
        assert protected not in text, protected


async def _boom(scope: Scope, receive: Receive, send: Send) -> None:
    """An app with a bug (our routes sit inside the server-error middleware)."""
    raise RuntimeError("the text of a document: Forty roles in Lyon")


def test_a_bug_is_a_bare_500_problem_with_its_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = RequestIds(_boom)
    client = TestClient(app, raise_server_exceptions=False)  # no lifespan: HTTP only
    answer = client.get("/boom")
    assert answer.status_code == 500
    request_id = answer.headers["X-Request-Id"]
    assert answer.json() == {
        "type": "about:blank",
        "title": "Internal Server Error",
        "status": 500,
    }
    assert "Lyon" not in answer.text
    assert any(request_id in record.getMessage() for record in caplog.records)
