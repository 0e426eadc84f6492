"""What counts as an instruction (a command line, a step, an imperative) and as a
how-to question: the tests that search and answers share (``ragox.text._instructions``)."""

from __future__ import annotations

import pytest

from ragox.answer._blocks import block_end, runs_into_block
from ragox.text._instructions import asks_for_instructions, command_like, has_instruction


@pytest.mark.parametrize(
    "line",
    [
        "make deb-pkg",
        "make all",
        "apt full-upgrade",
        "debdiff package_1-1_arch.changes package_2-1_arch.changes",
        "dpkg --listfiles foo",
        "$ ls /etc",
        # a relative path, alone or after a verb
        "debian/rules",
        "Edit debian/rules",
    ],
)
def test_command_lines_are_commands(line: str) -> None:
    """Short lines opening with a program name, or with options or a prompt, are commands."""
    assert command_like(line)


@pytest.mark.parametrize(
    "line",
    [
        # a definition list's item: a lowercase term, then prose with a clause
        "unknown (unbekannt) - der Benutzer hat nie angegeben, ob er das Paket will;",
        "to this:",
        "release 11, a.k.a. the stable distribution",
        "so that they work when your local list has an entry pointing at the mirror",
        # a numbered section's heading that names a path
        "1.3. Helpers for debian/rules",
        # prose that names a path, two sentences in one line, the second announcing
        # steps (the Securing Debian Manual's firewall section)
        "Sie können auch die Netzwerkkonfiguration in /etc/network/interfaces verwenden, "
        "um Ihre Firewall-Regeln einzurichten. Dafür müssen Sie Folgendes tun:",
        "The rules are kept in /etc/iptables.up.rules, as follows:",
        # a list's items that are prose cut into lines, with their function words
        "only applies to ext2 or ext3 file systems",
        "can be circumvented easily",
        # a table's one-letter key (aptitude's package states: "c", "-", "пакет был
        # удалён, но …")
        "c",
        "c\n\n-\n\nпакет был удалён, но его файлы настройки все ещё присутствуют.",
        # an HTML list's item of prose whose one slash joins two words, not a path's
        # parts (the Debian Administrator's Handbook on Simple-CDD's profiles)
        "the .preseed file contains preseeding information for Debconf questions (for the "
        "installer and/or for packages);",
        "the file debian/rules is the one that the build runs",
    ],
)
def test_prose_cut_into_lines_and_headings_are_not_commands(line: str) -> None:
    """A lowercase opening word is not enough for prose with a clause, a long line or a
    heading: none of them is a command line."""
    assert not command_like(line)
    assert not has_instruction(line)


def test_a_list_of_words_is_no_imperative() -> None:
    """English verbs inside an enumeration ("unknown, install, remove") instruct nobody."""
    assert not has_instruction("Was bedeuten unknown, install, remove, purge und hold im Status?")
    assert has_instruction("If the file is missing, install the package again.")


def test_lowercase_sie_is_no_polite_imperative() -> None:
    """Lowercase "sie" (they) after a comma is no instruction; "…, fügen Sie … hinzu" is."""
    assert not has_instruction("Er nennt die Pakete, denen sie vertrauen.")
    assert has_instruction("Wenn das fehlt, fügen Sie den Benutzer der Gruppe hinzu.")


@pytest.mark.parametrize(
    ("question", "how_to"),
    [
        ("How do I change the default editor?", True),
        ("Wie ändere ich die Zeitzone?", True),
        # …and the verb without its "e", as people type it (nu20: "wie kopier ich eine
        # ebene" was answered as a fact, with what the command does)
        ("wie kopier ich eine ebene", True),
        ("Das Bild ist zu groß. Wie krieg ich es kleiner?", True),
        # …not after a comma, where "wie" asks how long as often (a red team's)
        ("Sagen Sie mir, wie lang ich nach dem Ablauf noch Zugang habe.", False),
        ("Kannst du mir sagen, wie häufig ich das Passwort ändern soll?", False),
        ("wie seh ich aus", False),
        ("wie fand ich den Film", False),
        ("Wie alt bin ich?", False),
        ("Wie oft war ich krank?", False),
        ("Wie bin ich versichert?", False),
        ("Wie war ich im Test?", False),
        ("Wie viel Speicher brauche ich?", False),
        ("Как изменить часовой пояс?", True),
        # …after where (a new-user pass, nu16: "как в vim включить автосохранение"
        # was answered from vim's syntax highlighting, as a fact)
        ("как в vim включить автосохранение", True),
        ("Как на сервере узнать версию ядра?", True),
        ("Как в 1990 году назывался город?", False),
        ("How many packages are there?", False),
        ("What is the default editor?", False),
        # after what the reader tells first (a new-user pass over GIMP's help: these
        # were taken for questions after a fact, and the symptom was quoted, not the fix)
        ("My eraser paints white instead of see-through. How do I fix that?", True),
        ("the tab bar disappeared in single window mode, how do i get it back", True),
        ("Meine JPG-Datei ist zu groß, wie bekomme ich sie kleiner?", True),
        ("Я отменил несколько действий и передумал — как вернуть отменённое?", True),
        ("Я потерял файл. Как мне его найти?", True),
        # a "how" inside what the reader tells is no question of theirs
        ("Who knows how to run it?", False),
        ("What is the default editor, and how is it chosen?", False),
        ("Was ist ein Paket-Pinning?", False),
        # …nor one that asks no way to do something (a red team's cases)
        ("The database server was down on Monday. How could that happen?", False),
        ("Weißt du, wie lange man auf die Genehmigung wartet?", False),
        ("Das ist wichtig, wie viele braucht man?", False),
        ("Это важно, как часть процесса?", False),
        ("Кто отвечает за сети, как части инфраструктуры?", False),
    ],
)
def test_how_to_questions(question: str, how_to: bool) -> None:
    """A question that asks how to do something is told from one that asks a fact."""
    assert asks_for_instructions(question) is how_to


