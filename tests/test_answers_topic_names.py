"""A passage that does not name what the question is about is not quoted as its answer
(issue 16, a new user's unanswerable question): "Wie richte ich einen SFTP-Server mit
chroot für einzelne Benutzer ein?" was answered by how a chroot gets its boot loader,
which says nothing of SFTP. The manuals did mention SFTP elsewhere, so the check that
no readable passage names it (``test_answers_unmentioned_names``) let it through.

A name the question is about (:func:`topic_names`) that is rare in the reader's
documents must be written by the quoted passage's document, however it is spelt there.
A name common in them ("Debian" in Debian's manuals), a qualifier in lower case with
digits ("amd64"), a gloss in brackets, a German compound and the asker's own machine
("my Raspberry Pi") are not such names."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import OPERATOR
from ragox.answer._names import topic_names, writes_name
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
    # the asker's own machine, what they do without, a question in Title Case
    assert topic_names("How do I change the host name of my Raspberry Pi?") == []
    assert topic_names("Wie setze ich eine feste IP-Adresse ohne NetworkManager?") == []
    assert topic_names("How Do I Change The Default Editor?") == []
    # capitalised words one after the other are one name; "I" makes no Title Case
    assert topic_names("How do I enable Secure Boot on Debian?") == ["Secure Boot", "Debian"]
    assert topic_names("Can I get Secure Boot?") == ["Secure Boot"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("GRUB2", "grub 2 reads its menu"),
        ("NetworkManager", "the network-manager package"),
        ("LibreOffice", "libre office is the default suite"),
        ("PostgreSQL", "postgres listens on port 5432"),
        ("OpenSSH", "the ssh server reads its configuration"),
    ],
)
def test_a_name_spelt_otherwise_is_written(name: str, text: str) -> None:
    assert writes_name(name, text)


def test_a_name_is_written_as_a_piece_of_another() -> None:
    # "dh_shlibdeps" writes the piece "shlibdeps" of "Что делает утилита dh_shlibdeps?"
    assert writes_name("shlibdeps", "run dh_shlibdeps after dh_strip.")


def test_a_name_not_written_is_not() -> None:
    assert not writes_name("SFTP", "the ftp server")
    assert not writes_name("NetworkManager", "the network is managed")


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
    # the operator's trace says which evidence was left out, by source id
    boot = next(e.source_id for e in record.evidence if e.document_id == "boot.txt")
    assert boot in record.trace["off_topic"]


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


HISTORY = " ".join(
    [
        "The history of this program goes back to 1995, when a researcher at a Finnish "
        "university wrote the first version after an attack on his campus network."
    ]
    * 7
)
REMOTE = (
    "Remote login\n\n"
    "OpenSSH is the remote login server that Debian installs with the ssh package. It "
    "encrypts every connection.\n\n"
    f"History\n\n{HISTORY}\n\n"
    "Settings\n\n"
    "Its configuration file is /etc/remote/server.conf. To forbid logins with a password, "
    "set PasswordAuthentication no in that file and restart the service."
)
BOOT_EN_TIMEOUT = (
    "Boot loader\n\n"
    "The boot loader starts the kernel. To change its timeout, edit /etc/default/grub."
)


@pytest.mark.parametrize(
    ("question", "documents", "quoted"),
    [
        # the document named OpenSSH chunks before the passage that answers
        (
            "How do I disable password logins in OpenSSH?",
            {"remote.txt": (REMOTE, "en"), "boot.txt": (BOOT_EN_TIMEOUT, "en")},
            "PasswordAuthentication no",
        ),
        # the manual writes the name otherwise
        (
            "How do I stop NetworkManager from managing an interface?",
            {
                "net.txt": (
                    "Network configuration\n\nThe network-manager package manages "
                    "connections on laptops. To stop it from managing an interface, "
                    "declare the interface in /etc/network/interfaces.",
                    "en",
                ),
                "other.txt": ("Printing\n\nCUPS manages printers on the network.", "en"),
            },
            "/etc/network/interfaces",
        ),
        # the asker's own machine is no topic
        (
            "How do I change the host name of my Raspberry Pi?",
            {
                "host.txt": (
                    "Host name\n\nTo change the host name of a machine, write the new "
                    "name into /etc/hostname.",
                    "en",
                ),
                "board.txt": (
                    "Hardware\n\nSingle-board computers such as the Raspberry Pi boot "
                    "from an SD card.",
                    "en",
                ),
            },
            "/etc/hostname",
        ),
    ],
)
def test_an_answer_that_names_the_topic_otherwise_is_kept(
    tmp_path: Path, question: str, documents: dict[str, tuple[str, str]], quoted: str
) -> None:
    """A red-team pass: the first version looked for the name in the passage and its
    section's title only, as the index stems it, and took "my Raspberry Pi" for the
    topic; each of these abstained."""
    app = _home(tmp_path, documents)
    try:
        record = app.ask(question, OPERATOR)
    finally:
        app.close()
    assert not record.abstained, record.answer
    assert any(quoted in c.anchor.quote.exact for c in record.citations)


def test_a_manual_that_names_it_elsewhere_is_not_about_it_everywhere(tmp_path: Path) -> None:
    """A red-team pass: with the whole document searched for the name, a manual that
    names SFTP in its first section answered the SFTP question with its chroot boot
    loader section, pages later; and "trust" held "Rust"."""
    sections = "\n\n".join(
        f"Section {k}\n\n" + " ".join(["The archive keeps its packages on mirrors."] * 12)
        for k in range(5)
    )
    manual = (
        "Remote access\n\nThe OpenSSH server also serves SFTP for file transfers.\n\n"
        f"{sections}\n\n"
        "Build machines\n\nTo install the toolchain on a build server you run apt "
        "install build-essential, and you must trust the archive key.\n\n"
        "A boot loader in a chroot\n\nTo set up a chroot for single users you run "
        "debootstrap into a directory and install the boot loader inside the chroot."
    )
    languages = "Languages\n\nRust is a programming language; Python is another one."
    app = _home(tmp_path, {"manual.txt": (manual, "en"), "languages.txt": (languages, "en")})
    try:
        sftp = app.ask("How do I set up an SFTP server with chroot for single users?", OPERATOR)
        rust = app.ask("How do I install the Rust toolchain on a build server?", OPERATOR)
    finally:
        app.close()
    assert sftp.abstained, sftp.answer
    assert rust.abstained, rust.answer


def test_a_name_of_two_words_is_written_as_one(tmp_path: Path) -> None:
    """A new-user pass over the Debian FAQ: "How do I enable Secure Boot on Debian?"
    was answered with how a service is enabled at boot; "secure" and "boot" were each
    somewhere, the name nowhere."""
    assert writes_name("Secure Boot", "to enable secure boot, sign the kernel.")
    assert not writes_name("Secure Boot", "keep secure backups; boot from the disk.")
    documents = {
        "services.txt": (
            "Services\n\nTo enable a service at boot, run systemctl enable service. "
            "A service enabled this way starts on every boot.",
            "en",
        ),
        "security.txt": (
            "Security\n\nKeep your system secure by installing security updates.",
            "en",
        ),
        # "boot" is common: the name is as rare as its rarest word
        **{
            f"boot{k}.txt": (f"Boot step {k}\n\nAt boot, step {k} mounts disk {k}.", "en")
            for k in range(6)
        },
    }
    app = _home(tmp_path, documents)
    try:
        record = app.ask("How do I enable Secure Boot?", OPERATOR)
    finally:
        app.close()
    assert record.abstained, record.answer
    assert record.trace["off_topic"]
