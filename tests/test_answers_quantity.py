"""Extractive answers to questions that name a quantity (a new-user pass over the
Ubuntu Packaging Guide, nu15).

"whats the default key size when generating a gpg key" was answered with "Next it will
ask you about the keysize.", the sentence that repeats the question's words, and not
with the one after it that says the size: "The default (currently 2048) is fine, but
4096 is more secure." A question that names a size, a port, a limit or a length asks
for a number, as "how many" does, and a sentence that says none is not its answer.

The manual text is made up for these tests (en, de, ru)."""

from __future__ import annotations

import pytest

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.answer._support import AnswerKind, answer_kind, holds_answer_kind


@pytest.mark.parametrize(
    "question",
    [
        "whats the default key size when generating a gpg key",
        "What is the maximum upload size?",
        "What is the size of the school's endowment?",
        "which port does the server listen on",
        "What's the line length limit?",
        "welche schlüsselgröße ist bei gpg standard",
        "Welcher Port ist voreingestellt?",
        "Was ist die maximale Zeilenlänge?",
        "какой порт использует сервер по умолчанию",
        "Какой максимальный размер файла?",
        "Какое количество копий хранится?",
    ],
)
def test_a_question_that_names_a_quantity_asks_for_a_number(question: str) -> None:
    assert answer_kind(question) is AnswerKind.NUMBER


@pytest.mark.parametrize(
    "question",
    [
        "What limits the Rankine cycle's efficiency?",  # a verb
        "What is the port of Hamburg known for?",  # a harbour
        "Which package contains the file?",
        "Welcher Export ist gemeint?",  # "port" inside another word
        "Welcher Transport ist günstiger?",
        # a tool that shows a size (a red team's case: the answer led with a size)
        "What command shows the size of a directory?",
        "Welcher Befehl zeigt die Dateigröße?",
        "какая команда показывает размер каталога",
    ],
)
def test_other_questions_ask_for_no_number(question: str) -> None:
    assert answer_kind(question) is not AnswerKind.NUMBER


@pytest.mark.parametrize(
    "sentence",
    [
        "Send it with gpg --send-keys 43CDE61D to the server.",  # a key id
        "Compare it with sha256sum.",
        "The root file system is ext4 on x86 and i386.",
    ],
)
def test_digits_inside_a_name_are_no_number(sentence: str) -> None:
    assert not holds_answer_kind(AnswerKind.NUMBER, sentence)


@pytest.mark.parametrize(
    "sentence",
    ["It is 2048.", "It needs 256MB.", "A 1.5GHz processor.", "Its id is 4096R/43CDE61D."],
)
def test_a_number_with_or_without_a_unit_is_one(sentence: str) -> None:
    assert holds_answer_kind(AnswerKind.NUMBER, sentence)


KEYS = {
    "en": (
        "Create your GPG key\n\nTo generate a new GPG key, run gpg --gen-key. GPG will first "
        "ask you which kind of key you want to generate. Next it will ask you about the "
        "keysize. The default (currently 2048) is fine, but 4096 is more secure. Then "
        "send it to the key server with gpg --send-keys 43CDE61D.",
        "whats the default key size when generating a gpg key",
        "2048",
    ),
    "de": (
        "GPG-Schlüssel erstellen\n\nGPG steht für GNU Privacy Guard und es implementiert "
        "den OpenPGP Standard, der es möglich macht, Nachrichten und Dateien zu signieren "
        "und zu verschlüsseln. Um einen neuen GPG-Schlüssel zu erstellen, führen Sie "
        "gpg --gen-key aus. Als nächstes werden Sie nach der Schlüsselgröße gefragt. Die "
        "Standardauswahl (zur Zeit 2048) ist zwar eine gute Wahl, aber 4096 bietet "
        "deutlich mehr Sicherheit. Schicken Sie den Schlüssel mit gpg --send-keys "
        "43CDE61D an den Schlüsselserver.",
        "welche schlüsselgröße ist bei gpg standard",
        "2048",
    ),
    "ru": (
        "Создание ключа GPG\n\nЧтобы создать новый ключ GPG, выполните gpg --gen-key. "
        "Затем GPG спросит размер ключа. Размер по умолчанию (сейчас 2048) подходит, "
        "но 4096 надёжнее. Отправьте ключ на сервер командой gpg --send-keys 43CDE61D.",
        "какой размер ключа gpg по умолчанию",
        "2048",
    ),
}


@pytest.mark.parametrize("language", sorted(KEYS))
def test_a_quantity_is_answered_by_the_sentence_with_the_number(language: str) -> None:
    """The sentence that says the size answers, not the one before it that repeats
    the question's words, nor the command with a key id."""
    text, question, number = KEYS[language]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert number in draft.claims[0].text, draft.claims
    assert not any("43CDE61D" in claim.text for claim in draft.claims), draft.claims
    # a further sentence without a number is quoted only right beside the answer's
    assert not any("OpenPGP" in claim.text for claim in draft.claims), draft.claims
