"""How the extractive generator composes an answer from manual text (issue 16, third
round): section headings are no claims, a sentence that refers back comes with the
sentence it refers to, an instruction comes with its next step, advice and imperatives
after a condition are instructions, a how-to question is not answered by a description,
and the asker's pronouns are no terms of the question."""

from __future__ import annotations

from dataclasses import replace

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.answer._blocks import has_instruction

MIGRATE_EN = (
    "3.2.3. I'm using Knoppix/LMDE/Ubuntu/... and now I want to use Debian. "
    "How do I migrate?\n\n"
    "Consider the change from a Debian-based distribution to Debian just like a change "
    "from one operating system to another one. You should make a backup of all your data "
    "and reinstall the operating system from scratch."
)


def test_the_sentences_of_a_numbered_heading_are_not_quoted() -> None:
    """An FAQ heading's statement ("3.2.3. I'm using … Ubuntu … and now I want to use
    Debian.") names the asker's situation: it is no claim, though it shares the most
    words with the question; the section's advice is quoted."""
    draft = ExtractiveGenerator().generate(
        "How should I move from Ubuntu to Debian?", evidence_of(MIGRATE_EN)
    )
    assert not draft.abstained
    assert not any("3.2.3" in claim.text or "Knoppix" in claim.text for claim in draft.claims)
    assert any("make a backup" in claim.text for claim in draft.claims)


def test_a_numbered_step_is_still_quoted() -> None:
    """A step numbered "2." is an instruction, not a heading."""
    text = (
        "To replace the disk, follow these steps.\n\n"
        "1. Shut the server down and unplug it.\n\n"
        "2. Slide out the disk tray and insert the new disk in the free slot."
    )
    draft = ExtractiveGenerator().generate("How do I insert the new disk?", evidence_of(text))
    assert not draft.abstained
    assert any("insert the new disk" in claim.text for claim in draft.claims)


