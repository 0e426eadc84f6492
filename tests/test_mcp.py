"""`ragox mcp` with the official MCP SDK's own client, over stdio and streamable HTTP:
the tools and their output schemas, a cited answer whose citation resolves, and the same
anchor refused (ACCESS_DENIED, no text) for a principal without access."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import _free_port
from ragox.access import Principal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

MANUAL = (
    "Pump P-200 service manual.\n\n"
    "Replace the shaft seal after 2,000 operating hours.\n\n"
    "Disconnect power before opening the cover.\n"
)
QUESTION = "How often must the shaft seal be replaced?"
TOOLS = {"search", "ask", "resolve_citation", "get_passage"}


@pytest.fixture(scope="module")
def mcp_home(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Path:
    home = tmp_path_factory.mktemp("mcp") / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "pump.txt", "pump.txt", groups=frozenset({"staff"}), tenant="default"
    )
    app.close()
    return home


def _stdio(home: Path, *options: str) -> Client:
    env = {key: os.environ[key] for key in ("PYTHONPATH", "RAGOX_STORE") if key in os.environ}
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=["-m", "ragox", "--home", str(home), "mcp", *options],
            env=env,
        )
    )


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_stdio_session_lists_tools_asks_and_resolves(mcp_home: Path) -> None:
    """A stdio session: four tools with output schemas; `ask` returns a citation with its
    W3C selectors, revision identity and viewer link, which `resolve_citation` and
    `get_passage` (by a 16-digit prefix) verify; the revision text is a resource."""

    async def session() -> dict[str, Any]:
        options = ("--principal", "sam", "--groups", "staff", "--viewer-url", "http://view:8000")
        async with _stdio(mcp_home, *options) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            asked = await client.call_tool("ask", {"question": QUESTION})
            citation = asked.structured_content["citations"][0]
            by_anchor = await client.call_tool("resolve_citation", {"anchor": citation["anchor"]})
            passage = await client.call_tool(
                "get_passage", {"anchor_id": citation["anchor_id"][:16]}
            )
            templates = (await client.list_resource_templates()).resource_templates
            text = await client.read_resource("ragox://documents/pump.txt/revisions/r1")
            return {
                "tools": tools,
                "asked": asked,
                "citation": citation,
                "resolved": by_anchor.structured_content,
                "passage": passage.structured_content,
                "templates": templates,
                "text": text.contents[0].text,
            }

    got = _run(session())
    assert set(got["tools"]) == TOOLS
    for tool in got["tools"].values():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    citation = got["citation"]
    assert citation["status"] == "RESOLVED"
    assert citation["exact"] == "Replace the shaft seal after 2,000 operating hours."
    kinds = [selector["type"] for selector in citation["selectors"]]
    assert kinds == ["TextQuoteSelector", "TextPositionSelector"]
    assert citation["revision"]["document_id"] == "pump.txt"
    assert len(citation["revision"]["text_sha256"]) == 64
    assert citation["viewer_url"] == f"http://view:8000/view/anchors/{citation['anchor_id']}"
    assert "[S1]" in got["asked"].content[0].text  # the text rendering for older clients
    assert got["resolved"]["status"] == "RESOLVED"
    assert got["resolved"]["exact"] == citation["exact"]
    passage = got["passage"]
    assert passage["status"] == "RESOLVED" and passage["exact"] == citation["exact"]
    assert passage["before"].endswith("Pump P-200 service manual.\n\n")
    assert passage["after"].startswith("\n\nDisconnect power")
    assert [t.uri_template for t in got["templates"]] == [
        "ragox://documents/{document_id}/revisions/{revision}"
    ]
    assert got["text"] == MANUAL  # the representation text, exactly


def test_stdio_principal_without_access_gets_access_denied(mcp_home: Path) -> None:
    """The same anchor for a principal outside the reader groups: ACCESS_DENIED with no
    passage, no document name; its `ask` abstains and its search finds nothing."""
    app = Ragox(mcp_home)
    record = app.ask(QUESTION, Principal("sam", groups=frozenset({"staff"})))
    app.close()
    anchor_id = record.citations[0].anchor.anchor_id

    async def session() -> dict[str, Any]:
        async with _stdio(mcp_home, "--principal", "oz", "--groups", "sales") as client:
            resolved = await client.call_tool("resolve_citation", {"anchor_id": anchor_id})
            passage = await client.call_tool("get_passage", {"anchor_id": anchor_id})
            asked = await client.call_tool("ask", {"question": QUESTION})
            found = await client.call_tool("search", {"query": "shaft seal"})
            try:
                await client.read_resource("ragox://documents/pump.txt/revisions/r1")
                read_text = True
            except Exception:  # the SDK raises the server's refusal
                read_text = False
            return {
                "read_text": read_text,
                "resolved": resolved.structured_content,
                "passage": passage.structured_content,
                "asked": asked.structured_content,
                "found": found.structured_content,
                "texts": [resolved.content[0].text, passage.content[0].text],
            }

    got = _run(session())
    assert got["resolved"]["status"] == "ACCESS_DENIED" and got["resolved"]["exact"] is None
    assert got["passage"]["status"] == "ACCESS_DENIED"
    assert got["passage"]["exact"] is None and got["passage"]["document_id"] is None
    assert got["asked"]["abstained"] and got["asked"]["citations"] == []
    assert got["found"]["hits"] == []
    assert not got["read_text"]
    assert all("shaft" not in text for text in got["texts"])


def test_a_refused_resource_read_logs_no_document_id(mcp_home: Path, tmp_path: Path) -> None:
    """Reading the text of a revision one may not read, or of one that does not exist,
    is the same refusal and leaves no traceback naming the document in the server's log
    (before: each was logged as a crash, with the URI and a traceback)."""

    async def session(errlog: Any) -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "ragox",
                "--home",
                str(mcp_home),
                "mcp",
                "--principal",
                "oz",
                "--groups",
                "sales",
            ],
            env={
                key: os.environ[key] for key in ("PYTHONPATH", "RAGOX_STORE") if key in os.environ
            },
        )
        refusals = []
        async with Client(stdio_client(params, errlog=errlog)) as client:
            for name in ("pump.txt", "missing.txt"):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(f"ragox://documents/{name}/revisions/r1")
                said = refused.value.error.message.replace(name, "NAME")  # its own URI
                refusals.append(f"{refused.value.error.code} {said}")
        return refusals

    log_path = tmp_path / "mcp.log"
    with log_path.open("w") as errlog:
        refusals = _run(session(errlog))
    assert refusals[0] == refusals[1]  # a hidden revision reads exactly like a missing one
    log = log_path.read_text()
    assert "pump.txt" not in log and "Traceback" not in log, log


@contextmanager
def _mcp_http(home: Path) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragox",
            "--home",
            str(home),
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.time() + 60
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                if time.time() > deadline or process.poll() is not None:
                    raise RuntimeError("ragox mcp did not start") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def _http(url: str, key: str) -> Client:
    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    return Client(streamable_http_client(url, http_client=client))


def test_http_transport_needs_a_key_and_applies_its_scope(mcp_home: Path) -> None:
    """Streamable HTTP: no key or a bad key is a 401 before MCP; a reader's key gets a
    resolving citation, an outsider's key ACCESS_DENIED for the same anchor, and a key
    revoked mid-session is refused at its next call."""
    app = Ragox(mcp_home)
    staff = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    outsider = app.create_key(Principal("oz", groups=frozenset({"sales"})))
    app.close()
    with _mcp_http(mcp_home) as url:
        assert httpx.post(url, json={}).status_code == 401
        bad = httpx.post(url, json={}, headers={"Authorization": "Bearer rgx_nope"})
        assert bad.status_code == 401 and "nosniff" in bad.headers["x-content-type-options"]

        async def reader() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
            async with _http(url, staff) as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                asked = await client.call_tool("ask", {"question": QUESTION})
                anchor_id = asked.structured_content["citations"][0]["anchor_id"]
                resolved = await client.call_tool("resolve_citation", {"anchor_id": anchor_id})
                return tools, asked.structured_content, resolved.structured_content

        tools, asked, resolved = _run(reader())
        assert tools == TOOLS
        assert resolved["status"] == "RESOLVED"
        anchor_id = asked["citations"][0]["anchor_id"]

        async def outside() -> dict[str, Any]:
            async with _http(url, outsider) as client:
                result = await client.call_tool("resolve_citation", {"anchor_id": anchor_id})
                return result.structured_content

        denied = _run(outside())
        assert denied["status"] == "ACCESS_DENIED" and denied["exact"] is None

        async def revoked_mid_session() -> tuple[str, bool]:
            async with _http(url, staff) as client:
                first = await client.call_tool("resolve_citation", {"anchor_id": anchor_id})
                admin = Ragox(mcp_home)
                admin.revoke_key(staff)
                admin.close()
                try:
                    second = await client.call_tool("resolve_citation", {"anchor_id": anchor_id})
                except Exception:  # the 401 ends the HTTP session: refused either way
                    return first.structured_content["status"], True
                return first.structured_content["status"], bool(second.is_error)

        before, refused = _run(revoked_mid_session())
        assert before == "RESOLVED" and refused


def test_ask_takes_the_answer_language(mcp_home: Path) -> None:
    """`ask` with ``answer_language``: the extractive generator quotes the English source
    and says, in German, that it cannot translate (structured and in the text); a code
    that is no language code is refused by the tool's schema."""

    async def session() -> tuple[Any, Any]:
        async with _stdio(mcp_home, "--principal", "sam", "--groups", "staff") as client:
            asked = await client.call_tool("ask", {"question": QUESTION, "answer_language": "DE"})
            bad = await client.call_tool("ask", {"question": QUESTION, "answer_language": "de!"})
            return asked, bad

    asked, bad = _run(session())
    answer = asked.structured_content
    assert answer["answer_language"] == "de"
    assert answer["notices"] and answer["notices"][0].startswith("Nicht übersetzt")
    assert answer["citations"][0]["exact"] == "Replace the shaft seal after 2,000 operating hours."
    assert answer["notices"][0] in asked.content[0].text
    assert bad.is_error


def test_stdio_search_lists_the_same_passage_once(app: Ragox) -> None:
    """The same manual in two documents: the `search` tool returns one hit per passage
    with the other document under ``also_in``, in its structured and its text result."""
    for doc in ("pump.txt", "pump-copy.txt"):
        app.ingestor.ingest_bytes(
            MANUAL.encode(), doc, doc, groups=frozenset({"staff"}), tenant="default"
        )
    home = app.home
    app.close()

    async def session() -> tuple[dict[str, Any], str]:
        async with _stdio(home, "--principal", "sam", "--groups", "staff") as client:
            found = await client.call_tool("search", {"query": "shaft seal operating hours"})
            return found.structured_content, found.content[0].text

    structured, text = _run(session())
    assert len(structured["hits"]) == 1
    hit = structured["hits"][0]
    assert [o["document_id"] for o in hit["also_in"]] in (["pump.txt"], ["pump-copy.txt"])
    assert f"also in {hit['also_in'][0]['document_id']}@r1" in text
