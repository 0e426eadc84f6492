"""Answers from a manual's sections (issue 16), seen on the Securing Debian Manual
(`harden-doc`, GPL-2.0-or-later; the passages below quote it) asked as a new user
would: a section's title counts once for the sentence under it, a configuration of
several lines is quoted with the sentence that introduces it ("as in the example
below"), a footnote's mark is no quantity, and "What is the capital of …?" is not
answered from a passage that names the country only."""

from __future__ import annotations

import pytest

from ragox.access import Principal
from ragox.answer import Evidence, ExtractiveGenerator
from ragox.answer._blocks import display_text, list_runs, runs_into_block
from ragox.answer._extractive import ExtractiveConfig, _separable, score_sentences
from ragox.answer._pipeline import missing_terms
from ragox.answer._support import AnswerKind, TermMatcher, holds_answer_kind
from ragox.search import analyze_query
from ragox.service import Ragox
from ragox.text._instructions import has_instruction

OPERATOR = Principal.local_operator()

LILO = """<!DOCTYPE html>
<html lang="en"><head><title>4.4. Set a LILO or GRUB password</title></head><body>
<h2>4.4. Set a LILO or GRUB password</h2>
<p>Anybody can easily get a root-shell and change your passwords by entering
<code>&lt;name-of-your-bootimage&gt; init=/bin/sh</code> at the boot prompt. After
changing the passwords and rebooting the system, the person has unlimited root-access
and can do anything he/she wants to the system.</p>
<p>To make sure that this cannot happen, you should set a password for the boot
loader. You can choose between a global password or a password for a certain
image.</p>
<p>For LILO you need to edit the config file /etc/lilo.conf and add a password and
restricted line as in the example below.</p>
<pre>
  image=/boot/2.2.14-vmlinuz
     label=Linux
     read-only
     password=hackme
     restricted
</pre>
<p>Then, make sure that the configuration file is not world readable to prevent local
users from reading the password.</p>
</body></html>
"""

FAQ = """<!DOCTYPE html>
<html lang="en"><head><title>11. Customizing</title></head><body>
<h2>11.3. How can I make the console font change at boot time?</h2>
<p>There is the kbd package for this; edit /etc/kbd/config.</p>
<p>Fonts of other kinds are shipped by other packages.</p>
</body></html>
"""


def _quotes(app: Ragox, question: str) -> list[str]:
    record = app.ask(question, OPERATOR)
    assert not record.abstained, question
    return [citation.anchor.quote.exact for citation in record.citations]


def test_a_titles_words_count_once_for_the_sentence_after_it(app: Ragox) -> None:
    """The sentence right after "4.4. Set a LILO or GRUB password" had the title's
    words twice (as its previous unit's and as its section's title) and was quoted
    first, though it tells how an attacker gets a shell; now the sentences that say
    how to set the password are quoted, with the lines of lilo.conf introduced."""
    app.ingestor.ingest_bytes(LILO.encode(), "lilo.html", "lilo.html", tenant="default")
    quotes = _quotes(app, "How do I set a password for LILO?")
    assert not any(quote.startswith("Anybody can easily") for quote in quotes), quotes
    assert any(
        quote.startswith("For LILO you need to edit") and "password=hackme" in quote
        for quote in quotes
    ), quotes


def _support_of(question: str, text: str, opening: str):  # type: ignore[no-untyped-def]
    evidence = [Evidence("S1", "doc.html", "r1", "m-doc", ("c1",), 0, len(text), text)]
    scoring = score_sentences(question, evidence, None, ExtractiveConfig())
    return next(s.support for s in scoring.sentences if text[s.start : s.end].startswith(opening))


def test_a_title_is_not_also_the_previous_sentence_of_the_one_under_it() -> None:
    """The features behind the answer above: the sentence after a title gets the
    title's words as its section's (``heading``), not a second time as its
    neighbour's (``previous``)."""
    text = (
        "4.4. Set a LILO or GRUB password\n\n"
        "Anybody can easily get a root-shell and change your passwords at the boot "
        "prompt. After changing the passwords, the person has unlimited root-access."
    )
    features = _support_of("How do I set a password for LILO?", text, "Anybody")
    assert features.heading > 0.3
    assert features.previous == 0.0


