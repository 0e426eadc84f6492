"""A PDF's pages read by the caller and worker processes, each over its own copy of
the document.

MuPDF documents cannot be shared between processes, and a page's text layer, its
tables and its boxes do not depend on any other page: each worker opens the PDF
once (the same checks as the caller's ``_open``), reads the ranges of pages it is
handed with ``_read_page`` and sends back page results that hold no MuPDF object.
The caller, which has the document open already, reads ranges too instead of
waiting, so ``n`` readers are ``n - 1`` processes (issue 15: each costs an
interpreter, MuPDF and a document, about 65 MB of resident memory). The caller
gets the pages in page order and numbers blocks and tables itself, so the
extraction is the one a single process makes.

Workers are forked from the forkserver of :mod:`ragox.extract._isolated` (PyMuPDF
loaded once there), never from the caller: a server's threads and database
connections are not copied. A worker that dies (MuPDF crashing on a hostile page, the
kernel ending it for memory) fails the extraction with ``CORRUPT_PDF``; the
caller's own ranges are read as the serial reader reads every page of a smaller PDF.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any, Final

from ragox.extract._isolated import CONTEXT
from ragox.extract._model import ErrorCode, ExtractionError, OcrMode

if TYPE_CHECKING:
    from ragox.extract.pdf import _Page

__all__ = ["WORKERS_VARIABLE", "default_workers", "page_ranges", "read_pages"]

#: The environment variable that sets how many processes read a PDF's pages.
WORKERS_VARIABLE: Final = "RAGOX_PDF_WORKERS"
#: Tasks per worker: small enough that a worker with easy pages takes another range
#: while one with tables or OCR is still busy, large enough that a task's overhead
#: (a round trip, pickling) stays small beside its pages.
_TASKS_PER_WORKER: Final = 4
_MAX_CHUNK: Final = 16

#: The open document and how to read it, in a worker process.
_WORKER: dict[str, Any] = {}


def default_workers() -> int:
    """``$RAGOX_PDF_WORKERS`` when set to a positive number, else the CPUs this
    process may run on; 1 in a daemonic process (which may not start children)."""
    if multiprocessing.current_process().daemon:
        return 1
    chosen = os.environ.get(WORKERS_VARIABLE, "").strip()
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def page_ranges(page_count: int, workers: int) -> list[range]:
    """Consecutive page ranges covering ``0..page_count``, about
    :data:`_TASKS_PER_WORKER` per worker."""
    chunk = max(1, min(_MAX_CHUNK, -(-page_count // (workers * _TASKS_PER_WORKER))))
    return [range(start, min(start + chunk, page_count)) for start in range(0, page_count, chunk)]


def read_pages(
    data: bytes,
    password: str | None,
    profile_id: str,
    mode: OcrMode,
    language: str | None,
    ranges: Sequence[range],
    workers: int,
    read_here: Callable[[range], tuple[_Page, ...]],
) -> Iterator[tuple[tuple[_Page, ...], bool]]:
    """Each range's pages (and whether a worker's copy of the document was repaired
    reading them), in the order of ``ranges``, read by ``workers`` processes
    of which the caller is one; raises :class:`ExtractionError` as the serial reader
    would at the first failing page.

    The caller reads with ``read_here`` (over its own open document) whichever range
    comes next while the range it must hand on is still being read by a worker, so
    ``workers - 1`` processes are started: one copy of MuPDF, its document and the
    interpreter fewer (issue 15), and the caller, which would only wait, does a
    worker's share.
    """
    pending: dict[int, Future[tuple[Any, ...]] | tuple[Any, ...]] = {}
    cursor = 0  # the first range nobody has taken yet
    helpers = max(1, min(workers - 1, len(ranges) - 1))
    # ranges queued behind the one each helper reads, so that a helper is not idle
    # while the caller reads a range of its own
    in_flight = 3 * helpers
    pool = ProcessPoolExecutor(
        max_workers=helpers,
        mp_context=CONTEXT,
        initializer=_start,
        initargs=(os.getpid(), data, password, profile_id, mode, language),
    )
    try:
        for index in range(len(ranges)):
            # hand ranges to the helpers, then read here while the next one is not back
            while True:
                queued = sum(
                    1 for held in pending.values() if isinstance(held, Future) and not held.done()
                )
                while cursor < len(ranges) and queued < in_flight and cursor != index:
                    pending[cursor] = pool.submit(_read, ranges[cursor])
                    cursor, queued = cursor + 1, queued + 1
                held = pending.get(index)
                if held is not None and (not isinstance(held, Future) or held.done()):
                    break
                if cursor < len(ranges):
                    pending[cursor] = _read_here(read_here, ranges[cursor])
                    cursor += 1
                    continue
                # nothing left to take: read here a queued range no helper has begun
                # (the last first), rather than wait while the helpers finish the queue
                stolen = next(
                    (
                        later
                        for later, queued_here in sorted(pending.items(), reverse=True)
                        if isinstance(queued_here, Future) and queued_here.cancel()
                    ),
                    None,
                )
                if stolen is None:
                    break
                pending[stolen] = _read_here(read_here, ranges[stolen])
            held = pending.pop(index)
            outcome = held.result() if isinstance(held, Future) else held
            if outcome[0] == "error":
                raise ExtractionError(ErrorCode(outcome[1]), outcome[2])
            yield outcome[1], outcome[2]
    except BrokenProcessPool:
        raise ExtractionError(ErrorCode.CORRUPT_PDF, "a page reader process stopped") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _read_here(read_here: Callable[[range], tuple[_Page, ...]], pages: range) -> tuple[Any, ...]:
    """A range read by the caller, as a worker's outcome (an error kept until its turn)."""
    try:
        return ("pages", read_here(pages), False)
    except ExtractionError as error:
        return ("error", error.code.value, error.message)


def _start(
    owner: int,
    data: bytes,
    password: str | None,
    profile_id: str,
    mode: OcrMode,
    language: str | None,
) -> None:
    from ragox.extract._isolated import watch_owner  # noqa: PLC0415
    from ragox.extract._ocr import ocr_engine  # noqa: PLC0415 - preloaded by the forkserver

    watch_owner(owner)  # a killed ingest leaves no page worker behind
    from ragox.extract.pdf import _open  # noqa: PLC0415
    from ragox.text import Profile  # noqa: PLC0415

    _WORKER.clear()
    _WORKER["profile"] = Profile.from_id(profile_id)
    _WORKER["mode"] = mode
    _WORKER["engine"] = ocr_engine(language) if mode is not OcrMode.OFF else None
    try:
        _WORKER["document"] = _open(data, password)
    except ExtractionError as error:
        _WORKER["error"] = (error.code.value, error.message)


def _read(pages: range) -> tuple[Any, ...]:
    """``("pages", pages, repaired)`` or ``("error", code, message)``."""
    from ragox.extract.pdf import _read_page  # noqa: PLC0415 - preloaded by the forkserver

    if "error" in _WORKER:
        return ("error", *_WORKER["error"])
    document = _WORKER["document"]
    try:
        read = tuple(
            _read_page(document, index, _WORKER["profile"], _WORKER["mode"], _WORKER["engine"])
            for index in pages
        )
    except ExtractionError as error:
        return ("error", error.code.value, error.message)
    return ("pages", read, bool(document.is_repaired))
