"""Page-parallel PDF extraction: worker processes give the serial extraction, exactly."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from ragox.extract import ErrorCode, Extraction, ExtractionError, ExtractOptions, OcrMode, _pdfpool
from ragox.extract._ocr import tessdata_folder
from ragox.extract._pdfpool import WORKERS_VARIABLE, default_workers, page_ranges
from ragox.extract.pdf import PARALLEL_MIN_PAGES, extract_pdf
from ragox.text import BASE_PROFILE, Profile, step_by_name

DATA = Path(__file__).parent / "data"
NFKC_PROFILE = Profile((step_by_name("crlf-to-lf"), step_by_name("NFKC")))


def _same(parallel: Extraction, serial: Extraction) -> None:
    """Every field, the character boxes byte for byte and the parser identity included."""
    assert parallel.text == serial.text
    assert parallel.blocks == serial.blocks
    assert parallel.char_boxes == serial.char_boxes
    assert parallel.parser == serial.parser
    assert parallel.parser.config_sha256 == serial.parser.config_sha256
    assert parallel.source_alignment == serial.source_alignment
    assert parallel.pages_without_text == serial.pages_without_text
    assert parallel.page_count == serial.page_count
    assert parallel.warnings == serial.warnings
    assert parallel == serial


@pytest.mark.parametrize(
    ("path", "workers"),
    [
        # a table continued over pages 2 and 3, each page read by another process
        ("tables/fastener-torque.pdf", 3),
        ("pdf/habibi-rotated.pdf", 2),  # rotated pages, right-to-left text
        ("pdf/cyrillic.pdf", 3),
        ("pdf/tracemonkey.pdf", 2),  # two columns, 14 pages
        ("pdf/multicolumn.pdf", 2),
    ],
)
def test_parallel_extraction_is_the_serial_one(path: str, workers: int) -> None:
    data = (DATA / path).read_bytes()
    serial = extract_pdf(data, BASE_PROFILE, workers=1)
    _same(extract_pdf(data, BASE_PROFILE, workers=workers), serial)


def test_parallel_extraction_with_a_normalizing_profile() -> None:
    """NFKC changes code points (ligatures): the carried boxes are the serial ones."""
    data = (DATA / "pdf" / "tracemonkey.pdf").read_bytes()
    serial = extract_pdf(data, NFKC_PROFILE, workers=1)
    assert "\ufb01" not in serial.text
    _same(extract_pdf(data, NFKC_PROFILE, workers=2), serial)


def test_table_continued_across_workers_keeps_its_number_and_headers() -> None:
    """Page 3 continues page 2's table: with one page per process it still does."""
    data = (DATA / "tables" / "fastener-torque.pdf").read_bytes()
    extraction = extract_pdf(data, BASE_PROFILE, workers=3)
    cells = [b for b in extraction.blocks if b.cell is not None]
    by_page = {page: [b for b in cells if b.page == page] for page in (2, 3)}
    assert by_page[2] and by_page[3]
    # one table over both pages: page 3's rows count on after page 2's
    assert {b.cell.table for b in by_page[3] if b.cell} == {
        b.cell.table for b in by_page[2] if b.cell
    }
    last_row_2 = max(b.cell.row for b in by_page[2] if b.cell)
    assert min(b.cell.row for b in by_page[3] if b.cell and not b.cell.header) > last_row_2


def test_large_pdf_is_read_in_parallel_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """geotopo-de (117 pages) is past the threshold: default and serial agree."""
    data = (DATA / "pdf" / "geotopo-de.pdf").read_bytes()
    assert pymupdf.open(stream=data).page_count >= PARALLEL_MIN_PAGES
    monkeypatch.setenv(WORKERS_VARIABLE, "2")
    _same(extract_pdf(data, BASE_PROFILE), extract_pdf(data, BASE_PROFILE, workers=1))


def test_a_script_without_a_main_guard_ingests_a_large_pdf(tmp_path: Path) -> None:
    """A script that ingests a PDF read by page workers, with no ``if __name__ ==
    "__main__":`` guard: the workers run ragox's functions without running the
    script again (each run of its body is recorded), and the PDF is READY. Before,
    every worker re-ran the script, failed while importing it, and the PDF was
    refused."""
    runs = tmp_path / "runs.txt"
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import os\n"
        "from pathlib import Path\n"
        "from ragox.service import Ragox\n"
        f"with open({str(runs)!r}, 'a') as f:\n"
        "    f.write(f'{os.getpid()}\\n')\n"
        f"app = Ragox(Path({str(tmp_path / 'home')!r}))\n"
        f"pdf = Path({str(DATA / 'pdf' / 'geotopo-de.pdf')!r})\n"
        "item = app.ingest_path(pdf, pdf.parent)\n"
        "print(item.outcome.state.value if item.outcome else item.skipped)\n",
        encoding="utf-8",
    )
    env = {**os.environ, WORKERS_VARIABLE: "2"}
    done = subprocess.run(
        [sys.executable, str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "READY"), done.stderr[-2000:]
    assert len(runs.read_text().split()) == 1
    assert "RuntimeError" not in done.stderr


def test_worker_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKERS_VARIABLE, "3")
    assert default_workers() == 3
    for ignored in ("0", "-2", "many", ""):
        monkeypatch.setenv(WORKERS_VARIABLE, ignored)
        assert default_workers() >= 1