def test_a_question_above_an_answer_is_its_previous_sentence() -> None:
    """Under an FAQ's question the answer says it in words of its own: the question's
    words count as its previous sentence's as well."""
    text = (
        "11.3. How can I make the console font change at boot time?\n\n"
        "There is the kbd package for this; edit /etc/kbd/config."
    )
    features = _support_of("How can I change the console font at boot?", text, "There is")
    assert features.heading > 0.3
    assert features.previous == features.heading


def test_under_a_question_the_sentence_after_it_is_still_its_answer(app: Ragox) -> None:
    """An FAQ's answer shares no word with the question above it: there the heading
    still counts as the sentence before the answer."""
    app.ingestor.ingest_bytes(FAQ.encode(), "faq.html", "faq.html", tenant="default")
    quotes = _quotes(app, "How can I change the console font at boot?")
    assert any("kbd package" in quote for quote in quotes), quotes


def test_the_lines_of_a_configuration_stay_lines() -> None:
    shown = display_text(
        "add a password and restricted line as in the example below.\n\n"
        "  image=/boot/2.2.14-vmlinuz\n     label=Linux\n     password=hackme\n     restricted"
    )
    assert shown.splitlines()[1:] == [
        "image=/boot/2.2.14-vmlinuz",
        "label=Linux",
        "password=hackme",
        "restricted",
    ]
    # prose broken over lines is still joined
    assert display_text("a sentence broken\nover two lines.") == "a sentence broken over two lines."
    # …and so is prose whose next line a plain-text manual indents with no-break spaces
    # (the Russian Debian FAQ: "… в Debian\n\xa0\xa0\xa0 сопровождающими …")
    assert display_text("каждому пакету в Debian\n\xa0\xa0\xa0 сопровождающими.") == (
        "каждому пакету в Debian сопровождающими."
    )


def test_a_commands_output_stays_on_its_own_line() -> None:
    """The Debian handbook's "$ date" and the date it prints, then the same command
    with another time zone: each line as the terminal showed it, not "$ date Thu Sep
    2 …" as if the date were the command's argument."""
    shown = display_text(
        "When you need to temporarily change the timezone, use the TZ environment\n"
        "variable:\n\n$ date\nThu Sep  2 22:29:48 CEST 2021\n"
        '$ TZ="Pacific/Honolulu" date\nThu 02 Sep 2021 10:31:01 AM HST'
    )
    assert shown.splitlines() == [
        "When you need to temporarily change the timezone, use the TZ environment variable:",
        "$ date",
        "Thu Sep  2 22:29:48 CEST 2021",
        '$ TZ="Pacific/Honolulu" date',
        "Thu 02 Sep 2021 10:31:01 AM HST",
    ]


def test_prose_wrapped_before_a_percent_sign_is_still_one_line() -> None:
    """A hard-wrapped German or Russian sentence whose line opens with "% " (red team)
    is prose, not a session at a prompt: joined as before; and a session's lines start
    after the prose that leads into it, with the output's indentation kept."""
    assert display_text(
        "Die Zahl der aktiven Nutzer stieg um etwa 20\n% auf insgesamt rund zwei Millionen."
    ) == ("Die Zahl der aktiven Nutzer stieg um etwa 20 % auf insgesamt rund zwei Millionen.")
    assert display_text("Доля выросла на 15\n% по сравнению с прошлым годом.") == (
        "Доля выросла на 15 % по сравнению с прошлым годом."
    )
    # a number after the mark is no command ("# 4711", an issue's number)
    assert display_text(
        "The fix landed in pull request\n# 4711 and was released with version\n2.3 of it."
    ).splitlines() == [
        "The fix landed in pull request",
        "# 4711 and was released with version 2.3 of it.",
    ]
    shown = display_text(
        "To see which version would be installed, run\napt-cache policy:\n"
        "$ apt-cache policy hello\nhello:\n  Installed: (none)\n  Candidate: 2.10-3"
    )
    assert shown.splitlines() == [
        "To see which version would be installed, run apt-cache policy:",
        "$ apt-cache policy hello",
        "hello:",
        "  Installed: (none)",
        "  Candidate: 2.10-3",
    ]


