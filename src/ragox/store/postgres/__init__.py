"""The scale-out backend: PostgreSQL with pgvector (psycopg 3, psycopg_pool)."""

from ragox.store.postgres._index import PostgresIndex
from ragox.store.postgres._schema import MIGRATIONS, SCHEMA_VERSION
from ragox.store.postgres._store import PostgresStore

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "PostgresIndex", "PostgresStore"]