def test_a_sentence_that_refers_back_comes_with_its_antecedent() -> None:
    """ "Dort finden Sie einen Eintrag …" says where only with the sentence before it
    ("Werfen Sie einen Blick in die Datei /etc/apt/sources.list."); both are quoted, in
    the passage's order."""
    text = (
        "Das lässt sich meistens leicht klären. Werfen Sie einen Blick in die Datei "
        "/etc/apt/sources.list. Dort finden Sie den Eintrag der Distribution, die Ihr "
        "Rechner verwendet, wie diesen:\n\ndeb http://ftp.de.debian.org/debian/ unstable main"
    )
    draft = ExtractiveGenerator().generate(
        "Wie finde ich heraus, welche Distribution mein Rechner verwendet?", evidence_of(text)
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert any(t.startswith("Dort finden Sie") for t in texts)
    assert "Werfen Sie einen Blick in die Datei /etc/apt/sources.list." in texts
    assert texts.index("Werfen Sie einen Blick in die Datei /etc/apt/sources.list.") < next(
        i for i, t in enumerate(texts) if t.startswith("Dort")
    )
    assert not any("leicht klären" in t for t in texts)


def test_an_instruction_comes_with_its_next_step() -> None:
    """For a how-to question, the instruction right after the best one in its paragraph
    is its next step and is quoted, though it repeats no word of the question."""
    text = (
        "Betrachten Sie den Wechsel von Ubuntu zu Debian wie einen Wechsel des "
        "Betriebssystems. Legen Sie Sicherungskopien Ihrer Daten an und installieren Sie "
        "alles von Grund auf neu.\n\n"
        "Knoppix ist ein gutes Vorführsystem."
    )
    draft = ExtractiveGenerator().generate(
        "Wie steige ich von Ubuntu auf Debian um?", evidence_of(text)
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert texts[0].startswith("Betrachten Sie")
    assert any(t.startswith("Legen Sie Sicherungskopien") for t in texts)
    assert not any("Knoppix" in t for t in texts)


def test_advice_and_imperatives_after_a_condition_are_instructions() -> None:
    """ "…, then change …", "…, dann ändern Sie …", advice to the reader ("You should",
    "Sie sollten", "Вам нужно") and any Russian polite imperative opening a sentence are
    instructions; statements and modals of possibility are not."""
    for text in (
        "If you want to run testing, then change the third field to 'testing'.",
        "Wenn das Testing ist, dann ändern Sie das dritte Feld in »testing«.",
        "You should make a backup of all your data.",
        "Sie sollten Sicherungskopien Ihrer Daten anlegen.",
        "Вам нужно сделать резервную копию всех данных.",
        "Посмотрите файл /etc/apt/sources.list.",
        "Не забудьте сделать резервную копию данных.",
    ):
        assert has_instruction(text), text
    for text in (
        "The stable distribution is rock solid.",
        "Dann werden Sie sehen, dass es geht.",
        "Um das herauszufinden, können Sie im Archiv suchen.",
        "Пакеты можно обновлять сразу.",
    ):
        assert not has_instruction(text), text


def test_russian_advice_with_nado_is_an_instruction() -> None:
    """ "вам надо … указать" tells the reader what to do as "вам нужно" does (the Debian
    handbook's "Для активирования квоты … вам надо в явной форме указать опции usrquota
    и grpquota в файле /etc/fstab" was no instruction for "как включить квоты?")."""
    assert has_instruction("Для активирования квоты вам надо указать опции в /etc/fstab.", "ru")
    assert not has_instruction("Для активирования квоты надо 2 ГБ памяти.", "ru")
    # what the reader needs to know, or a need named in a clause, is no advice (red team)
    for text in (
        "Этот раздел расскажет всё, что вам надо знать об удалении пакетов.",
        "Удалять пакеты вам надо не всегда: неиспользуемые пакеты почти не занимают места.",
        "Часто спрашивают, зачем вам нужно удалять пакеты вообще.",
    ):
        assert not has_instruction(text, "ru"), text


NVIDIA = (
    "For example, to find out what experiences people have had with finding drivers for "
    "NVIDIA graphic cards under Debian, try searching the phrase NVIDIA Linux driver. "
    "This will show you all the posts that contain these strings."
)


def test_a_how_to_question_is_not_answered_by_a_description() -> None:
    """ "How do I install the proprietary NVIDIA driver?" is not answered by a sentence
    that only mentions NVIDIA drivers; without the penalty for a sentence that holds no
    instruction, it would be."""
    question = "How do I install the proprietary NVIDIA driver on Debian?"
    generator = ExtractiveGenerator()
    assert generator.generate(question, evidence_of(NVIDIA)).abstained
    lenient = ExtractiveGenerator(replace(generator.config, description=0.0))
    assert not lenient.generate(question, evidence_of(NVIDIA)).abstained
    # the same sentence still answers a question it describes
    assert not generator.generate(
        "What phrase should I search for NVIDIA drivers under Debian?", evidence_of(NVIDIA)
    ).abstained


def test_the_askers_pronouns_are_no_question_terms() -> None:
    """ "I" and "my" in a question say who asks: a passage full of "I" and "my" shares
    nothing with "How do I fix my dishwasher?"."""
    text = (
        "The kernel is built every night. Drivers are loaded at boot time. Packages are "
        "signed by their maintainers. I compiled the kernel with my own patches to fix the "
        "sound driver."
    )
    assert (
        ExtractiveGenerator().generate("How do I fix my dishwasher?", evidence_of(text)).abstained
    )


def test_a_how_many_question_needs_a_number() -> None:
    """ "Wie viele Tage hat ein Schaltjahr?" is not answered by a sentence that shares
    "Tage" and holds no number; a number in words answers a "how many" question."""
    text = (
        "Testing kann manchmal für Monate kaputt sein. Allerdings werden Probleme in "
        "vielen Fällen binnen Tagen behoben. Manchmal kann das Tage dauern."
    )
    question = "Wie viele Tage hat ein Schaltjahr?"
    generator = ExtractiveGenerator()
    assert generator.generate(question, evidence_of(text)).abstained
    lenient = ExtractiveGenerator(replace(generator.config, no_number=0.0))
    assert not lenient.generate(question, evidence_of(text)).abstained
    servers = "Produktive Server müssen 24 Stunden am Tag und sieben Tage die Woche laufen."
    draft = generator.generate(
        "Wie viele Tage die Woche müssen Server laufen?", evidence_of(servers)
    )
    assert not draft.abstained
    words = "Production servers have to work all day, seven days a week."
    draft = generator.generate("How many days a week must servers work?", evidence_of(words))
    assert not draft.abstained


def test_a_which_tool_question_is_answered_by_a_name() -> None:
    """ "Which tool …?" asks for a name written as an identifier ("cron-apt"): the sentence
    naming one answers it though it words the rest differently; without the credit for
    the asked kind it would be abstained on."""
    from ragox.answer._support import AnswerKind, answer_kind, holds_answer_kind

    text = (
        "Keeping your system up to date takes little work. You can use cron-apt; this "
        "tool updates the system at regular intervals using a cron job. By default it just "
        "updates the package list and downloads new packages."
    )
    question = "Which tool can upgrade the machine on a schedule through cron?"
    assert answer_kind(question) is AnswerKind.NAME
    assert answer_kind("В каком пакете поставляется руководство по политике?") is AnswerKind.NAME
    assert answer_kind("Welches Programm aktualisiert Debian zeitgesteuert?") is AnswerKind.NAME
    assert holds_answer_kind(AnswerKind.NAME, "Оно распространяется в пакете debian-policy.")
    assert not holds_answer_kind(AnswerKind.NAME, "It is the best tool for the job.")
    generator = ExtractiveGenerator()
    draft = generator.generate(question, evidence_of(text))
    assert not draft.abstained
    assert "cron-apt" in draft.claims[0].text
    without = ExtractiveGenerator(replace(generator.config, instruction_evidence=0.0))
    assert without.generate(question, evidence_of(text)).abstained


def test_neighbouring_quotes_that_refer_back_are_read_in_the_passages_order() -> None:
    """Quotes that are one stretch of a passage come in its order when a later one
    refers back ("By default it …", "Поэтому …"): best first, "it" and "therefore"
    pointed at nothing (new-user find). Quotes that do not refer back stay best first."""
    cron = (
        "9.5. Can I automatically update the system?\n\n"
        "Yes. You can use cron-apt; this tool updates the system at regular intervals "
        "using a cron job. By default it just updates the package list and downloads new "
        "packages, but without installing them.\n\nNote: Automatic upgrade of packages is NOT "
        "recommended in testing or unstable systems as this might bring unexpected "
        "behaviour and remove packages without notice."
    )
    draft = ExtractiveGenerator().generate(
        "Can I automatically update the system?", evidence_of(cron)
    )
    texts = [claim.text for claim in draft.claims]
    assert len(texts) >= 2 and any("By default it" in t for t in texts), texts
    assert texts == sorted(texts, key=cron.index)
    kernel = (
        "10.4. Можно ли безопасно удалить пакет со старой версией ядра и как это "
        "сделать?\n\nДа. Сценарий linux-image-NNN.prerm проверяет, не пытаетесь ли вы "
        "удалить работающее ядро. Поэтому вы можете удалить ненужные пакеты с образами "
        "ядра командой:\n\ndpkg --purge linux-image-NNN"
    )
    draft = ExtractiveGenerator().generate("Как удалить старое ядро?", evidence_of(kernel))
    texts = [claim.text for claim in draft.claims]
    assert len(texts) == 2 and texts[0].startswith("Сценарий"), texts


def test_a_quote_between_two_runs_joins_them_in_the_passages_order() -> None:
    """Chosen in the order C, A, B, with B between A and C: one stretch of the passage,
    read A, B, C (red-team note: the runs of A and of C were never joined, so "B, C"
    came before "A")."""
    from ragox.answer._extractive import ScoredSentence, _in_reading_order

    text = "The pump has a seal. This seal wears out. Therefore it is replaced yearly."
    (evidence,) = evidence_of(text)
    a, b, c = (
        ScoredSentence(evidence, start, end, None, 1.0)  # type: ignore[arg-type]
        for start, end in ((0, 20), (21, 41), (42, len(text)))
    )
    assert [s.start for s in _in_reading_order([c, a, b])] == [0, 21, 42]