def test_a_footnotes_mark_is_no_quantity() -> None:
    sentence = (
        "With so much software, and even if the base system installation is quite "
        "reduced [6] you might get carried away and install more than is really needed."
    )
    assert not holds_answer_kind(AnswerKind.NUMBER, sentence)
    assert holds_answer_kind(AnswerKind.NUMBER, "The base system needs 256 MB of memory [6].")


CERTS = (
    "This is a list of some CERTs, for a full list look at the FIRST web site: "
    "http://www.auscert.org.au (Australia), http://www.unam-cert.unam.mx/ (Mexico), "
    "http://www.cert.funet.fi (Finland), http://www.dfn-cert.de (Germany)."
)


def test_what_a_question_defines_must_be_named_near_the_answer() -> None:
    """ "What is the capital of Australia?" shares only "Australia" with a list of CERTs:
    abstained on, as "What is the capital city of Australia, Canberra?" is answered by
    a passage that names the capital."""
    # the two words' weights in the manual's index: both rare there, "capital" the rarer
    weights = {"capit": 4.6, "australia": 4.1}
    generator = ExtractiveGenerator(
        term_weights=lambda terms: {term: weights.get(term, 1.0) for term in terms}
    )
    evidence = [Evidence("S1", "certs.html", "r1", "m-certs", ("c1",), 0, len(CERTS), CERTS)]
    assert generator.generate("What is the capital of Australia?", evidence).abstained
    capital = "Canberra is the capital of Australia, chosen as a compromise in 1908."
    answered = generator.generate(
        "What is the capital of Australia?",
        [Evidence("S1", "geo.html", "r1", "m-geo", ("c1",), 0, len(capital), capital)],
    )
    assert not answered.abstained


CHECKLIST = """<!DOCTYPE html>
<html lang="de"><head><title>B.2. Prüfliste der Konfiguration</title></head><body>
<h2>B.2. Prüfliste der Konfiguration</h2>
<p>Dieser Anhang wiederholt kurz Punkte aus anderen Abschnitten dieser Anleitung in
einem verdichteten Prüflisten-Format.</p>
<p>Beschränkung des physischen Zugriffs und der Boot-Fähigkeiten:</p>
<ul>
<li>Schalten Sie im BIOS das Booten von Diskette und CD-ROM ab.</li>
<li>Setzen Sie ein LILO- bzw. GRUB-Passwort (/etc/lilo.conf bzw. /boot/grub/menu.lst);
stellen Sie sicher, dass die Konfigurationsdatei von LILO oder GRUB nicht lesbar
ist.</li>
</ul>
<p>Partitionierung:</p>
<ul>
<li>Legen Sie Daten, die von Benutzern geschrieben wurden, und sich ständig ändernde
Laufzeitdaten auf eigenen, getrennten Partitionen ab.</li>
<li>Setzen Sie die Mount-Optionen nosuid,noexec,nodev in /etc/fstab bei Partitionen,
die keine ausführbaren Programme enthalten sollten.</li>
</ul>
</body></html>
"""


def test_a_checklists_next_label_does_not_go_on_about_the_answer(app: Ragox) -> None:
    """ "Partitionierung:" and its items come right after the item that answers: a block
    introduced by a label opens another part of the checklist, and it was quoted as if
    it went on about the GRUB password (as "The following checks are implemented:"
    goes on about the tool named before it)."""
    app.ingestor.ingest_bytes(
        CHECKLIST.encode(), "checklist.html", "checklist.html", tenant="default"
    )
    quotes = _quotes(app, "Wie setze ich ein Passwort für GRUB?")
    assert any("GRUB-Passwort" in quote for quote in quotes), quotes
    assert not any("Partitionierung" in quote or "Laufzeitdaten" in quote for quote in quotes)


SERVICES = (
    "Once you find any unwanted services, remove the associated package, or disable the "
    "service from starting automatically at boot time using update-rc.d."
)
BIOS = (
    "After installation you should go back to the BIOS and change the boot sequence to "
    "disable booting from floppy, CD-ROM and other devices that should not boot."
)


def _two_documents(first: str, second: str) -> list[Evidence]:
    return [
        Evidence("S1", "services.html", "r1", "m-1", ("c1",), 0, len(first), first),
        Evidence("S2", "bios.html", "r1", "m-2", ("c2",), 0, len(second), second),
    ]


