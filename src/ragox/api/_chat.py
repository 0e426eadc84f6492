"""An OpenAI-compatible chat endpoint: ragox as a "model" for any OpenAI client or chat
front end (``POST /v1/chat/completions``, ``GET /v1/models``).

The last user message is the question; the caller's bearer key is the principal, as on
every route. The reply is ragox's cited answer with numbered markers (``[1]``) and one
OpenAI-style ``url_citation`` annotation per marker: the URL opens the passage
highlighted in ragox's viewer, ``start_index``/``end_index`` locate the marker in the
content, and a ``ragox`` object beside it carries the anchor (our JSON and its W3C
selectors), the revision identity and the resolution status. A client that knows
nothing of ragox still shows working source links.

Streaming (``"stream": true``) sends the same answer as server-sent
``chat.completion.chunk`` events: the content in pieces, then the annotations and the
finish reason, then ``[DONE]``. The answer is complete before the first event (an
extractive answer is not generated token by token); streaming exists so that chat
front ends that only stream work unchanged.
"""

# No "from __future__ import annotations": FastAPI reads these annotations at runtime.

import json
import re
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from ragox.access import Principal
from ragox.anchor import web_selectors
from ragox.anchor._model import has_lone_surrogate
from ragox.answer import AnswerRecord, Citation

__all__ = ["MODELS", "chat_router"]

#: the model names a client may ask for: the operator's generator, or extractive
MODELS: Final = ("ragox", "ragox-extractive")
_MARKER: Final = re.compile(r"\[(S\d+)\]")
#: characters per streamed content piece
_PIECE: Final = 48


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant", "tool", "developer"]
    # OpenAI allows a list of content parts; only text parts are read.
    content: str | list[dict[str, Any]] | None = None


class ChatRequest(BaseModel):
    model: str = Field(default="ragox", max_length=200)
    messages: list[ChatMessage] = Field(min_length=1, max_length=200)
    stream: bool = False
    #: ragox's extension (send it as an extra body field): the reader's language
    #: (ISO 639-1); the answer is written in it where the generator can, quotes stay
    #: in their source's language
    answer_language: str | None = Field(default=None, pattern="^[A-Za-z]{2,3}$")


def _text(message: ChatMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    if isinstance(message.content, list):
        return " ".join(
            str(part.get("text", ""))
            for part in message.content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def chat_router(
    ask: Callable[[str, Principal, str, list[tuple[str, str]], str | None], AnswerRecord],
    caller: Callable[..., Any],
    problem: Callable[[int, str, str | None], Exception],
) -> APIRouter:
    """The routes; ``ask(question, principal, model, earlier_turns, answer_language)``
    answers with the
    generator the model name stands for (``ragox``: the operator's, ``ragox-extractive``);
    earlier turns are context for a generator that reads them, never for retrieval."""
    router = APIRouter()
    Caller = Annotated[Principal, Depends(caller)]

    @router.get("/v1/models")
    def models(who: Caller) -> dict[str, Any]:
        """The model names ragox answers to (OpenAI's list format)."""
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": 0, "owned_by": "ragox"}
                for name in MODELS
            ],
        }

    @router.post("/v1/chat/completions", response_model=None)
    def completions(
        body: ChatRequest, who: Caller, request: Request
    ) -> JSONResponse | StreamingResponse:
        """The cited answer to the last user message, with url_citation annotations."""
        if body.model not in MODELS:
            raise problem(404, "Not Found", f"unknown model; use one of {', '.join(MODELS)}")
        last = max((i for i, m in enumerate(body.messages) if m.role == "user"), default=-1)
        question = _text(body.messages[last]).strip() if last >= 0 else ""
        earlier: list[tuple[str, str]] = [
            (str(m.role), _text(m))
            for m in body.messages[: max(last, 0)]
            if m.role in ("user", "assistant") and _text(m).strip()
        ]
        if not question:
            raise problem(422, "Unprocessable Content", "the last user message has no text")
        if any(has_lone_surrogate(text) for text in (question, *(turn for _, turn in earlier))):
            # a lone surrogate (JSON's "\ud800") is no text: it was a 500 (red-team)
            raise problem(422, "Unprocessable Content", "a message holds a lone surrogate")
        if len(question) > 4000:
            raise problem(422, "Unprocessable Content", "the question is longer than 4000")
        language = body.answer_language.lower() if body.answer_language else None
        record = ask(question, who, body.model, earlier, language)
        viewer = str(request.base_url).rstrip("/") + "/view/anchors/"
        content, annotations = _cited(record, viewer)
        if record.notices:  # after the answer, so that the annotations' offsets hold
            content = "\n\n".join((content, *record.notices))
        completion_id = f"chatcmpl-{secrets.token_hex(12)}"
        created = int(time.time())
        if body.stream:
            return StreamingResponse(
                _events(completion_id, created, body.model, content, annotations),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
            )
        message = {"role": "assistant", "content": content, "annotations": annotations}
        return JSONResponse(
            {
                "id": completion_id,
                "object": "chat.completion",
                "created": created,
                "model": body.model,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
                "ragox": {
                    "answer_id": record.answer_id,
                    "abstained": record.abstained,
                    **(
                        {"answer_language": record.answer_language, "notices": list(record.notices)}
                        if record.answer_language is not None
                        else {}
                    ),
                },
            }
        )

    return router


