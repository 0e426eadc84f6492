"""Extractive answers on manuals: "how long" questions, and questions that name an
operating system (a new-user pass over GnuCash's manual, nu13).

- "how long / wie lange / как долго" asks for a time: "wie lange behält GnuCash die
  alten Sicherungsdateien?" was answered by the sentences that repeat
  "Sicherungsdateien", not by "… die älter als 30 Tage sind";
- a manual says how to do a thing once per system, under a label each ("Linux",
  "macOS", "Windows"): "Wie kann ich unter Linux die Sprache umstellen?" was answered
  with the macOS and Windows paragraphs.

The manual text is made up for these tests (en, de, ru)."""

from __future__ import annotations

import pytest

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.answer._platforms import asked_platforms, labelled_platforms
from ragox.answer._support import AnswerKind, answer_kind, holds_answer_kind


@pytest.mark.parametrize(
    "question",
    [
        "how long does gnucash keep old backup files?",
        "For how long is a session kept?",
        "Wie lange behält GnuCash die alten Sicherungsdateien?",
        "Как долго хранятся резервные копии?",
        "Сколько дней хранится журнал?",
        "Сколько необходимо времени, чтобы изменения проявились?",
        "How long is the cable?",
    ],
)
def test_how_long_asks_for_a_time(question: str) -> None:
    assert answer_kind(question) is AnswerKind.DURATION


def test_an_age_and_a_count_are_no_time() -> None:
    """ "Сколько лет было …?" asks an age, "how many" a count: numbers, as before."""
    assert answer_kind("Сколько лет было Мэннингу?") is AnswerKind.NUMBER
    assert answer_kind("How many backups are kept?") is AnswerKind.NUMBER


@pytest.mark.parametrize(
    "sentence",
    [
        "Files older than 30 days are deleted.",
        "Dateien, die älter als 30 Tage sind, werden gelöscht.",
        "Копии хранятся в течение двух недель.",
        "It took several years.",
        "Wait an hour before you retry.",
        "The theatre was in operation from 1870 to 1939.",
        "The river is 1,230 km long.",
        "A name holds up to 255 characters.",
        "The logs are kept forever.",
        "A 5-minute timeout applies.",
        "ein Jahr",
        "nach 1 Jahr",
        "Хранится год.",
        "в течение суток",
        "полчаса",
        "It takes hours.",
        "Set a 500ms timeout.",
        "Ключ действует около года.",
        "It takes about a year.",
    ],
)
def test_a_time_or_a_length_says_how_long(sentence: str) -> None:
    assert holds_answer_kind(AnswerKind.DURATION, sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Wenn Sie von einer Version vor 2.4 aktualisieren, haben Sie .xac-Dateien.",
        "See Section 6.1 for the backup files.",
        "Der letzte Kurs jeder Woche bis zum Datum wird behalten.",
        "The backup was saved at 18:57 on April 4.",
        "Add an HTML tag to the page.",
        "Choose a second option.",
        "Print it in 3D.",
        "Many years ago it ran on a modem.",
        "It fixes a 3-year-old bug.",
        "It was popular in the 1990s.",
        "Read lines 100 to 200.",
        "Copyright 2001-2023 the authors.",
        "Press the 2 h key.",
        "See the release notes of 2023-06-10.",
        "Use RSA keys of 1024-2048 bits.",
        "It was common in the 90s.",
    ],
)
def test_a_version_a_reference_or_a_time_of_day_says_no_time(sentence: str) -> None:
    assert not holds_answer_kind(AnswerKind.DURATION, sentence)


BACKUPS = {
    "de": (
        "Sicherungsdateien. Die alten Sicherungsdateien liegen im Ordner der Datendatei. "
        "Um eine alte Sicherungsdatei wiederherzustellen, öffnen Sie die Sicherungsdatei "
        "mit GnuCash. Bei jedem Speichern entsteht eine. GnuCash löscht automatisch alle "
        "Sicherungsdateien, die älter als 30 Tage sind. Behalten müssen Sie natürlich "
        "Ihre Datendatei.",
        "Wie lange behält GnuCash die alten Sicherungsdateien?",
        "30 Tage",
    ),
    "en": (
        "Backup files. The old backup files of GnuCash are kept in the folder of the data "
        "file. To restore an old backup file, open the backup file with GnuCash. One is "
        "written whenever you save. GnuCash deletes backup files automatically when they "
        "are older than 30 days. You must of course keep your data file.",
        "how long does gnucash keep old backup files?",
        "30 days",
    ),
    "ru": (
        "Резервные копии. Старые резервные копии GnuCash хранятся в каталоге файла данных. "
        "Чтобы восстановить старую резервную копию, откройте файл резервной копии в "
        "GnuCash. Копия пишется при каждом сохранении. Резервные копии удаляются "
        "автоматически через 30 дней. Сам файл данных нужно хранить.",
        "Как долго GnuCash хранит старые резервные копии?",
        "30 дней",
    ),
}