def _weighted(table: dict[str, float]) -> ExtractiveGenerator:
    return ExtractiveGenerator(
        term_weights=lambda terms: {term: table.get(term, 1.0) for term in terms}
    )


def test_beside_a_sentence_holding_the_whole_question_another_documents_must_too() -> None:
    """ "How do I disable a service at boot?": the first sentence holds all three words;
    the BIOS sentence of another chapter holds "disable" and "boot" (a security
    manual's rarer words; "service" is on every page), scores nearly as well, and was
    quoted as the answer's second part. It is not now."""
    generator = _weighted({"servic": 1.0, "disabl": 3.0, "boot": 3.0})
    draft = generator.generate(
        "How do I disable a service at boot?", _two_documents(SERVICES, BIOS)
    )
    texts = [claim.text for claim in draft.claims]
    assert texts and texts[0].startswith("Once you find"), texts
    assert not any("BIOS" in text for text in texts), texts


def test_beside_a_best_sentence_holding_part_of_the_question_another_document_stays() -> None:
    """Where the best sentence holds part of the question it may be the wrong one: here
    the BIOS sentence leads (its chapter ranked first) without "service", the heaviest
    word, and the other document's sentence that holds it stays as a second answer."""
    services = "Use update-rc.d to disable the unwanted services."
    generator = _weighted({"servic": 2.5, "disabl": 2.0, "boot": 2.0})
    draft = generator.generate(
        "How do I disable a service at boot?", _two_documents(BIOS, services)
    )
    texts = [claim.text for claim in draft.claims]
    assert texts and "BIOS" in texts[0], texts
    assert services in texts, texts


ROOT_PROMPT = """<!DOCTYPE html>
<html lang="en"><head><title>4.6. Remove root prompt on the kernel</title></head><body>
<h2>4.6. Remove root prompt on the kernel</h2>
<div class="para">Linux 2.4 kernels provide a way to access a root shell while booting
which will be presented just after loading the cramfs file system.</div>
<div class="para">To remove the root prompt, rebuild the initrd image with the
following command:
<pre class="screen">
  # mkinitrd -o initrd.img-2.4.18-k7 /lib/modules/2.4.18-k7
</pre></div>
<div class="para">or (preferred):
<pre class="screen">
  # dpkg-reconfigure -plow kernel-image-2.4.x-yz
</pre></div>
<ul class="docnav"><li class="previous"><a accesskey="p" href="prev.html"><strong>Prev</strong>4.5.
Disable root prompt on the initramfs</a></li><li class="up"><a accesskey="u"
href="#"><strong>Up</strong></a></li><li class="home"><a accesskey="h"
href="index.html"><strong>Home</strong></a></li><li class="next"><a accesskey="n"
href="next.html"><strong>Next</strong>4.7. Restricting console login access</a></li></ul>
</body></html>
"""


def test_the_short_lines_after_a_prompted_command_are_not_its_block(app: Ragox) -> None:
    """A command typed at a prompt ends its block: the short lines after it are the
    page's navigation ("Prev 4.5. …", "Up", "Home", "Next 4.7. …"), which were quoted
    as items of a list without markers going on after the command."""
    app.ingestor.ingest_bytes(
        ROOT_PROMPT.encode(), "kernel-root-prompt.html", "kernel-root-prompt.html", tenant="default"
    )
    quotes = _quotes(app, "How do I reconfigure the kernel image?")
    assert any(
        quote.endswith("dpkg-reconfigure -plow kernel-image-2.4.x-yz") for quote in quotes
    ), quotes
    for word in ("Prev", "Home", "Next", "Restricting console"):
        assert not any(word in quote for quote in quotes), quotes


PACKAGE_STATES = """<!DOCTYPE html>
<html lang="ru"><head><title>Управление пакетами</title></head><body>
<h2>Значения флага «текущее состояние»</h2>
<table><tbody>
<tr><td><code>i</code></td><td>-</td><td>пакет установлен и все его зависимости
удовлетворены.</td></tr>
<tr><td><code>c</code></td><td>-</td><td>пакет был удалён, но его файлы настройки все
ещё присутствуют.</td></tr>
<tr><td><code>p</code></td><td>-</td><td>пакет и все его файлы настройки были удалены,
или пакет никогда не был установлен.</td></tr>
</tbody></table>
<h2>Команды управления пакетами</h2>
<table><tbody>
<tr><td>Установка: Пакет → Установить (+)</td><td><p>Отметить текущий пакет для
установки.</p><p>Если пакет не установлен, он будет установлен.</p></td></tr>
<tr><td>Удаление: Пакет → Удалить (-)</td><td><p>Отметить текущий пакет для
удаления.</p><p>Если пакет установлен, он будет удалён.</p></td></tr>
</tbody></table>
</body></html>
"""


