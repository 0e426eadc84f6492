"""How-to questions that the evidence only touches (issue 16, fourth round): an
instruction earns answerability credit, and manuals are full of instructions, so one
that shares a word or two with the question must not pass for its answer.

- the question's further terms that neither the sentence, its neighbours nor its
  section's heading contain lower a how-to answer's answerability
  (``ExtractiveConfig.uncovered_rest``);
- a how-to question whose weightiest term (more than half its weight) is absent is not
  answered at all (``ExtractiveConfig.subject_share``);
- a term in the heading of the sentence's section counts as covered.

The manual text is the Debian FAQ's (en, de, ru; licence: tests/data/realdocs-dev/
README.md), the questions are written for these tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.answer._blocks import has_instruction
from ragox.answer._extractive import units
from ragox.answer._support import support

KERNEL_EN = (
    "10.2. What tools does Debian provide to build custom kernels?\n\n"
    "Users who wish to (or must) build a custom kernel are encouraged to use the Debian "
    "package target included with recent versions of the kernel build system. After "
    "configuring the kernel, simply run the following command:\n\n"
    "make deb-pkg\n\n"
    "The new kernel package will be created in the directory one level above the kernel "
    "source tree, and it may be installed using dpkg -i."
)

CDROM_RU = (
    "2.4. Как установить Debian с компакт-дисков?\n\n"
    "Установка Debian с компакт-диска весьма проста: настройте свою систему на загрузку с "
    "компакт-диска, вставьте ваш установочный компакт-диск, перезагрузите компьютер. "
    "Ваша система запустит программу установки Debian."
)

BUILD_DE = (
    "5.4. Wie kann ich eine Entwicklungsumgebung installieren, um Pakete zu bauen?\n\n"
    "Wenn Sie auf Ihrem Debian-System Pakete bauen (erstellen) möchten, benötigen Sie eine "
    "grundlegende Entwicklungsumgebung, inklusive einem C-/C++-Compiler und einigen anderen "
    "essentiellen Paketen. Um diese Umgebung zu installieren, installieren Sie einfach das "
    "Paket build-essential."
)


def test_an_instruction_sharing_a_word_or_two_does_not_answer_how_to() -> None:
    """ "How do I sign a custom kernel package for Secure Boot?" shares "custom kernel
    package" with the FAQ's instructions for building one, not signing or Secure Boot:
    it is abstained on; without the penalty for the further uncovered terms it passes
    (narrowly: the penalty is small, as the margins it decides are)."""
    question = "How do I sign a custom kernel package for Secure Boot?"
    generator = ExtractiveGenerator()
    assert generator.generate(question, evidence_of(KERNEL_EN)).abstained
    lenient = ExtractiveGenerator(replace(generator.config, uncovered_rest=0.0))
    assert not lenient.generate(question, evidence_of(KERNEL_EN)).abstained


def test_how_to_questions_the_instruction_answers_are_still_answered() -> None:
    """The same passages answer the how-to questions they are about (en, ru)."""
    generator = ExtractiveGenerator()
    draft = generator.generate("How do I build a custom kernel?", evidence_of(KERNEL_EN))
    assert not draft.abstained
    assert any("make deb-pkg" in claim.text for claim in draft.claims)
    draft = generator.generate("Как установить Debian с компакт-диска?", evidence_of(CDROM_RU))
    assert not draft.abstained
    assert any("вставьте ваш установочный" in claim.text for claim in draft.claims)


def _index_weights(terms: Sequence[str]) -> dict[str, float]:
    """IDF as an index over the manual gives it: "Spülmaschine" in no document, the
    rest in many."""
    return {
        term: 5.0 if term.startswith("spul") or term.startswith("spül") else 3.0 for term in terms
    }


def test_a_how_to_question_whose_subject_is_absent_is_not_answered() -> None:
    """ "Wie baue ich eine Spülmaschine?": the dishwasher carries most of the question's
    weight and the manual never names it; "bauen" alone is no answer, though the
    sentence is an instruction. Without the rule it would be answered. (The weights are
    an index's: a rare word weighs more than one of the manual's subject. "Wie baue ich
    eine Spülmaschine ein?" asks for "einbauen", which the manual's "bauen" does not
    hold at all.)"""
    question = "Wie baue ich eine Spülmaschine?"
    generator = ExtractiveGenerator(term_weights=_index_weights)
    assert generator.generate(question, evidence_of(BUILD_DE)).abstained
    lenient = ExtractiveGenerator(
        replace(generator.config, subject_share=1.0), term_weights=_index_weights
    )
    assert not lenient.generate(question, evidence_of(BUILD_DE)).abstained
    # the manual's own subject is answered
    draft = generator.generate(
        "Wie installiere ich eine Entwicklungsumgebung zum Bauen von Paketen?",
        evidence_of(BUILD_DE),
    )
    assert not draft.abstained
    assert any("build-essential" in claim.text for claim in draft.claims)


def test_a_term_in_the_sections_heading_is_covered() -> None:
    """The weightiest term absent from a sentence and its neighbours but named by its
    section's heading is not uncovered; the others still count, apart from it."""
    weights = {"font": 3.0, "console": 2.0, "boot": 1.0, "change": 1.0}
    credits = {"change": 1.0}
    without = support(credits, None, None, weights, 0, True)
    assert without.uncovered == 3.0 / 7.0
    assert without.uncovered_rest == 3.0 / 7.0  # console and boot
    under = support(credits, None, None, weights, 0, True, {"font": 1.0, "console": 1.0})
    assert under.uncovered == 1.0 / 7.0  # boot only
    assert under.uncovered_rest == 0.0


