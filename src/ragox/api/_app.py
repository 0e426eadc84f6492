"""The HTTP API under ``/v1`` (FastAPI): a thin shell over :class:`ragox.service.Ragox`.

Every route needs a bearer key; the key's principal is looked up on every
request (never cached), and authorization is decided per request by the
service. Errors are RFC 9457 problem details without protected text, and an
object outside the caller's scope answers exactly like a missing one (404).
"""

# No "from __future__ import annotations": FastAPI reads these annotations at runtime.

import asyncio
import functools
import json
import os
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from fastapi import BackgroundTasks, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, Headers, MutableHeaders
from starlette.datastructures import UploadFile as StarletteUploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ragox.access import Principal, groups_problem, may_write_id
from ragox.anchor import (
    Anchor,
    AnchorFormatError,
    Resolution,
    ResolutionStatus,
    from_web_annotation,
)
from ragox.answer import (
    AnswerRecord,
    GeneratorError,
    OpenAIGenerator,
    citation_json,
    generator_from_spec,
    message_language,
)
from ragox.api._chat import chat_router
from ragox.api._requests import RequestIds, log_requests_to_stderr
from ragox.extract import ErrorCode, ExtractionError, OcrMode
from ragox.extract._isolated import render_page_png_isolated
from ragox.extract.pdf import page_labels
from ragox.search import EmbedderError, SearchError, SearchMode
from ragox.service import (
    CollectionReaders,
    DocumentStatus,
    NotFound,
    Ragox,
    WriteRefused,
    document_id_problem,
    language_code_problem,
    revision_label_problem,
)
from ragox.service._json import (
    documents_json,
    hit_json,
    in_current_json,
    resolution_json,
    successor_json,
)
from ragox.store import RevisionConflict, RevisionState
from ragox.web import STATIC, VIEWER_CSP

__all__ = [
    "BODY_SECONDS_VARIABLE",
    "DEFAULT_BODY_SECONDS",
    "DEFAULT_UPLOAD_LIMIT",
    "GENERATOR_VARIABLE",
    "HOME_VARIABLE",
    "QUEUE_VARIABLE",
    "UPLOAD_LIMIT_VARIABLE",
    "app_from_environment",
    "create_app",
]

#: Largest upload the API accepts, in bytes (the CLI has its own, larger limit).
DEFAULT_UPLOAD_LIMIT: Final = 64 * 1024 * 1024
#: How `ragox serve --workers N` tells its worker processes what to serve.
HOME_VARIABLE: Final = "RAGOX_SERVE_HOME"
UPLOAD_LIMIT_VARIABLE: Final = "RAGOX_SERVE_UPLOAD_LIMIT"
GENERATOR_VARIABLE: Final = "RAGOX_SERVE_GENERATOR"
BODY_SECONDS_VARIABLE: Final = "RAGOX_SERVE_BODY_SECONDS"
#: Longest wait for the whole body of a question, a chat or a groups change (408).
DEFAULT_BODY_SECONDS: Final = 60.0
#: "1": uploads are queued for `ragox worker` processes instead of run in the server
QUEUE_VARIABLE: Final = "RAGOX_SERVE_QUEUE"
PROBLEM: Final = "application/problem+json"
#: Code points of text shown on each side of a cited passage on the web app's cards.
CARD_CONTEXT: Final = 80


class Problem(Exception):
    """An RFC 9457 problem: a status, a short title, and a detail with no document text."""

    def __init__(self, status: int, title: str, detail: str | None = None) -> None:
        super().__init__(title)
        self.status = status
        self.title = title
        self.detail = detail


def _problem(status: int, title: str, detail: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status}
    if detail:
        body["detail"] = detail
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if status in _UNREAD_BODY:
        # the body may be unread (and still arriving, a byte at a time): the server
        # would keep the connection and discard what comes, for ever (red-team)
        headers["Connection"] = "close"
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers)


#: answers given before the request's body is read (refused key, too large, too slow)
_UNREAD_BODY: Final = frozenset({401, 408, 413})


NOT_FOUND = Problem(404, "Not Found", "no such object, or not readable with this key")
#: one answer for every upload the key may not make (README "Who may read, write and
#: operate"): an id outside its write prefixes, and a document with a revision it cannot
#: read.
NOT_WRITABLE = Problem(403, "Forbidden", "this key may not write that document id")


def _too_slow(seconds: float) -> Problem:
    return Problem(408, "Request Timeout", f"the body did not arrive within {seconds:g} s")


def _check_groups(groups: frozenset[str]) -> None:
    """A 422 for a reader group that breaks the rule (``ragox.access.group_problem``):
    a comma group ``"everyone, hr"`` showed as if hr could read, a bidirectional
    control as another name (found by a new-user pass)."""
    if (problem := groups_problem(groups)) is not None:
        raise Problem(422, "Unprocessable Content", f"a reader group {problem}")


def _collection_readers(group: str) -> Problem:
    """Only operators get it (they read every document anyway): their groups left out
    the group of a collection that keys may write."""
    return Problem(409, "Conflict", f"reader groups must include {group!r}: keys write {group}/")


