"""Issue 10, resources and odd input: the body is bounded and read only after the key,
renders are capped, odd input is a usage error, homes are owner-only, nosniff everywhere."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
import pymupdf
import pytest

from conftest import OPERATOR, SEED_BYTES, run_ragox, serving, stored_groups
from ragox.access import Principal
from ragox.extract import ErrorCode, ExtractionError
from ragox.extract._isolated import render_page_png_isolated
from ragox.service import NotFound, Ragox

pytestmark = pytest.mark.both_backends

TEXT = b"Pump manual.\n\nThe seal is checked every 500 operating hours.\n"
LIMIT = 200_000


@dataclass(frozen=True)
class Server:
    url: str
    key: str
    home: Path
    spool: Path


def _page_pdf(width: float, height: float) -> bytes:
    """A one-page PDF of the given size in points, with a line of text."""
    document = pymupdf.open()
    page = document.new_page(width=width, height=height)
    page.insert_text((72, 72), "A very large page.", fontsize=12)
    data = document.tobytes()
    document.close()
    return bytes(data)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("limits")
    home, spool = root / "home", root / "spool"
    spool.mkdir()
    app = Ragox(home)
    # An operate key that may write any id: these tests are about limits and input,
    # not about who may upload (tests/test_write_access.py).
    key = app.create_key(
        Principal("sam", groups=frozenset({"staff"}), operator=True, write=frozenset({"*"}))
    )
    staff = frozenset({"staff"})
    app.ingestor.ingest_bytes(TEXT, "manual.txt", "manual.txt", groups=staff, tenant="default")
    for name, size in (("huge.pdf", 14400.0), ("big.pdf", 9000.0)):
        outcome = app.ingestor.ingest_bytes(
            _page_pdf(size, size), name, name, groups=staff, tenant="default"
        )
        assert outcome.state.value == "READY", outcome
    app.close()
    # TMPDIR: where the server would spool an upload's body
    with serving(home, "--upload-limit", str(LIMIT), env={"TMPDIR": str(spool)}) as url:
        yield Server(url, key, home, spool)


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def _raw_upload(url: str, headers: dict[str, str], send_bytes: int, chunked: bool) -> bytes:
    """Send an upload's headers and ``send_bytes`` of a body that never ends, then read
    the answer: only a server that refuses before reading the body in full answers
    (one that waits for the rest times out here)."""
    boundary = "XyZ"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n'
    ).encode()
    content_type = f"multipart/form-data; boundary={boundary}"
    return _raw_post(url, "/v1/documents", content_type, head, headers, send_bytes, chunked)


def _raw_post(
    url: str,
    path: str,
    content_type: str,
    head: bytes,
    headers: dict[str, str],
    send_bytes: int,
    chunked: bool,
) -> bytes:
    """POST to ``path`` a body that opens with ``head`` and never ends (``send_bytes``
    of it are sent), then read the answer."""
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {where.hostname}:{where.port}",
        f"Content-Type: {content_type}",
        *(f"{k}: {v}" for k, v in headers.items()),
        "Transfer-Encoding: chunked" if chunked else f"Content-Length: {50 * 2**20}",
    ]
    with socket.create_connection((where.hostname, where.port), timeout=15) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        piece = head + b"x" * (64 * 1024 - len(head))
        sent = 0
        try:
            while sent < send_bytes:
                data = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
                sock.sendall(data)
                sent += len(piece)
                piece = b"x" * (64 * 1024)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the server answered (and closed, or stopped reading): what we test
        answer = b""
        try:
            while b"\r\n\r\n" not in answer:
                part = sock.recv(65536)
                if not part:
                    break
                answer += part
        except (TimeoutError, ConnectionResetError):
            pass  # no answer while the body is incomplete: it waits to read all of it
        return answer


def test_unauthenticated_upload_is_refused_before_its_body_is_read(server: Server) -> None:
    """A 50 MB upload without a key is a quick 401; nothing of it is spooled or stored."""
    blobs_before = _files_under(server.home / "blobs")
    started = time.perf_counter()
    answer = _raw_upload(server.url, {}, send_bytes=1 * 2**20, chunked=False)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert time.perf_counter() - started < 10
    assert _files_under(server.spool) == []
    assert _files_under(server.home / "blobs") == blobs_before


@pytest.mark.parametrize("path", ["/v1/ask", "/v1/chat/completions"])
def test_question_bodies_are_bounded_and_need_a_key_first(server: Server, path: str) -> None:
    """A JSON body without a key is a quick 401 before it is read; with a key, a body
    over 4 MiB is a 413, declared or streamed, without being read in full (before: read
    and parsed whatever its size, without a key too: a 300 MB body took the server from
    165 to 750 MB). A question of normal size is still answered."""
    head = b'{"question": "' if path == "/v1/ask" else b'{"model": "ragox", "messages": ["'
    started = time.perf_counter()
    anonymous = _raw_post(server.url, path, "application/json", head, {}, 2**20, False)
    assert anonymous.startswith(b"HTTP/1.1 401"), anonymous[:200]
    assert b"application/problem+json" in anonymous
    assert time.perf_counter() - started < 10
    auth = _auth(server.key)
    declared = _raw_post(server.url, path, "application/json", head, auth, 2**20, False)
    assert declared.startswith(b"HTTP/1.1 413"), declared[:200]
    streamed = _raw_post(server.url, path, "application/json", head, auth, 6 * 2**20, True)
    assert streamed.startswith(b"HTTP/1.1 413"), streamed[:200]
    assert b"application/problem+json" in streamed
    if path == "/v1/ask":
        body: dict[str, object] = {"question": "When is the pump checked?"}
    else:
        body = {"model": "ragox", "messages": [{"role": "user", "content": "pump check?"}]}
    small = httpx.post(f"{server.url}{path}", headers=auth, json=body, timeout=60)
    assert small.status_code == 200, small.text


def test_a_key_revoked_while_its_body_was_held_back_is_refused(server: Server) -> None:
    """An operate key sends PUT …/groups and holds back the last byte of its body; the
    key is revoked; then the byte comes: 401, and the readers stay. (The body guard
    checks the key before the body; the route checks it again after it. Red-team: with
    the first check alone, the change was made 30 s after the revocation.)"""
    app = Ragox(server.home)
    key = app.create_key(Principal("olga", groups=frozenset({"staff"}), operator=True))
    app.close()
    where = urlsplit(server.url)
    assert where.hostname is not None and where.port is not None
    body = json.dumps({"groups": ["staff", "everyone"]}).encode()
    head = (
        "PUT /v1/documents/manual.txt/groups HTTP/1.1\r\n"
        f"Host: {where.hostname}:{where.port}\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((where.hostname, where.port), timeout=15) as sock:
        sock.sendall(head + body[:-1])
        time.sleep(0.3)  # the guard has checked the key and waits for the body
        app = Ragox(server.home)
        assert app.revoke_key(key)
        app.close()
        sock.sendall(body[-1:])
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]
    assert stored_groups(server.home, "manual.txt") == {"staff"}


def test_a_body_sent_too_slowly_is_a_408(tmp_path: Path) -> None:
    """A question's body that has not arrived within ``--body-timeout`` seconds is a 408
    problem, and the connection is free again; the server never stopped waiting for a
    body before, so one sent a byte at a time held its connection for ever (red-team)."""
    home = tmp_path / "home"
    app = Ragox(home)
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    with serving(home, "--body-timeout", "1") as url:
        where = urlsplit(url)
        assert where.hostname is not None and where.port is not None
        head = (
            "POST /v1/ask HTTP/1.1\r\n"
            f"Host: {where.hostname}:{where.port}\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n"
        ).encode()
        started = time.perf_counter()
        with socket.create_connection((where.hostname, where.port), timeout=15) as sock:
            sock.sendall(head + b'{"question": ')
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert 0.9 < time.perf_counter() - started < 10
            # and the connection is closed: a body sent on a byte at a time no longer
            # holds it (red-team: it stayed open, each byte discarded). Read to the
            # end: a connection kept open would time out here.
            assert b"connection: close" in answer.lower()
            sock.settimeout(5)
            for _ in range(20):
                try:
                    sock.sendall(b" ")
                    part = sock.recv(65536)
                except (ConnectionResetError, BrokenPipeError):
                    break
                if not part:
                    break
                answer += part
                time.sleep(0.05)
            else:
                raise AssertionError("the connection stayed open after the 408")
            assert b"application/problem+json" in answer
        # POST /v1/resolve, which reads its own body, keeps the same time (red-team)
        with socket.create_connection((where.hostname, where.port), timeout=15) as sock:
            sock.sendall(head.replace(b"/v1/ask", b"/v1/resolve") + b'{"anchor_id": ')
            answer = sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        fine = httpx.post(
            f"{url}/v1/ask",
            headers=_auth(key),
            json={"question": "When is the seal checked?"},
            timeout=30,
        )
        assert fine.status_code == 200, fine.text


def test_oversize_uploads_are_413_problems(server: Server) -> None:
    """A declared and a streamed (chunked) body over the limit are 413 problem details,
    answered without reading them in full and leaving nothing behind."""
    declared = _raw_upload(server.url, _auth(server.key), 1 * 2**20, chunked=False)
    assert declared.startswith(b"HTTP/1.1 413"), declared[:200]
    assert b"application/problem+json" in declared
    streamed = _raw_upload(server.url, _auth(server.key), 4 * 2**20, chunked=True)
    assert streamed.startswith(b"HTTP/1.1 413"), streamed[:200]
    assert b"application/problem+json" in streamed
    assert _files_under(server.spool) == []
    small = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.key),
        files={"file": ("ok.txt", b"A small file that fits.\n")},
    )
    assert small.status_code == 202


def test_page_renders_are_capped_in_pixels(server: Server) -> None:
    """A 14400 pt and a 9000 pt page render as PNGs within the pixel budget; a missing
    page is 404; all as problem details when refused."""
    for name in ("huge.pdf", "big.pdf"):
        response = httpx.get(
            f"{server.url}/v1/documents/{name}/revisions/r1/pages/1",
            headers=_auth(server.key),
            timeout=60,
        )
        assert response.status_code == 200, response.text
        pixmap = pymupdf.Pixmap(response.content)
        assert pixmap.width * pixmap.height <= 8_000_000
        assert pixmap.width >= 2000  # scaled down, not refused or blank
    missing = httpx.get(
        f"{server.url}/v1/documents/huge.pdf/revisions/r1/pages/2", headers=_auth(server.key)
    )
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_nosniff_on_every_response(server: Server) -> None:
    """Static files, JSON, problem details, 404s and the docs page all carry nosniff."""
    key = _auth(server.key)
    for path, headers in (
        ("/view/static/viewer.js", {}),
        ("/view/library", {}),
        ("/v1/openapi.json", {}),
        ("/v1/documents", key),
        ("/v1/documents", {}),
        ("/v1/no-such-route", {}),
        ("/v1/anchors/" + "0" * 64, key),
        ("/v1/docs", {}),
    ):
        response = httpx.get(f"{server.url}{path}", headers=headers)
        assert response.headers.get("x-content-type-options") == "nosniff", path


def test_docs_page_runs_no_third_party_script(server: Server) -> None:
    """/v1/docs is our own page under the viewer's CSP, loading nothing from elsewhere."""
    response = httpx.get(f"{server.url}/v1/docs")
    assert response.status_code == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert "cdn" not in response.text.lower() and "https://" not in response.text
    assert httpx.get(f"{server.url}/view/static/docs.js").status_code == 200


