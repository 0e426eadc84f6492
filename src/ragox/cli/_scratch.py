"""The store of a scratch home (``eval`` builds its index in one)."""

from __future__ import annotations

import click

__all__ = ["scratch_store"]


def scratch_store() -> str:
    """The ``--store`` URL given on this command line, else "" (SQLite in the scratch
    folder): a scratch index never lands in the database ``$RAGOX_STORE`` names."""
    ctx = click.get_current_context(silent=True)
    obj = None if ctx is None else ctx.find_root().obj
    return str(obj.get("store") or "") if isinstance(obj, dict) else ""
