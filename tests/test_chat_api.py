"""The OpenAI-compatible chat endpoint with the `openai` Python client against a real
`ragox serve`: cited answers with numbered markers and url_citation annotations,
streaming and not, the caller's key as the principal, and viewer links that open the
highlighted passage in Chromium."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import httpx
import openai
import pytest

from browser import VIEWPORTS, chromium
from conftest import chat_reply, serving
from ragox.access import Principal
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

MANUAL = (
    "Pump P-200 service manual.\n\n"
    "Replace the shaft seal after 2,000 operating hours.\n\n"
    "Disconnect power before opening the cover.\n"
)
SEAL = "Replace the shaft seal after 2,000 operating hours."
QUESTION = "How often must the shaft seal be replaced?"


@dataclass(frozen=True)
class Chat:
    url: str
    staff: str
    outsider: str


@pytest.fixture(scope="module")
def chat(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Chat]:
    home = tmp_path_factory.mktemp("chat") / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "pump.txt", "pump.txt", groups=frozenset({"staff"}), tenant="default"
    )
    staff = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    outsider = app.create_key(Principal("oz", groups=frozenset({"sales"})))
    app.close()
    with serving(home) as url:
        yield Chat(url, staff, outsider)


def _client(chat: Chat, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{chat.url}/v1", api_key=key, max_retries=0)


def test_models_lists_ragox(chat: Chat) -> None:
    """GET /v1/models names the two models a client may choose."""
    names = {model.id for model in _client(chat, chat.staff).models.list()}
    assert names == {"ragox", "ragox-extractive"}


def test_completion_has_numbered_markers_and_url_citations(chat: Chat) -> None:
    """The answer carries [1]-style markers; each annotation's indices point at its
    marker, its URL at the viewer, and its ragox object at the verified anchor."""
    reply = _client(chat, chat.staff).chat.completions.create(
        model="ragox",
        messages=[
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Tell me about pumps."},
            {"role": "assistant", "content": "Which pump?"},
            {"role": "user", "content": QUESTION},
        ],
    )
    message = reply.choices[0].message
    assert reply.choices[0].finish_reason == "stop"
    assert SEAL in message.content and "[1]" in message.content and "[S1]" not in message.content
    annotations = message.annotations
    assert annotations
    first = annotations[0]
    assert first.type == "url_citation"
    cited = first.url_citation
    assert message.content[cited.start_index : cited.end_index] == "[1]"
    ragox = first.model_extra["ragox"]
    assert ragox["status"] == "RESOLVED"
    assert ragox["anchor"]["quote"]["exact"] == SEAL
    assert cited.url == f"{chat.url}/view/anchors/{ragox['anchor']['anchor_id']}"
    assert cited.title == "pump.txt (r1)"
    assert [s["type"] for s in ragox["selectors"]] == ["TextQuoteSelector", "TextPositionSelector"]


def test_streaming_gives_the_same_answer_and_annotations(chat: Chat) -> None:
    """stream=True: the content arrives in chunks, the annotations with the finish."""
    client = _client(chat, chat.staff)
    whole = client.chat.completions.create(
        model="ragox-extractive", messages=[{"role": "user", "content": QUESTION}]
    )
    stream = client.chat.completions.create(
        model="ragox-extractive",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
    )
    content, annotations, finishes = "", [], []
    for chunk in stream:
        delta = chunk.choices[0].delta
        content += delta.content or ""
        annotations.extend((delta.model_extra or {}).get("annotations") or [])
        if chunk.choices[0].finish_reason:
            finishes.append(chunk.choices[0].finish_reason)
    assert content == whole.choices[0].message.content
    assert finishes == ["stop"]
    assert [a["url_citation"]["url"] for a in annotations] == [
        a.url_citation.url for a in whole.choices[0].message.annotations
    ]


def test_the_key_is_the_principal(chat: Chat) -> None:
    """An outsider's key gets an abstention without annotations; no key is a 401; an
    unknown model a 404; a request without user text a 422."""
    outsider = _client(chat, chat.outsider).chat.completions.create(
        model="ragox", messages=[{"role": "user", "content": QUESTION}]
    )
    message = outsider.choices[0].message
    assert not message.annotations and "shaft seal after" not in message.content
    assert httpx.post(f"{chat.url}/v1/chat/completions", json={}).status_code == 401
    with pytest.raises(openai.NotFoundError):
        _client(chat, chat.staff).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": QUESTION}]
        )
    with pytest.raises(openai.UnprocessableEntityError):
        _client(chat, chat.staff).chat.completions.create(
            model="ragox", messages=[{"role": "system", "content": "no question"}]
        )


def test_two_claims_of_one_passage_link_each_to_its_own_sentence(tmp_path: Path) -> None:
    """Two sentences of one passage (both S1) cited by two claims: each marker's
    annotation carries the anchor of the sentence written before it, under its own
    number. Looked up by source id, both linked to the last sentence (new-user find)."""
    home = tmp_path / "home"
    app = Ragox(home)
    text = (
        "Pump P-200 service manual.\n\nCheck the oil level of the pump every week. "
        "Replace the shaft seal of the pump after 2,000 operating hours. "
        "Replacing the shaft seal of the pump requires a seal puller.\n"
    )
    app.ingestor.ingest_bytes(
        text.encode(), "pump.txt", "pump.txt", groups=frozenset({"staff"}), tenant="default"
    )
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    with serving(home) as url:
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0)
        reply = client.chat.completions.create(
            model="ragox-extractive",
            messages=[{"role": "user", "content": "How do I replace the shaft seal of the pump?"}],
        )
    message = reply.choices[0].message
    annotations = message.annotations or []
    exacts = [a.model_extra["ragox"]["anchor"]["quote"]["exact"] for a in annotations]
    assert len(set(exacts)) == len(exacts) >= 2, message.content
    position = 0
    for annotation, exact in zip(annotations, exacts, strict=True):
        cited = annotation.url_citation
        assert message.content[cited.start_index : cited.end_index] == (
            f"[{annotation.model_extra['ragox']['number']}]"
        )
        # the sentence this marker closes is the one its anchor quotes
        assert message.content[position : cited.start_index].strip() == exact
        assert cited.url.endswith(annotation.model_extra["ragox"]["anchor"]["anchor_id"])
        position = cited.end_index
    assert [a.model_extra["ragox"]["number"] for a in annotations] == [1, 2]


@pytest.mark.parametrize("kind", ["desktop", "mobile"])
def test_annotation_links_open_highlighted_passages(chat: Chat, kind: str) -> None:
    """Each url_citation URL, opened in Chromium with the reader's key, highlights exactly
    the cited passage."""
    reply = _client(chat, chat.staff).chat.completions.create(
        model="ragox", messages=[{"role": "user", "content": QUESTION}]
    )
    annotation = reply.choices[0].message.annotations[0]
    exact = annotation.model_extra["ragox"]["anchor"]["quote"]["exact"]
    with chromium() as browser:
        context = browser.new_context(**VIEWPORTS[kind])
        page = context.new_page()
        page.goto(f"{annotation.url_citation.url}#key={chat.staff}")
        page.wait_for_selector("#ragox-viewer:not([data-ragox-status='LOADING'])")
        assert page.get_attribute("#ragox-viewer", "data-ragox-status") == "RESOLVED"
        marked = page.eval_on_selector_all("mark.ragox-hl", "ms => ms.map(m => m.textContent)")
        assert "".join(marked) == exact
        context.close()


class _Generator(BaseHTTPRequestHandler):
    """The operator's OpenAI-compatible generator: records each request, quotes the seal."""

    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        type(self).received.append(body)
        reply = chat_reply([{"text": "After 2,000 hours.", "source_id": "S1", "quote": SEAL}])
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return


