"""Which backend a home uses: one setting, ``--store URL`` / ``RAGOX_STORE``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from ragox.store._errors import StoreError
from ragox.store._interface import Store
from ragox.store.sqlite import SqliteStore

__all__ = ["STORE_VARIABLE", "has_store", "is_postgres_url", "migrate_store", "open_store"]

#: the environment variable naming the store (default: the SQLite file of the home)
STORE_VARIABLE: Final = "RAGOX_STORE"
_POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")


def is_postgres_url(location: str) -> bool:
    return location.startswith(_POSTGRES_SCHEMES)


def _chosen(location: str | None) -> str | None:
    """``location``, else ``$RAGOX_STORE``; None for the home's SQLite database."""
    chosen = location if location is not None else os.environ.get(STORE_VARIABLE) or None
    return None if chosen in (None, "", "sqlite") else chosen


def _embedded_exists(home: Path) -> bool:
    return (home / "ragox.db").is_file()


def has_store(home: Path, location: str | None = None) -> bool:
    """Whether :func:`open_store` would open a store that exists rather than create
    the home's SQLite database: a server's store is the server's to say."""
    return _chosen(location) is not None or _embedded_exists(home)


def open_store(home: Path, location: str | None = None) -> Store:
    """The store at ``location`` (a ``postgresql://`` URL), else ``$RAGOX_STORE``, else
    the SQLite database of ``home``. The home holds local files either way."""
    chosen = _chosen(location)
    if chosen is None:
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


def migrate_store(home: Path, url: str) -> dict[str, object]:
    """Copy the SQLite store of ``home`` into the empty PostgreSQL database at ``url``
    (one transaction); returns counts of what was copied (numbers only). The home's
    manifest key stays in the home: open it with ``--store URL`` afterwards."""
    if not is_postgres_url(url):
        raise StoreError("the target is a postgresql:// URL")
    if not _embedded_exists(home):
        raise StoreError("no embedded store in that home")
    try:
        # an optional extra (psycopg): imported only by a home that uses it
        from ragox.store.postgres import PostgresStore  # noqa: PLC0415
        from ragox.store.postgres._copy import copy_sqlite_store  # noqa: PLC0415
    except ImportError:
        raise StoreError(
            "the PostgreSQL store needs the postgres extra (pip install 'ragox[postgres]')"
        ) from None
    source = SqliteStore(home)
    target = PostgresStore(url, home)
    try:
        counts = copy_sqlite_store(source, target)
    finally:
        source.close()
        target.close()
    return {
        "rows": dict(counts.rows),
        "blobs": counts.blobs,
        "vectors": counts.vectors,
        "lexical_rows": counts.lexical_rows,
    }
