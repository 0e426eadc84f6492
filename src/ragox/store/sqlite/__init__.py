"""The embedded backend: one SQLite file (WAL, FTS5 partitions) plus a blob folder."""

import sqlite3
from typing import Final

from ragox.store.sqlite._index import SqliteIndex
from ragox.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION
from ragox.store.sqlite._sqlite import SqliteStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLITE_VERSION", "SqliteIndex", "SqliteStore"]

#: the SQLite library this Python runs (release evidence names it)
SQLITE_VERSION: Final = sqlite3.sqlite_version
