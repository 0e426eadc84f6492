"""Content-addressed blob folder for original bytes: ``blobs/ab/abcdef…``."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["BlobStore"]


class BlobStore:
    """Stores bytes under their SHA-256; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError("not a SHA-256 hex digest")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        path = self._path(sha256)
        if path.exists():
            return sha256
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return sha256

    def get(self, sha256: str) -> bytes:
        return self._path(sha256).read_bytes()

    def digest(self, sha256: str) -> str | None:
        """SHA-256 of the stored file, read in pieces (None: missing), for scrubbing."""
        try:
            with self._path(sha256).open("rb") as handle:
                hasher = hashlib.sha256()
                for piece in iter(lambda: handle.read(1 << 20), b""):
                    hasher.update(piece)
        except FileNotFoundError:
            return None
        return hasher.hexdigest()

    def exists(self, sha256: str) -> bool:
        return self._path(sha256).exists()

    def delete(self, sha256: str) -> None:
        self._path(sha256).unlink(missing_ok=True)