def test_a_menu_path_answers_how_and_a_tables_letter_does_not(app: Ragox) -> None:
    """aptitude's Russian manual: "Как удалить пакет?" was answered from the table of
    package states ("c - пакет был удалён, но …"), its one-letter key taken for a
    command; the answer is the menu command "Пакет → Удалить (-)"."""
    app.ingestor.ingest_bytes(
        PACKAGE_STATES.encode(),
        "aptitude-commands.html",
        "aptitude-commands.html",
        tenant="default",
    )
    quotes = _quotes(app, "Как удалить пакет?")
    assert "Пакет → Удалить" in quotes[0], quotes
    assert not any("файлы настройки" in quote for quote in quotes), quotes


SSHD = """<!DOCTYPE html>
<html lang="en"><head><title>5.1. Securing ssh</title></head><body>
<h2>5.1. Securing ssh</h2>
<p>Ssh should be used for all remote logins instead of telnet.</p>
<p>Finally, the sshd_config file, in /etc/ssh, should be modified to increase security
as well:</p>
<div class="itemizedlist"><ul>
<li><div class="para">ListenAddress 192.168.0.1 Have ssh listen only on a given
interface, just in case you have more than one.</div></li>
<li><div class="para">PermitRootLogin no Try not to permit Root Login wherever
possible. If anyone wants to become root via ssh, now two logins are needed.</div></li>
<li><div class="para">PermitEmptyPasswords no Empty passwords make a mockery of system
security.</div></li>
</ul></div>
<p>Note that the sshd_config file is read again when the daemon restarts.</p>
</body></html>
"""


@pytest.mark.both_backends
def test_a_sentence_introducing_an_html_list_is_quoted_with_all_its_items(app: Ragox) -> None:
    """An HTML list's items carry no marker in the text, and each is a paragraph of
    sentences: the introducing sentence was quoted with its first item only (what a
    colon always takes). The extractor's list items make the whole list its block,
    and no paragraph after the list."""
    app.ingestor.ingest_bytes(
        SSHD.encode(), "sec-services.html", "sec-services.html", tenant="default"
    )
    quotes = _quotes(app, "How should the sshd_config file be modified to increase security?")
    introduced = next(quote for quote in quotes if quote.startswith("Finally, the sshd_config"))
    for setting in ("ListenAddress", "PermitRootLogin no", "PermitEmptyPasswords no"):
        assert setting in introduced, introduced
    assert "read again" not in introduced, introduced


def test_html_lists_are_read_from_the_blocks_locators() -> None:
    """Runs of blocks inside the items of one list, nested lists and an item's second
    paragraph included; a block located by its id, a paragraph outside the list and
    text between two items end a run; one item alone is no list. List items located by
    their ids make a list of their own."""
    text = "intro:\n\none\n\ntwo\n\ntwo b\n\nthree\n\nafter"
    at = {word: text.index(word) for word in ("one", "two", "two b", "three", "after")}
    blocks = [
        (at["one"], at["one"] + 3, "/html/body/ul/li[1]/div"),
        (at["two"], at["two"] + 3, "/html/body/ul/li[2]"),
        (at["two b"], at["two b"] + 5, "/html/body/ul/li[2]/ul/li"),
        (at["three"], at["three"] + 5, "/html/body/ul/li[3]/p"),
        (at["after"], at["after"] + 5, "/html/body/p[2]"),
    ]
    assert list_runs(text, blocks) == (
        ((at["one"], at["one"] + 3), (at["two"], at["two b"] + 5), (at["three"], at["three"] + 5)),
    )
    assert list_runs(text, [*blocks[:1], (at["two"], at["two"] + 3, "#item-2")]) == ()
    gap = "one\n\nnot an item\n\ntwo"
    assert list_runs(gap, [(0, 3, "/html/body/ol/li[1]"), (17, 20, "/html/body/ol/li[2]")]) == ()
    assert list_runs(text, blocks[:1]) == ()
    # list items located by their ids (LibreOffice's help gives every paragraph one):
    # a run of them is a list of one item each, ended by a block located by its path or
    # by text between them
    by_id = [
        (at["one"], at["one"] + 3, "#par_1"),
        (at["two"], at["two"] + 3, "#par_2"),
        (at["two b"], at["two b"] + 5, "#par_3"),
        (at["three"], at["three"] + 5, "/html/body/ul/li[3]/p"),
    ]
    assert list_runs(text, by_id) == (
        ((at["one"], at["one"] + 3), (at["two"], at["two"] + 3), (at["two b"], at["two b"] + 5)),
    )
    assert list_runs(gap, [(0, 3, "#par_1"), (17, 20, "#par_2")]) == ()