def test_earlier_turns_reach_the_generator_as_fenced_context(tmp_path: Path) -> None:
    """With the operator's generator, earlier turns are sent to it fenced as context (and
    the system message says never to cite them); retrieval and citations use the last
    question only; the extractive model sends nothing anywhere."""
    _Generator.received = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Generator)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    home = tmp_path / "home"
    app = Ragox(home)
    app.ingestor.ingest_bytes(
        MANUAL.encode(), "pump.txt", "pump.txt", groups=frozenset({"staff"}), tenant="default"
    )
    key = app.create_key(Principal("sam", groups=frozenset({"staff"})))
    app.close()
    spec = f"openai:http://127.0.0.1:{httpd.server_address[1]}/v1#m"
    try:
        with serving(home, "--generator", spec) as url:
            client = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0)
            turns = [
                {"role": "user", "content": "Tell me about the P-200 shaft seal."},
                {"role": "assistant", "content": "It seals the pump shaft."},
                {"role": "user", "content": "How often must it be replaced?"},
            ]
            reply = client.chat.completions.create(model="ragox", messages=turns)
            assert reply.choices[0].message.content == "After 2,000 hours. [1]"
            [sent] = _Generator.received
            system, user = sent["messages"][0]["content"], sent["messages"][1]["content"]
            assert "never cite or quote them" in system
            assert "<<<EARLIER TURN user nonce=" in user
            assert "Tell me about the P-200 shaft seal." in user
            assert "<<<EARLIER TURN assistant nonce=" in user
            question_at = user.index("<<<QUESTION nonce=")
            assert user.index("It seals the pump shaft.") < question_at
            assert "How often must it be replaced?" in user[question_at:]
            client.chat.completions.create(model="ragox-extractive", messages=turns)
            assert len(_Generator.received) == 1
            # the model was shown earlier turns no replay can check again: its words are
            # replayed to an operator only (before: to the asker too, whatever they held)
            answer_id = reply.model_extra["ragox"]["answer_id"]
            replayed = httpx.get(
                f"{url}/v1/answers/{answer_id}", headers={"Authorization": f"Bearer {key}"}
            ).json()
            assert replayed["answer"] == "(withheld: EARLIER_TURNS) [S1]"
            assert replayed["citations"][0]["status"] == "RESOLVED"  # the quote still is
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_lone_surrogate_in_a_message_is_a_422(chat: Chat) -> None:
    """JSON's "\\ud800" in a message (the last or an earlier one) is no text: a 422
    problem, not a 500 (red-team)."""
    for messages in (
        '[{"role": "user", "content": "seal \\ud800 replaced?"}]',
        '[{"role": "user", "content": "a\\udc00"}, {"role": "assistant", "content": "b"},'
        ' {"role": "user", "content": "How often is the seal replaced?"}]',
    ):
        answer = httpx.post(
            f"{chat.url}/v1/chat/completions",
            headers={"Authorization": f"Bearer {chat.staff}", "Content-Type": "application/json"},
            content=f'{{"model": "ragox-extractive", "messages": {messages}}}'.encode(),
        )
        assert answer.status_code == 422, answer.text
        assert answer.headers["content-type"] == "application/problem+json"