def test_page_ranges_cover_every_page_once_in_order() -> None:
    for pages in (1, 2, 7, 48, 261, 1000):
        for workers in (1, 2, 3, 16):
            ranges = page_ranges(pages, workers)
            assert [i for r in ranges for i in r] == list(range(pages))
            assert all(len(r) >= 1 for r in ranges)


def _outcome(data: bytes, options: ExtractOptions, workers: int) -> tuple[object, ...]:
    try:
        extraction = extract_pdf(data, BASE_PROFILE, options, workers=workers)
    except ExtractionError as error:
        return (error.code, error.message)
    return ("ok", extraction.text, extraction.char_boxes, extraction.blocks, extraction.warnings)


def test_refusals_are_the_serial_ones() -> None:
    """Encrypted, unreadable, empty and damaged input: the same codes and messages (or
    the same extraction) with workers as without."""
    encrypted = (DATA / "pdf" / "password-protected.pdf").read_bytes()
    cases: list[tuple[bytes, ExtractOptions]] = [
        (encrypted, ExtractOptions()),
        (encrypted, ExtractOptions(password="wrong")),
        (b"%PDF-1.7 not really", ExtractOptions()),
        (b"", ExtractOptions()),
    ]
    data = (DATA / "pdf" / "multicolumn.pdf").read_bytes()
    rng = random.Random(2024)
    for _ in range(10):
        damaged = bytearray(data)
        for _ in range(16):
            position = rng.randrange(len(damaged))
            damaged[position : position + 8] = rng.randbytes(8)
        cases.append((bytes(damaged), ExtractOptions()))
    codes = []
    for data, options in cases:
        serial = _outcome(data, options, 1)
        assert _outcome(data, options, 3) == serial
        codes.append(serial[0])
    assert codes[:4] == [
        ErrorCode.ENCRYPTED_PDF,
        ErrorCode.ENCRYPTED_PDF,
        ErrorCode.CORRUPT_PDF,
        ErrorCode.EMPTY_FILE,
    ]
    assert "ok" in codes[4:]
    assert ErrorCode.CORRUPT_PDF in codes[4:]


def test_encrypted_pdf_with_its_password_in_parallel() -> None:
    data = (DATA / "pdf" / "password-protected.pdf").read_bytes()
    options = ExtractOptions(password="openpassword")
    serial = extract_pdf(data, BASE_PROFILE, options, workers=1)
    _same(extract_pdf(data, BASE_PROFILE, options, workers=2), serial)


@pytest.mark.skipif(tessdata_folder() is None, reason="needs tesseract-ocr-{eng,deu,rus}")
def test_ocr_pages_in_workers() -> None:
    """A scanned page and a text page: the worker's OCR gives the serial blocks and
    the OCR parser identity."""
    document = pymupdf.open()
    with pymupdf.open(DATA / "ocr" / "en-multicolumn-p1.pdf") as scan:
        document.insert_pdf(scan)
    with pymupdf.open(DATA / "pdf" / "multicolumn.pdf") as text:
        document.insert_pdf(text, from_page=0, to_page=0)
    data = document.tobytes()
    document.close()
    options = ExtractOptions(ocr=OcrMode.AUTO, language="en")
    serial = extract_pdf(data, BASE_PROFILE, options, workers=1)
    assert "OCR_PAGES" in serial.warnings
    _same(extract_pdf(data, BASE_PROFILE, options, workers=2), serial)


@pytest.mark.parametrize("workers", [2, 3])
def test_the_caller_is_one_of_the_page_readers(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """``workers`` readers are the caller and ``workers - 1`` processes (one interpreter
    and MuPDF copy fewer, issue 15), and the extraction is still the serial one."""
    started: list[int] = []  # each pool's processes

    class Counted(_pdfpool.ProcessPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            started.append(self._max_workers)  # type: ignore[attr-defined]
            super().shutdown(wait, cancel_futures=cancel_futures)

    monkeypatch.setattr(_pdfpool, "ProcessPoolExecutor", Counted)
    data = (DATA / "pdf" / "tracemonkey.pdf").read_bytes()
    _same(
        extract_pdf(data, BASE_PROFILE, workers=workers), extract_pdf(data, BASE_PROFILE, workers=1)
    )
    assert started == [workers - 1]
