"""A further sentence beside the answer is about the thing the question singles out,
not another one of its kind (issue 16, a new user's questions on Debian's history):
"В честь кого назван выпуск Debian 1.2?" quoted the Rex sentence and then "Debian 8
Jessie …: назван в честь куклы …" from another release's passage, and "Welche
Debian-Server wurden im November 2003 gehackt?" the break-in and then the server fire
of 2002. A further sentence writes the question's numbers that the best one writes
(another passage: the numbers and names the best one's passage writes); the sentence
right beside the best one may say "this release" instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._extractive import _writes
from ragox.service import Ragox

#: a release list, each release a section of its own (another passage)
RELEASES = "Debian releases\n\n" + "\n\n".join(
    [
        "Debian 1.1 Buzz\n\nDebian 1.1 Buzz (June 1996) was named after Buzz Lightyear, "
        "the space ranger of the film Toy Story. It was the first release with a code name "
        "and held 474 packages.",
        "Debian 1.2 Rex\n\nDebian 1.2 Rex (December 1996) was named after the plastic "
        "dinosaur of the film Toy Story. This release held 848 packages maintained by 120 "
        "developers.",
        *(
            f"Debian {number} {name}\n\nThe {name} release came with the usual updates of "
            "the base system, the installer and many desktop programs; its packages were "
            "built for more architectures, and its documentation was translated into "
            "further languages by volunteers who reviewed every manual page, every package "
            "description and every release note twice before the freeze began."
            for number, name in [("1.3", "Bo"), ("2.0", "Hamm"), ("2.1", "Slink"),
                                 ("2.2", "Potato"), ("3.0", "Woody"), ("3.1", "Sarge")]
        ),
        "Debian 8 Jessie\n\nDebian 8 Jessie (April 2015) was named after the cowgirl doll "
        "of the film Toy Story 2, named after Jessie like the release before was named "
        "after a toy of Toy Story.",
    ]
)  # fmt: skip
SERVERS = (
    "Security incidents\n\n"
    "Starting on 19 November 2003, four main servers of the Debian project (bug "
    "tracking, mailing lists, security and web search) were compromised. "
    "The servers were rebuilt from scratch and the archive was checked against "
    "the signed files. "
    "In November 2002 a fire destroyed the network operations centre, which hosted the "
    "Debian servers of the security archive and the new maintainer database; the servers "
    "were compromised by the heat."
)

RHINELAND = (
    "Am Ende des Ersten Weltkriegs fiel das Rheinland unter den Vertrag von Versailles. "
    "Dieser ordnete an, dass es bis 1935 von den Alliierten besetzt werden sollte. "
    "Danach würde es eine entmilitarisierte Zone bilden, die die deutsche Armee nicht "
    "betreten dürfe. Der Vertrag von Versailles hat in Deutschland viel Groll "
    "hervorgerufen."
)


def _home(tmp_path: Path, documents: dict[str, str], language: str = "en") -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    for name, text in documents.items():
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language)
    return app


def test_another_release_of_its_kind_is_not_quoted(tmp_path: Path) -> None:
    app = _home(tmp_path, {"releases.txt": RELEASES})
    record = app.ask("Who was Debian 1.2 named after?", OPERATOR)
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("plastic dinosaur" in quote for quote in quotes), quotes
    assert not any("Buzz" in quote or "cowgirl" in quote for quote in quotes), quotes


def test_another_year_in_the_same_passage_is_not_quoted(tmp_path: Path) -> None:
    app = _home(tmp_path, {"servers.txt": SERVERS})
    record = app.ask("Which servers were compromised in November 2003?", OPERATOR)
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("four main servers" in quote for quote in quotes), quotes
    assert not any("fire" in quote for quote in quotes), quotes


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        # the sentence right after the best one says "this release", not "1.2"
        ("How many packages did Debian 1.2 Rex have?", "848 packages"),
        # a question without a number: the other release stays a possible answer
        ("Which doll was a Debian release named after?", "cowgirl doll"),
    ],
)
def test_what_the_rule_leaves_alone(tmp_path: Path, question: str, wanted: str) -> None:
    app = _home(tmp_path, {"releases.txt": RELEASES})
    record = app.ask(question, OPERATOR)
    app.close()
    assert not record.abstained
    assert any(wanted in c.anchor.quote.exact for c in record.citations), record.answer


def test_the_sentence_beside_the_best_one_need_not_repeat_the_number(tmp_path: Path) -> None:
    """ "Danach …" right after "… bis 1935 …" is about that year."""
    app = _home(tmp_path, {"rheinland.txt": RHINELAND}, language="de")
    record = app.ask("Wer dürfte nach 1935 nicht mehr das Rheinland betreten?", OPERATOR)
    app.close()
    assert not record.abstained
    assert any("deutsche Armee" in c.anchor.quote.exact for c in record.citations), record.answer


FREEZES = "# Release freezes\n\n" + "\n\n".join(
    f"## Debian {number} {name}\n\nThe release was frozen on {date}, when many developers met "
    f"at DebConf. {filler}"
    for number, name, date, filler in [
        ("6.0", "Squeeze", "6 August 2010", "Its installer gained a graphical mode. " * 40),
        ("7", "Wheezy", "30 June 2012", "Its kernel supported UEFI machines. " * 40),
    ]
)


def test_another_passage_names_what_the_best_ones_names(tmp_path: Path) -> None:
    """The freeze of the Wheezy section is not quoted beside the freeze of Squeeze."""
    app = _home(tmp_path, {"freezes.md": FREEZES})
    record = app.ask("When was Squeeze frozen?", OPERATOR)
    app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("6 August 2010" in quote for quote in quotes), quotes
    assert not any("2012" in quote for quote in quotes), quotes


@pytest.mark.parametrize(
    ("number", "text", "written"),
    [
        ("1.2", "Debian 1.2 Rex", True),
        # a release of the same version, however it is written (a red team's cases)
        ("1.2", "Debian 1.2.3", True),
        ("1.2", "In v1.2 the editor", True),
        ("8", "Debian 8.0 Jessie", True),
        ("2003", "won the cup in '03, beating", True),
        # another number
        ("1.2", "Debian 11.2", False),
        ("1.2", "Debian 1.20", False),
        ("1.2", "Table 21.2", False),
        ("2003", "in 20031", False),
        ("2003", "in November 2003.", True),
        # a name that opens with a digit is a name, in any case
        ("2FA", "To enable 2fa on the phone", True),
    ],
)
def test_a_number_is_written_as_a_number_of_its_own(number: str, text: str, written: bool) -> None:
    assert _writes(number, text) is written


_MEETINGS = " ".join(
    f"In year {2000 + i} the project held meeting number {i} in a city of Europe."
    for i in range(40)
)
NGINX = (
    "# Guide\n\n"
    "## Installation\n\nTo install nginx on Debian, run apt install nginx as root.\n\n"
    f"## History\n\n{_MEETINGS}\n\n"
    "## TLS\n\nTo configure TLS certificates for nginx, run certbot --nginx as root.\n"
)
EDITOR = (
    "In 2003 the company released its first editor for Windows. The founders had met at "
    "university in Berlin and worked from a small office near the river for several "
    "years. Later that year the company released its first editor for Linux."
)


def test_each_part_of_a_question_keeps_its_passage(tmp_path: Path) -> None:
    """ "… on Debian and set up TLS?": the TLS section does not say "Debian", and
    answers the question's other part (a red team's case)."""
    app = _home(tmp_path, {"guide.md": NGINX})
    record = app.ask("How do I install nginx on Debian and set up TLS?", OPERATOR)
    app.close()
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("apt install nginx" in quote for quote in quotes), quotes
    assert any("certbot --nginx" in quote for quote in quotes), quotes


def test_a_sentence_that_says_that_year_is_about_it(tmp_path: Path) -> None:
    app = _home(tmp_path, {"editor.txt": EDITOR})
    record = app.ask("What did the company release in 2003?", OPERATOR)
    app.close()
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("for Windows" in quote for quote in quotes), quotes
    assert any("for Linux" in quote for quote in quotes), quotes
