"""How-to answers that name the command ("…with a command such as adduser user group").

Debian's handbook answers "how do I add a user to a group" in three sentences: why one
would, an example, then "This can be achieved with a command such as adduser user
group." (German "Dies kann durch einen Befehl wie … erreicht werden", Russian "надо
выполнить команду …"). That last sentence names the means, which a how-to question
asks for, though it opens with no imperative; and a note ("Заметьте, что …",
"Beachten Sie, dass …") opens with one but asks for attention, not for an action.

- a sentence naming the command, tool or program to use holds an instruction;
- a note is no instruction;
- "what is X?" ("was ist X?", "что такое X?") asks what X is: the sentence that says
  so ("X, the …, is another …", "X ist ein …", "X, или …, — …") comes first.

The manual text is made up for these tests, after the handbook's."""

from __future__ import annotations

import pytest

from ragox.answer import Evidence, ExtractiveGenerator, score_sentences
from ragox.answer._extractive import _asked_action
from ragox.answer._support import AnswerKind, answer_kind
from ragox.search import analyze_query
from ragox.text._instructions import has_instruction


@pytest.mark.parametrize(
    "sentence",
    [
        "This can be achieved with a command such as adduser user group.",
        "This can be done with the adduser command.",
        "Dies kann durch einen Befehl wie adduser Benutzer Gruppe erreicht werden.",
        "Sie ändern sie mit dem Befehl dpkg-reconfigure tzdata.",
        "Чтобы получить такой результат, надо выполнить команду adduser user group.",
        "Это делается с помощью команды apt.",
        # what a tool lets the reader do (the Securing Debian Manual's answer to "How do
        # I check the integrity of installed files?")
        "Installing debsums will also help you to check the file system integrity.",
        "aptitude allows you to hold a package at its current version.",
        # an imperative after a clause that sets a condition or a purpose
        "To keep the old version, set the package on hold.",
        "If you want to run testing, install the testing packages.",
        "Alternatively, use the web form of the bug tracker.",
        "As root, run the script once.",
    ],
)
def test_a_sentence_naming_the_command_to_use_is_an_instruction(sentence: str) -> None:
    assert has_instruction(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Заметьте, что для восьмеричного представления возможна только установка всех прав.",
        "Обратите внимание на то, что файл может быть большим.",
        "Beachten Sie, dass dies lange dauern kann.",
        "The dpkg command is the base of the packaging system.",
        "Die Befehle groupadd und groupdel fügen eine Gruppe hinzu.",
        # a verb of an enumeration after a comma, in a statement: it was taken for an
        # imperative after a condition, and the sentence outranked the one with debsums
        "It is most likely that an effective intrusion will modify some files in the "
        "local file system in order to circumvent local security policy, install "
        "Trojans, or create users.",
    ],
)
def test_a_note_or_a_command_named_in_passing_is_no_instruction(sentence: str) -> None:
    assert not has_instruction(sentence)


def test_a_how_to_answer_quotes_the_sentence_naming_the_command() -> None:
    """Beside sentences that share the question's words in passing (the handbook's
    answer quoted these and not the command before)."""
    texts = (
        "In some cases, it will be useful to add a user to a group (other than their "
        "default main group) in order to grant them additional permissions. For "
        "example, a user who is included in the audio group can access audio devices. "
        "This can be achieved with a command such as adduser user group.",
        "For files, it adds the executable bit only if at least one of the users (owner, "
        "group, or others) already has executable permissions.",
        "TIP Add your user to the libvirt group",
    )
    evidence = [
        Evidence(f"S{n}", f"doc{n}", "r1", f"m{n}", (f"c{n}",), 0, len(text), text)
        for n, text in enumerate(texts, start=1)
    ]
    draft = ExtractiveGenerator().generate("How do I add a user to a group?", evidence)
    assert not draft.abstained
    quoted = [claim.text for claim in draft.claims]
    assert "This can be achieved with a command such as adduser user group." in quoted


