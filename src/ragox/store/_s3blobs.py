"""Originals in an S3-compatible object store (boto3), content-addressed.

``RAGOX_BLOBS=s3://bucket/prefix`` chooses it; the endpoint, region and credentials
come from boto3's usual configuration (``AWS_ENDPOINT_URL_S3`` or
``AWS_ENDPOINT_URL`` for a store other than AWS, ``AWS_DEFAULT_REGION``,
``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY`` or a profile). Objects are named
``prefix/ab/abcdef…`` by the SHA-256 of their bytes and written once; every read is
checked against that hash, so a changed or truncated object is refused
(:class:`BlobCorrupt`) rather than extracted or served. ``path`` keeps a verified copy
in a local cache folder (content-addressed, so never stale; checked against the store
on each use) for readers that need a file (the isolated PDF page renderer).
"""

from __future__ import annotations

import base64
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ragox.store._files import FOLDER_MODE, private_folder

__all__ = ["BlobCorrupt", "S3BlobStore"]

_HEX = frozenset("0123456789abcdef")
_MISSING = frozenset({"404", "NoSuchKey", "NotFound"})


class BlobCorrupt(ValueError):
    """The object stored under a SHA-256 does not have that hash."""


def _check(sha256: str) -> str:
    if len(sha256) != 64 or not set(sha256) <= _HEX:
        raise ValueError("not a SHA-256 hex digest")
    return sha256


class S3BlobStore:
    """Blobs as objects of one bucket under a key prefix."""

    def __init__(self, client: Any, bucket: str, prefix: str, cache: Path) -> None:
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.cache = cache

    @classmethod
    def from_url(cls, url: str, cache: Path) -> S3BlobStore:
        """The store an ``s3://bucket/prefix`` URL names, with boto3's configuration."""
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError("RAGOX_BLOBS must look like s3://bucket/prefix")
        import boto3  # noqa: PLC0415 (only when configured: it loads slowly)

        return cls(boto3.client("s3"), parts.netloc, parts.path, cache)

    def _key(self, sha256: str) -> str:
        name = f"{sha256[:2]}/{_check(sha256)}"
        return f"{self.prefix}/{name}" if self.prefix else name

    def _missing(self, error: Exception) -> bool:
        response = getattr(error, "response", None)
        code = str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""
        return code in _MISSING

    def put(self, data: bytes) -> str:
        sha256 = hashlib.sha256(data).hexdigest()
        if self.exists(sha256):
            return sha256
        # The store checks the bytes it receives against this checksum (S3's own
        # integrity check), so a transfer error never lands under the hash.
        self._client.put_object(
            Bucket=self.bucket,
            Key=self._key(sha256),
            Body=data,
            ChecksumSHA256=base64.b64encode(bytes.fromhex(sha256)).decode("ascii"),
        )
        return sha256

    def _read(self, sha256: str) -> bytes | None:
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self._key(sha256))
        except Exception as error:
            if self._missing(error):
                return None
            raise
        return bytes(answer["Body"].read())

    def get(self, sha256: str) -> bytes:
        data = self._read(sha256)
        if data is None:
            raise FileNotFoundError(f"no blob {sha256}")
        if hashlib.sha256(data).hexdigest() != sha256:
            raise BlobCorrupt(f"blob {sha256} does not match its hash")
        return data

    def path(self, sha256: str) -> Path:
        """A verified local copy (made once: the cache is content-addressed). The object
        is asked for each time, so a blob deleted through another process (a document
        deleted on another replica) is never served from here, and its copy goes."""
        target = self.cache / sha256[:2] / _check(sha256)
        if target.exists():
            if self.exists(sha256):
                return target
            target.unlink(missing_ok=True)
            raise FileNotFoundError(f"no blob {sha256}")
        data = self.get(sha256)
        private_folder(self.cache)
        target.parent.mkdir(exist_ok=True, mode=FOLDER_MODE)
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
        data = self._read(sha256)
        return None if data is None else hashlib.sha256(data).hexdigest()

    def exists(self, sha256: str) -> bool:
        try:
            self._client.head_object(Bucket=self.bucket, Key=self._key(sha256))
        except Exception as error:
            if self._missing(error):
                return False
            raise
        return True

    def delete(self, sha256: str) -> None:
        self._client.delete_object(Bucket=self.bucket, Key=self._key(sha256))
        (self.cache / sha256[:2] / sha256).unlink(missing_ok=True)
