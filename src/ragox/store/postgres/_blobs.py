"""Originals in PostgreSQL (a ``bytea`` row per SHA-256), readable by every process.

A reader that needs a file (the PDF page renderer runs in a child process) gets a
copy in the process's private cache folder; copies are content-addressed, so they
never go stale, and are dropped when the blob is deleted or any process erases.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import psycopg

from ragox.store._files import private_folder

__all__ = ["PostgresBlobs"]


class _Store(Protocol):
    def read(self) -> AbstractContextManager[psycopg.Connection[Any]]: ...


def _checked(sha256: str) -> str:
    if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError("not a SHA-256 hex digest")
    return sha256


class PostgresBlobs:
    """The blob interface of :class:`ragox.store.BlobStore`, over a table."""

    def __init__(self, store: _Store, cache: Path) -> None:
        self._store = store
        self.root = cache

    def put(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        with self._store.read() as conn:
            conn.execute(
                "INSERT INTO blobs(sha256, data) VALUES(%s, %s) ON CONFLICT(sha256) DO NOTHING",
                (sha256, data),
            )
        return sha256

    def get(self, sha256: str) -> bytes:
        with self._store.read() as conn:
            row = conn.execute(
                "SELECT data FROM blobs WHERE sha256=%s", (_checked(sha256),)
            ).fetchone()
        if row is None:
            raise FileNotFoundError("no such blob")
        return bytes(row[0])

    def path(self, sha256: str) -> Path:
        """A private file holding the blob (for a reader in another process)."""
        target = self.root / _checked(sha256)[:2] / sha256
        if target.exists():
            return target
        data = self.get(sha256)
        private_folder(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def digest(self, sha256: str) -> str | None:
        """SHA-256 of the stored bytes, computed by the server (None: missing)."""
        with self._store.read() as conn:
            row = conn.execute(
                "SELECT encode(sha256(data), 'hex') FROM blobs WHERE sha256=%s",
                (_checked(sha256),),
            ).fetchone()
        return None if row is None else str(row[0])

    def exists(self, sha256: str) -> bool:
        with self._store.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM blobs WHERE sha256=%s", (_checked(sha256),)
            ).fetchone()
        return row is not None

    def delete(self, sha256: str) -> None:
        with self._store.read() as conn:
            conn.execute("DELETE FROM blobs WHERE sha256=%s", (_checked(sha256),))
        (self.root / sha256[:2] / sha256).unlink(missing_ok=True)

    def forget(self) -> None:
        """Drop every cached copy (a deletion somewhere: no copy outlives its row)."""
        shutil.rmtree(self.root, ignore_errors=True)