CD_EN = (
    "You can download a small CD image file, create a bootable CD from it, install the "
    "basic system from it and the rest over the network. Installing Debian from CD is "
    "straightforward: configure your system for booting off a CD, insert your CD, and "
    "reboot. Your system will now be running the Debian Installer."
)


def test_an_imperative_after_a_colon_is_an_instruction() -> None:
    """ "Installing Debian from CD is straightforward: configure your system …" instructs
    as "…, then change …" does (German and Russian imperatives after a colon already
    counted), so for a how-to question it comes before a description of another way
    that words more of the question."""
    assert has_instruction(
        "Installing Debian from CD is straightforward: configure your system for booting "
        "off a CD, insert your CD, and reboot."
    )
    assert not has_instruction("The setting is simple: the paper size is stored in a file.")
    draft = ExtractiveGenerator().generate("How do I install Debian from a CD?", evidence_of(CD_EN))
    assert not draft.abstained
    assert draft.claims[0].text.startswith("Installing Debian from CD is straightforward")


RUNLEVELS = {
    "en": (
        "Like most System V compatible Unices, Linux has 7 runlevels:\n\n"
        "0 (halt the system),\n\n1 (single-user mode),\n\n"
        "2 through 5 (various multi-user modes), and\n\n6 (reboot the system).\n\n"
        "Debian systems come with id=2."
    ),
    "de": (
        "Wie alle zu System V kompatiblen Unix-Systeme hat Linux 7 Runlevel:\n\n"
        "0 (das System anhalten),\n\n1 (Einzelbenutzer-Modus),\n\n"
        "2 bis 5 (verschiedene Mehrbenutzer-Modi) und\n\n6 (das System neu starten).\n\n"
        "Debian-Systeme haben »id=2« als Standardeinstellung."
    ),
    "ru": (
        "Как и в большинстве Uniх-ов, совместимых с System V, в Linux имеется 7 уровней "
        "запуска:\n\n0 (останов системы),\n\n1 (однопользовательский режим),\n\n"
        "с 2 по 5 (различные многопользовательские режимы), и\n\n6 (перезагрузка системы)."
        "\n\nВ системах Debian id=2."
    ),
}


def test_an_enumeration_after_a_colon_is_quoted_to_its_last_item() -> None:
    """The runlevels after "… has 7 runlevels:" are items ending with a comma or "and"
    ("und", "и"), no list markers: the quote takes all of them, not "0 (halt the
    system)," alone, and stops before the next sentence."""
    for language, text in RUNLEVELS.items():
        sentence, block = next((s, e) for s, e, block in units(text) if block)
        quote = text[sentence:block]
        assert quote.rstrip().endswith(")."), language
        assert "6 (" in quote and "id=2" not in quote, language


