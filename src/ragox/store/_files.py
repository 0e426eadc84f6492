"""Owner-only files: a home holds document text, originals and secrets.

Folders are 0700 and files 0600, whatever the umask; a home made by an older
version (``ragox.db`` was 0644 under the usual umask) is tightened when opened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "private_tree"]

FOLDER_MODE: Final = 0o700
FILE_MODE: Final = 0o600


def private_folder(path: Path) -> None:
    """Create ``path`` (and missing parents) if needed; ``path`` itself ends up 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    _tighten(path, FOLDER_MODE)


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if it does not exist, else make it 0600."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        _tighten(path, FILE_MODE)


def private_tree(root: Path) -> None:
    """Make every folder below ``root`` 0700 and every file 0600 (an older home)."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            _tighten(Path(dirpath) / name, FOLDER_MODE)
        for name in filenames:
            _tighten(Path(dirpath) / name, FILE_MODE)


def _tighten(path: Path, mode: int) -> None:
    """Take group and other bits away (never add any; links are left alone)."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode) or stat.S_IMODE(info.st_mode) & 0o077 == 0:
        return
    os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
