"""Where a ragox home lives, and its secret key."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ragox.store._files import private_file, private_folder

__all__ = ["default_home", "load_or_create_key"]


def default_home() -> Path:
    """``$RAGOX_HOME``, else the per-user data directory."""
    configured = os.environ.get("RAGOX_HOME")
    if configured:
        return Path(configured).expanduser()
    import platformdirs  # noqa: PLC0415 - only without $RAGOX_HOME (a tenth of the start)

    return Path(platformdirs.user_data_dir("ragox", appauthor=False))


def load_or_create_key(home: Path, name: str = "manifest.key") -> bytes:
    """A 32-byte secret in ``home/keys`` (0700), created once with mode 0600."""
    folder = home / "keys"
    private_folder(folder)
    path = folder / name
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        private_file(path)  # a key file an older version or a person left readable
        key = path.read_bytes()
        if len(key) != 32:
            raise ValueError(f"key file {path} is damaged") from None
        return key
    key = secrets.token_bytes(32)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key
