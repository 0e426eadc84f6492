"""A command or file name the question writes with a hyphen or a dot ("apt-get",
"sources.list") is one name to the answer scorer: "Upgrade all packages: apt upgrade"
shares "apt" with "How do I upgrade all packages with apt-get?" but names another
program, and had been quoted as the answer (issue 16: confident wrong answers)."""

from __future__ import annotations

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator, score_sentences
from ragox.answer._extractive import ExtractiveConfig

CATALOG = (
    "Commonly used commands.\n\n"
    "List the packages that have a newer version: apt list --upgradable\n\n"
    "Upgrade all the packages of the system: apt upgrade\n\n"
    "Remove a package from the system: apt remove foo"
)
APT_GET = (
    "9.1.2. apt-get\n\n"
    "To use apt-get, edit the /etc/apt/sources.list file to set it up. "
    "Then run apt-get update followed by apt-get dist-upgrade. "
    "Answer any questions, and your system will be upgraded."
)


def _covered(question: str, *texts: str) -> dict[str, frozenset[str]]:
    """Each sentence's text and the question terms it holds itself."""
    scoring = score_sentences(question, evidence_of(*texts), None, ExtractiveConfig())
    return {
        s.evidence.text[s.start : s.end]: s.matched_terms | s.covered for s in scoring.sentences
    }


def test_another_program_holds_no_part_of_the_name() -> None:
    covered = _covered("How do I upgrade all packages with apt-get?", CATALOG, APT_GET)
    other = covered["Upgrade all the packages of the system: apt upgrade"]
    assert "apt" not in other and "get" not in other
    assert "upgrad" in other  # its other words still count
    named = next(terms for text, terms in covered.items() if "followed by" in text)
    assert {"apt", "get"} <= named


def test_the_name_held_as_two_words_or_joined_counts() -> None:
    covered = _covered(
        "How do I edit sources.list?",
        "Edit the file /etc/apt/sources.list as root.",
        "The sources list names the mirrors to edit.",
        "Lists of sources are kept in several files you can edit.",
    )
    assert {"sourc", "list"} <= covered["Edit the file /etc/apt/sources.list as root."]
    assert {"sourc", "list"} <= covered["The sources list names the mirrors to edit."]
    apart = covered["Lists of sources are kept in several files you can edit."]
    assert "sourc" not in apart and "list" not in apart


def test_a_word_the_question_also_has_alone_stays_free() -> None:
    """ "apt" stands alone in the question too: a sentence about apt holds it."""
    covered = _covered(
        "Should I use apt or apt-get to upgrade?", "Use apt to upgrade interactively."
    )
    assert "apt" in covered["Use apt to upgrade interactively."]


def test_a_capitalised_compound_is_not_bound() -> None:
    """ "IRC-Kanal" is a German compound the manual may write apart ("IRC Kanal", "Kanal
    im IRC"): its words count wherever they are."""
    covered = _covered(
        "Wie viele Leute sind im IRC-Kanal?",
        "Im Kanal #debian-devel im IRC sind meist 150 bis 300 Leute.",
    )
    assert {"irc", "kanal"} <= covered[
        "Im Kanal #debian-devel im IRC sind meist 150 bis 300 Leute."
    ]


def test_the_answer_names_the_program_asked_about() -> None:
    draft = ExtractiveGenerator().generate(
        "How do I upgrade all packages with apt-get?", evidence_of(CATALOG, APT_GET)
    )
    assert not draft.abstained
    assert "apt-get dist-upgrade" in draft.claims[0].text
    assert all("apt upgrade" not in claim.text for claim in draft.claims)


def test_two_thirds_of_a_longer_name_hold_it() -> None:
    """ "Debian's GitLab instance called Salsa" is about salsa.debian.org: two of the
    name's three words."""
    covered = _covered(
        "Was ist salsa.debian.org?",
        "Debian's GitLab instance called Salsa hosts git repositories.",
    )
    assert {"salsa", "debian"} <= covered[
        "Debian's GitLab instance called Salsa hosts git repositories."
    ]


def test_a_name_with_a_word_of_another_script_is_not_bound() -> None:
    """ "tar-архива" is a compound ("tar archive") the manual inflects ("tar-архив",
    "архив tar"): its words count wherever they are."""
    covered = _covered(
        "Как сделать пакет из скачанного tar-архива?",
        "Сначала скачайте архив tar с исходным кодом программы.",
    )
    assert "tar" in covered["Сначала скачайте архив tar с исходным кодом программы."]
