"""A reference card: a command, and on the lines below it what the command does (a
new-user pass over the Debian reference card, nu16: 4 of 27 answerable questions).

The PDF's cells wrap in a narrow column: "dpkg -S Dateiname" / "Anzeigen, zu welchem
Paket" / "eine Datei gehört.". The sentence splitter took "Anzeigen, zu welchem Paket"
for a heading, so the description was two fragments ("eine Datei gehört."), and the
command was a line of its own that said nothing of the question: "wie finde ich raus
zu welchem paket eine datei gehört" abstained over the card that answers it."""

from __future__ import annotations

import pytest

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.ingest import split_sentences
from ragox.text._instructions import has_instruction


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


def test_a_list_items_own_lines_may_hang_deeper() -> None:
    """git's release notes wrap an item with a hanging indent."""
    item = "* With '--recurse-submodules=on-demand', all submodules are\n  recursively pushed."
    assert _sentences(item) == [item]


@pytest.mark.parametrize(
    "wrapped",
    [
        "Anzeigen, zu welchem Paket\neine Datei gehört.",
        "Show which package a file\nbelongs to.",
        "Показать, к какому пакету\nпринадлежит файл.",
        # a line that ends with a function word, and a few words that end the sentence
        "Auflisten des Inhalts einer\nPaketdatei.",
        # three lines
        "Установить новейшие\nверсии всех\nустановленных пакетов.",
        "Установить пакеты из\nрепозитория со всеми\nзависимостями.",
    ],
)
def test_a_sentence_wrapped_in_a_narrow_column_is_one(wrapped: str) -> None:
    assert _sentences(f"dpkg -S Dateiname\n{wrapped}\n\ndpkg -i Paket.deb") == [
        "dpkg -S Dateiname",
        wrapped,
        "dpkg -i Paket.deb",
    ]


def test_a_heading_stays_a_heading() -> None:
    """Above a command, or above a sentence of its own."""
    assert _sentences("Dpkg\ndpkg -l\nAuflisten von Paketen.") == [
        "Dpkg",
        "dpkg -l",
        "Auflisten von Paketen.",
    ]
    assert _sentences("What to look for\nCheck the logs and the mail.") == [
        "What to look for",
        "Check the logs and the mail.",
    ]
    assert _sentences("2. Maintenance\nThe system is maintained.") == [
        "2. Maintenance",
        "The system is maintained.",
    ]
    # above a part indented deeper, or an item of a list (NEWS files: a red team's
    # cases)
    assert _sentences("* Ada 2022\n  o Added the -gnat2022 flag.") == [
        "* Ada 2022",
        "o Added the -gnat2022 flag.",
    ]
    # a rule under a title starts no sentence (procps's README.Debian)
    assert _sentences("pgrep\n-----\npgrep is a new program.") == [
        "pgrep",
        "-----",
        "pgrep is a new program.",
    ]
    assert _sentences("Ada 2022\no Added the -gnat2022 flag.") == [
        "Ada 2022",
        "o Added the -gnat2022 flag.",
    ]
    assert _sentences("1.14 May-13-97\n  libtool is now used.") == [
        "1.14 May-13-97",
        "libtool is now used.",
    ]


def test_a_command_with_its_description_instructs() -> None:
    assert has_instruction("dpkg -S Dateiname\nAnzeigen, zu welchem Paket eine Datei gehört.")
    # a line of prose above a sentence is no command
    assert not has_instruction("Das Paket und seine Datei\nAnzeigen ist einfach.", "de")
    # nor are lines of paths (the development set's "Official Debian CD images indeed
    # contain symlinks like:" and its list was quoted for "How do I install Debian from
    # a CD?")
    assert not has_instruction("/dists/frozen -> bullseye/\n/dists/stable -> bullseye/", "en")
    # …nor a title with a slash between two words above its sentence (a red team's
    # cases)
    assert not has_instruction("Debian GNU/Linux\nDebian is a free operating system.", "en")
    assert not has_instruction("TCP/IP networking\nLinux supports TCP/IP networking.", "en")
    assert has_instruction("/usr/share/doc/package/\nThe documentation of a package.", "en")
    # a relative path, or a path or an address after a command's name (a red team's
    # cases, which the first fix had lost)
    assert has_instruction("./configure\nConfigure the build.", "en")
    assert has_instruction("debian/rules binary\nBuild the binary packages.", "en")
    assert has_instruction("git clone https://salsa.debian.org/x\nGet the repository.", "en")


CARD = {
    "de": (
        "Dpkg\ndpkg -l\n[Paketnamen]\nAuflisten von Paketen.\n\n"
        "dpkg -c Paket.deb\nAuflisten des Inhalts einer\nPaketdatei.\n\n"
        "dpkg -S Dateiname\nAnzeigen, zu welchem Paket\neine Datei gehört.\n\n"
        "dpkg -i Paket.deb\nLokale Paketdatei\ninstallieren.",
        "wie finde ich raus zu welchem paket eine datei gehört",
    ),
    "en": (
        "Dpkg\ndpkg -l\n[package-names]\nList packages.\n\n"
        "dpkg -c pkg.deb\nList contents of package\nfile.\n\n"
        "dpkg -S filename\nShow which package a file\nbelongs to.\n\n"
        "dpkg -i pkg.deb\nInstall package files.",
        "how do i see which package a file belongs to",
    ),
}


@pytest.mark.parametrize("language", sorted(CARD))
def test_a_reference_card_answers_with_the_command_and_what_it_does(language: str) -> None:
    text, question = CARD[language]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    first = draft.claims[0].quote
    assert first.startswith("dpkg -S"), draft.claims
    assert first.endswith(("eine Datei gehört.", "belongs to.")), draft.claims
