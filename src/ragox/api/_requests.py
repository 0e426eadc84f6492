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
from collections.abc import Sequence
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match
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

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute] = ()) -> None:
        self.app = app
        #: the app's routes, to name the route of a request answered before routing
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        started = time.perf_counter()
        status = 0
        logged = False

        def log() -> None:
            nonlocal logged
            if not logged:
                logged = True
                LOG.info(
                    "request %s %s %s %s %.1f ms",
                    request_id,
                    scope["method"],
                    self._route(scope),
                    status or "disconnected",
                    (time.perf_counter() - started) * 1000,
                )

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)["X-Request-Id"] = request_id
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                log()  # when the caller has it, not after background tasks (an upload's)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:
            pass  # the caller left before its body was in: no bug, nothing to answer
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
            log()

    def _route(self, scope: Scope) -> str:
        """The template of the route that answered or would have
        (``/v1/documents/{document_id:path}``), never the path itself."""
        template = getattr(scope.get("route"), "path", None)
        if isinstance(template, str) and template:
            return template
        # answered before routing (a 401 or 413 of the body guard, the resolution
        # shortcut): the route that matches the request
        for route in self.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL and isinstance(path := getattr(route, "path", None), str):
                return path
        return "(other)"