def test_every_page_names_an_icon_that_is_served(server: Server) -> None:
    """Each page of the web app names its icon, and the icon is served from here (before:
    browsers asked for /favicon.ico, a 404 on every page load and in the request log)."""
    for path in ("/view/ask", "/view/library", "/view/anchors/" + "0" * 64, "/v1/docs"):
        page = httpx.get(f"{server.url}{path}").text
        found = re.search(r'<link rel="icon" href="(/view/static/[^"]+)"', page)
        assert found is not None, path
        icon = httpx.get(f"{server.url}{found[1]}")
        assert icon.status_code == 200
        assert icon.headers["content-type"].startswith("image/svg+xml")
        assert icon.content.startswith(b"<svg")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ('{"document_id": "\\ud800"}', "lone surrogate"),
        ('{"quote": {"exact": "\\udfff"}}', "lone surrogate"),
        ('{"position": {"start": ' + "9" * 5000 + "}}", "number"),
    ],
)
def test_odd_json_is_a_400_not_a_500(server: Server, body: str, reason: str) -> None:
    """A lone surrogate in any anchor field, or a 5000-digit position, is a 400 problem."""
    anchor = {
        "document_id": "manual.txt",
        "revision": "r1",
        "source_sha256": "a" * 64,
        "text_sha256": "b" * 64,
        "parser": "plain",
        "profile": "p",
        "coordinates": "codepoint",
        "quote": {"exact": "seal"},
        "position": {"start": 0, "end": 4},
    }
    text = json.dumps(anchor)
    override = json.loads(body.replace("9" * 5000, "0"))
    key = next(iter(override))
    # splice the raw override in, so the surrogate escape and the digits reach the server
    raw = text.replace(json.dumps({key: anchor[key]})[1:-1], body[1:-1])
    assert raw != text
    response = httpx.post(
        f"{server.url}/v1/resolve",
        content=raw.encode(),
        headers={**_auth(server.key), "Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    w3c = {
        "type": "Annotation",
        "target": {
            "type": "SpecificResource",
            "source": "x",
            "selector": [{"type": "TextQuoteSelector"}, {"type": "TextPositionSelector"}],
            "ragox:anchor": {"ragox:documentId": "\ud800", "ragox:revision": "r1"},
        },
    }
    annotation = httpx.post(
        f"{server.url}/v1/resolve",
        content=json.dumps(w3c).encode(),
        headers={**_auth(server.key), "Content-Type": "application/json"},
    )
    assert annotation.status_code == 400, annotation.text


@pytest.mark.parametrize(
    ("document_id", "why"),
    [
        ("line\nbreak", "control"),
        ("tab\there", "control"),
        ("x" * 1025, "longer"),
        ("manual.txt/revisions/r1/text", "revisions"),
        ("a/revisions/x/original", "revisions"),
        ("/leading", "segment"),
        ("a//b", "segment"),
    ],
)
def test_document_ids_follow_the_rule(server: Server, document_id: str, why: str) -> None:
    """Ids that could not be fetched back (line breaks, route text, overlong) are 422."""
    response = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.key),
        files={"file": ("f.txt", b"Some text.\n")},
        data={"document_id": document_id},
    )
    assert response.status_code == 422, response.text
    assert why in response.json()["detail"]


