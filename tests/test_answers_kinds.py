"""Extractive answers on manuals, issue 16's sixth answer round: quantities, reasons,
the frequency and instruction tests, and a PDF's bullet list of steps.

- "how many / how much / how big", "wie viele / wie groß", "сколько / какого размера"
  ask for a quantity: a sentence without a number does not answer them at all, and a
  number that says how often ("every 15 minutes") is no quantity;
- "why / warum / почему" asks for a reason: a sentence that states one ("Das ist der
  Grund, weshalb …") earns the answerability credit a named tool earns "which tool";
- "at times" and "в этот раз" say no frequency ("times" and "раз" count after a count);
- the English imperatives ("install …", "start …") are no instruction in German text;
- in a PDF's text a list's items are lines: a bullet that introduces its own steps is
  quoted with those steps only, never with the next bullet's.

The manual text is made up for these tests (en, de, ru)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import OPERATOR, evidence_of, pdf_of_lines
from ragox.answer import ExtractiveGenerator, score_sentences
from ragox.answer._blocks import block_end
from ragox.answer._extractive import ExtractiveConfig
from ragox.answer._support import AnswerKind, answer_kind, holds_answer_kind
from ragox.service import Ragox
from ragox.text._instructions import has_instruction


@pytest.mark.parametrize(
    "question",
    [
        "How big may a repository on the forge be?",
        "How large is the archive?",
        "Wie groß darf ein Git-Repository auf Salsa höchstens sein?",
        "Какого размера может быть репозиторий?",
        "Сколько получает разработчик за пакет?",
    ],
)
def test_size_questions_ask_for_a_quantity(question: str) -> None:
    """ "how big", "wie groß", "какого размера" ask for a number, as "how many" does."""
    assert answer_kind(question) is AnswerKind.NUMBER


@pytest.mark.parametrize(
    "question",
    [
        "How can I limit how many backup copies of my project KiCad keeps?",
        "How do I change how often cron-apt runs?",
        "Wie kann ich einstellen, wie viele Sicherungen KiCad behält?",
        "Как изменить, сколько резервных копий хранит KiCad?",
    ],
)
def test_a_question_that_opens_with_how_to_asks_for_an_instruction(question: str) -> None:
    """ "How can I limit how many backup copies …?" abstained: "how many" made it a
    question for a count, and the setting that answers it has no number (a new-user
    pass over KiCad's manuals). What a question opens with decides."""
    assert answer_kind(question) is AnswerKind.INSTRUCTION


def test_a_frequency_is_no_quantity() -> None:
    """A number that says how often is no count or amount; one beside it still is."""
    assert not holds_answer_kind(AnswerKind.NUMBER, "Каталог сканируется каждые 15 минут.")
    assert not holds_answer_kind(AnswerKind.NUMBER, "The queue is scanned every 15 minutes.")
    assert holds_answer_kind(AnswerKind.NUMBER, "The archive holds 30000 source packages.")
    assert holds_answer_kind(
        AnswerKind.NUMBER, "Every 15 minutes the queue takes up to 200 uploads."
    )
    # a number as an adjective: a six-time winner
    assert holds_answer_kind(AnswerKind.NUMBER, "Шестикратный обладатель премии Грэмми.")
    assert holds_answer_kind(AnswerKind.NUMBER, "Die sechsfache Gewinnerin des Preises.")
    assert not holds_answer_kind(AnswerKind.NUMBER, "Das ist einfach zu bedienen.")
    # "how many times" asks how often: "twice a day" answers it
    assert answer_kind("How many times a day is testing updated?") is AnswerKind.FREQUENCY


@pytest.mark.parametrize(
    "sentence",
    [
        "For more information on the available distributions read Section 6.1.",
        "See chapter 3 for help when choosing a distribution.",
        "Weitere Informationen finden Sie in Abschnitt 4.2.",
        "Подробнее об этом см. в разделе 6.1.",
        "Die Regeln stehen in § 12 der Satzung.",
        "This was fixed in release 2.4.1 of the tool.",
    ],
)
def test_a_reference_to_a_part_of_the_document_is_no_quantity(sentence: str) -> None:
    """ "How many packages are in Debian?" is not answered by "read Section 6.1": the
    number names a section (or a version), it counts nothing."""
    assert not holds_answer_kind(AnswerKind.NUMBER, sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "In favorable circumstances, ctenophores can eat ten times their own weight in a day.",
        "Unter günstigen Bedingungen fressen sie zehnmal so viel, wie sie wiegen.",
        "При благоприятных условиях гребневики могут съесть в десять раз больше собственного веса.",
        "None of the original treaties mention protection for fundamental rights.",
        "Keiner der ursprünglichen Verträge erwähnt den Schutz der Grundrechte.",
        "Ни в одном из первоначальных договоров не упоминается защита основных прав.",
        "Der Großraum Los Angeles hat 17.786.419 Einwohner.",
    ],
)
def test_a_multiplier_none_and_a_grouped_number_are_quantities(sentence: str) -> None:
    """ "ten times their own weight" answers "how much …?" although "ten times" could
    say how often; "none" answers "how many …?"; "17.786.419" (German digit groups) is
    a number, not a section or version."""
    assert holds_answer_kind(AnswerKind.NUMBER, sentence)


