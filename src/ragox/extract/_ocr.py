"""OCR of PDF pages: Debian's ``tesseract`` command with its own page layout.

MuPDF renders the page (as displayed) to a grayscale PNG at :data:`OCR_DPI`; the
``tesseract`` command reads it from its standard input and writes TSV: every word
with its box, in Tesseract's own reading order of blocks, paragraphs and lines
(columns one after the other). :func:`ocr_blocks` turns that into MuPDF-like
``rawdict`` blocks, one per Tesseract paragraph, whose characters carry boxes
estimated inside each recognized word (the word's width shared evenly), in the
page's unrotated coordinates like MuPDF's own text. MuPDF's built-in Tesseract was
used before (issue 12): its text page regrouped the words into lines across the
columns of a two-column page, so a column's sentences came out interleaved with the
other's.

The engine needs the ``*.traineddata`` files of :data:`LANGUAGES` (Debian:
``tesseract-ocr-eng``, ``-deu``, ``-rus``), looked up by :func:`tessdata_folder`.
A document whose language is given and has data is read with that language alone
(:func:`ocr_languages`); else with all of :data:`LANGUAGES`.

The OCR identity (:meth:`OcrEngine.identity`) names the engine and its version, the
layout, the languages, the resolution and a hash of the language files: a new
Tesseract, other language data or another setting is another parser id, so that an
anchor made on the old recognition is refused ``PARSER_MISMATCH`` instead of
silently pointing at other text.
"""

from __future__ import annotations

import csv
import functools
import glob
import hashlib
import io
import math
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

from ragox._lazy import lazy_module
from ragox.extract._model import ErrorCode, ExtractionError

__all__ = [
    "LANGUAGES",
    "OCR_DPI",
    "OCR_PIXEL_BUDGET",
    "OcrEngine",
    "ocr_engine",
    "ocr_languages",
    "page_dpi",
    "tessdata_folder",
]

#: PyMuPDF, imported at first use (reading a parser id loads no MuPDF)
_MUPDF: Any = lazy_module("pymupdf")

#: Tesseract's language models, in the order given to the engine.
LANGUAGES: Final = ("eng", "deu", "rus")
#: the model added to a given language's (see :func:`ocr_languages`)
_LATIN: Final = "eng"
#: A document's language (ISO 639-1, as ``--language`` takes it) → Tesseract's model.
TESSERACT_CODES: Final = {
    "en": "eng",
    "de": "deu",
    "ru": "rus",
    "fr": "fra",
    "es": "spa",
    "it": "ita",
    "nl": "nld",
    "pt": "por",
    "pl": "pol",
    "uk": "ukr",
    "ar": "ara",
    "he": "heb",
}
#: Resolution of the page image the engine reads (Tesseract's recommended 300 dpi).
OCR_DPI: Final = 300
#: Most pixels one page image for the engine may hold (A3 at 300 dpi fits): a larger
#: page is read at a lower resolution, so that a hostile 200-inch page costs what a
#: poster does instead of gigabytes.
OCR_PIXEL_BUDGET: Final = 20_000_000
#: The engine: the ``tesseract`` command (its version is asked once per binary).
ENGINE: Final = "tesseract-cli"
#: How words become blocks: Tesseract's paragraphs, lines and words in its order
#: (a change to :func:`ocr_blocks` is a new value, so a new parser id).
LAYOUT: Final = "tsv-paragraphs-1"
#: Most seconds the engine may take over one page before the page fails OCR_FAILED.
PAGE_TIMEOUT_S: Final = 600

