"""Which backend a home uses: one setting, ``--store URL`` / ``RAGOX_STORE``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from ragox.store._errors import StoreError
from ragox.store._interface import Store
from ragox.store.sqlite import SqliteStore

__all__ = ["STORE_VARIABLE", "is_postgres_url", "open_store"]

#: the environment variable naming the store (default: the SQLite file of the home)
STORE_VARIABLE: Final = "RAGOX_STORE"
_POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


def is_postgres_url(location: str) -> bool:
    return location.startswith(_POSTGRES_SCHEMES)


def open_store(home: Path, location: str | None = None) -> Store:
    """The store at ``location`` (a ``postgresql://`` URL), else ``$RAGOX_STORE``, else
    the SQLite database of ``home``. The home holds local files either way."""
    chosen = location if location is not None else os.environ.get(STORE_VARIABLE) or None
    if chosen is None or chosen in ("", "sqlite"):
        return SqliteStore(home)
    if is_postgres_url(chosen):
        try:
            # an optional extra (psycopg): imported only by a home that uses it
            from ragox.store.postgres import PostgresStore  # noqa: PLC0415
        except ImportError:
            raise StoreError(
                "the PostgreSQL store needs the postgres extra (pip install 'ragox[postgres]')"
            ) from None
        return PostgresStore(chosen, home)
    raise StoreError("a store is a postgresql:// URL (or empty: the SQLite home)")