def test_a_count_beside_a_reference_is_still_a_quantity() -> None:
    assert holds_answer_kind(AnswerKind.NUMBER, "Debian has over 59000 packages (see Section 6.1).")
    assert holds_answer_kind(AnswerKind.NUMBER, "Das Handbuch hat 300 Seiten.")
    assert holds_answer_kind(AnswerKind.NUMBER, "В разделе 2 описаны три дистрибутива.")


FORGE = {
    "en": (
        "4.4.5. The forge: Git repositories\n\n"
        "If you want to use a Git repository for your Debian work, you can use the forge "
        "of the project, a GitLab instance, for that purpose. The forge also offers "
        "merge requests, wikis and bug trackers for every repository.",
        "How big may a Git repository on the forge of the project be?",
    ),
    "de": (
        "4.4.5. Die Schmiede: Git-Depots\n\n"
        "Wenn Sie ein Git-Repository für Ihre Debian-Arbeiten verwenden möchten, können "
        "Sie zu diesem Zweck die Schmiede des Projekts verwenden, eine GitLab-Instanz. "
        "Die Schmiede bietet auch Zusammenführungsanfragen und Wikis für jedes Repository.",
        "Wie groß darf ein Git-Repository auf der Schmiede des Projekts höchstens sein?",
    ),
    "ru": (
        "4.4.5. Кузница: репозитории Git\n\n"
        "Если вы хотите использовать репозиторий Git для своей работы в Debian, вы можете "
        "использовать для этого кузницу проекта, экземпляр GitLab. Кузница также "
        "предлагает запросы на слияние и вики для каждого репозитория.",
        "Какого размера может быть репозиторий Git в кузнице проекта?",
    ),
}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_a_size_question_is_not_answered_without_a_number(language: str) -> None:
    """The sentences repeat the question's words but state no size: abstained."""
    text, question = FORGE[language]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert draft.abstained, [c.text for c in draft.claims]


def test_a_size_question_is_answered_by_the_sentence_with_the_size() -> None:
    """With the size stated, the same question is answered by that sentence."""
    text, question = FORGE["en"]
    text += " A Git repository on the forge of the project may hold at most 2 GB."
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert "2 GB" in draft.claims[0].text


def test_times_and_raz_after_a_count_only() -> None:
    """ "three times a day", "несколько раз" say how often; "at times", "в этот раз"
    do not."""
    says = ["The mirror is synced three times a day.", "Проверка идёт несколько раз в час."]
    not_says = [
        "At times the mirror lags behind the archive.",
        "В этот раз архив обновили вручную.",
    ]
    assert all(holds_answer_kind(AnswerKind.FREQUENCY, s) for s in says)
    assert not any(holds_answer_kind(AnswerKind.FREQUENCY, s) for s in not_says)


GERMAN_DEFINITION = (
    "install (installieren) - der Benutzer möchte das Paket installiert oder aktualisiert haben;"
)


