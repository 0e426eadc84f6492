"""Content-addressed storage of original bytes, by SHA-256.

:class:`BlobStore` is the embedded default, a folder ``blobs/ab/abcdef…`` in the home;
``RAGOX_BLOBS=s3://bucket/prefix`` puts them in an S3-compatible object store
(:mod:`ragox.store._s3blobs`) that every worker and API replica can read.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Final, Protocol

from ragox.store._files import FOLDER_MODE, private_folder, private_tree

__all__ = ["BLOBS_VARIABLE", "BlobStore", "Blobs", "open_blobs"]

#: where originals live: unset (the home's blob folder) or ``s3://bucket/prefix``
BLOBS_VARIABLE: Final = "RAGOX_BLOBS"


class Blobs(Protocol):
    """Original bytes by their SHA-256 (lowercase hex); every store of them is one."""

    def put(self, data: bytes) -> str:
        """Store the bytes (once); returns their SHA-256."""
        ...

    def get(self, sha256: str) -> bytes: ...

    def path(self, sha256: str) -> Path:
        """A local file holding the blob (for a reader in another process)."""
        ...

    def digest(self, sha256: str) -> str | None:
        """SHA-256 of what is stored under ``sha256`` (None: missing), for scrubbing."""
        ...

    def exists(self, sha256: str) -> bool: ...

    def delete(self, sha256: str) -> None: ...


def open_blobs(home: Path) -> Blobs:
    """The blob store :data:`BLOBS_VARIABLE` names, else the home's blob folder."""
    configured = os.environ.get(BLOBS_VARIABLE, "").strip()
    if not configured:
        return BlobStore(home / "blobs")
    from ragox.store._s3blobs import S3BlobStore  # noqa: PLC0415 (boto3 loads slowly)

    return S3BlobStore.from_url(configured, cache=home / "blob-cache")


class BlobStore:
    """Stores bytes under their SHA-256; writes are atomic (temp file + rename); folders
    are 0700 and files 0600 (``mkstemp``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        if root.is_dir() and root.stat().st_mode & 0o077:
            private_tree(root)  # a folder made by an older version: tighten it once
        private_folder(root)

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError("not a SHA-256 hex digest")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        path = self._path(sha256)
        if path.exists():
            return sha256
        path.parent.mkdir(exist_ok=True, mode=FOLDER_MODE)
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

    def path(self, sha256: str) -> Path:
        """Where the blob's file is (for a reader in another process)."""
        return self._path(sha256)

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
