"""A German question's compound that the documents do not write (issue 16: lexical
search that finds plain keywords): "Zugriffsrechte" finds a manual that says "Zugriff"
and "Rechte"; a word the readable documents do write is never cut, and what a reader
cannot read decides nothing."""

from __future__ import annotations

import pytest

from ragox.access import Principal
from ragox.search import absent_compounds, compound_splits
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

ADMINS = Principal("ada", groups=frozenset({"admins"}))
BOARD = Principal("bo", groups=frozenset({"board"}))

RIGHTS = (
    "Jede Datei hat Rechte für ihren Eigentümer, ihre Gruppe und alle anderen. Der Zugriff "
    "wird mit dem Befehl chmod geändert."
)
COMPOUND = "Die Zugriffsrechte der Vorstandsprotokolle prüft die Revision jährlich."
OTHER = "Das Protokoll der Sitzung wird an alle Mitglieder verschickt."


def _ingest(app: Ragox, doc: str, text: str, groups: set[str]) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), f"{doc}.txt", doc, groups=frozenset(groups), tenant="default",
        language="de",
    )  # fmt: skip
    assert outcome.state.value == "READY"


def test_a_word_is_cut_into_two_parts_without_the_linking_element() -> None:
    splits = compound_splits("zugriffsrechte")
    assert ("zugriff", "rechte") in splits
    assert ("zugriffs", "rechte") in splits
    assert all(len(head) >= 4 and len(tail) >= 4 for head, tail in splits)
    assert compound_splits("rechte") == []  # too short to be cut
    assert compound_splits("ipv6adresse") == []  # not letters only


def test_only_an_absent_word_whose_parts_are_present_is_cut() -> None:
    """The cut asks the index, through ``frequencies``: a word it holds stays whole, and
    a cut whose parts it does not hold both is no cut."""
    held = {"zugriff": 3, "recht": 5, "zeitzon": 2}

    def frequencies(terms: object) -> dict[str, int]:
        assert isinstance(terms, list)
        return {term: held.get(term, 0) for term in terms}

    assert absent_compounds("Zugriffsrechte ändern", frequencies) == {
        "zugriffsrecht": ("zugriff", "recht")
    }
    assert absent_compounds("die Zeitzone", frequencies) == {}  # the index writes it
    assert absent_compounds("Schreibrechte", frequencies) == {}  # "schreib" not held


def test_a_compound_the_documents_do_not_write_finds_its_parts(app: Ragox) -> None:
    _ingest(app, "rights", RIGHTS, {"admins"})
    _ingest(app, "minutes", OTHER, {"admins"})
    hits = app.search("Wie ändere ich die Zugriffsrechte?", ADMINS)
    assert [hit.document_id for hit in hits][:1] == ["rights"]
    assert app.search("Zugriffsrechte", ADMINS)[0].document_id == "rights"


def test_what_a_reader_cannot_read_does_not_keep_a_word_whole(app: Ragox) -> None:
    """The board's document writes "Zugriffsrechte"; the admins may not read it. For
    them the word is absent and is cut, so they find their own manual; the board's
    document is never among their hits, and the board still finds its own by the
    whole word."""
    _ingest(app, "rights", RIGHTS, {"admins"})
    _ingest(app, "board-minutes", COMPOUND, {"board"})
    found = [hit.document_id for hit in app.search("Zugriffsrechte", ADMINS)]
    assert found and found[0] == "rights"
    assert "board-minutes" not in found
    assert app.search("Zugriffsrechte", BOARD)[0].document_id == "board-minutes"