def test_a_valid_unusual_id_round_trips(server: Server) -> None:
    """An id with spaces, unicode and slashes is accepted and fetched back by its URL."""
    document_id = "Handbücher/2024 Q1/manual (final).txt"
    response = httpx.post(
        f"{server.url}/v1/documents",
        headers=_auth(server.key),
        files={"file": ("f.txt", b"Some text here.\n")},
        data={"document_id": document_id},
    )
    assert response.status_code == 202, response.text
    fetched = httpx.get(
        f"{server.url}/v1/documents/{quote(document_id)}", headers=_auth(server.key)
    )
    assert fetched.status_code == 200 and fetched.json()["document_id"] == document_id


# -- the CLI ------------------------------------------------------------------------------


def test_an_id_with_nul_names_no_document(app: Ragox) -> None:
    """A document id or revision with NUL (which PostgreSQL text cannot hold) is a
    document that does not exist, on either backend: not found, nothing deleted."""
    app.ingestor.ingest_bytes(SEED_BYTES, "seed.txt", "seed.txt", tenant="default")
    for call in (
        lambda: app.status("seed\x00.txt", OPERATOR),
        lambda: app.text("seed\x00.txt", OPERATOR),
        lambda: app.retry("seed.txt", "r1\x00"),
    ):
        with pytest.raises(NotFound):
            call()
    assert app.delete("seed\x00.txt") is False
    assert app.status("seed.txt", OPERATOR).document.current_revision == "r1"


