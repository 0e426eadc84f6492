"""Writes fastener-torque.pdf: a three-page table whose header row is repeated at the
top of pages 2 and 3, as office tools print long tables. Drawn by MuPDF's HTML layout
(``Page.insert_htmlbox``) with ruled cells, so PyMuPDF's table finder sees the grid.

Run from the repository root: ``python tests/data/tables/make_fastener_pdf.py``.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

CSS = (
    "table {border-collapse: collapse} td, th {border: 0.5pt solid black; padding: 2pt 4pt}"
    " th {background-color: #dddddd}"
)
HEAD = "<tr><th>Part</th><th>Torque</th><th>Mass</th><th>Material</th></tr>"
PAGES = ((1, 31), (31, 61), (61, 76))


def row(i: int) -> str:
    material = "steel" if i % 3 else "brass"
    return f"<tr><td>P-{i:02d}</td><td>{10 + i % 7} Nm</td><td>{(i * 37) % 90 + 10} g</td><td>{material}</td></tr>"


def main() -> None:
    document = pymupdf.open()
    for number, (first, after) in enumerate(PAGES):
        page = document.new_page(width=595, height=842)
        html = ""
        if number == 0:
            html += "<h1>Fastener torque table</h1><p>Tightening values for the assembly line.</p>"
        html += "<table>" + HEAD + "".join(row(i) for i in range(first, after)) + "</table>"
        if number == len(PAGES) - 1:
            html += "<p>Values apply to dry threads at room temperature.</p>"
        spare, scale = page.insert_htmlbox(pymupdf.Rect(50, 50, 545, 800), html, css=CSS)
        assert spare >= 0 and scale == 1, "the page's rows must fit unscaled"
    document.set_metadata({"title": "Fastener torque table", "producer": "PyMuPDF"})
    out = Path(__file__).with_name("fastener-torque.pdf")
    out.write_bytes(document.tobytes(garbage=4, deflate=True, no_new_id=True))


if __name__ == "__main__":
    main()
