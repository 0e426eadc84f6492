"""Synonyms (issue 16): a reader asks with other words than the manual uses ("see" for
"display", "zeigen" for "auflisten", "показать" for "вывести"). Lexical search matches
a query's synonyms beside its words, and the answer scorer credits a sentence that says
the question's action with a synonym, less than with the word itself."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from conftest import evidence_of
from ragox.access import Principal
from ragox.answer import Evidence, ExtractiveGenerator
from ragox.answer._support import TermMatcher, support
from ragox.search import analyze_document
from ragox.search._search import snippet
from ragox.search._synonyms import synonym_stems, synonyms_of_word, with_synonyms
from ragox.service import Ragox

OPERATOR = Principal.local_operator()


def _stem(word: str, language: str) -> str:
    return analyze_document(word, language)


@pytest.mark.parametrize(
    ("word", "synonym", "language"),
    [
        ("see", "display", "en"),
        ("remove", "uninstall", "en"),
        ("zeigen", "auflisten", "de"),
        ("löschen", "entfernen", "de"),
        ("показать", "вывести", "ru"),
        ("удалить", "стереть", "ru"),
        # a key that does it (new users' questions on KiCad's and GIMP's manuals: "What's
        # the shortcut …?" beside "(default hotkey B)", "Gibt es … ein Tastenkürzel?"
        # beside "Es gibt dafür keine voreingestellte Tastenkombination.")
        ("shortcut", "hotkey", "en"),
        ("Tastenkürzel", "Tastenkombination", "de"),
        # a reader's everyday clipping (nu17's "ноут сильно греется это нормально?" over
        # GNOME Help's "Многие компьютеры … нагреваются"; it had abstained naming both)
        ("ноут", "ноутбуки", "ru"),
        ("комп", "компьютера", "ru"),
        ("греется", "нагреваются", "ru"),
    ],
)
def test_a_word_has_the_synonyms_of_its_groups(word: str, synonym: str, language: str) -> None:
    found = synonym_stems(_stem(word, language), language)
    assert _stem(synonym, language) in found
    assert _stem(word, language) not in found  # a word is not its own synonym
    assert _stem(word, language) in synonym_stems(_stem(synonym, language), language)


def test_most_words_have_none_and_groups_stay_in_their_language() -> None:
    assert synonym_stems(_stem("kernel", "en"), "en") == frozenset()
    assert synonym_stems(_stem("update", "en"), "en") == frozenset()  # not "upgrade"
    # nor "rid" beside "remove": "get rid of" says remove, but "a user account's rid"
    # is its relative identifier (a red team's case)
    assert synonym_stems(_stem("rid", "en"), "en") == frozenset()
    # English "see" has no German synonyms
    assert synonym_stems(_stem("see", "en"), "de") == frozenset()


def test_with_synonyms_keeps_the_query_terms_first() -> None:
    terms = (_stem("show", "en"), _stem("files", "en"))
    expanded = with_synonyms(terms, ("en",))
    assert expanded[:2] == terms
    assert _stem("display", "en") in expanded[2:]
    assert len(expanded) == len(set(expanded))


@pytest.mark.both_backends
def test_search_finds_a_passage_that_uses_a_synonym(app: Ragox) -> None:
    """ "show" finds the passage that says "display" only; a word with no synonym does
    not find it."""
    for name, text in [
        ("pkg.txt", "To display the contents of an archive, run dpkg --contents foo.deb."),
        ("net.txt", "The network interfaces are configured in /etc/network/interfaces."),
    ]:
        app.ingestor.ingest_bytes(text.encode(), name, name, tenant="default")
    hits = app.search("show", OPERATOR)
    assert [hit.document_id for hit in hits] == ["pkg.txt"]
    assert app.search("exhibit", OPERATOR) == []


@pytest.mark.both_backends
def test_a_long_russian_synonym_is_matched_in_its_index_form(app: Ragox) -> None:
    """ "посмотреть" finds the passage that says "отобразить": its stem "отобраз" is
    longer than six letters and indexed cut ("отобра"), so it is matched so."""
    text = "Чтобы отобразить список файлов пакета, выполните команду dpkg -L пакет."
    app.ingestor.ingest_bytes(text.encode(), "ru.txt", "ru.txt", tenant="default")
    app.ingestor.ingest_bytes(
        "Сетевые интерфейсы настраиваются в файле /etc/network/interfaces.".encode(),
        "net.txt",
        "net.txt",
        tenant="default",
    )
    assert [hit.document_id for hit in app.search("посмотреть", OPERATOR)] == ["ru.txt"]


def test_a_synonym_earns_less_than_the_word_itself() -> None:
    term = _stem("see", "en")
    matcher = TermMatcher([term], ["en"])
    itself = matcher.credit(matcher.stems("You can see the list here."))
    other = matcher.credit(matcher.stems("The files are displayed here."))
    neither = matcher.credit(matcher.stems("The kernel is built here."))
    assert itself == {term: 1.0}
    assert 0.0 < other[term] < 1.0
    assert neither == {}


def test_a_heading_counts_beside_a_sentence_that_holds_its_word_as_a_synonym() -> None:
    """ "How can I find out …" above "To identify the package …": the section is about
    finding out, though the sentence says "identify" (a partial credit for "find"); the
    heading's share counts in full, so the section still answers the question."""
    weights = {"find": 1.0, "packag": 1.0, "file": 1.0, "belong": 1.0}
    heading = {"find": 1.0, "packag": 1.0, "file": 1.0}
    sentence = {"find": 0.8, "packag": 1.0, "file": 1.0}
    features = support(sentence, None, None, weights, 3, True, heading)
    assert features.heading == pytest.approx(0.25)
    # what the heading adds beside a sentence that holds its word itself: nothing
    exact = support({"find": 1.0, "packag": 1.0}, None, None, weights, 3, True, heading)
    assert exact.heading == pytest.approx(0.25)  # "file" only
    # a neighbour sentence adds only what the synonym lacks
    before = support(sentence, {"find": 1.0}, None, weights, 3, True, None)
    assert before.previous == pytest.approx(0.2 / 4)