def test_cli_rejects_lone_surrogates_and_huge_numbers(tmp_path: Path) -> None:
    """`resolve -` with a lone surrogate or a 5000-digit position is exit 2, one line."""
    home = tmp_path / "home"
    base = {
        "document_id": "d",
        "revision": "r1",
        "source_sha256": "a" * 64,
        "text_sha256": "b" * 64,
        "parser": "plain",
        "profile": "p",
        "coordinates": "codepoint",
        "quote": {"exact": "x"},
        "position": {"start": 0, "end": 1},
    }
    surrogate = json.dumps(base).replace('"exact": "x"', '"exact": "\\ud800"')
    digits = json.dumps(base).replace('"start": 0', '"start": ' + "7" * 5000)
    for stdin in (surrogate, digits):
        result = run_ragox(home, "resolve", "-", "--json", stdin=stdin)
        assert result.code == 2, result
        assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
        assert "internal error" not in result.stderr


def test_non_utf8_arguments_are_usage_errors(tmp_path: Path) -> None:
    """A command-line argument that is not UTF-8 is exit 2 with one line, never a crash."""
    env = {**os.environ, "RAGOX_HOME": str(tmp_path / "home")}
    for args in ([b"status", b"\xff"], [b"search", b"caf\xe9"], [b"ingest", b"\xfe.txt"]):
        proc = subprocess.run(
            [sys.executable.encode(), b"-m", b"ragox", *args],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 2, proc
        assert b"not valid UTF-8" in proc.stderr and len(proc.stderr.splitlines()) == 1


def test_cli_document_id_rule(tmp_path: Path) -> None:
    """`ingest --document-id` with a line break or route text is exit 2, nothing stored."""
    home = tmp_path / "home"
    source = tmp_path / "a.txt"
    source.write_bytes(TEXT)
    for bad in ("a\nb", "a/revisions/r1/text", "x" * 2000):
        result = run_ragox(home, "ingest", str(source), "--document-id", bad)
        assert result.code == 2 and "--document-id" in result.stderr, result
    assert run_ragox(home, "status", "--json").json() == {"documents": []}


def test_folder_ingest_reports_odd_files_and_goes_on(tmp_path: Path) -> None:
    """A non-UTF-8 name, a link out of the folder, a link to a folder outside and a
    'revisions' folder are each reported as skipped; the other files are ingested."""
    home = tmp_path / "home"
    root = tmp_path / "docs"
    outside = tmp_path / "outside"
    (root / "revisions").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"Outside the folder.\n")
    (root / "a.txt").write_bytes(TEXT)
    (root / "z.txt").write_bytes(SEED_BYTES)
    (root / "revisions" / "r.txt").write_bytes(b"Route-like id.\n")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"Latin-1 name.\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "inside.txt").symlink_to(root / "a.txt")
    result = run_ragox(home, "ingest", str(root), "--json")
    rows = {Path(row["path"]).name: row for row in result.json()["results"]}  # type: ignore[index]
    assert rows["a.txt"]["state"] == "READY" and rows["z.txt"]["state"] == "READY"
    assert rows["inside.txt"]["state"] == "READY"  # a link within the folder is fine
    assert rows["link.txt"]["reason"] == "OUTSIDE_FOLDER"
    assert rows["linkdir"]["reason"] == "OUTSIDE_FOLDER"
    assert rows["r.txt"]["reason"] == "INVALID_NAME"
    assert rows["caf\\xe9.txt"]["reason"] == "INVALID_NAME"
    # one verdict in every form: a failure (exit 1, counted, flagged), a link out only skipped
    assert rows["caf\\xe9.txt"]["failed"] and not rows["link.txt"]["failed"]
    assert result.json()["summary"]["failed"] == sum(r.get("failed", False) for r in rows.values())
    assert result.code == 1
    listed = run_ragox(home, "search", "Outside", "--json").json()
    assert listed == {"hits": []}
    people = run_ragox(home, "ingest", str(root))
    assert "FAILED   " + str(root / "caf\\xe9.txt") in people.stdout