APT_COMMANDS = """<!DOCTYPE html>
<html lang="de"><head><title>8.1.2. APT</title></head><body>
<h2>8.1.2. APT</h2>
<p>Einige übliche Befehle zur Nutzung von apt-get sind:</p>
<ul>
<li><p>Die Liste der Ihrem System bekannten Pakete aktualisieren:</p>
<pre>apt update</pre></li>
<li><p>Das Paket foo mit allen seinen Abhängigkeiten installieren:</p>
<pre>apt install foo</pre></li>
<li><p>Eine Aktualisierung aller Pakete auf Ihrem System durchführen:</p>
<pre>apt upgrade</pre></li>
</ul>
</body></html>
"""


def test_a_catalog_of_commands_is_quoted_item_by_item(app: Ragox) -> None:
    """A list whose items each introduce their own command is a catalog: the item that
    answers is quoted, not the whole list under its introducing sentence (which holds
    every word of the question spread over its items)."""
    app.ingestor.ingest_bytes(
        APT_COMMANDS.encode(), "pkgtools.html", "pkgtools.html", tenant="default"
    )
    quotes = _quotes(app, "Wie aktualisiere ich alle Pakete auf meinem System?")
    assert quotes[0].startswith("Eine Aktualisierung aller Pakete"), quotes
    assert quotes[0].rstrip().endswith("apt upgrade"), quotes


DPKG_CATALOG = """<!DOCTYPE html>
<html lang="ru"><head><title>8.1.1. dpkg</title></head><body>
<h2>8.1.1. dpkg</h2>
<p>Это основная программа управления пакетами. Наиболее часто используемые параметры:</p>
<ul>
<li><p>Показать список всех параметров: <code>dpkg --help</code></p></li>
<li><p>Установить пакет на жёсткий диск: <code>dpkg --install foo_VVV-RRR.deb</code></p></li>
<li><p>Удалить пакет (но не его файлы настроек): <code>dpkg --remove foo</code></p></li>
<li><p>Удалить пакет (вместе с файлами настроек): <code>dpkg --purge foo</code></p></li>
<li><p>Вывести состояние установки пакетов, содержащих в имени строку «foo*»:
<code>dpkg --list 'foo*'</code></p></li>
</ul>
</body></html>
"""


def test_a_catalog_item_with_its_command_on_its_line_is_quoted_alone(app: Ragox) -> None:
    """The Debian FAQ (Russian) lists dpkg's commands as "label: command" items on one
    line each: an item that ends on its own command does not run on into the next
    items as if they were its block ("…: dpkg --remove foo" then "…: dpkg --purge foo"
    then "…: dpkg --list 'foo*'" was one quote)."""
    app.ingestor.ingest_bytes(DPKG_CATALOG.encode(), "dpkg.html", "dpkg.html", tenant="default")
    quotes = _quotes(app, "Как удалить пакет вместе с его файлами настройки?")
    assert quotes[0] == "Удалить пакет (вместе с файлами настроек): dpkg --purge foo", quotes
    assert all("dpkg --list" not in quote for quote in quotes), quotes
    assert all(quote.count("dpkg ") == 1 for quote in quotes), quotes
    # a sentence that ends on a word without its command still runs into the block below
    assert runs_into_block("Sie können dies mit dem folgenden Befehl erreichen")
    assert runs_into_block("Note: you can run it with the command")
    assert not runs_into_block("Удалить пакет (но не его файлы настроек): dpkg --remove foo")


