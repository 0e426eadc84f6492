"""The embedded backend: one SQLite file (WAL, FTS5 partitions) plus a blob folder."""

from ragox.store.sqlite._index import SqliteIndex
from ragox.store.sqlite._schema import MIGRATIONS, SCHEMA_VERSION
from ragox.store.sqlite._sqlite import SqliteStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SqliteIndex", "SqliteStore"]
