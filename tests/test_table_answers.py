"""Extractive answers from table cells (issue 12): a question that names a row (its
key, an identifier such as ``P-48``) and a column (a word of its header) is answered
by quoting that one cell; the anchor's exact text is the cell's only, the header is
context in the claim's wording. Real table fixtures (a three-page PDF table with a
repeated header row, an HTML table with spans and ``headers``, a Markdown table)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import DATA, OPERATOR, run_ragox
from ragox.anchor import ResolutionStatus
from ragox.answer._cells import identifiers
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

TABLES = DATA / "tables"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, module_store: str | None) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("tables") / "home"
    app = Ragox(home)
    try:
        for name in ("fastener-torque.pdf", "pump-specs.html", "parts.md"):
            item = app.ingest_path(TABLES / name, TABLES)
            assert item.outcome is not None and item.outcome.state.value == "READY"
    finally:
        app.close()
    yield home


def test_identifiers_are_kept_whole() -> None:
    assert identifiers("What torque does P-48 need under ISO-9001 on eth0 with v2.3?") == [
        "p-48",
        "iso-9001",
        "eth0",
        "v2.3",
    ]
    assert identifiers("In 2024 the pump ran 48 hours at well-known sites.") == []


def test_cli_ask_quotes_the_cell_of_the_named_row_and_column(home: Path) -> None:
    """`ragox ask` on the PDF table: "What torque does P-48 need?" is answered with the
    torque cell of row P-48 (page 2, under the repeated header), not abstained on
    "need"; the citation's exact text is the cell's alone and resolves."""
    result = run_ragox(home, "ask", "--json", "What torque does P-48 need?")
    assert result.code == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["abstained"] is False
    (citation,) = answer["citations"]
    assert citation["status"] == "RESOLVED"
    assert citation["anchor"]["document_id"] == "fastener-torque.pdf"
    assert citation["anchor"]["quote"]["exact"] == "16 Nm"  # 10 + 48 % 7
    assert "Torque" in answer["answer"] and "P-48" in answer["answer"]


@pytest.mark.parametrize(
    ("question", "document", "exact"),
    [
        ("What is the price of SP-303?", "parts.md", "9.90"),
        ("Which models does SP-301 fit?", "parts.md", "P-100, P-150"),
        ("What material is P-75 made of?", "fastener-torque.pdf", "brass"),
        ("What is the head of the B-40?", "pump-specs.html", "96 m"),
        ("What current does the P-150 draw?", "pump-specs.html", "3.4 A"),
        # a row named by its row header (the table's `headers` attribute)
        (
            "How often is the bearing of borehole pumps serviced?",
            "pump-specs.html",
            "every 3 years",
        ),
    ],
)
def test_a_cell_answers_across_table_formats(
    home: Path, question: str, document: str, exact: str
) -> None:
    app = Ragox(home)
    try:
        record = app.ask(question, OPERATOR)
        assert not record.abstained, question
        (citation,) = record.citations
        assert citation.anchor.document_id == document
        assert citation.anchor.quote.exact == exact
        resolved = app.resolve(citation.anchor, OPERATOR)
        assert resolved.status is ResolutionStatus.RESOLVED
        blocks = app.store.blocks(record.evidence[0].manifest_id)
        cell = next(b for b in blocks if b.span.start == citation.anchor.position.start)
        assert cell.cell is not None and not cell.cell.header
    finally:
        app.close()


@pytest.mark.parametrize(
    "question",
    [
        "What torque does P-99 need?",  # no such row
        "What voltage does P-48 need?",  # the row has no such column
        # "pump" is in the row group's header over every column: it names none
        "What does the P-100 pump have?",
    ],
)
def test_a_row_or_column_the_table_lacks_quotes_no_cell(home: Path, question: str) -> None:
    """No cell is quoted alone (the sentence path may answer or abstain as it does; it
    quotes a table's whole row as one unit: "P-100 230 V 2.1 A 40 l/min 32 m" for what
    the P-100 pump has)."""
    app = Ragox(home)
    try:
        record = app.ask(question, OPERATOR)
        manifests = {e.source_id: e.manifest_id for e in record.evidence}
        for citation in record.citations:
            start, end = citation.anchor.position.start, citation.anchor.position.end
            blocks = app.store.blocks(manifests[citation.source_id], start, end)
            cells = [b for b in blocks if b.cell is not None]
            assert len(cells) != 1, question
            rows = {(b.cell.table, b.cell.row) for b in cells if b.cell is not None}
            assert len(rows) <= 1, question  # a row, not a table run together
    finally:
        app.close()
