"""Two words of a question that a manual writes as one ("time zone" for "timezone").

Debian's handbook titles its section "Timezone" and says "use the dpkg-reconfigure
tzdata command, which allows you to choose the timezone"; "How do I set the time
zone?" found only passages with "zone" (a DNS zone file) and answered from them.
Neighbouring content words of a question are also matched as one compound word, in
search (one more OR term: it only adds to what matches) and in the answer's sentence
credit (a sentence with the compound holds both words). The manual text is made up
for these tests, after the handbook's.
"""

from __future__ import annotations

import pytest

from ragox.access import Principal
from ragox.answer import Evidence, score_sentences
from ragox.search import analyze_search_query, joined_pairs
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))

_MANUAL = (
    "<html><body><h1>Configuration</h1>"
    "<h2>8.9. Timezone</h2>"
    "<p>The timezone is a configuration item of the tzdata package. To modify it, use "
    "the dpkg-reconfigure tzdata command, which lets you choose the timezone.</p>"
    "<h2>10.6. DNS</h2>"
    "<p>Each zone file of the name server lists the records of one domain, and the "
    "serial number of the zone must grow with every change.</p>"
    "<p>A secondary server copies the zone from the primary one every hour.</p>"
    "<h2>8.10. Printing</h2>"
    "<p>Printers are shared over the network through a print server.</p>"
    "<h2>8.11. Sound</h2>"
    "<p>Sound cards work out of the box with the audio server of the desktop.</p>"
    "</body></html>"
)


def test_neighbouring_content_words_are_joined_and_stop_words_are_not() -> None:
    words = ["how", "do", "i", "set", "the", "time", "zone"]
    pairs = joined_pairs(words, frozenset({"how", "do", "i", "the"}))
    assert [joined for *_, joined in pairs] == ["timezone"]
    # numbers and one-letter words make no compound
    assert joined_pairs(["port", "80", "x", "server"], frozenset()) == []
    terms = analyze_search_query("How do I set the time zone?", ["en"]).terms
    assert {"time", "zone", "timezon"} <= set(terms)
    # Russian writes no such compounds: nothing is added
    assert len(analyze_search_query("часовой пояс", ["ru"]).terms) == 2


@pytest.mark.both_backends
def test_two_words_find_the_manuals_compound_and_the_answer_quotes_it(app: Ragox) -> None:
    outcome = app.ingestor.ingest_bytes(
        _MANUAL.encode(), "config.html", "config", groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"
    text = app.text("config", STAFF)
    hits = app.search("time zone", STAFF)
    assert hits
    assert "dpkg-reconfigure tzdata" in text[hits[0].start : hits[0].end]
    record = app.ask("How do I set the time zone?", STAFF)
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("dpkg-reconfigure tzdata" in quote for quote in quotes)
    # "To modify it, use …" refers back: the sentence naming "it" is read before it
    if len(quotes) > 1:
        assert record.answer.index("The timezone is") < record.answer.index("To modify it")


def test_a_sentence_with_the_compound_holds_both_words_of_the_question() -> None:
    texts = (
        "To change the timezone, use the dpkg-reconfigure tzdata command.",
        "Each zone file of the name server lists the records of one domain.",
    )
    evidence = [
        Evidence(f"S{n}", f"doc{n}", "r1", f"m{n}", (f"c{n}",), 0, len(text), text)
        for n, text in enumerate(texts, start=1)
    ]
    scoring = score_sentences("How do I change the time zone?", evidence)
    best = scoring.sentences[0]
    assert best.evidence.source_id == "S1"
    assert best.support.matched == pytest.approx(1.0)
