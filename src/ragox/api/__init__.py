"""The authenticated HTTP API (FastAPI); nothing below it imports it."""

from ragox.api._app import (
    DEFAULT_UPLOAD_LIMIT,
    GENERATOR_VARIABLE,
    HOME_VARIABLE,
    QUEUE_VARIABLE,
    UPLOAD_LIMIT_VARIABLE,
    app_from_environment,
    create_app,
)

__all__ = [
    "DEFAULT_UPLOAD_LIMIT",
    "GENERATOR_VARIABLE",
    "HOME_VARIABLE",
    "QUEUE_VARIABLE",
    "UPLOAD_LIMIT_VARIABLE",
    "app_from_environment",
    "create_app",
]