def test_a_german_split_verb_is_held_only_with_its_particle() -> None:
    """ "Wie richte ich eine Firewall ein?" asks for "einrichten": "richtet sich an
    Endanwender" shares the verb's stem and is another verb; the joined forms and the
    split one with the same particle hold it."""
    question = "Wie richte ich eine Firewall ein?"
    terms = analyze_query("richte Firewall", ["de"])
    separable = _separable(question, terms)
    assert separable == {"richt": "ein"}
    matcher = TermMatcher(terms, ["de"], separable=separable)

    def holds_verb(sentence: str) -> bool:
        return matcher.credit(matcher.stems(sentence)).get("richt", 0.0) == 1.0

    assert not holds_verb("firestarter ist eine Anwendung, die sich an Endanwender richtet.")
    assert holds_verb("Sie können die Firewall mit diesem Skript einrichten.")
    assert holds_verb("Um eine Firewall einzurichten, bearbeiten Sie die Regeln.")
    assert holds_verb("Die Firewall ist jetzt eingerichtet.")
    assert holds_verb("Richten Sie die Firewall mit diesem Skript ein.")
    # "hinzufügen" split the same way, its noun joined
    adding = analyze_query("füge Benutzer", ["de"])
    assert _separable("Wie füge ich einen neuen Benutzer hinzu?", adding) == {"fug": "hinzu"}
    # a question without a split verb keeps the plain stem's match
    assert _separable("Wer richtet die Firewall?", terms) == {}


def test_a_split_verb_joined_is_held_where_the_stemmer_cuts_it_short() -> None:
    """ "Wie blende ich in GerbView einzelne Lagen aus?" asks for "ausblenden": the
    stemmer cuts "ausgeblendet" to "ausgebl", which does not hold "aus" + "blend", so
    the manual's "jede Lage kann durch Checkboxen eingeblendet oder ausgeblendet
    werden" held no verb and the question abstained naming "blende" (a new-user pass
    over KiCad's manuals). The joined verb is found in the sentence's words."""
    question = "Wie blende ich in GerbView einzelne Lagen aus?"
    terms = analyze_query("blende Lagen", ["de"])
    separable = _separable(question, terms)
    assert separable == {"blend": "aus"}
    matcher = TermMatcher(terms, ["de"], separable=separable)
    sentence = "Jede Lage kann durch Checkboxen eingeblendet oder ausgeblendet werden."
    assert matcher.credit(matcher.stems(sentence)).get("blend", 0.0) == 1.0
    # another particle's verb is not it
    shown = "Jede Lage kann durch Checkboxen eingeblendet werden."
    assert matcher.credit(matcher.stems(shown)).get("blend", 0.0) == 0.0
    # the abstention does not name the verb such a passage says joined
    evidence = [Evidence("S1", "gerbview.html", "r1", "m-gv", ("c1",), 0, len(sentence), sentence)]
    assert "blende" not in missing_terms("Wie blende ich in GerbView die Raketen aus?", evidence)
    assert "Raketen" in missing_terms("Wie blende ich in GerbView die Raketen aus?", evidence)
    # (where nothing else is missing too: a verb alone would be named)
    assert "blende" not in missing_terms("Wie blende ich die Lagen aus?", evidence)


def test_what_is_done_in_a_window_said_in_the_passive_is_an_instruction() -> None:
    """ "… kann durch Checkboxen eingeblendet oder ausgeblendet werden" says how: a
    how-to question's answer, though it has no command and no imperative."""
    assert has_instruction(
        "Jede Lage kann durch Checkboxen eingeblendet oder ausgeblendet werden.", "de"
    )
    assert has_instruction("Each layer can be shown or hidden with check boxes.", "en")
    assert has_instruction("The list can be refreshed by pressing u.", "en")
    assert has_instruction("Слой можно скрыть с помощью флажка.", "ru")
    assert has_instruction("Слой можно скрыть нажатием клавиши Del.", "ru")
    # who does it, or what it is used with, is no means to do it (a red team's cases:
    # unanswerable how-to questions were answered by them)
    for sentence, language in [
        ("The value can be changed by the administrator.", "en"),
        ("A new firmware version can be expected with the spring release.", "en"),
        ("The export plugin can be used with Windows 10 and Windows 11.", "en"),
        ("The pump motor can be damaged by using an extension cord that is too thin.", "en"),
        ("Das kann mit der Zeit besser werden.", "de"),
        ("Der Pumpenmotor kann durch ein zu dünnes Verlängerungskabel beschädigt werden.", "de"),
        ("Es können bis zu 32 Dateien mit einmal angezeigt werden.", "de"),
        ("Новую версию прошивки можно ожидать через два месяца.", "ru"),
    ]:
        assert not has_instruction(sentence, language), sentence


