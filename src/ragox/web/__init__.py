"""The web viewer: static assets only; every datum comes from the authenticated API."""

from pathlib import Path
from typing import Final

__all__ = ["STATIC", "VIEWER_CSP"]

STATIC: Final = Path(__file__).parent / "static"

#: the viewer loads nothing from elsewhere and runs no inline script
VIEWER_CSP: Final = (
    "default-src 'self'; img-src 'self' blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-src 'self'; "
    "frame-ancestors 'self'"
)
