"""Rebuild the image-only PDFs of this folder (run from the repository root).

Each scan is a page of a public PDF (``tests/data/pdf``) or of the project's own
seed text, rendered to a grayscale image and put alone on a new PDF page: no text
layer is left. Beside each, ``<name>.txt`` holds the original page's text layer
as MuPDF extracts it (the reference for character accuracy).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pymupdf
from PIL import Image, ImageFilter

HERE = Path(__file__).parent
PDF = HERE.parent / "pdf"
SEED = Path(sys.argv[1]) if len(sys.argv) > 1 else None
DPI = 150
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"


def image_pdf(page: pymupdf.Page, name: str, noisy: bool = False) -> None:
    pix = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    if noisy:
        # A crooked, soft, speckled copy: 1.5 degrees, a slight blur, salt and pepper.
        image = image.rotate(1.5, resample=Image.Resampling.BICUBIC, fillcolor=255)
        image = image.filter(ImageFilter.GaussianBlur(0.8))
        noise = Image.effect_noise(image.size, 40).point(lambda v: 0 if v < 10 else 255)
        image = Image.composite(noise, image, noise.point(lambda v: 255 if v == 0 else 0))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=60)
    out = pymupdf.open()
    new = out.new_page(width=page.rect.width, height=page.rect.height)
    new.insert_image(new.rect, stream=buffer.getvalue())
    out.set_metadata({})
    out.save(HERE / f"{name}.pdf", garbage=4, deflate=True)
    (HERE / f"{name}.txt").write_text(page.get_text(), encoding="utf-8")


def russian_page() -> pymupdf.Page:
    """Seed 003's opening, typeset with DejaVu Serif on an A4 page."""
    assert SEED is not None, "give the seed 003 text file as the first argument"
    text = SEED.read_text(encoding="utf-8")[:1600]
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    html = "".join(f"<p>{p}</p>" for p in paragraphs)
    css = "@font-face {font-family: serif; src: url(DejaVuSerif.ttf);} p {font-size: 12pt;}"
    archive = pymupdf.Archive(str(Path(FONT).parent))
    page.insert_htmlbox(pymupdf.Rect(72, 72, 523, 770), html, css=css, archive=archive)
    data = doc.tobytes()
    return pymupdf.open(stream=data)[0]


def main() -> None:
    english = pymupdf.open(PDF / "multicolumn.pdf")
    image_pdf(english[0], "en-multicolumn-p1")
    image_pdf(english[1], "en-multicolumn-p2-noisy", noisy=True)
    german = pymupdf.open(PDF / "geotopo-de.pdf")
    image_pdf(german[5], "de-geotopo-p6")
    image_pdf(russian_page(), "ru-seed003")
    # A scan with its own poor OCR layer: page 2 of the pdf.js Cyrillic tax form.
    cyrillic = pymupdf.open(PDF / "cyrillic.pdf")
    subset = pymupdf.open()
    subset.insert_pdf(cyrillic, from_page=1, to_page=1)
    subset.save(HERE / "ru-form-p2-ocr-layer.pdf", garbage=4, deflate=True)


if __name__ == "__main__":
    main()