def _cited(record: AnswerRecord, viewer: str) -> tuple[str, list[dict[str, Any]]]:
    """The answer with ``[S1]`` markers numbered ``[1]``, and one annotation per marker.

    The text between markers is a document's or a model's, shown by chat front ends as
    Markdown: a "[1]" of its own is written "［1］", and when the content would hold a
    link, an image (loaded unasked: its address could carry text out), raw HTML or a
    reference redefining "[1]", as CommonMark parses it, every such character of that
    text is escaped instead (:func:`_inert`; code blocks then show the backslashes)."""
    plain = _assembled(record, viewer, _numbers_apart)
    if not _acts(plain[0]):
        return plain
    return _assembled(record, viewer, _inert)


def _assembled(
    record: AnswerRecord, viewer: str, shown: Callable[[str], str]
) -> tuple[str, list[dict[str, Any]]]:
    numbers: dict[str, int] = {}
    pieces: list[str] = []
    annotations: list[dict[str, Any]] = []
    position = 0
    length = 0
    for found, citation in zip(
        _MARKER.finditer(record.answer), _claim_citations(record), strict=True
    ):
        before = shown(record.answer[position : found.start()])
        pieces.append(before)
        length += len(before)
        if citation is None:  # a marker of a withheld claim: no link, ever
            position = found.end()
            continue
        # one number per quote: two claims quoting two sentences of one passage (S1)
        # are two citations, each opening its own sentence
        number = numbers.setdefault(citation.anchor.anchor_id, len(numbers) + 1)
        marker = f"[{number}]"
        pieces.append(marker)
        anchor = citation.anchor
        ident = anchor.identity
        annotations.append(
            {
                "type": "url_citation",
                "url_citation": {
                    "url": viewer + anchor.anchor_id,
                    "title": f"{ident.document_id} ({ident.revision})",
                    "start_index": length,
                    "end_index": length + len(marker),
                },
                "ragox": {
                    "number": number,
                    "anchor": anchor.to_json(),
                    "selectors": web_selectors(anchor),
                    "status": citation.status.value,
                    # beside the anchor, labelled (its exact stays the source's)
                    **(
                        {"translation": citation.translation.to_json()}
                        if citation.translation is not None
                        else {}
                    ),
                },
            }
        )
        length += len(marker)
        position = found.end()
    pieces.append(shown(record.answer[position:]))
    return "".join(pieces), annotations


def _claim_citations(record: AnswerRecord) -> list[Citation | None]:
    """The citation of each marker of the answer, in order: the answer is its claims,
    each followed by its marker (``compose``), so the n-th marker is the n-th claim's,
    and its citation the one of that claim's anchor (None where the claim's citation is
    withheld). Several claims may cite one passage (``S1``) with different sentences: a
    citation looked up by source id alone linked each to the last one's sentence."""
    by_anchor = {citation.anchor.anchor_id: citation for citation in record.citations}
    markers = [found.group(1) for found in _MARKER.finditer(record.answer)]
    claims = record.claims
    if len(claims) == len(markers) and all(
        claim.source_id == marker for claim, marker in zip(claims, markers, strict=True)
    ):
        return [by_anchor.get(claim.anchor_id) for claim in claims]
    # an answer not made of its claims (none recorded): a passage's only citation
    by_source: dict[str, list[Citation]] = {}
    for citation in record.citations:
        by_source.setdefault(citation.source_id, []).append(citation)
    return [
        found[0] if len(found := by_source.get(marker, [])) == 1 else None for marker in markers
    ]


#: what a chat front end would read as ours in the answer's own text: a numbered
#: marker ("[1]", as the ones placed here)
_NUMBERED: Final = re.compile(r"\[(\d+)\]")
#: the characters with which Markdown (CommonMark, GFM) makes a link, an image, a
#: reference definition, raw HTML, an autolink or an entity; each is written with a
#: backslash, which a renderer shows as the character itself, inert
_ACTIVE: Final = re.compile(r"([\\\[\]<>&!`])")
#: what a Markdown front end renders as more than text: followed, loaded or run
_ACTING: Final = frozenset({"image", "link_open", "html_inline", "html_block"})


def _numbers_apart(text: str) -> str:
    """A "[1]" of the text's own written "［1］", the rest as written."""
    return _NUMBERED.sub("\uff3b\\1\uff3d", text)


def _inert(text: str) -> str:
    """The text with every character that could make a link, an image, a reference,
    raw HTML, an entity or a code span (inside which no escape holds) escaped; each piece
    is escaped whole, so nothing forms across a dropped marker either."""
    return _ACTIVE.sub(r"\\\1", _numbers_apart(text))


def _acts(content: str) -> bool:
    """Whether CommonMark (markdown-it, HTML allowed) renders ``content`` with a link,
    an image or raw HTML anywhere (the route's own "[1]" markers are plain text)."""
    from markdown_it import MarkdownIt  # noqa: PLC0415 - the chat route only

    pending = list(MarkdownIt("commonmark").parse(content))
    while pending:
        token = pending.pop()
        if token.type in _ACTING:
            return True
        pending.extend(token.children or ())
    return False


def _events(
    completion_id: str,
    created: int,
    model: str,
    content: str,
    annotations: list[dict[str, Any]],
) -> Iterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(content), _PIECE):
        yield chunk({"content": content[start : start + _PIECE]})
    yield chunk({"annotations": annotations}, "stop")
    yield b"data: [DONE]\n\n"
