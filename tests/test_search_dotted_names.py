"""Issue 16, lexical search for names (analyzer 6): a file, command or compound written
with dots or hyphens ("sources.list", "dpkg-reconfigure", "Debian-Paket") is found as
the name, not as its words. Before, `search "sources.list"` matched "sources" and "list"
and ranked tables of "List of …" above every paragraph that names the file."""

from __future__ import annotations

import pytest

from ragox.access import Principal
from ragox.search import SearchMode
from ragox.search._analyze import analyze_search_query, index_terms, joined_names
from ragox.service import Ragox

STAFF = Principal("sam", groups=frozenset({"staff"}))

#: many "list" and "source" words, and no sources.list
_NOISE = (
    "List of sources. The list of sources lists each source in a list, and the source "
    "list is sorted. Lists of source lists are listed in the list of lists.",
    "Table 2.9. List of views. List of packages. List of sources. List of tasks. List of "
    "lists for the source view of the list.",
    "A source package lists its binary packages; the list of sources is long.",
)
_NAMED = "Edit the file /etc/apt/sources.list to add an archive, then update."


def test_a_dotted_or_hyphenated_name_is_indexed_with_its_words_joined() -> None:
    """The words of a name joined ("sourceslist", "dpkgreconfigure", "debianpaket"),
    unstemmed and after the words; no join for initials, numbers or mixed tokens."""
    assert joined_names("Edit /etc/apt/sources.list now") == ["sourceslist"]
    assert joined_names("run dpkg-reconfigure tzdata") == ["dpkgreconfigure"]
    assert joined_names("e.g. version 1.2 on x86-64 with python3-venv") == []
    assert joined_names("a/b c.d") == []  # one-letter words
    assert joined_names("apt.conf.d") == ["aptconf"]
    assert joined_names("nginx.conf.default") == ["nginxconf", "confdefault"]
    # a Cyrillic pair is none: the index keeps six letters of it, its first word's
    # ("сервер.Настройка" would have matched every "сервер" and dropped "настройка")
    assert joined_names("сервер.Настройка интернет-магазин") == []
    assert index_terms("Das Debian-Paket", "de").split() == ["das", "debian", "pak", "debianpaket"]
    assert index_terms("Файл sources.list", "ru").split()[-1] == "sourceslist"
    terms = analyze_search_query("sources.list", ["en"]).terms
    assert "sourceslist" in terms


def _ingest(app: Ragox, name: str, text: str) -> None:
    outcome = app.ingestor.ingest_bytes(
        text.encode(), name, name, groups=frozenset({"staff"}), tenant="default"
    )
    assert outcome.state.value == "READY"


@pytest.mark.both_backends
@pytest.mark.parametrize("query", ["sources.list", "/etc/apt/sources.list"])
def test_a_file_name_finds_the_passage_that_names_the_file_first(app: Ragox, query: str) -> None:
    """`search "sources.list"`: the one paragraph that names the file comes first, above
    shorter texts full of "list" and "sources" (before: last, or not at all)."""
    for number, text in enumerate(_NOISE):
        _ingest(app, f"noise{number}.txt", text)
    _ingest(app, "apt.txt", _NAMED)
    hits = app.search(query, STAFF, SearchMode.LEXICAL)
    assert [h.document_id for h in hits][:1] == ["apt.txt"], [h.document_id for h in hits]


@pytest.mark.both_backends
def test_a_name_no_passage_holds_is_still_searched_by_its_words(app: Ragox) -> None:
    """A name written otherwise in the documents ("config backup") is still found by
    its words: the name alone would match nothing."""
    _ingest(app, "notes.txt", "Keep a config backup before the upgrade.")
    _ingest(app, "other.txt", "The mail server relays local mail onwards.")
    hits = app.search("config.backup", STAFF, SearchMode.LEXICAL)
    assert [h.document_id for h in hits] == ["notes.txt"]
