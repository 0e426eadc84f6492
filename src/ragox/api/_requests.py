"""Each request's opaque id, so that a caller can report a failure the operator can
find: in the ``X-Request-Id`` header of every response (problems' bodies stay the
same for every request, so that a refused and a missing object still answer alike),
and in the one log line the server writes per request (method, route template,
status, milliseconds). The line never holds the request's path or query (a path names
a document, a query a question), nor any text of a document.
"""

from __future__ import annotations

import logging
import secrets
import sys
import time
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the logger of the request lines (``ragox serve`` writes it to stderr)
LOG: Final = logging.getLogger("ragox.api")


def log_requests_to_stderr() -> None:
    """One line per request on stderr, for ``ragox serve`` (once per process)."""
    if not LOG.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        LOG.addHandler(handler)
        LOG.setLevel(logging.INFO)
        LOG.propagate = False


class RequestIds:
    """Gives every HTTP request an opaque id and logs it with the request's route
    template and status. A bug's exception ends here as a bare 500 problem (its
    traceback is logged with the id), so that the 500 carries the id too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)["X-Request-Id"] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            LOG.exception("request %s failed", request_id)
            if status:  # the response had started: nothing else can be sent
                raise
            body = {
                "type": "about:blank",
                "title": "Internal Server Error",
                "status": 500,
            }
            response = JSONResponse(
                body,
                status_code=500,
                media_type="application/problem+json",
                headers={"X-Content-Type-Options": "nosniff"},
            )
            await response(scope, receive, send_with_id)
        finally:
            LOG.info(
                "request %s %s %s %d %.1f ms",
                request_id,
                scope["method"],
                _route(scope),
                status,
                (time.perf_counter() - started) * 1000,
            )


def _route(scope: Scope) -> str:
    """The template of the route that answered (``/v1/documents/{document_id}``),
    never the path itself."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if isinstance(template, str) and template:
        return template
    path = str(scope.get("path", ""))
    if path.startswith("/v1/anchors/"):  # the resolution shortcut's routes
        return "/v1/anchors/{anchor_id}"
    if path == "/v1/resolve":
        return path
    return "(other)"
