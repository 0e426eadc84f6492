"""The authenticated HTTP API (FastAPI); nothing below it imports it."""

from ragox.api._app import DEFAULT_UPLOAD_LIMIT, create_app

__all__ = ["DEFAULT_UPLOAD_LIMIT", "create_app"]
