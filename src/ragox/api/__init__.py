"""The authenticated HTTP API (FastAPI); nothing below it imports it."""

from ragox.api._app import (
    BODY_SECONDS_VARIABLE,
    DEFAULT_BODY_SECONDS,
    DEFAULT_UPLOAD_LIMIT,
    GENERATOR_VARIABLE,
    HOME_VARIABLE,
    QUEUE_VARIABLE,
    UPLOAD_LIMIT_VARIABLE,
    app_from_environment,
    create_app,
)
from ragox.api._requests import log_requests_to_stderr

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
    "log_requests_to_stderr",
]
