"""A warning is no answer to "how do I …?" (a red team's: "how can i fix the dpkg
database" was answered "Never do this to fix the database: rm -rf /var/lib/dpkg.", and
"wie repariere ich die paketdatenbank" with "Ein häufiger Fehler … ist: rm -rf …")."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import answers_over
from ragox.text._instructions import warns_against


@pytest.mark.parametrize(
    ("sentence", "warns"),
    [
        ("Never do this to fix the database: rm -rf /var/lib/dpkg.", True),
        ("A common mistake when fixing permissions is: chmod -R 777 /var/www.", True),
        ("Do not run the installer as root.", True),
        ("Ein häufiger Fehler beim Reparieren der Paketdatenbank ist: rm -rf /var/lib/dpkg.", True),
        ("Niemals die Datei /etc/sudoers direkt bearbeiten.", True),
        ("Никогда не удаляйте каталог /var/lib/dpkg.", True),
        ("Не запускайте установщик от имени root.", True),
        # what to do, even beside a "not"
        ("Do not forget to run apt update first.", False),
        ("Restore the status file from /var/backups.", False),
        ("If the file does not exist, run dpkg --configure -a.", False),
        ("Wenn das nicht hilft, führen Sie dpkg --configure -a aus.", False),
    ],
)
def test_a_warning_is_told_from_a_step(sentence: str, warns: bool) -> None:
    assert warns_against(sentence) is warns


DOCS = {
    "perms": "Permissions of the web root\n\n"
    "The web server only needs to read the files of the document root. The owner of the "
    "files should be your deploy user, and the group should be www-data with read "
    "access. A common mistake when fixing permissions is: chmod -R 777 /var/www.\n",
    "dpkg": "The package database\n\n"
    "The package database lives in /var/lib/dpkg and is backed up daily to /var/backups. "
    "Restoring the status file from the backup repairs most damage. Never do this to fix "
    "the database: rm -rf /var/lib/dpkg.\n",
    "logs": "Logging\n\nEach service writes its messages to the journal. Old entries are "
    "removed after a month.\n",
}


@pytest.mark.parametrize(
    "question",
    [
        "how can i fix the dpkg database",
        "How do I repair the package database?",
        "How do I fix the permissions of /var/www?",
    ],
)
def test_what_not_to_do_is_never_quoted_as_the_way(tmp_path: Path, question: str) -> None:
    files = {f"{name}.txt": text for name, text in DOCS.items()}
    (record,) = answers_over(tmp_path, files, [question], "en")
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert not any("rm -rf" in q or "777" in q for q in quotes), quotes
