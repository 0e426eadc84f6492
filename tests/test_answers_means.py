"""How-to answers that name the command ("…with a command such as adduser user group").

Debian's handbook answers "how do I add a user to a group" in three sentences: why one
would, an example, then "This can be achieved with a command such as adduser user
group." (German "Dies kann durch einen Befehl wie … erreicht werden", Russian "надо
выполнить команду …"). That last sentence names the means, which a how-to question
asks for, though it opens with no imperative; and a note ("Заметьте, что …",
"Beachten Sie, dass …") opens with one but asks for attention, not for an action.

- a sentence naming the command, tool or program to use holds an instruction;
- a note is no instruction.

The manual text is made up for these tests, after the handbook's."""

from __future__ import annotations

import pytest

from ragox.answer import Evidence, ExtractiveGenerator
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