def test_a_split_verb_answers_from_its_own_verb() -> None:
    """The sentence that says how to set the firewall up is quoted, not the one about a
    program that "richtet sich an Endanwender" (quoted first before)."""
    text = (
        "Das Programm firestarter richtet sich an Endanwender, die eine Firewall wollen. "
        "Zum Einrichten der Firewall bearbeiten Sie /etc/network/interfaces."
    )
    evidence = [Evidence("S1", "firewall.html", "r1", "m-fw", ("c1",), 0, len(text), text)]
    draft = ExtractiveGenerator().generate("Wie richte ich eine Firewall ein?", evidence)
    assert [claim.quote for claim in draft.claims] == [
        "Zum Einrichten der Firewall bearbeiten Sie /etc/network/interfaces."
    ]


def test_a_title_cut_short_by_a_navigation_bar_is_not_quoted() -> None:
    """DocBook's navigation shortens the next chapter's title to fit ("After the
    compromise (incident respon..."): a label cut off, not a statement, though it ends
    with dots; the sentence that says what to do is quoted."""
    text = (
        "Prev\n\nAfter the compromise (incident respon...\n\nNext\n\n"
        "If the system was compromised, you should remove the compromised host from the "
        "network after a backup and reinstall it."
    )
    evidence = [Evidence("S1", "ch11.html", "r1", "m-ch11", ("c1",), 0, len(text), text)]
    draft = ExtractiveGenerator().generate("What should I do after a compromise?", evidence)
    quotes = [claim.quote for claim in draft.claims]
    assert quotes and quotes[0] is not None and quotes[0].startswith("If the system"), quotes
    assert not any(quote is not None and quote.endswith("...") for quote in quotes), quotes


def test_a_catalog_item_takes_no_words_from_its_sibling() -> None:
    """A neighbour's words are context for a sentence ("It …"), not for an item of a
    catalog of commands: "Показать управляющий файл …: dpkg --info …" holds "показать"
    and "файл", and its sibling "Установить пакет …" does not say that it answers
    "which files did a package install" (the two were quoted before the answer)."""
    answer = (
        "Чтобы вывести список файлов установленного пакета foo, выполните команду\n\n"
        "dpkg --listfiles foo"
    )
    catalog = (
        "Наиболее часто используемые параметры dpkg.\n\n"
        "Показать управляющий файл (и другую информацию) для указанного пакета: "
        "dpkg --info foo_VVV-RRR.deb\n\n"
        "Установить пакет на жёсткий диск (т. е. распаковать и настроить): "
        "dpkg --install foo_VVV-RRR.deb"
    )
    evidence = [
        Evidence("S1", "faq.html", "r1", "m-1", ("c1",), 0, len(answer), answer),
        Evidence("S2", "faq.html", "r1", "m-1", ("c2",), 0, len(catalog), catalog),
    ]
    weights = {"показа": 1.0, "файл": 1.2, "установ": 1.1, "пакет": 0.6}
    scoring = score_sentences(
        "Как показать файлы, которые установил пакет?",
        evidence,
        lambda terms: {term: weights.get(term[:7], 1.0) for term in terms},
        ExtractiveConfig(),
    )
    best = scoring.sentences[0]
    assert best.evidence.source_id == "S1", [
        (s.evidence.text[s.start : s.end], s.score) for s in scoring.sentences
    ]
    info = next(s for s in scoring.sentences if "dpkg --info" in s.evidence.text[s.start : s.end])
    assert info.support.following == 0.0 and info.support.previous == 0.0