@pytest.mark.parametrize("language", sorted(BACKUPS))
def test_how_long_is_answered_by_the_time_alone(language: str) -> None:
    """The sentence with the time answers, and the sentences that only repeat the
    question's words are not quoted beside it (the sentence right beside it may be, as
    it may say what the answer refers to)."""
    text, question, time = BACKUPS[language]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert [time in claim.text for claim in draft.claims] == [True], draft.claims


LANGUAGE_PAGE = (
    "Ändern der Sprache\n\n"
    "Die Sprache der Benutzeroberfläche kann nicht in den Einstellungen geändert werden.\n\n"
    "Linux\n\n"
    "Um die Sprache umzustellen, setzen Sie die Umgebungsvariablen LANGUAGE und LANG, "
    "bevor Sie das Programm starten.\n\n"
    "macOS\n\n"
    "Wenn Sie eine andere Sprache verwenden möchten, können Sie unter Apple → "
    "Systemeinstellungen → Sprache und Region die Sprache umstellen.\n\n"
    "Windows\n\n"
    "Stellen Sie die Sprache unter Start → Einstellungen → Zeit und Sprache um."
)


@pytest.mark.parametrize(
    ("question", "answer", "others"),
    [
        # the Linux paragraph, although the others repeat "Sprache" and "umstellen"
        (
            "Wie kann ich unter Linux die Sprache umstellen?",
            "LANGUAGE und LANG",
            ("Apple", "Start →"),
        ),
        (
            "Wie stelle ich unter Windows die Sprache um?",
            "Start → Einstellungen",
            ("Apple", "LANGUAGE"),
        ),
    ],
)
def test_a_question_on_one_system_is_not_answered_for_another(
    question: str, answer: str, others: tuple[str, ...]
) -> None:
    """Under "Linux", "macOS" and "Windows", a question gets its system's paragraph."""
    draft = ExtractiveGenerator().generate(question, evidence_of(LANGUAGE_PAGE))
    assert not draft.abstained
    quoted = " ".join(claim.text for claim in draft.claims)
    assert answer in quoted
    assert not any(other in quoted for other in others)


def test_a_lead_in_names_the_system_of_its_sentence() -> None:
    """ "Windows: Close …" and "Linux: Close …" in one paragraph."""
    text = (
        "To install the price module, follow the steps for your system. "
        "Windows: Close the program and run the installer from the start menu. "
        "Linux: Close the program and install the price module with cpan as root."
    )
    draft = ExtractiveGenerator().generate(
        "how do i install the price module on linux?", evidence_of(text)
    )
    quoted = " ".join(claim.text for claim in draft.claims)
    assert "cpan" in quoted and "start menu" not in quoted


def test_a_question_without_a_system_is_answered_from_any() -> None:
    draft = ExtractiveGenerator().generate(
        "Wie stelle ich die Sprache unter Apple um?", evidence_of(LANGUAGE_PAGE)
    )
    assert not draft.abstained
    assert "Apple" in draft.claims[0].text


def test_a_later_part_is_for_every_system() -> None:
    """A red-team pass: after "Linux" and "Windows", "Configuration" is for both; its
    sentence answers a Linux question (it abstained)."""
    text = (
        "Installation\n\nLinux\n\nInstall the package with apt.\n\nWindows\n\nRun the "
        "installer from the start menu.\n\nConfiguration\n\nThe configuration file is "
        "named config.ini and lives in your home folder."
    )
    draft = ExtractiveGenerator().generate(
        "Where is the configuration file on Linux?", evidence_of(text)
    )
    assert not draft.abstained
    assert "config.ini" in draft.claims[0].text


@pytest.mark.parametrize(
    ("question", "text", "answer"),
    [
        # a heading that holds "Windows" among other words names no system
        (
            "How do I close a register tab on Linux?",
            "Managing Windows\n\nTo close a register tab, click the close button on the "
            "tab or press Ctrl+W.",
            "Ctrl+W",
        ),
        # a sentence that names the asked system itself answers, whatever its label
        (
            "How do I set the language on Linux?",
            "Linux\n\nThe program starts from the applications menu of the desktop.\n\n"
            "Windows\n\nOn Linux you set the language with the environment variable LANG, "
            "on Windows in the control panel.",
            "LANG",
        ),
    ],
)
def test_labels_that_are_no_system_keep_their_sentences(
    question: str, text: str, answer: str
) -> None:
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert answer in draft.claims[0].text


def test_only_another_systems_sentences_are_answered_as_for_none() -> None:
    """When every sentence is for another system, the label may be read wrongly: the
    answer is scored as if the question named no system (a red-team pass)."""
    from ragox.answer import score_sentences

    text = "Windows\n\nTo open the log viewer, press F12 in the main window of the program."
    question = "How do I open the log viewer on Linux?"
    assert score_sentences(question, evidence_of(text)).sentences
    assert score_sentences(question, evidence_of(text), by_system=False).sentences


