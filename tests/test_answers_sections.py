"""The evidence cap in a handbook's long chapter (issue 16): at most three passages of
one document take the evidence, but in a document with numbered section headings the
three are counted per section (five per document), so the section that answers is not
crowded out by three hits from the section before it."""

from __future__ import annotations

from ragox.access import Principal
from ragox.answer import ContextConfig, select_context
from ragox.answer._context import _section
from ragox.search import Hit
from ragox.service import Ragox

OPERATOR = Principal.local_operator()


def _chapter(sections: int, paragraphs: int) -> str:
    parts = []
    for number in range(1, sections + 1):
        parts.append(f"4.{number}. Section {number}\n\n")
        parts.extend(
            f"Paragraph {number}-{i} " + " ".join(f"w{number}x{i}x{j}" for j in range(60)) + ".\n\n"
            for i in range(paragraphs)
        )
    return "".join(parts)


def _hits(app: Ragox, document_id: str, text: str, where: list[tuple[int, int]]) -> list[Hit]:
    """One hit per (section, paragraph), ranked in the order given."""
    status = app.status(document_id, OPERATOR)
    manifest_id = status.revisions[0].revision.manifest_id
    assert manifest_id is not None
    hits = []
    for rank, (section, paragraph) in enumerate(where, start=1):
        start = text.index(f"Paragraph {section}-{paragraph} ")
        end = text.index(".\n\n", start) + 1
        hits.append(
            Hit(f"c{rank}", document_id, "r1", manifest_id, 1.0 / rank, (), start, end, (), "")
        )
    return hits


def test_a_section_of_a_long_chapter_is_not_crowded_out(app: Ragox) -> None:
    """Three hits from section 4.1, then one from 4.2 of the same chapter: all four are
    evidence; a fourth hit from 4.1 is not, nor more than five of the chapter."""
    assert (ContextConfig().per_document, ContextConfig().per_document_sections) == (3, 5)
    text = _chapter(3, 6)
    app.ingestor.ingest_bytes(text.encode(), "chapter.txt", "chapter.txt", tenant="default")
    stored = app.text("chapter.txt", OPERATOR)
    assert stored == text
    config = ContextConfig(token_budget=100_000, max_items=12)
    order = [(1, 0), (1, 2), (1, 4), (1, 1), (2, 0), (2, 2), (2, 4), (3, 0), (3, 2)]
    evidence = select_context(app.store, _hits(app, "chapter.txt", text, order), config)
    heads = [item.text.split(" ")[1] for item in evidence]
    assert heads == ["1-0", "1-2", "1-4", "2-0", "2-2"]


def test_the_section_of_a_position() -> None:
    """The section is where the last numbered heading before the position starts."""
    text = "Intro text.\n\n4.6. Archive\n\nSome text.\n\n4.6.3. Packages\n\nMore text."
    assert _section(text, 0) == -1
    assert _section(text, text.index("Some")) == text.index("4.6. Archive")
    assert _section(text, text.index("More")) == text.index("4.6.3. Packages")
