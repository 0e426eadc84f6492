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
from ragox.extract.pdf import _misencoded, _misread_words, extract_pdf
from ragox.text import BASE_PROFILE

MANUAL = DATA / "pdf" / "lshortru.pdf"


def test_misencoded_blocks_have_no_text_when_ocr_is_off() -> None:
    """Pages 1 and 3 are misencoded: their blocks of misread words have no text, their
    blocks in Latin letters keep theirs (the author's name, a red team's half-garbage
    page), and the warning says why; page 2 (the licence, in English) is read whole."""
    extraction = extract_pdf(MANUAL.read_bytes(), BASE_PROFILE, ExtractOptions(ocr=OcrMode.OFF))
    assert "MISENCODED_TEXT_LAYER" in extraction.warnings
    assert "GNU General Public License" in " ".join(extraction.text.split())
    first = [extraction.text[b.span.start : b.span.end] for b in extraction.blocks if b.page == 1]
    assert "Tobias Oetiker" in first
    assert "î÷åíü" not in extraction.text and "ââåäåíèå" not in extraction.text
    assert not any(_misread_words(text) for text in first)


def test_misencoded_pages_have_no_misread_text_without_an_ocr_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_module, "ocr_engine", lambda language=None: None)
    extraction = extract_pdf(MANUAL.read_bytes(), BASE_PROFILE)
    assert {"MISENCODED_TEXT_LAYER", "OCR_UNAVAILABLE"} <= set(extraction.warnings)
    assert "î÷åíü" not in extraction.text


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
        # a page on accents, a table of Latin-1's letters (a red-team pass)
        "Les lettres accentuées àâä, éèêë, îï, ôö, ùûü et ÿ s'écrivent avec la touche morte. " * 3,
        " ".join(chr(code) for code in range(0xC0, 0x100)),
        "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏ ÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞß àáâãäåæçèéêëìíîï ðñòóôõö÷øùúûüýþÿ",
        "Il libro è bello e la casa è grande. Perché è così? Più città. " * 5,
        # the accents one by one, and each letter's forms together
        "Accents : à â ä, é è ê ë, î ï, ô ö, ù û ü. Formes : àâä éèêë ùûü ÀÂÄ ÉÈÊË.",
    ],
)
def test_accented_latin_and_real_cyrillic_are_not_misencoded(text: str) -> None:
    assert not _misencoded(text)


def test_cyrillic_read_as_latin1_is_misencoded() -> None:
    """Windows-1251's bytes read as Latin-1, with LaTeX commands beside them."""
    russian = "Не очень краткое введение в LaTeX, или LaTeX за 137 минут. \\documentclass "
    assert _misencoded(russian.encode("cp1251").decode("latin-1") * 3)


def test_a_misread_table_of_contents_is_misencoded() -> None:
    """A table of contents has none of Russian's short words ("и", "в"), but many
    misread words and little else."""
    contents = (
        "Оглавление\n1 Основы 1\n2 Набор текста 11\n3 Математические формулы 47\n"
        "4 Специальные возможности 71\n5 Графика 97\n6 Настройка LaTeX 107\n"
    )
    assert _misencoded(contents.encode("cp1251").decode("latin-1"))
