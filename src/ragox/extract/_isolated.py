"""Page renders in a child process, capped in time and memory.

The pixel budget (:data:`ragox.extract.pdf.RENDER_PIXEL_BUDGET`) bounds a render's
pixmap, but not the time MuPDF spends drawing a page of millions of paths, and
MuPDF cannot be interrupted from Python. So the server renders in a child forked
from a forkserver that has PyMuPDF loaded (a few milliseconds per render): the
child gets an address-space limit, and is killed when it runs past its time.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from multiprocessing import context, spawn
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from ragox.extract._model import ErrorCode, ExtractionError

__all__ = [
    "CONTEXT",
    "RENDER_MEMORY_BYTES",
    "RENDER_SECONDS",
    "render_page_png_isolated",
    "watch_owner",
]

#: Longest a page render may take before it is killed (and answered as RENDER_FAILED).
RENDER_SECONDS: Final = 20.0
#: Address space of a render process: the PDF, MuPDF and an 8-megapixel pixmap fit.
RENDER_MEMORY_BYTES: Final = 2 * 1024**3

#: The start method of every child that opens a PDF (renders here, page readers in
#: :mod:`ragox.extract._pdfpool`): forked from one server with PyMuPDF imported
#: (``ragox.extract.pdf`` imports it lazily), never from a process with threads.
#: Set in the thread that starts one of our children, while it starts it.
_STARTING: Final = threading.local()


def _preparation_data(name: str, *, _original: Any = spawn.get_preparation_data) -> Any:
    """What a child is told about its parent (``spawn.get_preparation_data``), less
    the main module when the child is one of ours: our children run functions of
    ragox and never need the caller's ``__main__``. Without this, every page reader
    of a script that has no ``if __name__ == "__main__":`` guard ran the script
    again (its prints, its writes, its own ingest) and failed starting processes
    while importing it, and the PDF that script ingested was refused. Another
    library's children (another thread, or not ours) get the data unchanged."""
    data = _original(name)
    if getattr(_STARTING, "ours", False):
        data.pop("init_main_from_name", None)
        data.pop("init_main_from_path", None)
    return data


if not getattr(spawn.get_preparation_data, "_ragox", False):
    _preparation_data._ragox = True  # type: ignore[attr-defined]
    spawn.get_preparation_data = _preparation_data


class _Process(context.ForkServerProcess):
    """A forkserver child that is not given the caller's main module."""

    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        _STARTING.ours = True
        try:
            return context.ForkServerProcess._Popen(process_obj)
        finally:
            _STARTING.ours = False


class _Context(context.ForkServerContext):
    Process = _Process


CONTEXT: Final = _Context()
CONTEXT.set_forkserver_preload(["ragox.extract.pdf", "pymupdf"])


#: how often a pool worker looks whether the process that started it still runs
_WATCH_SECONDS: Final = 1.0


def watch_owner(owner: int) -> None:
    """A pool worker's initializer: exit once process ``owner`` (the ragox process
    whose pool it serves; the forkserver is the worker's parent) is gone. A worker
    waits on its call queue, whose writing end it holds itself, so it never sees the
    owner die: a killed `ragox ingest` (SIGKILL, or a SIGTERM from `timeout` or cron)
    left its workers and their forkserver running for good (red-team find)."""

    started = _start_time(owner)

    def watch() -> None:
        while True:
            time.sleep(_WATCH_SECONDS)
            try:
                os.kill(owner, 0)
            except (ProcessLookupError, PermissionError):  # gone, or the id reused
                os._exit(0)
            # a dead owner not yet reaped (a zombie), or its id given to another
            # process since: /proc says so where there is one
            now = _start_time(owner)
            if started is not None and (now is None or now != started):
                os._exit(0)

    threading.Thread(target=watch, name="ragox-owner-watch", daemon=True).start()


def _start_time(pid: int) -> str | None:
    """When process ``pid`` started (``/proc/PID/stat``'s 22nd field), or None for one
    that is a zombie, is gone, or where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # fields[0] is the state (3rd field); the start time is the 22nd field
    if len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return fields[19].decode()


def render_page_png_isolated(
    path: Path, page_number: int, seconds: float = RENDER_SECONDS
) -> bytes:
    """``render_page_png`` of the PDF at ``path`` in a child process; raises
    :class:`ExtractionError` for a refusal, a crash or a render past ``seconds``."""
    receiver, sender = CONTEXT.Pipe(duplex=False)
    process = CONTEXT.Process(
        target=_render_child, args=(str(path), page_number, sender), daemon=True
    )
    process.start()
    sender.close()
    try:
        if not receiver.poll(seconds):
            raise ExtractionError(ErrorCode.RENDER_FAILED, "the render took too long")
        outcome, payload = receiver.recv()
    except EOFError:
        raise ExtractionError(ErrorCode.RENDER_FAILED, "the renderer stopped") from None
    finally:
        process.kill()
        process.join()
        receiver.close()
    if outcome == "png":
        return bytes(payload)
    raise ExtractionError(ErrorCode(outcome), str(payload))


def _render_child(path: str, page_number: int, sender: Connection) -> None:
    from ragox.extract.pdf import render_page_png  # noqa: PLC0415 - preloaded

    resource.setrlimit(resource.RLIMIT_AS, (RENDER_MEMORY_BYTES, RENDER_MEMORY_BYTES))
    try:
        sender.send(("png", render_page_png(Path(path).read_bytes(), page_number)))
    except ExtractionError as error:
        sender.send((error.code.value, error.message))
    except BaseException as error:  # MemoryError included: the caller answers RENDER_FAILED
        sender.send((ErrorCode.RENDER_FAILED.value, type(error).__name__))
    finally:
        sender.close()
