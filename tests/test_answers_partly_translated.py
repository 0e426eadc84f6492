"""A passage written in the question's language counts as one in it, whatever its
document's language (issue 16, a second new-user pass): the German and Russian pages of
the Administrator's Handbook keep some paragraphs in English, and 9 of 48 were labelled
English as a whole. A German question then put their German passages behind those of
German documents and kept the first ten: "Mit welchem Befehl definiert man neue Routen
und zeigt die vorhandenen an?" lost its answer, the top hit of a plain search."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox

ROUTES = (
    "10.3. Network routing\n\n"
    "The routing table of the kernel decides where each packet goes. Static routes "
    "are kept in the interfaces file and set up when an interface comes up. A default "
    "route sends every packet with no better route to the gateway. The kernel keeps "
    "one table per namespace, and each entry names a destination, a gateway and an "
    "interface. Policy routing adds rules that choose among several tables.\n\n"
    "Wenn der Befehl ip als erstes Argument route verwendet wird, definiert er neue "
    "Routen und zeigt die vorhandenen an.\n\n"
    "The ip command replaces route and ifconfig from the net-tools package, which "
    "are no longer installed by default."
)


def test_a_german_passage_of_a_page_labelled_english_answers(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    try:
        (folder / "routing.html.txt").write_text(ROUTES, encoding="utf-8")
        app.ingest_path(folder / "routing.html.txt", folder, language="en")
        for number in range(14):
            path = folder / f"befehl-{number:02}.txt"
            path.write_text(
                f"Abschnitt {number}. Mit dem Befehl Nummer {number} zeigt man die "
                f"vorhandenen Einträge an; er definiert nichts Neues.",
                encoding="utf-8",
            )
            app.ingest_path(path, folder, language="de")
        record = app.ask(
            "Mit welchem Befehl definiert man neue Routen und zeigt die vorhandenen an?",
            OPERATOR,
        )
    finally:
        app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("definiert er neue Routen" in quote for quote in quotes), quotes