def _ingest_as_unprivileged(home: Path, root: Path) -> tuple[int, str]:
    """`ragox ingest ROOT --json` as user 'nobody' when we are root (root reads every
    file whatever its mode), else as ourselves: a forked child drops its privileges."""
    if os.geteuid() != 0:
        result = run_ragox(home, "ingest", str(root), "--json")
        return result.code, result.stdout
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            result = run_ragox(home, "ingest", str(root), "--json")
            os.write(write_end, json.dumps([result.code, result.stdout]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    code, stdout = json.loads(data)
    return int(code), str(stdout)


def test_unreadable_file_is_reported_even_as_root(tmp_path: Path) -> None:
    """A file the user cannot read is skipped as UNREADABLE and the rest is ingested;
    as root the CLI runs as an unprivileged user, since chmod 000 does not stop root."""
    work = Path(tempfile.mkdtemp(prefix="ragox-unreadable-"))  # reachable by 'nobody'
    try:
        os.chmod(work, 0o777)
        root = work / "docs"
        root.mkdir(mode=0o755)
        (root / "a.txt").write_bytes(TEXT)
        os.chmod(root / "a.txt", 0o644)
        secret = root / "secret.txt"
        secret.write_bytes(b"No access.\n")
        os.chmod(secret, 0)
        code, stdout = _ingest_as_unprivileged(work / "home", root)
        rows = {Path(r["path"]).name: r for r in json.loads(stdout)["results"]}
        assert rows["secret.txt"] == {
            "path": str(secret),
            "state": "SKIPPED",
            "reason": "UNREADABLE",
            "failed": True,
        }
        assert rows["a.txt"]["state"] == "READY" and code == 1
    finally:
        subprocess.run(["rm", "-rf", str(work)], check=False)


def test_json_stdout_has_no_mupdf_messages(tmp_path: Path) -> None:
    """Ingesting a damaged PDF with --json prints JSON only; MuPDF's complaints stay off."""
    good = (Path(__file__).parent / "data" / "pdf" / "multicolumn.pdf").read_bytes()
    middle = len(good) // 2
    damaged = good[:middle] + b"garbage" * 100 + good[middle + 700 :]
    source = tmp_path / "damaged.pdf"
    source.write_bytes(damaged)
    env = {**os.environ, "RAGOX_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-m", "ragox", "ingest", str(source), "--json"],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert "MuPDF" not in proc.stdout.decode()
    assert json.loads(proc.stdout)["results"][0]["path"] == str(source)


# -- permissions ----------------------------------------------------------------------------


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.sqlite_only  # the SQLite file's own mode
def test_home_files_are_owner_only(tmp_path: Path) -> None:
    """The database (and its WAL), key files and blobs are 0600, their folders 0700."""
    home = tmp_path / "home"
    saved = os.umask(0o022)
    try:
        app = Ragox(home)
        app.ingestor.ingest_bytes(TEXT, "a.txt", "a.txt", tenant="default")
        key_file = home / "keys" / "manifest.key"
        files = [home / "ragox.db", key_file, *_files_under(home / "blobs")]
        wal = home / "ragox.db-wal"
        if wal.exists():
            files.append(wal)
        folders = [home, home / "keys", home / "blobs", *(home / "blobs").iterdir()]
        assert len(files) >= 3
        assert {str(p): _mode(p) for p in files} == {str(p): 0o600 for p in files}
        assert {str(p): _mode(p) for p in folders} == {str(p): 0o700 for p in folders}
        app.close()
    finally:
        os.umask(saved)


@pytest.mark.sqlite_only  # the SQLite file's own mode
def test_an_older_home_is_tightened_on_open(tmp_path: Path) -> None:
    """A home left world-readable (as older versions made it) is 0600/0700 once opened."""
    home = tmp_path / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(TEXT, "a.txt", "a.txt", tenant="default")
    app.close()
    loose = [home, home / "ragox.db", home / "blobs", *(home / "blobs").rglob("*")]
    loose.append(home / "keys" / "manifest.key")
    for path in loose:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    Ragox(home).close()
    for path in loose:
        assert _mode(path) == (0o700 if path.is_dir() else 0o600), path


def test_a_render_past_its_time_is_stopped(tmp_path: Path) -> None:
    """A page render that runs past its time is killed and refused as RENDER_FAILED;
    within its time the same render returns a PNG."""
    source = tmp_path / "big.pdf"
    source.write_bytes(_page_pdf(9000.0, 9000.0))
    with pytest.raises(ExtractionError) as refused:
        render_page_png_isolated(source, 1, seconds=0.001)
    assert refused.value.code is ErrorCode.RENDER_FAILED
    assert multiprocessing.active_children() == []
    png = render_page_png_isolated(source, 1, seconds=60)
    assert png.startswith(b"\x89PNG")