@pytest.mark.parametrize(
    ("question", "texts", "expected"),
    [
        (
            "What is LVM?",
            (
                "Both RAID and LVM bring indisputable advantages as soon as one leaves "
                "the simple case of a desktop computer with a single hard disk.",
                "LVM, the Logical Volume Manager, is another approach to abstracting "
                "logical volumes from their physical supports.",
            ),
            "LVM, the Logical Volume Manager, is another approach",
        ),
        (
            "Was ist LVM?",
            (
                "Sowohl RAID als auch LVM bieten unbestreitbare Vorteile, sobald man den "
                "einfachen Fall eines Arbeitsplatzrechners verlässt.",
                "LVM, der Logical Volume Manager, ist ein weiterer Ansatz zur Abstraktion "
                "logischer Volumes von ihren physischen Geräten.",
            ),
            "LVM, der Logical Volume Manager, ist ein weiterer Ansatz",
        ),
        (
            "Что такое LVM?",
            (
                "Как RAID, так и LVM предоставляют бесспорные преимущества, как только мы "
                "выходим за рамки простейшего случая настольного компьютера.",
                "LVM, или менеджер логических томов, — другой подход к абстрагированию "
                "логических томов от их физических носителей.",
            ),
            "LVM, или менеджер логических томов, — другой подход",
        ),
    ],
)
def test_a_what_is_question_is_answered_by_the_sentence_that_says_what_it_is(
    question: str, texts: tuple[str, str], expected: str
) -> None:
    """Before, both sentences matched the one word and the first passage's came first."""
    evidence = [
        Evidence(f"S{n}", f"doc{n}", "r1", f"m{n}", (f"c{n}",), 0, len(text), text)
        for n, text in enumerate(texts, start=1)
    ]
    draft = ExtractiveGenerator().generate(question, evidence)
    assert not draft.abstained
    assert draft.claims[0].text.startswith(expected)


@pytest.mark.parametrize(
    "question",
    [
        "What is the name of the river that flows through the capital?",
        "Was ist der Unterschied zwischen apt und aptitude?",
        "Что такое файл sources.list и где он лежит?",
    ],
)
def test_a_longer_what_question_asks_for_no_definition(question: str) -> None:
    assert answer_kind(question) is not AnswerKind.DEFINITION


def test_a_definition_of_something_else_earns_no_definition_credit() -> None:
    """ "Третий тип объектов — LV …" under an LVM heading defines LV, not LVM."""
    text = (
        "Принципы работы LVM\n\n"
        "Третий тип объектов — LV (логический том), который является частью VG."
    )
    evidence = [Evidence("S1", "doc1", "r1", "m1", ("c1",), 0, len(text), text)]
    scoring = score_sentences("Что такое LVM?", evidence)
    assert scoring.sentences
    assert not any(sentence.support.answer_kind for sentence in scoring.sentences)


def test_the_sentence_that_says_how_follows_the_one_that_names_it() -> None:
    """GIMP's clone tool: "… you must tell GIMP which image you want to copy from." then
    "You do this by holding down the Ctrl key and clicking in the desired source
    image." The second is how, and was left out (a new-user pass over GIMP's help)."""
    text = (
        "The Clone tool uses the current brush to copy from an image or pattern. If you "
        "want to clone from an image, instead of a pattern, you must tell GIMP which "
        "image you want to copy from. You do this by holding down the Ctrl key and "
        "clicking in the desired source image. Until you have set the source in this "
        "way, you will not be able to paint with the Clone tool."
    )
    evidence = [Evidence("S1", "doc1", "r1", "m1", ("c1",), 0, len(text), text)]
    draft = ExtractiveGenerator().generate(
        "How do I tell the clone tool which spot to copy from?", evidence
    )
    assert not draft.abstained
    assert any(claim.text.startswith("You do this by holding") for claim in draft.claims), [
        claim.text for claim in draft.claims
    ]


@pytest.mark.parametrize(
    ("question", "language", "verb"),
    [
        ("How can I limit how many backup copies KiCad keeps?", "en", "limit"),
        ("My eraser paints white. How do I fix that?", "en", "fix"),
        ("Wie kann ich die Anzahl der Sicherungen begrenzen?", "de", "begrenzen"),
        ("Wie ändere ich die Symbolgröße?", "de", "ändere"),
        ("Я отменил несколько действий и передумал — как вернуть отменённое?", "ru", "вернуть"),
    ],
)
def test_the_action_a_how_to_question_asks_for(question: str, language: str, verb: str) -> None:
    """Its how-to clause's first word, or its last after a German modal; what the reader
    told before it ("Я отменил …") is not what they ask to do. A setting must hold it
    to answer a how-to question (``test_answers_settings``)."""
    terms = [t for t in analyze_query(question, [language]) if t not in ("i", "ich")]
    assert _asked_action(question, terms, [language]) == analyze_query(verb, [language])[0]