@pytest.mark.parametrize(
    ("question", "systems"),
    [
        ("how can I run gnucash in german on linux", {"linux"}),
        ("on windows 10, where is the data?", {"windows"}),
        ("Wie geht das unter Windows?", {"windows"}),
        ("how do I close all windows of the program?", set()),
        ("what is my MAC address?", set()),
        ("как установить на macOS?", {"macos"}),
        ("does it run on Ubuntu?", {"linux"}),
        ("How do I change the MAC of my network card?", set()),
        ("how do i install it on my mac", {"macos"}),
        ("Does it run on a Mac?", {"macos"}),
    ],
)
def test_the_systems_a_question_names(question: str, systems: set[str]) -> None:
    assert asked_platforms(question) == systems


def test_labels_that_name_systems() -> None:
    assert labelled_platforms("Mac OS X") == {"macos"}
    assert labelled_platforms("Unter Linux") == {"linux"}
    assert labelled_platforms("10.6.1. Linux") == {"linux"}
    assert labelled_platforms("Windows 10") == {"windows"}
    assert labelled_platforms("FreeBSD") == {"bsd"}
    assert labelled_platforms("BSD") is None  # a licence as often as a system
    assert labelled_platforms("Tabs and Windows") is None
    assert labelled_platforms("Managing Windows") is None
    assert labelled_platforms("MAC") is None
    assert labelled_platforms("Windows: Start → Einstellungen") == {"windows"}
    assert labelled_platforms("Tipp") is None
    assert labelled_platforms("Linux users set the variables LANGUAGE and LANG.") is None


@pytest.mark.parametrize(
    ("question", "text", "answer"),
    [
        (
            "How long does the first sync take?",
            "First sync. Many years ago the first sync ran over a modem. During the first "
            "sync, keep the program open. The first sync takes hours on a slow network.",
            "takes hours",
        ),
        (
            "how long can the account name be?",
            "Account names. The account name may be at most 64 letters. The account name is "
            "shown in the tree; some days it is hidden.",
            "64 letters",
        ),
        (
            "how long are old backups kept?",
            "Backups. Old backups are kept in the backup folder. Old backups are deleted "
            "after a fortnight.",
            "fortnight",
        ),
        (
            "Wie lange werden alte Sicherungen aufbewahrt?",
            "Sicherungen. Alte Sicherungen werden im Ordner aufbewahrt. GnuCash löscht alte "
            "Sicherungen nach einem Monat.",
            "nach einem Monat",
        ),
        (
            "Как долго хранятся старые копии?",
            "Копии. Старые копии хранятся в каталоге программы. Старые копии удаляются через "
            "неделю.",
            "через неделю",
        ),
    ],
)
def test_times_said_in_other_ways_answer_how_long(question: str, text: str, answer: str) -> None:
    """A red-team pass: "ein Jahr", "через неделю", "takes hours", "a fortnight", "64
    letters" are times and lengths; "many years ago" is none."""
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert answer in draft.claims[0].text


def test_how_long_ago_asks_no_time() -> None:
    assert answer_kind("how long ago was the release?") is not AnswerKind.DURATION


def test_a_new_section_or_a_parts_title_ends_a_systems_part() -> None:
    """A second red-team pass: an FAQ's question after "Windows" is for every system;
    a path or a caption inside "Windows" is no new part."""
    faq = (
        "GnuCash shows its menus in the language of your system.\n\nWindows\n\nOpen "
        "Start → Settings → Time and Language to change the display language.\n\nHow do "
        "I change the language of GnuCash only?\n\nSet the variables LANGUAGE and LANG "
        "in your environment before you start GnuCash."
    )
    draft = ExtractiveGenerator().generate(
        "How do I change the language of GnuCash on Linux?", evidence_of(faq)
    )
    assert not draft.abstained
    assert "LANGUAGE and LANG" in draft.claims[0].text
    inside = (
        "Language\n\nLinux\n\nGnuCash uses the language of the desktop session.\n\n"
        "Windows\n\nThe file environment lives in the folder\n\nC:\\Program Files\\gnucash"
        "\\etc\\gnucash\n\nSet LANG=de_DE in that file to change the language of GnuCash."
    )
    draft = ExtractiveGenerator().generate(
        "How do I change the language of GnuCash on Linux?", evidence_of(inside)
    )
    assert not any("LANG=de_DE" in claim.text for claim in draft.claims)


def test_long_lists_of_numbers_are_read_in_linear_time() -> None:
    """A second red-team pass: 8 kB of "1,2,3,…" took 15 s (backtracking)."""
    import time

    numbers = ",".join(str(k % 10) for k in range(20_000))
    started = time.process_time()
    holds_answer_kind(AnswerKind.DURATION, numbers)
    holds_answer_kind(AnswerKind.DURATION, "1." * 20_000)
    assert time.process_time() - started < 2.0
