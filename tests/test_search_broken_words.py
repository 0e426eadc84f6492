"""A word a PDF breaks at a line end with a hyphen (a new-user pass over "A Brief
History of Debian", nu16: the German and Russian PDFs hold 73 and 78 such breaks,
"лиде-\\nром", "De-\\nbian", "noch-\\nmals"). The index's search text joins them
already; the answer scorer, which reads the representation's sentences, now reads them
whole too, and `ragox search` shows them joined ("лиде- ром" before)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import CliResult, evidence_of, pdf_of_lines
from ragox.answer import ExtractiveGenerator
from ragox.search import analyze_document


def test_a_broken_word_is_analyzed_whole() -> None:
    assert analyze_document("die folgenden Schrit-\nte", "de").split() == [
        "die",
        "folgend",
        "schritt",
    ]
    assert "лидер" in analyze_document("создания лиде-\nром Проекта", "ru").split()
    # a compound written with a hyphen, and a part said once, keep their words
    assert analyze_document("das Debian-\nSystem", "de").split() == ["das", "debian", "system"]
    assert analyze_document("Wort-\nund Satzzeichen", "de").split() == [
        "wort",
        "und",
        "satzzeich",
    ]


def test_the_answer_scorer_reads_a_broken_word_whole() -> None:
    """ "Pro-\\njektleiter" answers "wer war projektleiter" alone: read as its halves, the
    sentence matched no word of the question and a sentence on the project's founding
    was quoted beside it."""
    text = (
        "Geschichte\n\nDas Projekt wurde 1993 gegründet, der erste Teilnehmer war Ian "
        "Murdock. Version 1.2 enthielt 848 Pakete. Bei der Veröffentlichung war Ian "
        "Jackson Pro-\njektleiter."
    )
    draft = ExtractiveGenerator().generate("wer war projektleiter", evidence_of(text))
    assert not draft.abstained
    assert [claim.quote for claim in draft.claims] == [
        "Bei der Veröffentlichung war Ian Jackson Pro-\njektleiter."
    ]


def test_search_shows_a_broken_word_joined(
    ragox_cli: Callable[..., CliResult], tmp_path: Path
) -> None:
    pdf = tmp_path / "guide.pdf"
    pdf.write_bytes(
        pdf_of_lines(
            [
                "Installation",
                "Um das Paket zu installieren, sind die folgenden Schrit-",
                "te notwendig: laden Sie es herunter und entpacken Sie es.",
            ]
        )
    )
    assert ragox_cli("ingest", str(pdf)).code == 0
    shown = ragox_cli("search", "Schritte")
    assert "folgenden Schritte notwendig" in shown.stdout, shown.stdout
    # --json keeps the representation's text, as anchors quote it
    hits = json.loads(ragox_cli("search", "Schritte", "--json").stdout)["hits"]
    assert "Schrit-\nte" in hits[0]["snippet"]
