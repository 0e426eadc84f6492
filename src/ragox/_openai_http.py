"""What every client of an OpenAI-compatible server shares: the endpoint URL (and a
form of it safe for messages) and the short error codes of an error body."""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit, urlunsplit

import httpx

__all__ = ["SAFE_TOKEN", "endpoint", "error_detail"]

#: identifiers short and plain enough to repeat in a message
SAFE_TOKEN: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


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
