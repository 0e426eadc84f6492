"""Issue 16, lexical search on manuals (analyzer 5): a chunk's own headings weigh twice in
its index row, so that a section whose title names the question's topic ranks above a
longer passage that uses the same words in passing."""

from __future__ import annotations

import pytest

from conftest import HEADING_FILLER, blocks_of
from ragox.access import Principal
from ragox.extract import BlockKind
from ragox.ingest import chunk_representation
from ragox.ingest._headings import heading_context, own_headings, row_headings
from ragox.ingest._searchtext import build_search_text
from ragox.search import ANALYZER_VERSION
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))


def test_a_row_carries_the_headings_above_its_chunk_and_its_own_once_more() -> None:
    """The headings above a chunk, then those inside its range; a chunk without its own
    heading carries the headings above it only (as before analyzer 5)."""
    text, blocks = blocks_of(
        [
            (BlockKind.HEADING, "/html/body/h1", "Chapter 3. Duties"),
            (BlockKind.HEADING, "/html/body/div/h2", "3.2.4. Going on vacation gracefully"),
            (BlockKind.PARAGRAPH, "/html/body/div/p[1]", HEADING_FILLER),
            (BlockKind.PARAGRAPH, "/html/body/div/p[2]", HEADING_FILLER.replace("This", "That")),
            (BlockKind.HEADING, "/html/body/div[2]/h2", "3.2.5. Retiring"),
            (BlockKind.PARAGRAPH, "/html/body/div[2]/p", "Short text here."),
        ]
    )
    search = build_search_text(text, blocks)
    chunks = chunk_representation("m", text, blocks, search.alignment)
    starts = [text[c.start : c.end] for c in chunks]
    own = own_headings(text, blocks, chunks)
    rows = row_headings(text, blocks, chunks)
    above = heading_context(text, blocks, chunks)
    first = next(i for i, s in enumerate(starts) if s.startswith("Chapter 3."))
    assert own[first] == "Chapter 3. Duties 3.2.4. Going on vacation gracefully"
    assert rows[first] == own[first]  # nothing above the chapter title
    second = next(i for i, s in enumerate(starts) if s.startswith("That paragraph"))
    assert own[second] == ""
    assert rows[second] == above[second] == "Chapter 3. Duties 3.2.4. Going on vacation gracefully"
    last = next(i for i, s in enumerate(starts) if s.startswith("3.2.5."))
    assert rows[last] == "Chapter 3. Duties 3.2.5. Retiring"


#: sections that share no word with the question, so that its words weigh (IDF)
_OTHER_SECTIONS = (
    ("8.6. Networking", "The network interfaces are configured in one place and brought up."),
    ("8.7. Time zones", "The time zone of the machine is chosen when the system is set up."),
    ("8.8. Printing", "Printers are shared over the network through a print server."),
    ("8.9. Sound", "Sound cards work out of the box with the audio server of the desktop."),
    ("8.10. Mail", "A mail transfer agent delivers local mail and may relay it onwards."),
    ("8.11. Fonts", "Console fonts are chosen with a dialog and kept for the next boot."),
)


@pytest.mark.both_backends
def test_a_section_titled_with_the_topic_ranks_above_a_passage_naming_it_in_passing(
    app: Ragox,
) -> None:
    """A section titled "Going on vacation gracefully" whose text does not say vacation
    again is the first hit for a question on a vacation, above a shorter paragraph that
    names one in passing (before analyzer 5 that paragraph came first)."""
    assert ANALYZER_VERSION == "analyzer@6"
    others = "".join(f"<h2>{title}</h2><p>{body}</p>" for title, body in _OTHER_SECTIONS)
    html = (
        "<html><body><h1>Duties</h1>"
        "<h2>3.2.4. Going on vacation gracefully</h2>"
        "<p>First send a mail to the private list with a tag in the subject of your "
        "message.</p>"
        "<h2>3.2.5. Uploads</h2><p>An upload made during a vacation waits in the queue.</p>"
        f"{others}</body></html>"
    )
    outcome = app.ingestor.ingest_bytes(
        html.encode(), "duties.html", "duties", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    text = app.text("duties", STAFF)
    hits = app.search("How do I tell the others that I am on vacation?", STAFF)
    found = [" ".join(text[h.start : h.end].split()) for h in hits]
    assert found[0].startswith("Duties 3.2.4. Going on vacation gracefully"), found
    assert any(f.startswith("3.2.5. Uploads") for f in found[1:]), found
