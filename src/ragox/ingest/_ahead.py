"""Text files of a folder extracted one step ahead, in a worker process (issue 15).

While the pipeline stores and indexes one file of a folder, a worker process reads
and extracts the next ones (plain text, Markdown, reStructuredText): the same
extractor, profile and options as in the calling process, so the extraction is the
same value. Nothing is stored ahead: the pipeline still records each revision
(RECEIVED, then EXTRACTING) before it takes the extraction, and takes it only when
the worker read the very bytes it received (same SHA-256) as the same media type.
Anything else (a file changed between the two reads, a worker that died, an error
the worker could not hand back) makes the pipeline extract the bytes itself, as
it does without a worker.

Blocks travel as plain tuples and are made into :class:`Block` values again here:
unpickling frozen dataclasses one by one costs the caller about a third of what
extracting them did.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import stat
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Final

from ragox.anchor import sha256_hex
from ragox.extract import (
    Block,
    BlockKind,
    ErrorCode,
    Extraction,
    ExtractionError,
    ExtractOptions,
    ParserInfo,
    TableCell,
    detect_media_type,
    extractor_for,
)
from ragox.ingest._bodies import Prepared, analyzed_bodies
from ragox.ingest._chunker import plan_chunks, planned_chunks
from ragox.ingest._language import document_language
from ragox.ingest._searchtext import SearchText
from ragox.text import Alignment, Coordinates, Profile, Span

__all__ = ["AHEAD_VARIABLE", "ExtractAhead", "Prepared", "ahead_wanted"]

#: ``RAGOX_EXTRACT_AHEAD=0`` extracts every file in the calling process.
AHEAD_VARIABLE: Final = "RAGOX_EXTRACT_AHEAD"
#: The media types extracted ahead: their extractors read only ``max_depth`` of the
#: options (never a password, an OCR mode or a language).
TEXT_TYPES: Final = frozenset({"text/plain", "text/markdown", "text/x-rst"})
#: Files extracted ahead of the one being stored: the worker never waits for the
#: caller, and at most this many extractions are held.
DEPTH: Final = 4
#: The caller extracts a file itself when the worker has not started it yet.
SHARE: Final = True
#: Larger files are extracted by the caller: a file's text, search text and blocks
#: are held whole while they wait (the caller streams a large file's rows, issue 10).
MAX_AHEAD_BYTES: Final = 4 * 1024 * 1024
#: The lexical bodies of a larger search text (code points) are analyzed by the caller
#: as it writes them: held whole, they would be several times the text's size.
MAX_AHEAD_BODIES: Final = 1024 * 1024

#: What a worker hands back: the SHA-256 and media type of the bytes it read, and the
#: packed extraction, an ``(error code, message)`` refusal, or None (extract it
#: yourself).
_Packed = tuple[str, str, "tuple[object, ...] | tuple[str, str] | None"]


def ahead_wanted() -> bool:
    """More than one CPU, not turned off with ``RAGOX_EXTRACT_AHEAD=0``, and allowed
    to start processes (not a daemonic process)."""
    if os.environ.get(AHEAD_VARIABLE, "").strip() == "0":
        return False
    if multiprocessing.current_process().daemon:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    return cpus > 1


def _pack(extraction: Extraction) -> tuple[object, ...] | None:
    """The extraction as plain values (None: one with PDF fields, never packed)."""
    if extraction.char_boxes is not None or extraction.page_count is not None:
        return None
    blocks = []
    for b in extraction.blocks:
        if b.page is not None or b.bbox is not None or b.ocr or b.source is None:
            return None
        cell = b.cell
        blocks.append(
            (
                b.index,
                b.kind.value,
                b.span.start,
                b.span.end,
                b.locator,
                b.source.start,
                b.source.end,
                None
                if cell is None
                else (
                    cell.table,
                    cell.row,
                    cell.col,
                    cell.row_span,
                    cell.col_span,
                    cell.header,
                    cell.header_ids,
                ),
            )
        )
    alignment = extraction.source_alignment
    search, pieces = plan_chunks(extraction.text, extraction.blocks)
    language = document_language(search.text)
    bodies = None
    if len(search.text) <= MAX_AHEAD_BODIES:
        # the chunk ids (of a manifest the caller makes) are no part of the bodies
        chunks = planned_chunks("", extraction.blocks, search, pieces)
        rows = analyzed_bodies(extraction.text, extraction.blocks, search.text, chunks, language)
        bodies = [body for _, body in rows]
    plan = (
        search.text,
        search.alignment.to_bytes(),
        search.dropped_blocks,
        pieces,
        language,
        bodies,
    )
    return (
        extraction.text,
        blocks,
        (extraction.parser.name, extraction.parser.version, dict(extraction.parser.config)),
        extraction.media_type,
        None if alignment is None else alignment.to_bytes(),
        extraction.pages_without_text,
        extraction.warnings,
        plan,
    )


def _unpack(packed: tuple[object, ...]) -> tuple[Extraction, Prepared]:
    text, rows, parser, media_type, alignment, pages_without_text, warnings, plan = packed
    assert isinstance(text, str) and isinstance(rows, list) and isinstance(parser, tuple)
    kinds = {kind.value: kind for kind in BlockKind}
    blocks = tuple(
        Block(
            index=index,
            kind=kinds[kind],
            span=Span(Coordinates.CODEPOINT, start, end),
            locator=locator,
            source=Span(Coordinates.SOURCE_CODEPOINT, source_start, source_end),
            cell=None if cell is None else TableCell(*cell),
        )
        for index, kind, start, end, locator, source_start, source_end, cell in rows
    )
    extraction = Extraction(
        text=text,
        blocks=blocks,
        parser=ParserInfo(*parser),
        media_type=str(media_type),
        source_alignment=None if alignment is None else Alignment.from_bytes(alignment),  # type: ignore[arg-type]
        pages_without_text=pages_without_text,  # type: ignore[arg-type]
        warnings=warnings,  # type: ignore[arg-type]
    )
    assert isinstance(plan, tuple)
    search_text, search_alignment, dropped, pieces, language, bodies = plan
    search = SearchText(search_text, Alignment.from_bytes(search_alignment), dropped)
    bodies_found = None if bodies is None else tuple(bodies)
    return extraction, Prepared(search, pieces, language, bodies_found)


def _read_regular(path: str) -> bytes:
    """The bytes of a regular file; anything else (a FIFO put where the file was after
    it was listed) is an ``OSError`` at once, never a read that waits."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"not a regular file: {path}")
        with os.fdopen(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(descriptor)


def _extract_file(path: str, profile_id: str) -> _Packed:
    """In the worker: read, hash and extract one file as the pipeline would."""
    try:
        data = _read_regular(path)
    except OSError:
        return "", "", None
    media_type = detect_media_type(Path(path).name, data)
    if media_type not in TEXT_TYPES:
        return sha256_hex(data), media_type or "", None
    try:
        extraction = extractor_for(media_type)(data, Profile.from_id(profile_id), ExtractOptions())
    except ExtractionError as error:
        return sha256_hex(data), media_type, (error.code.value, error.message)
    except Exception:
        # anything else the caller meets again, extracting the bytes itself
        return sha256_hex(data), media_type, None
    return sha256_hex(data), media_type, _pack(extraction)


class ExtractAhead:
    """Extraction of the text files of ``paths`` (ingested in this order) one step
    ahead, by one worker process; :meth:`begin` says which file the pipeline reads
    now, :meth:`take` hands its extraction over."""

    def __init__(self, paths: Sequence[Path], profile: Profile) -> None:
        self._paths = [p for p in paths if _worth_it(p)]
        self._order = {p: i for i, p in enumerate(self._paths)}
        self._profile = profile
        self._pending: dict[int, Future[_Packed]] = {}
        self._current: Future[_Packed] | None = None
        self._taken: tuple[Extraction, Prepared] | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False

    def begin(self, path: Path) -> None:
        """The pipeline reads ``path`` now: its extraction (if any) becomes the one
        :meth:`take` hands over, and the files after it are started."""
        self._current = None
        position = self._order.get(path)
        if position is None:
            return
        for old in [i for i in self._pending if i < position]:
            self._pending.pop(old).cancel()
        if self._broken:  # what the worker finished before it died is still taken
            self._current = self._pending.pop(position, None)
            return
        try:
            for ahead in range(position, min(position + DEPTH + 1, len(self._paths))):
                if ahead not in self._pending:
                    self._pending[ahead] = self._executor().submit(
                        _extract_file, str(self._paths[ahead]), self._profile.id
                    )
        except Exception:  # a pool that cannot start, or died: the caller extracts
            self._broken = True
        self._current = self._pending.pop(position, None)

    def take(
        self, source_sha256: str, media_type: str, profile: Profile, options: ExtractOptions
    ) -> Extraction | None:
        """The current file's extraction when the worker extracted exactly these bytes
        as ``media_type`` with ``profile`` and options of the same output (raises its
        :class:`ExtractionError`); None: extract them yourself."""
        future, self._current = self._current, None
        self._taken = None
        if (
            future is None
            or profile.id != self._profile.id
            or options.max_depth != ExtractOptions().max_depth
        ):
            return None
        if SHARE and future.cancel():
            # The worker has not started this file yet (it is behind): extracting it
            # here keeps both processes busy instead of this one waiting.
            return None
        try:
            sha256, found_type, packed = future.result()
        except Exception:  # a worker that died: this file and the next are the caller's
            self._broken = True
            return None
        if sha256 != source_sha256 or found_type != media_type or packed is None:
            return None
        if len(packed) == 2:
            code, message = packed
            raise ExtractionError(ErrorCode(code), str(message))
        self._taken = _unpack(packed)
        return self._taken[0]

    def prepared(self, extraction: Extraction) -> Prepared | None:
        """The worker's indexing plan of an extraction :meth:`take` handed over."""
        taken, self._taken = self._taken, None
        return taken[1] if taken is not None and taken[0] is extraction else None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # The forkserver the PDF page workers use: a worker never inherits the
            # caller's threads or database connections.
            from ragox.extract._isolated import CONTEXT, watch_owner  # noqa: PLC0415

            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=CONTEXT,
                initializer=watch_owner,
                initargs=(os.getpid(),),
            )
        return self._pool

    def close(self) -> None:
        self._current = self._taken = None
        for future in self._pending.values():
            future.cancel()
        self._pending.clear()
        if self._pool is not None:
            with contextlib.suppress(Exception):
                self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def _worth_it(path: Path) -> bool:
    """A regular file whose name says a text format (or says nothing), small enough (a
    FIFO named ``b.txt`` blocked the worker's read, and the command waited for ever)."""
    media_type = detect_media_type(path.name, b"")
    if media_type not in TEXT_TYPES:
        return False
    try:
        found = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size <= MAX_AHEAD_BYTES