def test_a_how_to_answer_may_say_the_action_with_another_word() -> None:
    """ "How do I switch my system to testing?" is answered by a section that says
    "move" and "change": the question's weightiest word is not missing from it (a
    missing weightiest word makes a how-to question unanswerable); the sentence that
    only shares "switch" is not quoted."""

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {term: 3.0 if term == _stem("switch", "en") else 1.0 for term in terms}

    evidence = evidence_of(
        "3.1.11. Can I move to testing?\n\nYes. Change the third field of "
        "/etc/apt/sources.list to 'testing' and run apt full-upgrade.",
        "The switch in the server room is replaced every five years by the operators.",
    )
    draft = ExtractiveGenerator(term_weights=weights).generate(
        "How do I switch my system to testing?", evidence
    )
    assert not draft.abstained
    assert [claim.text for claim in draft.claims] == [
        "Change the third field of /etc/apt/sources.list to 'testing' and run apt full-upgrade."
    ]


def test_a_snippet_shows_the_synonym_that_found_the_passage() -> None:
    """A long passage found by "display" for "show": its snippet is the window around
    "display", not the passage's opening."""
    body = (
        "Packages "
        + "filler words here " * 40
        + "To display the files, run dpkg -L foo. "
        + "more filler text " * 40
    )
    window = snippet(body, "show")
    assert "To display the files" in window
    assert not window.startswith("Packages")
    assert synonyms_of_word("show") == ("display", "list", "see", "view")


def test_a_further_sentence_does_not_stand_on_a_synonym_in_another_sense() -> None:
    """ "Switch" is a synonym of "change" ("switch to testing"), and the name of a
    network device: beside the answer to "How do I change the name of the printer?",
    a sentence about the printer plugged into a switch holds enough of the question
    only through that synonym, and is not quoted; without the synonym's share it
    would hold less than half of what the answer holds."""
    question = "How do I change the name of the printer?"
    answer = "You can change the name of the printer in the file /etc/printcap."
    device = "The printer in the hall is plugged into the switch of the office network."
    evidence = [
        Evidence("S1", "network", "r1", "m1", ("c1",), 0, len(device), device, ()),
        Evidence("S2", "printing", "r1", "m2", ("c2",), 0, len(answer), answer, ()),
    ]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {
            t: {_stem("change", "en"): 2.0, _stem("printer", "en"): 2.0}.get(t, 1.0) for t in terms
        }

    draft = ExtractiveGenerator(term_weights=weights).generate(question, evidence)
    assert [claim.quote for claim in draft.claims] == [answer]


def test_an_abstention_does_not_call_a_word_said_by_its_synonym_unmentioned() -> None:
    """The evidence says "displays", the question "show": the abstention names only
    the words no passage says in any form ("kernel", "modules"), not "show"."""
    from ragox.answer._pipeline import missing_terms

    text = "The command dpkg -l displays the installed packages of the system."
    evidence = [Evidence("S1", "manual", "r1", "m1", ("c1",), 0, len(text), text, ())]
    missing = missing_terms("How do I show the kernel modules?", evidence)
    assert "kernel" in missing and "modules" in missing
    assert "show" not in missing
    # a word of the question that neither it nor a synonym of it says stays named
    assert "remove" in missing_terms("How do I remove the kernel modules?", evidence)


def test_an_abstention_names_no_word_a_search_drops() -> None:
    """The words "between", "zwischen", "между" (Snowball's stop words, not ours) are no terms a
    passage must say: an abstention whose passages say every other word of the question
    does not claim that "between" is what they lack; a content word still is named."""
    from ragox.answer._pipeline import missing_terms

    text = "Unlike dpkg, apt-get does not understand .deb files and shows a difference."
    evidence = [Evidence("S1", "manual", "r1", "m1", ("c1",), 0, len(text), text, ())]
    for question in (
        "What is the difference between dpkg and apt?",
        "Was ist der Unterschied zwischen dpkg und apt?",
        "Какая разница между dpkg и apt?",
    ):
        missing = missing_terms(question, evidence)
        assert not any(word in missing for word in ("between", "zwischen", "между")), missing
    german = missing_terms("Was ist der Unterschied zwischen dpkg und apt?", evidence)
    assert "Unterschied" in german  # as the question writes it
    assert "aptitude" in missing_terms("How do dpkg and aptitude differ?", evidence)