DEVICES_EN = (
    "Many device files in the /dev directory belong to some predefined groups. For "
    "example, /dev/sr0 belongs to the cdrom group. To give a user access to one of these "
    "devices, add them to the group that owns the device."
)
LISTFILES_EN = (
    "8.4. How do I display the files of an installed package?\n\n"
    "To list all the files provided by the installed package foo execute the command\n\n"
    "dpkg --listfiles foo\n\n"
    "Note that the files created by the installation scripts aren't displayed."
)
SEARCH_EN = (
    "8.5. How can I find out what package produced a particular file?\n\n"
    "To identify the package that produced the file named foo execute either:\n\n"
    "dpkg --search foo\n\n"
    "This searches for foo in installed packages."
)
FONT = {
    "ru": (
        # "задать", not "поменять": that is a synonym of the heading's "сменить", and
        # with it the heading answers without the section rule (ragox.search._synonyms)
        "Как задать шрифт в консоли при загрузке?",
        "Debian использует порядок загрузки в соответствии с зависимостями при помощи "
        "insserv. Программа start-stop-daemon используется для запуска служб при загрузке "
        "компьютера.",
        "11.3. Как в Debian правильно сменить консольный шрифт при запуске системы?\n\n"
        "Для этой задачи существуют пакет kbd, отредактируйте файл /etc/kbd/config.",
    ),
    "de": (
        "Wie ändere ich die Schrift der Konsole beim Booten?",
        "Debian verwendet abhängigkeits-basierte Boot-Reihenfolgen durch Nutzung von "
        "insserv; dafür werden die LSB-Header in jedem Skript unterhalb von /etc/init.d/ "
        "verwendet. Außerdem setzt Debian parallele Boot-Prozesse mittels startpar ein, um "
        "den Boot-Vorgang zu beschleunigen.",
        "11.3. Wie kann ich eine Konsolen-Schriftart auf Debian-Art beim Systemstart "
        "laden?\n\nDas Paket kbd lässt sich entsprechend konfigurieren. Editieren Sie dazu "
        "die Datei /etc/kbd/config.",
    ),
}


def test_the_section_titled_with_the_question_answers_it_wherever_it_ranks() -> None:
    """An FAQ's answer sits under the heading that asks the question, though it may
    repeat none of its words ("Для этой задачи …, отредактируйте файл /etc/kbd/config.")
    and lexical search may rank it second: it is quoted, ranked as if first. Without
    the rule the answer is abstained on."""
    generator = ExtractiveGenerator()
    off = ExtractiveGenerator(replace(generator.config, section_share=2.0))
    for language, (question, other, section) in FONT.items():
        draft = generator.generate(question, evidence_of(other, section))
        assert not draft.abstained, language
        assert all(claim.source_id == "S2" for claim in draft.claims), language
        assert any("/etc/kbd/config" in claim.text for claim in draft.claims), language
        assert off.generate(question, evidence_of(other, section)).abstained, language


def test_an_answer_under_a_question_heading_quotes_no_other_section() -> None:
    """ "How do I find out which package a given file belongs to?" is answered by section
    8.5; section 8.4's instruction (another question's answer) is not quoted beside it,
    as it is without the rule."""
    question = "How do I find out which package a given file belongs to?"
    evidence = evidence_of(DEVICES_EN, LISTFILES_EN, SEARCH_EN)
    generator = ExtractiveGenerator()
    draft = generator.generate(question, evidence)
    assert not draft.abstained
    assert "dpkg --search foo" in draft.claims[0].text
    assert {claim.source_id for claim in draft.claims} == {"S3"}
    off = ExtractiveGenerator(replace(generator.config, section_share=2.0))
    assert "S2" in {claim.source_id for claim in off.generate(question, evidence).claims}


VACATION_EN = (
    "3.2.4. Going on vacation gracefully\n\n"
    "It is common for developers to have periods of absence. In order to inform the other "
    "developers, there are two things that you should do. First send a mail to "
    "debian-private@lists.debian.org with [VAC] prepended to the subject of your message. "
    "The other thing to do is to mark yourself as on vacation in the Developers Database."
)


def test_the_first_step_after_an_announced_sequence_is_quoted() -> None:
    """ "… there are two things that you should do." is followed by its first step, "First
    send a mail to …" (an instruction, though "send" is in no list of imperatives): the
    step is quoted right after it, not skipped for the sentence before the section's
    point."""
    draft = ExtractiveGenerator().generate(
        "How do I inform the other developers that I am away?", evidence_of(VACATION_EN)
    )
    assert not draft.abstained
    quoted = [claim.text for claim in draft.claims]
    assert quoted[:2] == [
        "In order to inform the other developers, there are two things that you should do.",
        "First send a mail to debian-private@lists.debian.org with [VAC] prepended to the "
        "subject of your message.",
    ]
