"""Running the MCP server: stdio for a local client, streamable HTTP behind ragox keys."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

from ragox.access import Principal
from ragox.mcp._server import Unauthorized, build_server
from ragox.service import Ragox

__all__ = ["run_http", "run_stdio"]


def run_stdio(home: Path, principal: Principal, viewer_url: str | None) -> None:
    """Serve one local client on stdin/stdout as ``principal`` (the operator's choice)."""
    app = Ragox(home)
    try:
        build_server(app, lambda _headers: principal, viewer_url).run("stdio")
    finally:
        app.close()


def _bearer(headers: Mapping[str, str] | None) -> str | None:
    if headers is None:
        return None
    scheme, _, key = (headers.get("authorization") or "").partition(" ")
    return key.strip() if scheme.lower() == "bearer" and key.strip() else None


def http_app(home: Path, viewer_url: str | None, host: str = "127.0.0.1") -> tuple[Ragox, ASGIApp]:
    """The streamable HTTP app at ``/mcp``; every request needs a ragox key, and every
    tool call looks its key up again (never cached)."""
    app = Ragox(home)

    def principal_of(headers: Mapping[str, str] | None) -> Principal:
        key = _bearer(headers)
        found = app.authenticate(key) if key else None
        if found is None:
            raise Unauthorized
        return found

    inner = build_server(app, principal_of, viewer_url).streamable_http_app(host=host)
    return app, _KeyRequired(inner, app)


class _KeyRequired:
    """401 for any HTTP request without a valid ragox key, before the MCP layer sees it
    (a client without a key cannot even list the tools)."""

    def __init__(self, app: ASGIApp, ragox: Ragox) -> None:
        self.app = app
        self.ragox = ragox

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            key = _bearer(headers)
            if key is None or self.ragox.authenticate(key) is None:
                body = b'{"type":"about:blank","title":"Unauthorized","status":401}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/problem+json"),
                            (b"www-authenticate", b"Bearer"),
                            (b"x-content-type-options", b"nosniff"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_http(home: Path, host: str, port: int, viewer_url: str | None) -> None:
    import uvicorn  # noqa: PLC0415

    ragox, app = http_app(home, viewer_url, host)
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        ragox.close()