CHECKS = (
    "The checker looks for these problems:\n\n"
    "broken links\n\n"
    "missing licence file\n\n"
    "Python modules not compiled\n\n"
    "Шрифты без метрик\n\n"
    "missing icons, unknown symbols, size mismatches\n\n"
    "2.4. Other checkers\n\n"
    "The other checkers are described in their own manuals."
)


def test_a_list_of_bare_lines_is_quoted_whole() -> None:
    """A list whose items are lines without a marker goes on past an item that opens
    with a capital or a Cyrillic letter, and stops at the next numbered heading."""
    intro = "The checker looks for these problems:"
    end = block_end(CHECKS, len(intro), True)
    assert end is not None
    assert CHECKS[:end].endswith("missing icons, unknown symbols, size mismatches")
    # prose after an introducer is no list of bare lines
    prose = "It works as follows:\n\nFirst it reads the file. Then it checks it.\n\nMore text."
    assert prose[: block_end(prose, len("It works as follows:"), True)].endswith("checks it.")


@pytest.mark.parametrize(
    "sentence",
    [
        "First send a mail to debian-private@lists.debian.org with [VAC] in the subject.",
        "Then mark yourself as on vacation in the Developers Database.",
        "Finally, upload the package.",
        "Zuerst senden Sie eine E-Mail an debian-private@lists.debian.org.",
        "Danach markieren Sie sich in der Datenbank als abwesend.",
        "Во-первых, отправьте сообщение по адресу debian-private@lists.debian.org.",
        # a step's adverb before the imperative (KiCad's resistor color code calculator)
        "Чтобы воспользоваться им, сперва укажите точность резистора: 10%, 5%.",
        "Сначала выберите поле, которое требуется рассчитать.",
    ],
)
def test_a_step_of_a_sequence_is_an_instruction(sentence: str) -> None:
    """ "First …", "Then …", "Zuerst … Sie", "Во-первых, …": a step, whatever its verb."""
    assert has_instruction(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "First of all, the package must build from source.",
        "Then the system boots from the disk.",
        "Then dpkg and the rest of the package management system will see the change.",
        "Then apt will ask you to confirm.",
        "First released in 1991, the kernel grew fast.",
        "Second largest city in the country is Durban.",
        "Then came the war.",
        "Next you will see a menu.",
        "Dann werden Sie sehen, dass es geht.",
        "Danach können Sie im Archiv suchen.",
        "Он сперва проверяет файлы, затем пакеты.",
    ],
)
def test_a_narrative_sequence_is_no_instruction(sentence: str) -> None:
    """ "Then" before a subject, a past tense or a participle tells what happens."""
    assert not has_instruction(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Удаление: Пакет → Удалить (-) Отметить текущий пакет для удаления.",
        "Der Eintrag Datei → Speichern unter legt eine Kopie der Datei an.",
        "The menu item File → Save As writes a copy of the file.",
    ],
)
def test_a_path_through_menus_is_an_instruction(sentence: str) -> None:
    """A manual of a program with menus says which menu item does it: that path is the
    means a how-to question asks for, in any language, whatever verb form follows
    ("Отметить" is an infinitive, no imperative)."""
    assert has_instruction(sentence)


def test_an_arrow_between_words_on_two_lines_is_no_menu_path() -> None:
    """A path's arrow joins two words of one line; an arrow that ends one line and a
    word that opens the next is a diagram's, not a menu's."""
    assert not has_instruction("Das Paket wurde entfernt →\nsiehe unten.")


def test_a_numbered_sections_title_runs_into_nothing() -> None:
    """A title ends on a word, as a sentence that runs on into the command below it
    does; a numbered section's title introduces no block (its section's first
    paragraph was quoted with it as one)."""
    assert runs_into_block("To list the files of a package you can run the command")
    assert not runs_into_block("5.14.3.3. Konfiguration von Firewall-Regeln mittels ifup")


