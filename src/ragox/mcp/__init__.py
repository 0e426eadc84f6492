"""``ragox mcp``: search, cited answers and strict resolution for MCP clients (the
official ``mcp`` SDK), over stdio or streamable HTTP."""

from ragox.mcp._run import run_http, run_stdio
from ragox.mcp._server import REVISION_URI, PrincipalOf, Unauthorized, build_server

__all__ = ["REVISION_URI", "PrincipalOf", "Unauthorized", "build_server", "run_http", "run_stdio"]
