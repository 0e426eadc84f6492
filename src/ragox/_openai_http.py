"""What every client of an OpenAI-compatible server shares: the endpoint URL (and a
form of it safe for messages) and the short error codes of an error body."""

from __future__ import annotations

import re
from types import TracebackType
from typing import TYPE_CHECKING, Final, Literal, Self
from urllib.parse import urlsplit, urlunsplit

from ragox._lazy import lazy_module

if TYPE_CHECKING:
    import httpx
else:
    httpx = lazy_module("httpx")


__all__ = ["SAFE_TOKEN", "HttpFailure", "PooledClient", "endpoint", "error_detail", "post_json"]

FailureCode = Literal["TIMEOUT", "UNREACHABLE", "BAD_RESPONSE", "HTTP_ERROR"]

#: identifiers short and plain enough to repeat in a message
SAFE_TOKEN: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


class PooledClient:
    """Owns a pooled ``httpx.Client``: ``close()`` and use as a context manager."""

    _client: httpx.Client

    def close(self) -> None:
        """Close the pooled HTTP connections."""
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def endpoint(base_url: str, route: str) -> tuple[str, str]:
    """``(url, shown)``: the route under the API root (``/v1`` for a bare host), and
    the same URL without user info for messages. Raises ValueError for a bad URL."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("base_url must be an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise ValueError("base_url must not have a query or a fragment")
    path = parts.path.rstrip("/") or "/v1"
    url = urlunsplit((parts.scheme, parts.netloc, f"{path}/{route}", "", ""))
    shown_host = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    shown = urlunsplit((parts.scheme, shown_host, f"{path}/{route}", "", ""))
    return url, shown


def error_detail(response: httpx.Response) -> str:
    """``type``/``code`` of an OpenAI-style error body, only when they are short tokens.

    The free-text ``message`` is left out: servers echo the prompt or input in it.
    """
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    found = [
        f"{field}={value}"
        for field in ("type", "code")
        if isinstance(value := error.get(field), str) and SAFE_TOKEN.fullmatch(value)
    ]
    return f" ({', '.join(found)})" if found else ""


class HttpFailure(Exception):
    """A request that got no usable HTTP answer; ``code`` is TIMEOUT, UNREACHABLE,
    BAD_RESPONSE or HTTP_ERROR. Messages name the server, never the request body."""

    def __init__(
        self,
        code: FailureCode,
        message: str,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: seconds the server asked to wait (``Retry-After`` in seconds), if it did
        self.retry_after = retry_after


def _retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds when it is a number (an HTTP date is ignored)."""
    value = response.headers.get("retry-after", "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if 0 <= seconds < 86400 else None


def post_json(
    client: httpx.Client, url: str, payload: dict[str, object], where: str
) -> httpx.Response:
    """POST ``payload`` as JSON; a successful response, or :class:`HttpFailure`."""
    # Transport messages (errno text) are kept; they never hold the request body.
    try:
        response = client.post(url, json=payload)
    except httpx.TimeoutException as exc:
        raise HttpFailure("TIMEOUT", f"no answer in time from {where}") from exc
    except httpx.ConnectError as exc:
        raise HttpFailure("UNREACHABLE", f"cannot connect to {where}: {exc}") from exc
    except (httpx.RemoteProtocolError, httpx.DecodingError) as exc:
        raise HttpFailure("BAD_RESPONSE", f"broken HTTP answer from {where}") from exc
    except httpx.TransportError as exc:
        raise HttpFailure("UNREACHABLE", f"connection to {where} failed: {exc}") from exc
    if not response.is_success:
        raise HttpFailure(
            "HTTP_ERROR",
            f"HTTP {response.status_code} {response.reason_phrase} from {where}"
            + error_detail(response),
            status=response.status_code,
            retry_after=_retry_after(response),
        )
    return response