def test_english_imperatives_are_no_instruction_in_german_text() -> None:
    """A German line opening with "install" is a definition, not an instruction; an
    English sentence left untranslated in a German manual still instructs."""
    assert not has_instruction(GERMAN_DEFINITION, "de")
    assert not holds_answer_kind(AnswerKind.INSTRUCTION, GERMAN_DEFINITION)
    assert holds_answer_kind(AnswerKind.INSTRUCTION, "Run lintian on the package.")
    assert holds_answer_kind(
        AnswerKind.INSTRUCTION,
        "Use the link on the portal to log in and request emeritus status.",
    )
    # German instructions are still found in German text
    assert has_instruction("Wenn das fehlt, fügen Sie den Benutzer der Gruppe hinzu.", "de")
    # search passes no language: its test is the same as before
    assert has_instruction(GERMAN_DEFINITION)


STEPS = [
    "Setting up the machine",
    "Two parts of the machine need setting up after the installation.",
    "• To configure the network interface:",
    "1. Edit the file /etc/network/interfaces.",
    "2. Run ifup eth0 to bring the interface up.",
    "• To configure the printer spooler:",
    "1. Install the cups package.",
    "2. Open http://localhost:631 in a browser.",
]


def test_a_bullets_steps_end_at_the_next_bullet() -> None:
    """A bullet introducing steps, in text whose list items are lines (a PDF's): the
    block is its own steps, up to the next bullet of the same list."""
    text = "\n".join(line.replace("•", "·") for line in STEPS)
    opening = text.index("· To configure the network")
    intro_end = text.index("\n", opening)
    end = block_end(text, intro_end, True, None, opening)
    assert end is not None
    assert text[opening:end].endswith("2. Run ifup eth0 to bring the interface up.")


def test_a_pdf_bullet_list_of_steps_is_quoted_to_its_own_last_step(tmp_path: Path) -> None:
    """Asked how to configure the network, a PDF manual's answer quotes that bullet and
    its two steps, and nothing of the printer's bullet."""
    pdf = tmp_path / "setup.pdf"
    pdf.write_bytes(pdf_of_lines(STEPS))
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(pdf, tmp_path, document_id="setup")
        record = app.ask("How do I configure the network interface?", OPERATOR)
    finally:
        app.close()
    assert not record.abstained
    quoted: Sequence[str] = [c.text for c in record.claims]
    joined = "\n".join(quoted)
    assert "Edit the file /etc/network/interfaces." in joined
    assert "Run ifup eth0" in joined
    assert "printer" not in joined and "cups" not in joined


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("Why was the first release numbered 1.1?", "That is why the first release was 1.1."),
        ("Warum war die erste Version 1.1?", "Das ist der Grund, weshalb sie 1.1 war."),
        ("Почему первая версия имела номер 1.1?", "Поэтому первая версия имела номер 1.1."),
    ],
)
def test_why_asks_for_a_reason(question: str, sentence: str) -> None:
    """A why-question asks for a reason, and a sentence stating one holds it."""
    assert answer_kind(question) is AnswerKind.REASON
    assert holds_answer_kind(AnswerKind.REASON, sentence)
    assert not holds_answer_kind(AnswerKind.REASON, "The first release was 1.1.")


RELEASE = (
    "A.1. Release numbers\n\n"
    "Some vendors sold early development snapshots of the distribution on their own "
    "discs. A vendor once shipped a disc labelled 1.0 built from a development "
    "snapshot. That is the reason why the first official release was numbered 1.1 and "
    "not 1.0."
)


def test_a_sentence_stating_the_reason_answers_why() -> None:
    """Asked why, the sentence that states the reason comes first and earns the
    answerability credit of a held answer kind."""
    question = "Why was the first official Debian release numbered 1.1?"
    kind = answer_kind(question)
    scoring = score_sentences(question, evidence_of(RELEASE))
    best = scoring.sentences[0]
    assert "the reason why" in RELEASE[best.start : best.end]
    config = ExtractiveConfig()
    with_reason = config.answerability(best.support, kind)
    without = config.answerability(replace(best.support, answer_kind=False), kind)
    assert with_reason == without + config.instruction_evidence
