"""The OpenAI-compatible chat endpoint with the `openai` Python client against a real
`ragox serve`: cited answers with numbered markers and url_citation annotations,
streaming and not, the caller's key as the principal, and viewer links that open the
highlighted passage in Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import openai
import pytest

from browser import VIEWPORTS, chromium
from conftest import serving
from ragox.access import Principal
from ragox.service import Ragox

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
def chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chat]:
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