def _problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for problem-details answers a route gives."""
    meaning = {
        403: "the key may not write that document id (one answer for every such upload)",
        404: "missing, or not readable or not operable with this key (one answer for both)",
        409: "that revision label exists with other bytes, or (operate keys) reader groups "
        "that leave out the group of a collection keys may write",
        413: "the upload is over the limit",
    }
    return {
        status: {"description": meaning[status], "content": {PROBLEM: {}}} for status in statuses
    }


class GroupsRequest(BaseModel):
    """New reader groups of a document (every revision, or one)."""

    groups: list[str] = Field(max_length=1000)
    revision: str | None = None


class AskRequest(BaseModel):
    question: str = Field(max_length=4000)
    #: "extractive" (no model), or "server": the generator the operator configured with
    #: ``ragox serve --generator`` (the default). A caller never names a URL: the server
    #: would send the evidence, and its generator key, wherever it was told.
    generator: Literal["extractive", "server"] = "server"
    mode: Literal["lexical", "vector", "hybrid"] | None = None
    #: the reader's language (ISO 639-1): the answer is written in it, and each quote
    #: keeps its source's exact text with a labelled translation beside it when the
    #: generator can translate (the extractive one cannot, and says so)
    answer_language: str | None = Field(default=None, pattern="^[A-Za-z]{2,3}$")


def create_app(
    home: Path,
    upload_limit: int = DEFAULT_UPLOAD_LIMIT,
    generator: str = "extractive",
    *,
    queue: bool = False,
    body_seconds: float = DEFAULT_BODY_SECONDS,
) -> FastAPI:
    """The ASGI app for one ragox home; ``generator`` is the operator's generator spec;
    ``queue``: an upload only stores the original and queues its job for a worker
    (``ragox worker``), instead of running the pipeline in this process."""
    configured = None if generator == "extractive" else generator_from_spec(generator)
    # An extractive ask is pure CPU under the GIL, and several at once in one process
    # cost each other far more than they gain (measured: 20 threads answer 3× fewer
    # questions per second than one at a time). One at a time per worker process; more
    # throughput comes from `ragox serve --workers N`. A remote generator's wait is not
    # held under this slot.
    cpu_slot = threading.BoundedSemaphore(1)
    # A render holds a pixmap of up to RENDER_PIXEL_BUDGET pixels: two at a time per
    # worker bounds what many page requests at once can cost.
    render_slot = threading.BoundedSemaphore(2)
    app = FastAPI(
        title="ragox",
        version="0.1.0",
        # Swagger UI would load scripts from a CDN on the viewer's origin: our own
        # page at /v1/docs (below) lists the routes under the viewer's CSP instead.
        docs_url=None,
        openapi_url="/v1/openapi.json",
        redoc_url=None,
    )
    ragox = Ragox(home)
    # Retention applies from the start, not only after the first new answer.
    ragox.apply_retention()
    bearer = HTTPBearer(auto_error=False)

    @app.exception_handler(Problem)
    async def on_problem(request: Request, error: Problem) -> JSONResponse:
        return _problem(error.status, error.title, error.detail)

    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        where = sorted({".".join(str(p) for p in e.get("loc", ())) for e in error.errors()})
        return _problem(422, "Unprocessable Content", f"invalid fields: {', '.join(where)}")

    @app.exception_handler(Exception)
    async def on_bug(request: Request, error: Exception) -> JSONResponse:
        # A bug: the caller gets problem details without any detail; Starlette's
        # server-error middleware still logs the exception for the operator.
        response = _problem(500, "Internal Server Error")
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _problem(error.status_code, str(error.detail))

    def authenticate(scheme: str | None, key: str | None) -> Principal:
        """The key's principal, read now: one indexed read per request, never cached,
        so a revoked key is refused on the next request."""
        if not key or scheme is None or scheme.lower() != "bearer":
            raise Problem(401, "Unauthorized", "a bearer API key is required")
        found = ragox.authenticate(key)
        if found is None:
            raise Problem(401, "Unauthorized", "the API key is unknown or revoked")
        return found

    # async: one indexed read, so it runs on the event loop instead of taking a trip
    # through the thread pool on every request.
    async def principal(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Principal:
        if credentials is None:
            return authenticate(None, None)
        return authenticate(credentials.scheme, credentials.credentials)

    Caller = Annotated[Principal, Depends(principal)]

    def caller(request: Request) -> Principal:
        """:func:`principal` without FastAPI's dependency machinery, for the routes that
        are asked most (resolution); the same header parsing as ``HTTPBearer``."""
        scheme, _, key = (request.headers.get("authorization") or "").partition(" ")
        return authenticate(scheme, key.strip())

    # The routes that use caller() declare the bearer scheme for the OpenAPI document.
    bearer_only: Final[dict[str, Any]] = {"security": [{"HTTPBearer": []}]}

    def readable_revision(document_id: str, revision: str, who: Principal) -> str:
        """The manifest id of a READY revision the caller may read, else 404."""
        try:
            status = ragox.status(document_id, who)
        except NotFound:
            raise NOT_FOUND from None
        for row in status.revisions:
            record = row.revision
            ready = record.state is RevisionState.READY
            if record.revision == revision and ready and record.manifest_id:
                return record.manifest_id
        raise NOT_FOUND

    @functools.lru_cache(maxsize=256)
    def labels_of(source_sha256: str) -> tuple[str, ...]:
        """A PDF's page labels as printed (remembered per source: they never change)."""
        try:
            return tuple(page_labels(ragox.store.blobs.get(source_sha256)))
        except ExtractionError:
            return ()

    def cited(anchor: Anchor, who: Principal) -> dict[str, Any]:
        """What the web app shows on a citation's card: the PDF pages its passage lies
        on with their printed labels, and a little of the text around the passage
        (the caller reads the passage itself, so it may read its neighbourhood)."""
        resolved = ragox.resolve(anchor, who)
        if not resolved.resolved or resolved.range is None or resolved.manifest_id is None:
            return {"pages": [], "context": None}
        text = ragox.store.text(resolved.manifest_id)
        start, end = resolved.range.start, resolved.range.end
        before = text[max(0, start - CARD_CONTEXT) : start]
        after = text[end : end + CARD_CONTEXT]
        if start > CARD_CONTEXT and " " in before:  # whole words only
            before = before[before.index(" ") + 1 :]
        if end + CARD_CONTEXT < len(text) and " " in after:
            after = after[: after.rindex(" ")]
        pages = []
        if resolved.target is not None and resolved.target.pages:
            labels = labels_of(anchor.identity.source_sha256)
            pages = [
                {
                    "page": p.page,
                    "label": labels[p.page - 1] if p.page <= len(labels) else str(p.page),
                }
                for p in resolved.target.pages
            ]
        context = {
            "before": before,
            "after": after,
            "from_start": len(before) == start,  # nothing of the text left out before
            "to_end": end + len(after) == len(text),
        }
        return {"pages": pages, "context": context}

    def with_languages(found: list[DocumentStatus]) -> list[dict[str, Any]]:
        return documents_json(ragox.store, found)

    @app.get("/v1/me")
    def me(who: Caller) -> dict[str, Any]:
        """Who this key is: what the web app shows, and which controls it offers (the
        server still decides every request on its own)."""
        return {
            "name": who.name,
            "tenant": who.tenant,
            "groups": sorted(who.groups),
            "operate": who.operator,
            "write": sorted(who.write),
        }

    # -- documents ----------------------------------------------------------------------

    @app.post(
        "/v1/documents",
        status_code=202,
        openapi_extra=_UPLOAD_BODY,
        responses=_problems(403, 409, 413),
    )
    async def upload(who: Caller, request: Request, background: BackgroundTasks) -> dict[str, Any]:
        """Store a file as a new revision (202: received, not yet searchable).

        The key is checked (``who``) before a byte of the body is read, and the body
        is streamed with a bound: a declared or streamed body over the limit is
        refused (413) as soon as it passes it, never read or stored in full.

        Needs a key that may write the id (its write prefixes) and read every existing
        revision of it; any other upload is one and the same 403, decided before the
        bytes are hashed or anything is looked up. Without ``document_id`` the id is the
        file name inside the key's first write prefix (422 when the name cannot be an id).
        """
        form = await _bounded_form(request, upload_limit)
        try:
            file = form.get("file")
            if not isinstance(file, StarletteUploadFile):
                raise Problem(422, "Unprocessable Content", "invalid fields: body.file")
            names = ("document_id", "revision", "groups", "language", "ocr")
            fields = {name: _form_text(form, name) for name in names}
            data = await file.read(upload_limit + 1)
        finally:
            await form.close()
        if len(data) > upload_limit:
            raise Problem(413, "Content Too Large", f"the limit is {upload_limit} bytes")
        name = _form_name(file.filename)
        if not fields["document_id"] and name is None:
            # Without an id the file's name is the id: a name that cannot be one (empty,
            # "..", a line break) was the fixed "upload", so that unrelated uploads became
            # revisions of one document and replaced each other as current.
            raise Problem(
                422,
                "Unprocessable Content",
                "the file name cannot be a document id: give document_id",
            )
        doc_id = fields["document_id"] or ragox.default_upload_id(who, name or "upload")
        id_problem = document_id_problem(doc_id)
        if id_problem is not None:
            raise Problem(422, "Unprocessable Content", f"document_id {id_problem}")
        if not may_write_id(who, doc_id):
            raise NOT_WRITABLE  # before the bytes are hashed or anything looked up
        wanted = frozenset(g.strip() for g in (fields["groups"] or "").split(",") if g.strip())
        _check_groups(wanted)
        if not who.operator and not who.groups.issuperset(wanted):
            raise Problem(403, "Forbidden", "groups must be among the caller's groups")
        revision = fields["revision"]
        if revision is not None and (label_problem := revision_label_problem(revision)):
            raise Problem(422, "Unprocessable Content", f"revision {label_problem}")
        language = fields["language"]
        if language is not None and (language_problem := language_code_problem(language)):
            raise Problem(422, "Unprocessable Content", f"language {language_problem}")
        ocr = _ocr_mode(fields["ocr"] or request.query_params.get("ocr") or OcrMode.AUTO.value)
        return await run_in_threadpool(
            receive_upload,
            who,
            background,
            data,
            name or doc_id,
            doc_id,
            revision,
            wanted,
            language.lower() if language else None,
            ocr,
        )

    def receive_upload(
        who: Principal,
        background: BackgroundTasks,
        data: bytes,
        name: str,
        doc_id: str,
        revision: str | None,
        wanted: frozenset[str],
        language: str | None,
        ocr: OcrMode,
    ) -> dict[str, Any]:
        try:
            received = ragox.upload(
                who,
                data,
                name,
                doc_id,
                revision=revision,
                groups=wanted,
                language=language,
                ocr=ocr,
            )
        except WriteRefused:
            raise NOT_WRITABLE from None
        except CollectionReaders as error:
            raise _collection_readers(error.group) from None
        except RevisionConflict:
            raise Problem(409, "Conflict", "that revision exists with other bytes") from None
        if isinstance(received, tuple):
            record, created = received
            if queue:
                ragox.enqueue(record, ocr)
            else:
                background.add_task(ragox.process_upload, record, data, created, ocr=ocr)
            state, label = record.state.value, record.revision
        else:
            state, label = received.state.value, received.revision
        unchanged = (
            {}
            if isinstance(received, tuple)
            else {
                # additive: these bytes are a stored revision's, nothing was made; an
                # older one stays what it was, and not current (no roll-back)
                "unchanged": True,
                **(
                    {"current_revision": current}
                    if (current := ragox.current_besides(received, who.tenant)) is not None
                    else {}
                ),
            }
        )
        return {
            "document_id": doc_id,
            "revision": label,
            "state": state,
            # a worker will run it (`ragox serve --queue`); its state tells the progress
            "queued": queue and isinstance(received, tuple),
            **unchanged,
        }

    @app.get("/v1/documents")
    def documents(
        who: Caller,
        limit: Annotated[int | None, Query(ge=1, le=10_000)] = None,
        after: Annotated[str | None, Query(max_length=1024)] = None,
    ) -> dict[str, Any]:
        """The documents the caller may read, with their revisions' states and languages
        (the one given at ingestion, else the one detected in the representation): all
        of them, or a page (``limit`` documents by id after the one named ``after``;
        the page names the id the next one starts after, ``next_after``)."""
        if limit is None and after is None:
            return {"documents": with_languages(ragox.documents(who))}
        page = ragox.documents_page(who, limit, after)
        return {
            "documents": with_languages(list(page.documents)),
            "next_after": page.next_after,
        }

    @app.get("/v1/documents/{document_id:path}/revisions/{revision}/text")
    def representation(
        document_id: str, revision: str, who: Caller, manifest_id: str | None = None
    ) -> dict[str, Any]:
        """The representation text and its blocks, for the viewer: the revision's
        current one, or (``manifest_id``) another it retains, which an anchor made
        before a rebuild still resolves against."""
        current = readable_revision(document_id, revision, who)
        if manifest_id is not None and manifest_id != current:
            retained = ragox.store.manifests(who.tenant, document_id, revision)
            if manifest_id not in {m.manifest_id for m in retained}:
                raise NOT_FOUND
        manifest_id = manifest_id or current
        record = ragox.store.get_manifest(manifest_id)
        assert record is not None
        notes = ragox.store.notes(manifest_id)
        given = ragox.status(document_id, who).document.language
        detected = ragox.store.index.representation_languages([manifest_id]).get(manifest_id)
        return {
            "document_id": document_id,
            "revision": revision,
            "manifest_id": manifest_id,
            "media_type": record.manifest.media_type,
            "coordinates": "codepoint",
            "text": ragox.store.text(manifest_id),
            # additive: the document's language (given at ingestion, else detected), and
            # the extractor's notes ("RTL_VISUAL_ORDER": the viewer marks blocks only)
            "language": given or detected,
            "warnings": list(notes.warnings),
            "page_count": notes.page_count,
            "page_labels": list(labels_of(record.manifest.source_sha256))
            if record.manifest.media_type == "application/pdf"
            else None,
            "blocks": [
                {
                    "block_id": b.block_id,
                    "kind": b.kind.value,
                    "range": b.span.to_json(),
                    "locator": b.locator,
                    "page": b.page,
                    "bbox": None
                    if b.bbox is None
                    else [b.bbox.x0, b.bbox.y0, b.bbox.x1, b.bbox.y1],
                    "ocr": b.ocr,
                    # a table cell's place and the block ids of its header cells
                    "cell": None if b.cell is None else b.cell.to_json(),
                }
                for b in ragox.store.blocks(manifest_id)
            ],
        }

    @app.get("/v1/documents/{document_id:path}/revisions/{revision}/pages/{page}")
    def page_image(document_id: str, revision: str, page: int, who: Caller) -> Response:
        """A PDF page rendered by PyMuPDF as PNG (rotation applied)."""
        manifest_id = readable_revision(document_id, revision, who)
        record = ragox.store.get_manifest(manifest_id)
        assert record is not None
        if record.manifest.media_type != "application/pdf":
            raise NOT_FOUND
        source = ragox.store.blobs.path(record.manifest.source_sha256)
        try:
            with render_slot:
                png = render_page_png_isolated(source, page)
        except ExtractionError as error:
            if error.code is ErrorCode.NO_SUCH_PAGE:
                raise NOT_FOUND from None
            raise Problem(422, "Unprocessable Content", error.code.value) from None
        return Response(png, media_type="image/png")

    @app.get("/v1/documents/{document_id:path}/revisions/{revision}/original")
    def original(document_id: str, revision: str, who: Caller) -> Response:
        """The original bytes, as a download that never renders in our origin."""
        manifest_id = readable_revision(document_id, revision, who)
        record = ragox.store.get_manifest(manifest_id)
        assert record is not None
        data = ragox.store.blobs.get(record.manifest.source_sha256)
        return Response(
            data,
            media_type=record.manifest.media_type,
            headers={
                "Content-Disposition": "attachment",
                "Content-Security-Policy": "sandbox; default-src 'none'",
                "X-Content-Type-Options": "nosniff",
            },
        )

    @app.put("/v1/documents/{document_id:path}/groups", responses=_problems(404, 409))
    def set_groups(document_id: str, body: GroupsRequest, who: Caller) -> dict[str, Any]:
        """Replace the reader groups of a document's revisions (or of one). Operate keys
        only; any other key gets the 404 of a missing document."""
        groups = frozenset(g.strip() for g in body.groups if g.strip())
        _check_groups(groups)
        if body.revision is not None and (label := revision_label_problem(body.revision)):
            raise Problem(422, "Unprocessable Content", f"revision {label}")
        try:
            changed = ragox.set_groups_as(who, document_id, groups, body.revision)
        except NotFound:
            raise NOT_FOUND from None
        except CollectionReaders as error:
            raise _collection_readers(error.group) from None
        return {"document_id": document_id, "revisions_changed": changed, "groups": sorted(groups)}

    @app.get("/v1/documents/{document_id:path}")
    def document(document_id: str, who: Caller) -> dict[str, Any]:
        """A document and the states of the revisions the caller may read; the current
        revision is named only when the caller may read it."""
        try:
            return with_languages([ragox.status(document_id, who)])[0]
        except NotFound:
            raise NOT_FOUND from None

    @app.delete("/v1/documents/{document_id:path}", responses=_problems(404))
    def delete_document(document_id: str, who: Caller) -> dict[str, Any]:
        """Delete a document with its revisions and anchors. Operate keys only; any other
        key gets the 404 of a missing document."""
        try:
            ragox.delete_as(who, document_id)
        except NotFound:
            raise NOT_FOUND from None
        return {"document_id": document_id, "deleted": True}

    # -- search, answers, anchors ---------------------------------------------------------

    @app.get("/v1/search")
    def search(
        who: Caller,
        q: Annotated[str, Query(max_length=4000)],
        mode: Annotated[str | None, Query(pattern="^(lexical|vector|hybrid)$")] = None,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
    ) -> dict[str, Any]:
        try:
            hits = ragox.search(q, who, SearchMode(mode) if mode else None, limit, collapse=True)
        except (SearchError, EmbedderError) as error:
            raise Problem(400, "Bad Request", error.code) from None
        return {"hits": [hit_json(hit) for hit in hits]}

    @app.post("/v1/ask")
    def ask(body: AskRequest, who: Caller) -> dict[str, Any]:
        generator = configured if body.generator == "server" else None
        mode = SearchMode(body.mode) if body.mode else None
        language = body.answer_language.lower() if body.answer_language else None
        try:
            if generator is None:
                with cpu_slot:
                    record = ragox.ask(body.question, who, None, mode, answer_language=language)
            else:
                record = ragox.ask(body.question, who, generator, mode, answer_language=language)
        except (SearchError, EmbedderError) as error:
            raise Problem(400, "Bad Request", error.code) from None
        except GeneratorError as error:
            raise Problem(502, "Bad Gateway", error.code) from None
        return {
            "answer_id": record.answer_id,
            "answer": record.answer,
            "abstained": record.abstained,
            "missing": record.missing,
            "citations": [{**citation_json(c), **cited(c.anchor, who)} for c in record.citations],
            # additive (issue 16): the language of the answer's own words (abstention,
            # missing words, notices), for the page's ``lang``
            "message_language": message_language(record.question, record.answer_language),
            # additive (issue 12), only when asked for: the answer language, and what the
            # answer says about itself (e.g. that its generator could not translate)
            **_language_fields(record),
        }

    @app.get("/v1/answers/{answer_id}", responses=_problems(404))
    def answer(answer_id: str, who: Caller) -> dict[str, Any]:
        """An answer replayed now: citations re-resolved with the caller's access. Only
        the asker and operate keys may replay it; to others it is missing."""
        try:
            replay = ragox.show_answer(answer_id, who)
        except NotFound:
            raise NOT_FOUND from None
        return {
            "answer_id": replay.record.answer_id,
            "question": replay.record.question,
            "answer": replay.answer,
            "abstained": replay.record.abstained,
            "missing": replay.missing,
            # additive: the language of the answer's own words (abstention, redacted and
            # withheld claims), as `POST /v1/ask` gives it
            "message_language": message_language(
                replay.record.question, replay.record.answer_language
            ),
            **_language_fields(replay.record),
            "citations": [
                {
                    "source_id": c.source_id,
                    "anchor": c.anchor.to_json() if c.anchor else {"anchor_id": c.anchor_id},
                    "status": c.resolution.status.value,
                    **({"translation": c.translation.to_json()} if c.translation else {}),
                    # additive (issue 16): the same passage in other documents, as `ask`
                    # listed it; only the copies that resolve now for the caller
                    **({"also_in": [citation_json(o) for o in c.also_in]} if c.also_in else {}),
                    # additive: the citation's anchor was migrated by a rebuild
                    **(
                        {"migrated": successor_json(c.anchor, c.successor)}
                        if c.anchor is not None and c.successor is not None
                        else {}
                    ),
                    # additive: verified in a text that is no longer current, whether
                    # the current revision (one the caller may read) still has it
                    **(
                        {"in_current": in_current_json(now)}
                        if c.anchor is not None
                        and (now := ragox.in_current(c.anchor, who, c.resolution)) is not None
                        else {}
                    ),
                }
                for c in replay.citations
            ],
        }

    # Resolution is short and CPU-bound (a few indexed reads; the quote check is
    # remembered per text), so its routes run on the event loop and answer with
    # ready-made JSON: no thread-pool trip, no response-model validation.

    @app.post("/v1/resolve", openapi_extra=bearer_only)
    async def resolve_body(request: Request) -> JSONResponse:
        """Resolve an anchor (our JSON, a W3C annotation, or ``{"anchor_id": …}``)."""
        who = caller(request)
        try:
            async with asyncio.timeout(body_seconds):
                raw = await _bounded_body(request, _MAX_ANCHOR_BYTES)
        except TimeoutError:
            raise _too_slow(body_seconds) from None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise Problem(400, "Bad Request", "the body is not JSON") from None
        if isinstance(data, dict) and set(data) == {"anchor_id"}:
            return JSONResponse(_resolution(ragox.resolve_id(str(data["anchor_id"]), who)))
        try:
            if isinstance(data, dict) and data.get("type") == "Annotation":
                anchor = from_web_annotation(data)
            else:
                anchor = Anchor.from_json(data)
        except AnchorFormatError as error:
            raise Problem(400, "Bad Request", str(error)) from None
        return JSONResponse(_resolution(ragox.resolve(anchor, who)))

    @app.get("/v1/anchors/{anchor_id}", openapi_extra=bearer_only)
    async def anchor_by_id(anchor_id: str, request: Request) -> JSONResponse:
        """A stored anchor resolved now; the anchor itself only when it resolves, and the
        document it names only when the caller may read that document."""
        who = caller(request)
        stored, result = ragox.resolve_stored(anchor_id, who)
        body = _resolution(result)
        if stored is not None and result.resolved:
            body["anchor"] = stored.anchor.to_json()
            # additive: the anchor a rebuild migrated this one to (the old one is kept)
            successor = ragox.successor(stored.anchor, who)
            if successor is not None:
                body["successor"] = successor_json(stored.anchor, successor)["to"]
            # additive: for a text that is no longer current, whether the passage is in
            # the current revision's (said only of a revision the caller may read)
            # (it reads two whole texts: off the event loop, and only for such anchors)
            now = (
                None
                if result.current
                else await run_in_threadpool(ragox.in_current, stored.anchor, who, result)
            )
            if now is not None:
                body["in_current"] = in_current_json(now)
        elif stored is not None and result.status is not ResolutionStatus.ACCESS_DENIED:
            body["document_id"] = stored.anchor.document_id
            body["revision"] = stored.anchor.revision
        return JSONResponse(body)

    # -- OpenAI-compatible chat (ragox as a "model" for chat front ends) ----------------------

    def chat_ask(
        question: str,
        who: Principal,
        model: str,
        earlier: list[tuple[str, str]],
        answer_language: str | None,
    ) -> AnswerRecord:
        generator = configured if model == "ragox" else None
        if isinstance(generator, OpenAIGenerator) and earlier:
            generator = generator.with_conversation(earlier)
        try:
            if generator is None:
                with cpu_slot:
                    return ragox.ask(question, who, None, answer_language=answer_language)
            return ragox.ask(question, who, generator, answer_language=answer_language)
        except (SearchError, EmbedderError) as error:
            raise Problem(400, "Bad Request", error.code) from None
        except GeneratorError as error:
            raise Problem(502, "Bad Gateway", error.code) from None

    app.include_router(chat_router(chat_ask, principal, Problem))

    # -- the viewer (static shell; all data comes from the API above) ---------------------

    app.mount("/view/static", StaticFiles(directory=STATIC), name="static")

    def shell(name: str) -> FileResponse:
        return FileResponse(
            STATIC / name,
            media_type="text/html",
            headers={
                "Content-Security-Policy": VIEWER_CSP,
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            },
        )

    @app.get("/v1/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return shell("docs.html")

    @app.get("/", include_in_schema=False)
    def start_page() -> RedirectResponse:
        """The web app starts at the ask page."""
        return RedirectResponse("/view/ask", status_code=303)

    # any id, even one holding "/" (a%2Fb): the viewer page says it is not an anchor
    @app.get("/view/anchors/{anchor_id:path}", include_in_schema=False)
    def view_anchor(anchor_id: str) -> FileResponse:
        return shell("viewer.html")

    @app.get("/view/ask", include_in_schema=False)
    def view_ask() -> FileResponse:
        return shell("ask.html")

    @app.get("/view/library", include_in_schema=False)
    def view_library() -> FileResponse:
        return shell("library.html")

    app.add_middleware(ResolutionShortcut, anchors=anchor_by_id, resolve=resolve_body)
    # Outside the shortcut's routes and the upload (they bound their own bodies): the
    # key before any byte of a body, and a bound on it.
    app.add_middleware(BodyGuard, authenticate=caller, body_seconds=body_seconds)
    # Outermost of ours: every response, the shortcut's and a 404's included.
    app.add_middleware(NoSniff)
    app.add_middleware(RequestIds, routes=app.router.routes)
    return app


class NoSniff:
    """Adds ``X-Content-Type-Options: nosniff`` to every HTTP response: no browser
    may guess a script or a page out of JSON, a PNG or a problem."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).setdefault("X-Content-Type-Options", "nosniff")
            await send(message)

        await self.app(scope, receive, send_with_header)


class BodyGuard:
    """Requests to ``/v1/`` with a body, other than the upload and ``POST /v1/resolve``
    (which read their bodies themselves, under their own limits): the bearer key is
    checked before any byte of the body is read (401), and the body may not pass
    :data:`_MAX_JSON_BYTES` (413). The route checks the key again once the body is
    in. Before, ``POST /v1/ask`` and ``/v1/chat/completions`` read and parsed a body
    of any size, without a key too: a 300 MB body took the server from 165 to 750 MB
    (found by a new-user pass)."""

    def __init__(
        self,
        app: ASGIApp,
        authenticate: Callable[[Request], Principal],
        body_seconds: float = DEFAULT_BODY_SECONDS,
    ) -> None:
        self.app = app
        self.authenticate = authenticate
        #: longest wait for a whole body (408 after it)
        self.body_seconds = body_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in ("GET", "HEAD", "OPTIONS")
            or not scope["path"].startswith("/v1/")
            or (scope["method"] == "POST" and scope["path"] in _OWN_BODY_LIMITS)
        ):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        if scope["method"] == "DELETE" and not (
            headers.get("content-length", "0") != "0" or "transfer-encoding" in headers
        ):
            await self.app(scope, receive, send)  # no body: the route checks the key
            return
        try:
            # before the body (refused at once), and again by the route after it: a key
            # revoked while a body was held back is refused then (red-team)
            self.authenticate(Request(scope))
            # read here, at most the limit (a streamed body past it is a 413 too, not
            # the 400 FastAPI makes of an error while reading) and within the time (the
            # server never stops waiting for a body sent a byte at a time)
            async with asyncio.timeout(self.body_seconds):
                body = await _bounded_body(Request(scope, receive), _MAX_JSON_BYTES)
        except Problem as error:
            await _problem(error.status, error.title, error.detail)(scope, receive, send)
            return
        except TimeoutError:
            slow = _too_slow(self.body_seconds)
            await _problem(slow.status, slow.title, slow.detail)(scope, receive, send)
            return
        except ClientDisconnect:
            return  # gone before its body was in: nothing to answer, no bug
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:  # after the body: a disconnect, when it comes
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


#: the routes that bound their request bodies themselves
_OWN_BODY_LIMITS: Final = frozenset({"/v1/documents", "/v1/resolve"})


class ResolutionShortcut:
    """Hands the two resolution routes straight to their endpoint functions.

    ``GET /v1/anchors/{anchor_id}`` and ``POST /v1/resolve`` are what viewers and
    answer pages ask most; their endpoints need nothing from FastAPI (they parse the
    bearer key and the body themselves), and FastAPI's route matching and dependency
    solving would cost about as much CPU as the resolution itself. Requests of exactly
    these shapes go to the same endpoint functions that FastAPI routes to (and
    documents); every other request passes through unchanged. It sits inside
    Starlette's server-error and body-limit middleware like any user middleware.
    """

    def __init__(
        self,
        app: ASGIApp,
        anchors: Callable[[str, Request], Awaitable[Response]],
        resolve: Callable[[Request], Awaitable[Response]],
    ) -> None:
        self.app = app
        self.anchors = anchors
        self.resolve = resolve

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("root_path"):
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        anchor_id = path[len(_ANCHORS) :] if path.startswith(_ANCHORS) else ""
        try:
            # The shapes FastAPI matches: one non-empty path segment, the exact path.
            if method == "GET" and anchor_id and "/" not in anchor_id:
                response = await self.anchors(anchor_id, Request(scope, receive))
            elif method == "POST" and path == "/v1/resolve":
                response = await self.resolve(Request(scope, receive))
            else:
                await self.app(scope, receive, send)
                return
        except Problem as error:
            response = _problem(error.status, error.title, error.detail)
        await response(scope, receive, send)


_ANCHORS: Final = "/v1/anchors/"


def app_from_environment() -> FastAPI:
    """The app of one worker process of ``ragox serve --workers N`` (uvicorn imports
    it by name in each worker; the home comes from :data:`HOME_VARIABLE`)."""
    log_requests_to_stderr()
    limit = os.environ.get(UPLOAD_LIMIT_VARIABLE)
    return create_app(
        Path(os.environ[HOME_VARIABLE]),
        DEFAULT_UPLOAD_LIMIT if limit is None else int(limit),
        os.environ.get(GENERATOR_VARIABLE, "extractive"),
        queue=os.environ.get(QUEUE_VARIABLE) == "1",
        body_seconds=float(os.environ.get(BODY_SECONDS_VARIABLE, DEFAULT_BODY_SECONDS)),
    )


#: Largest ``POST /v1/resolve`` body; anchors are small, hostile input is not.
_MAX_ANCHOR_BYTES: Final = 8 * 1024 * 1024
#: Largest body of the other routes (a question, a chat with its history, a groups
#: list): 4 MiB.
_MAX_JSON_BYTES: Final = 4 * 1024 * 1024
#: What a multipart upload may carry besides the file: boundaries, part headers and
#: the short form fields.
_FORM_OVERHEAD: Final = 64 * 1024
#: The upload's request body, for the OpenAPI document (the route reads it itself).
_UPLOAD_BODY: Final[dict[str, Any]] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "document_id": {"type": "string", "maxLength": 1024},
                        "revision": {"type": "string"},
                        "groups": {"type": "string", "description": "comma-separated"},
                        "language": {
                            "type": "string",
                            "description": "ISO 639-1 code (default: detected)",
                            "pattern": "^[A-Za-z]{2,3}$",
                        },
                        "ocr": {
                            "type": "string",
                            "enum": [mode.value for mode in OcrMode],
                            "description": "OCR of PDF pages (also a query parameter); "
                            "default auto",
                        },
                    },
                }
            }
        },
    }
}


def _bounded_request(request: Request, limit: int) -> Request:
    """``request`` with a body that may not pass ``limit`` bytes: a larger declared
    length is refused before reading, a longer stream as soon as it passes the limit."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit() or len(declared) > 20:
            raise Problem(400, "Bad Request", "invalid Content-Length")
        if int(declared) > limit:
            raise Problem(413, "Content Too Large", f"the limit is {limit} bytes")
    seen = 0

    async def receive() -> Message:
        nonlocal seen
        message = await request.receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise Problem(413, "Content Too Large", f"the limit is {limit} bytes")
        return message

    return Request(request.scope, receive)


async def _bounded_body(request: Request, limit: int) -> bytes:
    return await _bounded_request(request, limit).body()


async def _bounded_form(request: Request, limit: int) -> FormData:
    """The multipart form of an upload of at most ``limit`` file bytes; files past
    Starlette's 1 MB spool go to a temporary file, never past the limit."""
    bounded = _bounded_request(request, limit + _FORM_OVERHEAD)
    try:
        return await bounded.form(max_files=1, max_fields=8, max_part_size=_FORM_OVERHEAD)
    except UnicodeDecodeError:
        raise Problem(400, "Bad Request", "a form field is not UTF-8") from None


def _form_text(form: FormData, name: str) -> str | None:
    """A short text field of the upload form; empty means absent."""
    value = form.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Problem(422, "Unprocessable Content", f"invalid fields: body.{name}")
    return value


def _ocr_mode(value: str) -> OcrMode:
    """The upload's OCR mode (form field or query parameter ``ocr``)."""
    try:
        return OcrMode(value)
    except ValueError:
        raise Problem(422, "Unprocessable Content", "ocr must be auto, off or force") from None


def _form_name(filename: str | None) -> str | None:
    """The uploaded file's name as the client sent it, if it is usable at all."""
    if not filename or document_id_problem(filename) is not None:
        return None
    return filename


def _language_fields(record: AnswerRecord) -> dict[str, Any]:
    """``answer_language`` and ``notices`` of an answer that was asked in a language."""
    if record.answer_language is None:
        return {}
    return {"answer_language": record.answer_language, "notices": list(record.notices)}


def _resolution(result: Resolution) -> dict[str, Any]:
    return resolution_json(result)
