"""A passage that does not name what the question is about is not quoted as its answer
(issue 16, a new user's unanswerable question): "Wie richte ich einen SFTP-Server mit
chroot für einzelne Benutzer ein?" was answered by how a chroot gets its boot loader,
which says nothing of SFTP. The manuals did mention SFTP elsewhere, so the check that
no readable passage names it (``test_answers_unmentioned_names``) let it through.

A name the question is about (:func:`topic_names`) that is rare in the reader's
documents must be held by the quoted passage or its section's title. A name common in
them ("Debian" in Debian's manuals), a qualifier in lower case with digits ("amd64"),
a gloss in brackets and a German compound are not such names."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._names import topic_names
from ragox.service import Ragox

BOOT_DE = (
    "Den Bootloader einrichten\n\n"
    "Um Ihr System boot-fähig zu machen, richten Sie in der chroot-Umgebung Ihren "
    "Bootloader ein, so dass er den installierten Kernel für alle Benutzer startet.\n\n"
    "Bedenken Sie, dass debootstrap keinen Bootloader installiert."
)
FTP_DE = (
    "Dateiserver\n\n"
    "Für die Übertragung von Dateien kommen FTP und SFTP (aus OpenSSH) in Frage.\n\n"
    "Das Protokoll FTP verschlüsselt keine Passwörter."
)
SFTP_DE = (
    "SFTP mit chroot\n\n"
    "Um einen SFTP-Server einzurichten, in dem jeder Benutzer in seinem eigenen "
    "Verzeichnis bleibt, tragen Sie ChrootDirectory in /etc/ssh/sshd_config ein."
)
BOOT_EN = (
    "Setting up the boot loader\n\n"
    "To make the system bootable, set up the boot loader inside the chroot so that it "
    "starts the installed kernel for every user.\n\n"
    "Note that debootstrap does not install a boot loader."
)
FTP_EN = (
    "File servers\n\n"
    "Files can be transferred with FTP or with SFTP.\n\n"
    "The FTP protocol sends passwords in clear text."
)
QUESTION_DE = "Wie richte ich einen SFTP-Server mit chroot für einzelne Benutzer ein?"
QUESTION_EN = "How do I set up an SFTP server with a chroot for every user?"


def _home(tmp_path: Path, documents: dict[str, tuple[str, str]]) -> Ragox:
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    for name, (text, language) in documents.items():
        (folder / name).write_text(text, encoding="utf-8")
        app.ingest_path(folder / name, folder, language=language)
    return app


def test_the_names_a_question_is_about() -> None:
    assert topic_names(QUESTION_DE) == ["SFTP"]
    assert topic_names("Does Firefox print with NetworkManager running?") == [
        "Firefox",
        "NetworkManager",
    ]
    assert topic_names("Wie konfiguriere ich IPv6-Adressen?") == ["IPv6"]
    assert topic_names("Как настроить RAID с помощью mdadm?") == ["RAID", "mdadm"]
    # a German compound, a qualifier in lower case with digits, a gloss in brackets
    assert topic_names("Wie gebe ich einem Benutzer Zugriff auf das CD-Laufwerk?") == []
    assert topic_names("What is the minimum processor for a desktop on amd64?") == []
    assert topic_names("Какой процессор нужен для amd64?") == []
    assert topic_names("Какой процессор нужен для AMD64?") == ["AMD64"]
    assert topic_names("Как назвать файл предварительной версии (release candidate)?") == []


@pytest.mark.parametrize(
    ("question", "documents"),
    [
        (QUESTION_DE, {"boot.txt": (BOOT_DE, "de"), "ftp.txt": (FTP_DE, "de")}),
        (QUESTION_EN, {"boot.txt": (BOOT_EN, "en"), "ftp.txt": (FTP_EN, "en")}),
    ],
)
def test_a_passage_without_the_name_is_not_the_answer(
    tmp_path: Path, question: str, documents: dict[str, tuple[str, str]]
) -> None:
    """The boot loader's passage shares "chroot", "Benutzer", "richten … ein" with the
    question, and SFTP is mentioned elsewhere: no answer, and no boot loader quoted."""
    app = _home(tmp_path, documents)
    try:
        record = app.ask(question, OPERATOR)
    finally:
        app.close()
    assert all("ootloader" not in c.anchor.quote.exact for c in record.citations)
    assert all("boot loader" not in c.anchor.quote.exact for c in record.citations)
    assert record.abstained, record.answer


@pytest.mark.parametrize(
    "question",
    [
        QUESTION_DE,
        # one of the question's names is enough: the passage says SFTP, not OpenSSH
        "Wie richte ich mit OpenSSH einen SFTP-Server mit chroot für einzelne Benutzer ein?",
    ],
)
def test_the_passage_that_names_it_is_quoted(tmp_path: Path, question: str) -> None:
    app = _home(
        tmp_path,
        {"boot.txt": (BOOT_DE, "de"), "ftp.txt": (FTP_DE, "de"), "sftp.txt": (SFTP_DE, "de")},
    )
    try:
        record = app.ask(question, OPERATOR)
    finally:
        app.close()
    assert not record.abstained
    assert any("ChrootDirectory" in c.anchor.quote.exact for c in record.citations)


def test_a_name_common_in_the_documents_is_no_topic(tmp_path: Path) -> None:
    """ "Debian" in six of seven passages weighs little: the one that answers need not
    name it."""
    documents = {
        f"note{k}.txt": (f"Debian note {k}\n\nDebian ships package number {k} of the set.", "en")
        for k in range(6)
    }
    documents["editor.txt"] = (
        "Editors\n\nTo change the default editor, run update-alternatives --config editor.",
        "en",
    )
    app = _home(tmp_path, documents)
    try:
        record = app.ask("How do I change the default editor on Debian?", OPERATOR)
    finally:
        app.close()
    assert not record.abstained, record.answer
    assert any("update-alternatives" in c.anchor.quote.exact for c in record.citations)
