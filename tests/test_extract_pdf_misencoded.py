"""A PDF whose text layer is another script's letters read as Latin-1 (parser
`pdf-pymupdf@4`; a new user's pass over Debian's TeX manuals, nu14).

The Russian "not so short introduction to LaTeX" draws Cyrillic with fonts that have
no Unicode map: MuPDF reads "Не очень краткое введение" as "Íå î÷åíü êðàòêîå
ââåäåíèå". ragox stored the whole manual READY, as English, with 804 chunks of that
text, which ranked first for "raspberry pi" (through "$\\pi$"). A misencoded page is
now recognized by OCR, or has no text when OCR is off or not there, with the warning
``MISENCODED_TEXT_LAYER``; a page of the same file that is English keeps its text."""

from __future__ import annotations

import pytest

import ragox.extract._ocr as ocr_module
import ragox.extract.pdf as pdf_module
from conftest import DATA
from ragox.extract import ExtractOptions, OcrMode
from ragox.extract.pdf import _misencoded, extract_pdf
from ragox.text import BASE_PROFILE

MANUAL = DATA / "pdf" / "lshortru.pdf"


def test_misencoded_pages_have_no_text_when_ocr_is_off() -> None:
    """Pages 1 and 3 are misencoded: no text, listed as pages without text, and the
    warning says why; page 2 (the licence, in English) is read as before."""
    extraction = extract_pdf(MANUAL.read_bytes(), BASE_PROFILE, ExtractOptions(ocr=OcrMode.OFF))
    assert "MISENCODED_TEXT_LAYER" in extraction.warnings
    assert extraction.pages_without_text == (1, 3)
    assert {block.page for block in extraction.blocks} == {2}
    assert "GNU General Public License" in " ".join(extraction.text.split())
    assert "î÷åíü" not in extraction.text


def test_misencoded_pages_have_no_text_without_an_ocr_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_module, "ocr_engine", lambda language=None: None)
    extraction = extract_pdf(MANUAL.read_bytes(), BASE_PROFILE)
    assert extraction.pages_without_text == (1, 3)
    assert {"MISENCODED_TEXT_LAYER", "OCR_UNAVAILABLE"} <= set(extraction.warnings)


@pytest.mark.skipif(
    ocr_module.tessdata_folder() is None, reason="needs tesseract-ocr-{eng,deu,rus}"
)
def test_misencoded_pages_are_recognized_by_ocr() -> None:
    """With OCR, the misencoded pages read in Cyrillic; the English page keeps its text
    layer."""
    extraction = extract_pdf(MANUAL.read_bytes(), BASE_PROFILE)
    assert {"MISENCODED_TEXT_LAYER", "OCR_PAGES"} <= set(extraction.warnings)
    assert extraction.pages_without_text == ()
    by_page = {page: [b for b in extraction.blocks if b.page == page] for page in (1, 2, 3)}
    assert all(b.ocr for b in by_page[1] + by_page[3])
    assert not any(b.ocr for b in by_page[2])
    first = " ".join(extraction.text[b.span.start : b.span.end] for b in by_page[1])
    assert "краткое" in first and "введение" in first, first
    assert "î÷åíü" not in extraction.text


@pytest.mark.parametrize(
    "text",
    [
        "Schöne Grüße aus Köln: Äpfel, Öl und Übermut. " * 20 + "Die Umlaute ÄÖÜ und äöü.",
        "Ça été très élevé à Noël, où ça coûte cher. " * 20,
        "Þetta er íslenska, og hún er ágæt. Ég á ýmsar bækur. " * 20,
        "Не очень краткое введение в LaTeX. " * 20,
    ],
)
def test_accented_latin_and_real_cyrillic_are_not_misencoded(text: str) -> None:
    assert not _misencoded(text)


def test_cyrillic_read_as_latin1_is_misencoded() -> None:
    """Windows-1251's bytes read as Latin-1, with LaTeX commands beside them."""
    russian = "Не очень краткое введение в LaTeX, или LaTeX за 137 минут. \\documentclass "
    assert _misencoded(russian.encode("cp1251").decode("latin-1") * 3)