@pytest.mark.parametrize(
    "sentence",
    [
        "How to fix: Check the active layer in the Layers Dialog.",
        "Go to the Tool Options and make sure that Delete cropped pixels is checked.",
        "Hold down the Ctrl key and click in the source image.",
        "If the tab bar is gone, enable Show Tabs in the Windows menu.",
        "Drag the layer to the trash icon.",
        # a machine's manual
        "Replace the shaft seal of the pump after 2,000 operating hours.",
        "Disconnect power before opening the cover.",
    ],
)
def test_a_programs_window_is_worked_by_imperatives(sentence: str) -> None:
    """The imperatives of a program's manual (GIMP's help), not only of a shell's."""
    assert has_instruction(sentence, "en")


@pytest.mark.parametrize(
    "sentence",
    [
        "Close to half of users enable dark mode within a week.",
        "Move semantics of the theme engine changed in version 5.",
        "Hold times on the phone line average four minutes.",
        "Check marks show the selected layers.",
        "Delete key behaviour changed in this release.",
        "Insert mode is shown in the status bar.",
        "Go to statements are discouraged.",
        "Turn-around time for repairs is two days.",
    ],
)
def test_the_same_words_as_nouns_and_adverbs_are_no_imperatives(sentence: str) -> None:
    """A red team's cases: "Close to half of users …" outranked the sentence that says
    how to switch to dark mode."""
    assert not has_instruction(sentence, "en")


@pytest.mark.parametrize(
    ("sentence", "instructs"),
    [
        ("You do this by holding down the Ctrl key and clicking in the source image.", True),
        ("This is done by pressing the Enter key twice.", True),
        ("Dazu klicken Sie mit der rechten Maustaste auf die Ebene.", True),
        ("Dies erreichen Sie, indem Sie die Ebene duplizieren.", True),
        ("Для этого удерживайте клавишу Ctrl и щёлкните по изображению.", True),
        ("Это делается в диалоге слоёв.", True),
        # all there is to do (GIMP's help on fonts, which abstained)
        ("All you need to do is copy the file into the folder ~/.fonts.", True),
        (
            "Dann ist alles, was Sie tun müssen, um eine Schriftart hinzuzufügen, die Datei "
            "in das Verzeichnis ~/.fonts zu kopieren.",
            True,
        ),
        ("Всё, что вам нужно сделать, — скопировать файл в каталог ~/.fonts.", True),
        # it says what happens, not how it is done (and a red team's cases)
        ("You do this at your own risk.", False),
        ("Das geschieht automatisch beim Speichern.", False),
        ("Для этого нужна отдельная программа.", False),
        ("This is done by nothing more than a scheduled task.", False),
        ("This is done by evening on the tenth day.", False),
        ("Dies geschieht durch einen Cronjob.", False),
        ("Dazu kommen Sie nicht mehr.", False),
        ("Это делается автоматически.", False),
    ],
)
def test_how_what_was_named_is_done(sentence: str, instructs: bool) -> None:
    """The sentence after "… you must tell GIMP which image you want to copy from." says
    how: "You do this by holding down the Ctrl key and clicking …" (a new-user pass
    over GIMP's help: it was passed over for the sentence before it)."""
    cyrillic = "\u0400" <= sentence[0] <= "\u04ff"
    language = "ru" if cyrillic else "de" if sentence[0] == "D" else "en"
    assert has_instruction(sentence, language) is instructs


@pytest.mark.parametrize(
    ("sentence", "language", "instructs"),
    [
        # a command after a colon ends the sentence (nu21, the Debian Administrator's
        # Handbook: "wie installier ich ein heruntergeladenes .deb paket" quoted the
        # sentences on cleaning the cache after it instead)
        (
            "Wenn Ihnen das Paket als einfache .deb Datei vorliegt, ist es möglich, APT "
            "zu verwenden, mit einem einfachen Befehl: apt install ./Pfad-zur-Paket-deb.",
            "de",
            True,
        ),
        ("It is done with a simple command: apt install ./path-to-the-package.deb.", "en", True),
        ("Das geht so: apt install ./paket.deb.", "de", True),
        ("Чтобы установить пакет, выполните: dpkg -i пакет.deb", "ru", True),
        # …not a place, a note on an option, or a command named in prose
        ("The file is in: /etc/apt/sources.list.", "en", False),
        ("Die Datei liegt hier: /etc/fstab.", "de", False),
        ("Note: the --force option is dangerous.", "en", False),
        ("Two commands can be used: apt-get clean empties the directory.", "en", False),
        # …nor a label in a list of what a tool does (it answered "what changed between
        # two .deb files?" on the development set)
        ("Einige Anwendungsfälle sind: Alle Optionen anzeigen: dpkg-deb --help.", "de", False),
        # …nor what not to do, a list of values, files (a red team's)
        ("Never run this as root: rm -rf /var/lib/dpkg.", "en", False),
        ("Niemals als root ausführen: rm -rf /var/lib/dpkg.", "de", False),
        ("Mögliche Werte für den Befehl: auto | manual | off.", "de", False),
        ("Files: /etc/ssh/sshd_config /etc/ssh/ssh_config.", "en", False),
    ],
)
def test_a_command_after_a_colon_instructs(sentence: str, language: str, instructs: bool) -> None:
    assert has_instruction(sentence, language) is instructs
