"""Right-to-left PDFs made with PyMuPDF for the tests, in DejaVu Sans (Debian's
``fonts-dejavu-core``, which the test command installs): one laid out by MuPDF's
HTML engine (HarfBuzz shaping, Unicode bidi: text in logical order), and one drawn
glyph by glyph from left to right, as some producers write right-to-left text, whose
words come out of the text layer in drawing order."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pymupdf

FONT_FOLDER: Final = Path("/usr/share/fonts/truetype/dejavu")
FONT: Final = FONT_FOLDER / "DejaVuSans.ttf"

#: Sentences of tests/data/rtl, each a paragraph of the laid-out PDF.
PARAGRAPHS: Final = (
    "יש לבדוק את המשאבה כל 500 שעות עבודה או פעם בשנה.",
    "השתמשו רק בשמן SAE 10W-40 והחליפו את המסנן F-204 בכל החלפת שמן.",
    "يجب فحص المضخة كل 500 ساعة تشغيل.",
)
#: One line drawn glyph by glyph, left to right (the visual order of its glyphs).
VISUAL_LINE: Final = "בדיקת המשאבה כל חצי שנה"


#: A left-to-right paragraph with right-to-left words inside it.
EMBEDDED: Final = "The pump (משאבה גדולה) and the filter (מסנן קטן) are checked every year."


def laid_out_pdf(html: str | None = None) -> bytes:
    """``html`` (default: PARAGRAPHS as right-to-left paragraphs) laid out on one page."""
    document = pymupdf.open()
    page = document.new_page()
    css = (
        "* {font-family: dv; font-size: 14px;}"
        " @font-face {font-family: dv; src: url(DejaVuSans.ttf);}"
    )
    if html is None:
        html = "".join(f'<p dir="rtl">{p}</p>' for p in PARAGRAPHS)
    page.insert_htmlbox(
        pymupdf.Rect(50, 50, 545, 500), html, css=css, archive=pymupdf.Archive(str(FONT_FOLDER))
    )
    data: bytes = document.tobytes()
    return data


def embedded_pdf() -> bytes:
    """EMBEDDED laid out as a left-to-right paragraph: MuPDF 1.28 reads some of its
    right-to-left words back in drawing order."""
    return laid_out_pdf(f"<p>{EMBEDDED}</p>")


def visual_order_pdf() -> bytes:
    """VISUAL_LINE, every glyph a text object of its own, leftmost glyph first."""
    document = pymupdf.open()
    page = document.new_page()
    font = pymupdf.Font(fontfile=str(FONT))
    x = 100.0
    for char in VISUAL_LINE[::-1]:
        page.insert_text((x, 100), char, fontname="dv", fontfile=str(FONT), fontsize=20)
        x += font.text_length(char, 20)
    data: bytes = document.tobytes()
    return data
