"""A command-line option the question asks about is a term of its own (issue 16, a new
user's questions): "Was bewirkt die Option -n bei netstat?" was answered with the
sentences around netstat's list of options ("Normale Aufrufe verwenden daher
Optionen …"), never with the item "-n, um die Ergebnisse numerisch anzuzeigen", which
holds no other word of the question. Text from the Debian Administrator's Handbook
(GPL-2+), §10.9.1, shortened."""

from __future__ import annotations

import pytest

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator, score_sentences
from ragox.answer._extractive import ExtractiveConfig
from ragox.answer._support import OPTION_MARK, command_options

NETSTAT_DE = (
    "10.9.1. Lokale Diagnose: netstat\n\n"
    "Als erstes sei der Befehl netstat genannt (im Paket net-tools); er zeigt eine "
    "sofortige Zusammenfassung der Netzaktivitäten eines Rechners.\n\n"
    "Normale Aufrufe verwenden daher Optionen, um das Verhalten von netstat zu ändern. "
    "Die am häufigsten verwendeten Optionen sind:\n\n"
    "-t, dies filtert die Ergebnisse, so dass nur TCP-Verbindungen erfasst werden;\n\n"
    "-u, dies wirkt ähnlich für UDP-Verbindungen;\n\n"
    "-a, um auch die Sockets aufzulisten, die Verbindungen annehmen;\n\n"
    "-n, um die Ergebnisse numerisch anzuzeigen: IP-Adressen (keine DNS-Auflösung), "
    "Portnummern und Benutzer-IDs (keine Anmeldenamen);\n\n"
    "-p, um die beteiligten Prozesse aufzulisten; diese Option ist nur sinnvoll, wenn "
    "netstat mit Administratorrechten ausgeführt wird;\n\n"
    "-c, um fortlaufend die Liste der Verbindungen aufzufrischen.\n\n"
    "Andere Optionen, auf der Handbuchseite netstat(8) dokumentiert, bieten eine noch "
    "feinere Kontrolle über die angezeigten Ergebnisse. In der Praxis werden die fünf "
    "ersten Optionen so häufig zusammen benutzt, dass der Befehl netstat -tupan zu einem "
    "Reflex geworden ist."
)
NETSTAT_RU = (
    "10.9.1. Диагностика локального узла: netstat\n\n"
    "Давайте сначала рассмотрим команду netstat (в пакете net-tools); она показывает "
    "мгновенный срез суммарной информации о сетевой активности данной машины.\n\n"
    "Поэтому наиболее распространено применение команды netstat с параметрами, которые "
    "изменяют поведение программы. Наиболее часто используются следующие параметры:\n\n"
    "-t, отфильтровывает результат и показывает только соединения TCP;\n\n"
    "-u, которая работает также, только для соединений UDP;\n\n"
    "-a, также перечисляет прослушиваемые сокеты;\n\n"
    "-n, отображает результат в цифровом (небуквенном) виде: адреса IP (а не DNS "
    "разрешение), номер порта и идентификаторы пользователей;\n\n"
    "-p, перечисляет уже запущенные на данной машине процессы; этот параметр будет более "
    "полезен при запуске netstat от лица суперпользователя;\n\n"
    "-c, непрерывно обновлять перечень подключений.\n\n"
    "Другие параметры, описанные в страницах руководства netstat(8), позволяют более "
    "тонко настроить отображаемый программой результат."
)


def test_the_options_a_question_writes() -> None:
    assert command_options("Was bewirkt die Option -n bei netstat?") == ["-n"]
    assert command_options("ls -l or ls --color=auto, and zstd --fast?") == [
        "-l",
        "--color",
        "--fast",
    ]
    # a word's hyphen, a range, a negative number, an arrow, a path are no options
    assert command_options("Is e-mail in 3-4 days at -5 degrees --> /usr/bin/-x ok?") == []


@pytest.mark.parametrize(
    ("question", "text", "item"),
    [
        ("Was bewirkt die Option -n bei netstat?", NETSTAT_DE, "-n, um die Ergebnisse numerisch"),
        ("Что делает параметр -n команды netstat?", NETSTAT_RU, "-n, отображает результат"),
    ],
)
def test_the_item_of_the_option_asked_about_is_quoted(question: str, text: str, item: str) -> None:
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert any(item in claim.text for claim in draft.claims), [c.text for c in draft.claims]


SEMODULE_DE = (
    "14.5.3.1. SELinux-Module verwalten\n\n"
    "semodule lädt die neue Konfiguration unmittelbar, es sei denn, Sie verwenden seine "
    "Option -n. Das Programm wirkt standardmäßig auf die aktuelle Konfiguration."
)


def test_another_programs_option_comes_after() -> None:
    """semodule's -n is no answer to a question about netstat's."""
    # weights of a home of manuals (the new user's): "bewirkt" is rarer there than
    # "netstat", and "Option" common
    idf = {"bewirk": 9.1, "option": 2.6, "netstat": 5.3}
    draft = ExtractiveGenerator(
        term_weights=lambda terms: {term: idf.get(term, 1.0) for term in terms}
    ).generate("Was bewirkt die Option -n bei netstat?", evidence_of(SEMODULE_DE, NETSTAT_DE))
    assert not draft.abstained
    assert "-n, um die Ergebnisse numerisch" in draft.claims[0].text
    assert not any("semodule" in claim.text for claim in draft.claims)
    # …nor does it hold netstat's option: a passage without the command holds none
    scoring = score_sentences(
        "Was bewirkt die Option -n bei netstat?",
        evidence_of(SEMODULE_DE, NETSTAT_DE),
        lambda terms: {term: idf.get(term, 1.0) for term in terms},
        ExtractiveConfig(),
    )
    semodule = next(s for s in scoring.sentences if s.evidence.source_id == "S1")
    assert OPTION_MARK + "-n" not in semodule.covered
    assert "option" in semodule.covered  # its words still count
    scoring = score_sentences(
        "Was bewirkt die Option -n bei netstat?",
        evidence_of(NETSTAT_DE),
        None,
        ExtractiveConfig(),
    )
    # the option's letter is no word of the question ("echo -n" holds no "n")
    assert all("n" not in s.covered for s in scoring.sentences)
    assert any(OPTION_MARK + "-n" in s.covered for s in scoring.sentences)


VIRSH = (
    "12.2.2. Managing Machines with virsh\n\n"
    "Now that the installation is done, let us see how to handle the available virtual "
    "machines. The first thing to try is to ask libvirtd for the list of the virtual "
    "machines it manages: # virsh -c qemu:///system list --all. Let's start our test "
    "virtual machine: # virsh -c qemu:///system start testkvm."
)


@pytest.mark.parametrize(
    "question",
    [
        "What does debsums -c do?",
        "Was bewirkt debsums -c?",
        "What does the -c option of debsums do?",
    ],
)
def test_an_option_of_a_command_no_passage_holds_is_held_nowhere(question: str) -> None:
    """ "virsh -c qemu:///system" is no answer to a question about debsums -c (a red-team
    pass: the option's weight made it one); the question's command is the word right
    before the option, or the first after it that names no option."""
    draft = ExtractiveGenerator().generate(question, evidence_of(VIRSH))
    assert all("virsh" not in claim.text for claim in draft.claims), draft.claims
