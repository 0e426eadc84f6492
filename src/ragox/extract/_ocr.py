"""OCR of PDF pages: Tesseract as built into MuPDF, with Debian's language data.

PyMuPDF's ``page.get_textpage_ocr`` renders the page, lets MuPDF's built-in
Tesseract recognize it and returns a text page whose characters carry boxes
that Tesseract estimates inside each recognized word. The engine needs the
``*.traineddata`` files of :data:`LANGUAGES` (Debian: ``tesseract-ocr-eng``,
``-deu``, ``-rus``), looked up by :func:`tessdata_folder`.

The OCR identity (:func:`ocr_parser`) names the engine, the MuPDF build that
carries it, the languages, the resolution and a hash of the language files: a new
MuPDF, other language data or another setting is another parser id, so that an
anchor made on the old recognition is refused ``PARSER_MISMATCH`` instead of
silently pointing at other text.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import math
import os
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
    "page_dpi",
    "tessdata_folder",
]

#: PyMuPDF, imported at first use (reading a parser id loads no MuPDF)
_MUPDF: Any = lazy_module("pymupdf")

#: Tesseract's language models, in the order given to the engine.
LANGUAGES: Final = ("eng", "deu", "rus")
#: Resolution of the page image the engine reads (Tesseract's recommended 300 dpi).
OCR_DPI: Final = 300
#: Most pixels one page image for the engine may hold (A3 at 300 dpi fits): a larger
#: page is read at a lower resolution, so that a hostile 200-inch page costs what a
#: poster does instead of gigabytes.
OCR_PIXEL_BUDGET: Final = 20_000_000
#: The Tesseract inside MuPDF (third-party source MuPDF compiles in; see
#: ``thirdparty/tesseract`` of the MuPDF release named beside it).
ENGINE: Final = "tesseract-5.0.0-alpha-mupdf-fork"

#: Where distributions put ``tessdata`` (Debian/Ubuntu, Fedora, Homebrew, source builds).
_CANDIDATES: Final = (
    "/usr/share/tesseract-ocr/*/tessdata",
    "/usr/share/tesseract-ocr/tessdata",
    "/usr/share/tessdata",
    "/usr/local/share/tessdata",
    "/opt/homebrew/share/tessdata",
)


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
    """Tesseract with one language-data folder; recognizes pages into text pages."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        digest = hashlib.sha256()
        for lang in LANGUAGES:
            data = (folder / f"{lang}.traineddata").read_bytes()
            digest.update(f"{lang}:{hashlib.sha256(data).hexdigest()}\n".encode())
        #: identifies the language models (a Debian update of one changes it)
        self.data_sha256 = digest.hexdigest()

    @property
    def languages(self) -> str:
        return "+".join(LANGUAGES)

    def identity(self) -> dict[str, str | int]:
        """What goes into the parser's configuration (and, shortened, its version)."""
        return {
            "ocr_engine": ENGINE,
            "ocr_engine_build": f"mupdf-{_MUPDF.VersionFitz}",
            "ocr_languages": self.languages,
            "ocr_dpi": OCR_DPI,
            "ocr_pixel_budget": OCR_PIXEL_BUDGET,
            "ocr_traineddata_sha256": self.data_sha256,
            "ocr_char_boxes": "estimated-within-word",
        }

    def version_suffix(self) -> str:
        """``+ocr-<engine>-<languages>-<data hash>`` for the parser version."""
        return f"+ocr-{ENGINE}-{self.languages}-{OCR_DPI}dpi-{self.data_sha256[:12]}"

    def recognize(self, page: Any, flags: int) -> Any:
        """A MuPDF text page of the whole rendered page as Tesseract reads it.

        Raises :class:`ExtractionError` ``OCR_FAILED`` when the engine fails."""
        try:
            return page.get_textpage_ocr(
                flags=flags,
                language=self.languages,
                dpi=page_dpi(float(page.rect.width), float(page.rect.height)),
                full=True,
                tessdata=str(self.folder),
            )
        except Exception as error:  # MuPDF's own errors have no common base class
            raise ExtractionError(ErrorCode.OCR_FAILED, type(error).__name__) from None


def page_dpi(width: float, height: float) -> int:
    """:data:`OCR_DPI`, or less for a page (in points) whose image would pass
    :data:`OCR_PIXEL_BUDGET`."""
    area = max(width * height, 1.0)
    return max(1, min(OCR_DPI, int(72 * math.sqrt(OCR_PIXEL_BUDGET / area))))


@functools.cache
def _engine_at(folder: str) -> OcrEngine:
    return OcrEngine(Path(folder))


def ocr_engine() -> OcrEngine | None:
    """The engine over today's language data (read once per folder), or None when no
    folder has every language."""
    folder = tessdata_folder()
    return None if folder is None else _engine_at(str(folder))