#: Where distributions put ``tessdata`` (Debian/Ubuntu, Fedora, Homebrew, source builds).
_CANDIDATES: Final = (
    "/usr/share/tesseract-ocr/*/tessdata",
    "/usr/share/tesseract-ocr/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)
#: a recognized word and its box in displayed page points
_Word = tuple[str, float, float, float, float]
#: TSV row level of a word (1 page, 2 block, 3 paragraph, 4 line, 5 word)
_WORD_LEVEL: Final = "5"


def _has_languages(folder: Path) -> bool:
    return all((folder / f"{lang}.traineddata").is_file() for lang in LANGUAGES)


def tessdata_folder() -> Path | None:
    """The first folder holding every language of :data:`LANGUAGES`:
    ``TESSDATA_PREFIX`` (the folder itself or its parent, as Tesseract reads it),
    then the distributions' places, newest Tesseract first; None when none has them."""
    found: list[Path] = []
    prefix = os.environ.get("TESSDATA_PREFIX")
    if prefix:
        found += [Path(prefix), Path(prefix) / "tessdata"]
    for pattern in _CANDIDATES:
        found += [Path(p) for p in sorted(glob.glob(pattern), reverse=True)]
    for folder in found:
        if _has_languages(folder):
            return folder
    return None


class OcrEngine:
    """The ``tesseract`` command with one language-data folder and one language set."""

    def __init__(self, binary: str, version: str, folder: Path, languages: tuple[str, ...]) -> None:
        self.binary = binary
        #: the command's own version (``tesseract --version``'s first line)
        self.version = version
        self.folder = folder
        self.language_codes = languages
        digest = hashlib.sha256()
        for lang in languages:
            data = (folder / f"{lang}.traineddata").read_bytes()
            digest.update(f"{lang}:{hashlib.sha256(data).hexdigest()}\n".encode())
        #: identifies the language models (a Debian update of one changes it)
        self.data_sha256 = digest.hexdigest()

    @property
    def languages(self) -> str:
        return "+".join(self.language_codes)

    def identity(self) -> dict[str, str | int]:
        """What goes into the parser's configuration (and, shortened, its version)."""
        return {
            "ocr_engine": ENGINE,
            "ocr_engine_build": self.version,
            "ocr_layout": LAYOUT,
            "ocr_languages": self.languages,
            "ocr_dpi": OCR_DPI,
            "ocr_pixel_budget": OCR_PIXEL_BUDGET,
            "ocr_traineddata_sha256": self.data_sha256,
            "ocr_char_boxes": "estimated-within-word",
        }

    def version_suffix(self) -> str:
        """``+ocr-<engine>-<version>-<layout>-<languages>-<dpi>-<data hash>``."""
        return (
            f"+ocr-{ENGINE}-{self.version}-{LAYOUT}-{self.languages}-{OCR_DPI}dpi-"
            f"{self.data_sha256[:12]}"
        )

    def recognize(self, page: Any) -> list[dict[str, Any]]:
        """The page's text as Tesseract reads it: MuPDF-like ``rawdict`` blocks (see
        :func:`ocr_blocks`) in Tesseract's reading order.

        Raises :class:`ExtractionError` ``OCR_FAILED`` when rendering or the engine fails."""
        try:
            dpi = page_dpi(float(page.rect.width), float(page.rect.height))
            pixmap = page.get_pixmap(dpi=dpi, colorspace=_MUPDF.csGRAY)
            image = pixmap.tobytes("png")
            scale_x = float(page.rect.width) / pixmap.width
            scale_y = float(page.rect.height) / pixmap.height
            derotate = tuple(page.derotation_matrix)
        except Exception as error:  # MuPDF's own errors have no common base class
            raise ExtractionError(ErrorCode.OCR_FAILED, type(error).__name__) from None
        tsv = self._run(image, dpi)
        return ocr_blocks(tsv, scale_x, scale_y, derotate)

    def _run(self, image: bytes, dpi: int) -> str:
        command = [self.binary, "stdin", "stdout", "-l", self.languages, "--dpi", str(dpi), "tsv"]
        # One thread, as a worker is one process among others; the data folder given.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1", "TESSDATA_PREFIX": str(self.folder)}
        try:
            done = subprocess.run(  # noqa: S603 - a fixed command, no shell
                command,
                input=image,
                capture_output=True,
                env=env,
                timeout=PAGE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise ExtractionError(ErrorCode.OCR_FAILED, type(error).__name__) from None
        if done.returncode != 0:
            raise ExtractionError(ErrorCode.OCR_FAILED, f"tesseract exit {done.returncode}")
        return done.stdout.decode("utf-8", errors="replace")


def ocr_blocks(
    tsv: str, scale_x: float, scale_y: float, derotate: tuple[float, ...]
) -> list[dict[str, Any]]:
    """Tesseract's TSV as MuPDF-like ``rawdict`` blocks: one per paragraph, in the
    engine's order, each line's words joined by one space; a word's box (pixels,
    times ``scale``, then ``derotate``: displayed → unrotated page) is shared evenly
    among its characters; a space spans the gap between its words."""
    a, b, c, d, e, f = derotate

    def unrotate(x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        px0, py0 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
        px1, py1 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
        return min(px0, px1), min(py0, py1), max(px0, px1), max(py0, py1)

    direction = (a, b)  # the displayed x axis in unrotated coordinates
    paragraphs: dict[tuple[str, str, str], dict[tuple[str, ...], list[_Word]]] = {}
    reader = csv.reader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    for row in reader:
        if len(row) < 12 or row[0] != _WORD_LEVEL:
            continue
        word = row[11].strip()
        if not word:
            continue
        try:
            left, top, width, height = (int(v) for v in row[6:10])
        except ValueError:
            continue
        paragraph = (row[1], row[2], row[3])
        line = (*paragraph, row[4])
        box = (left * scale_x, top * scale_y, (left + width) * scale_x, (top + height) * scale_y)
        paragraphs.setdefault(paragraph, {}).setdefault(line, []).append((word, *box))
    blocks: list[dict[str, Any]] = []
    for number, lines in enumerate(paragraphs.values()):
        raw_lines = []
        bx0 = by0 = math.inf
        bx1 = by1 = -math.inf
        for words in lines.values():
            chars: list[dict[str, Any]] = []
            ly0 = min(w[2] for w in words)
            ly1 = max(w[4] for w in words)
            previous_x1: float | None = None
            for word, x0, y0, x1, y1 in words:
                if previous_x1 is not None:
                    gap = unrotate(previous_x1, ly0, max(previous_x1, x0), ly1)
                    chars.append({"c": " ", "bbox": gap})
                step = (x1 - x0) / len(word)
                for k, char in enumerate(word):
                    chars.append(
                        {"c": char, "bbox": unrotate(x0 + k * step, y0, x0 + (k + 1) * step, y1)}
                    )
                previous_x1 = x1
                bx0, by0 = min(bx0, x0), min(by0, y0)
                bx1, by1 = max(bx1, x1), max(by1, y1)
            raw_lines.append({"dir": direction, "spans": [{"chars": chars}]})
        blocks.append(
            {"type": 0, "number": number, "bbox": unrotate(bx0, by0, bx1, by1), "lines": raw_lines}
        )
    return blocks


def page_dpi(width: float, height: float) -> int:
    """:data:`OCR_DPI`, or less for a page (in points) whose image would pass
    :data:`OCR_PIXEL_BUDGET`."""
    area = max(width * height, 1.0)
    return max(1, min(OCR_DPI, int(72 * math.sqrt(OCR_PIXEL_BUDGET / area))))


def ocr_languages(language: str | None, folder: Path) -> tuple[str, ...]:
    """The models for a document in ``language`` (ISO 639-1, or a Tesseract code):
    that language's first, then English (names, commands and units in Latin letters
    are common in any company's documents: Russian alone read a Russian page with
    Latin words worse, .967 against .993) when its data is in ``folder``; else
    :data:`LANGUAGES`."""
    if language:
        code = language.strip().lower().replace("_", "-").split("-")[0]
        model = TESSERACT_CODES.get(code, code)
        if model.isalnum() and model.isascii() and (folder / f"{model}.traineddata").is_file():
            return (model,) if model == _LATIN else (model, _LATIN)
    return LANGUAGES


@functools.cache
def _binary_version(binary: str) -> str | None:
    """``tesseract --version``'s version (``5.3.0``), or None when it does not run."""
    try:
        done = subprocess.run(  # noqa: S603 - a fixed command, no shell
            [binary, "--version"], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    words = (done.stdout + done.stderr).decode("utf-8", errors="replace").split()
    if done.returncode != 0 or len(words) < 2 or words[0] != "tesseract":
        return None
    return words[1]


@functools.cache
def _engine_at(binary: str, version: str, folder: str, languages: tuple[str, ...]) -> OcrEngine:
    return OcrEngine(binary, version, Path(folder), languages)


def ocr_engine(language: str | None = None) -> OcrEngine | None:
    """The engine over today's language data for a document in ``language`` (see
    :func:`ocr_languages`; language files read once per folder), or None when the
    ``tesseract`` command or a folder with every language is missing."""
    folder = tessdata_folder()
    binary = shutil.which("tesseract")
    if folder is None or binary is None:
        return None
    version = _binary_version(binary)
    if version is None:
        return None
    return _engine_at(binary, version, str(folder), ocr_languages(language, folder))
