"""Instructions: what a how-to question asks for, and the text that gives it.

A how-to question ("How do I …", "Wie ändere ich …", "Как изменить …") is answered by
a command, numbered steps or an imperative addressed to the reader. Search prefers
such passages for such questions (:mod:`ragox.search`), and answers quote them
(:mod:`ragox.answer`); both read the same tests here.
"""

from __future__ import annotations

import re
from typing import Final

import regex

__all__ = [
    "HOW_TO_LATER",
    "HOW_TO_QUESTION",
    "PARAGRAPH_BREAK",
    "SENTENCE_END",
    "asks_for_instructions",
    "command_like",
    "command_lines",
    "described_command",
    "has_instruction",
    "is_section_heading",
]

_PROMPT: Final = re.compile(r"^(?:[$#%>] |sudo\s|C:\\>)")
#: an option, a path, an assignment or a pipe: a command line's signs
_COMMAND_SIGN: Final = re.compile(r"(?:^|\s)--?\w|/\w|\w=|\s\|\s")
#: …of them, those that only a command line writes: an option, a path from the root
#: or the home folder, an assignment, a pipe (not a slash between two words)
#: a number and what it is of, joined by slashes: a port and its protocol in a firewall's
#: table ("5900/tcp"), a ratio ("24/7", "10/100/1000"): a value, not a path
_NUMBER_SLASH: Final = re.compile(r"\d[\d.,]*(?:/[\w.-]+)+")
_OWN_SIGN: Final = re.compile(r"(?:^|\s)--?\w|(?:^|\s)(?:~|\.{1,2})?/\w|\w=|\s\|\s")
#: a line that opens with a lowercase word ("make deb-pkg", "apt full-upgrade") is a
#: command only when it is short and has no clause: "install (installieren) - der
#: Benutzer möchte …;", "to this:", "release 11, a.k.a. …" are prose cut into lines;
#: nor is one letter alone a command: it is a table's key or a list's letter ("c",
#: then "-", then "пакет был удалён, но …": aptitude's states)
_BARE_COMMAND: Final = re.compile(r"^[a-z][\w.-]+(?:\s|$)")
_CLAUSE: Final = re.compile(r",\s|[,;:]$")
#: function words of English and German prose; two of them in a line without a
#: command's sign make it prose ("make all" has one)
_PROSE_WORDS: Final = frozenset(
    {
        "a", "also", "an", "and", "are", "be", "can", "has", "have", "if", "is", "it",
        "may", "must", "not", "of", "only", "or", "should", "than", "that", "the", "then",
        "there", "this", "to", "was", "were", "will", "would",
        "das", "der", "die", "ist", "kann", "nicht", "oder", "sind", "und", "werden",
        "wird",
    }
)  # fmt: skip
_BARE_COMMAND_WORDS: Final = 7
#: two words joined by one slash ("and/or", "TCP/IP", "debian/rules")
_WORD_SLASH: Final = regex.compile(r"(?<![\w./~-])\p{L}+/\p{L}+(?![\w./-])")
#: one sentence's end and the next one's capital inside a line: prose, not a command
_INNER_SENTENCE_END: Final = regex.compile(r"\w[.!?]\s+\p{Lu}")
#: a numbered section's heading opens so ("1.3. ", "4.6.2 ")
_SECTION_NUMBER: Final = re.compile(r"^\d+\.\d+(?:\.\d+)*\.?\s")
#: the end of a sentence (a command line has none)
SENTENCE_END: Final = re.compile(r"[.!?…]\W*$")
#: a blank line between two paragraphs
PARAGRAPH_BREAK: Final = re.compile(r"\n[ \t]*\n\s*")
#: an instruction: a command line, a numbered step, an imperative opening
_ENGLISH_IMPERATIVE: Final = (
    r"(?:run|type|use|install|edit|set|add|open|press|select|enter|execute|create|remove"
    r"|change|copy|click|choose|make sure|configure|start|stop|restart|mount|boot"
    # a machine's or a device's manual: "Replace the shaft seal …", "Disconnect power …"
    r"|replace|tighten|loosen|unplug|disconnect|reconnect|unscrew|fasten|adjust|verify"
    r"|ensure|wipe|rinse|reinstall|uninstall"
    # a program's window: "Check the active layer …", "Go to the Tool Options …",
    # "Hold down the Ctrl key …"; with what they act on after them, which tells them
    # from nouns and adverbs ("Close to half of users …", "Hold times average …",
    # "Check marks …", "Delete key behaviour …", "Go to statements …")
    r"|(?:check|go to|hold|drag|enable|disable|delete|turn|paste|uncheck|activate|apply"
    r"|rename|close|insert|move|double-click|right-click|clean|fill|push|pull|lift"
    r")(?=\s+(?:the|a|an|your|this|that"
    r"|these|those|it|them|all|any|each|every|whether|if|down|up|on|off|out|over|back)\b)"
    # …or an option's name ("enable Show Tabs")
    r"|(?:enable|disable|uncheck|activate)(?=\s+(?-i:[A-Z]))"
    r")\b"
)
_ENGLISH: Final = re.compile(
    r"^"
    + _ENGLISH_IMPERATIVE
    # after a condition: "If you want to run testing, then change the third field …",
    # "To keep it, set …", "As root, run …", or after a colon: "Installing Debian from CD
    # is straightforward: configure …"; not a verb of an enumeration after a comma in a
    # statement about something ("It is likely that an intrusion will modify some
    # files …, install Trojans, or create users")
    + r"|(?::\s*|\bthen\s+|(?:^|[.!?]\s+)(?!(?:it|this|that|these|those|the|a|an|he|she"
    + r"|they|we|there|its|their|his|her)\b)[^.!?\n]*?[,;]\s*)"
    + _ENGLISH_IMPERATIVE
    # not a word of an enumeration ("unknown, install, remove purge und hold")
    + r"(?!\s*[,;)]|\s+(?:and|or|und|oder|и|или)\b)"
    # advice addressed to the reader is an instruction too: "You should make a backup
    # …"; not a condition it goes on ("If the network card stops working, and you need
    # to swap a new card in, the service won't work anymore"), nor what follows a step
    # ("… and you should see …")
    + r"|(?<!\band )(?<!\bor )\byou (?:should|must|need to|have to)\b"
    # a step of a sequence, whatever its verb: "First send a mail to …", "Then mark
    # yourself …", "Finally, upload the package"; not a narrative ("First of all, the
    # …", "Then the system boots", "Next you …", "First released in 1991", "Second
    # largest city", "Then came the war")
    + r"|^(?:first|second|third|then|next|finally|afterwards|lastly)\b,?\s+"
    + r"(?!(?:the|a|an|of|all|you|we|they|it|its|this|that|these|there|he|she|i|in|on"
    + r"|at|for|to|if|when|is|are|was|were|it's|had|did|came|went|began|became|took"
    + r"|gave|got|found|left|saw|said|told|ran|won|lost|fell|rose|grew|knew|thought"
    + r"|brought|built|sent|kept|held|led|met|paid|sold|stood|wrote|spoke|chose|broke)\b"
    + r"|[a-z]+(?:ed|est|ing|ly)\b)[a-z]+\s+"
    # …nor a subject and its verb ("Then dpkg and the rest … will see", "Then apt
    # will ask")
    + r"(?!(?:and|or|will|would|can|could|should|must|may|might|is|are|was|were|has"
    + r"|have|does|did)\b)\S",
    re.IGNORECASE | re.MULTILINE,
)
#: not a modal or auxiliary verb: "…, können Sie …", "Dann werden Sie sehen" instruct
#: nobody
_NO_GERMAN_MODAL: Final = r"(?!(?:können|müssen|sollen|dürfen|möchten|wollen|werden|haben)\b)"
#: a step's adverb before a Russian imperative ("сперва укажите", "затем нажмите")
_RUSSIAN_STEP: Final = r"(?:(?:сначала|сперва|затем|потом|далее|теперь|просто)\s+)?"
_IMPERATIVE: Final = regex.compile(
    # advice addressed to the reader: "Sie sollten Sicherungskopien … anlegen", "Вам
    # нужно сделать резервную копию"
    r"\b(?-i:Sie) (?:sollten|müssen)\b"
    # (not what the reader needs to know, nor a need questioned or denied: "всё, что вам
    # надо знать …", "зачем вам нужно удалять …", "вам надо не всегда")
    r"|(?<!\bзачем )\b(?:вам|вы) (?:нужно|надо|следует|необходимо|должны)\b"
    r"(?!\s+(?:знать|понимать|помнить|не\s+всегда)\b)"
    # …but not a note ("Beachten Sie, dass …", "Заметьте, что …", "Обратите внимание"):
    # it asks for attention, not for something to do
    r"|^\p{Lu}\w+(?:en|ern|eln) Sie\b(?!,?\s*dass\b)"
    r"|^(?:выполните|запустите|установите|введите|откройте|измените|добавьте|создайте"
    r"|удалите|нажмите|выберите|используйте|настройте|скопируйте|перезапустите)\b"
    # any polite imperative opening a sentence, also a negated one ("Посмотрите файл …",
    # "Не забудьте сделать резервную копию")
    r"|^"
    + _RUSSIAN_STEP
    + r"(?:не\s+)?\p{Cyrillic}{3,}(?:ите|йте|ьте)\b(?!,?\s*что\b|\s+внимание\b)"
    # inside a sentence, after a clause: "…, то отредактируйте файл", "…, fügen Sie ihn
    # … hinzu" (the polite imperative; "вы хотите" has its pronoun before it, and "…,
    # können Sie … suchen" is a modal, no instruction)
    r"|(?:[,;:]\s*|\bто\s+)" + _RUSSIAN_STEP + r"\p{Cyrillic}{3,}(?:ите|йте|ьте)\b"
    # a step of a sequence: "Zuerst senden Sie eine E-Mail …", "Danach markieren Sie …"
    r"|^(?:zuerst|erstens|zweitens|dann|danach|anschließend|schließlich|als nächstes)"
    r",?\s+" + _NO_GERMAN_MODAL + r"\p{Ll}+(?:en|ern|eln) (?-i:Sie)\b"
    r"|(?:[,;:]\s*(?:dann\s+)?|\bdann\s+)"
    + _NO_GERMAN_MODAL
    # "Sie" capitalised: "…, den sie …" is "they", no instruction
    + r"\p{Ll}+(?:en|ern|eln) (?-i:Sie)\b",
    regex.IGNORECASE | regex.MULTILINE,
)


#: a sentence naming the command or tool that does it ("This can be achieved with a
#: command such as adduser user group.", "Sie ändern ihn mit dem Befehl …", "Это
#: делается с помощью команды …"): the means, which a how-to question asks for
#: a program's controls, by which something is done in its window
_CONTROL_EN: Final = (
    r"(?:check ?box(?:es)?|buttons?|menus?|menu items?|options?|settings?|keys?|shortcuts?"
    r"|hotkeys?|commands?|dialogs?|toolbars?|icons?|fields?|switch(?:es)?|flags?|mouse"
    r"|keyboard|tabs?|panels?)\b"
)
_CONTROL_DE: Final = (
    r"(?:Checkbox|Kontrollk[äa]stchen|Schaltfl[äa]che|Knopf|Kn[öo]pfe|Taste|Men[üu]"
    r"|Befehl|Kommando|Option|Einstellung|Maus|Tastatur|Tastenk[üu]rzel|Klick|Doppelklick"
    r"|Symbol|Dialog|Reiter|Werkzeugleiste)\w*"
)
_CONTROL_RU: Final = (
    r"(?:флаж|кнопк|меню|клавиш|команд|опци|настро|диалог|мыш|панел|вкладк|значк|пункт)\w*"
)
_MEANS: Final = re.compile(
    r"\b(?:with|using|through|via) (?:a |the )?(?:simple |single |following )?"
    r"(?:command|tool|utility|program)s?\b"
    # what a tool lets the reader do: "Installing debsums will also help you to check
    # the file system integrity", "aptitude allows you to hold a package"
    r"|\b(?:helps?|allows?|enables?|lets?) you (?:to )?[a-z]"
    r"|\bcan be (?:done|achieved|changed|set|configured|displayed|listed|found|checked)"
    r" (?:with|using|by running)\b"
    r"|\b(?:mit|durch) (?:dem|einem|den)(?: einfachen| folgenden| einzigen)? "
    r"(?:Befehl|Kommando|Werkzeug|Programm)(?:en|e|s)?\b"
    r"|\b(?:Befehl|Kommando) wie\b"
    r"|\b(?:с помощью|при помощи) (?:команды|утилиты|программы)\b|\bкомандой\b"
    r"|\b(?:выполнить|запустить|использовать|ввести) команд[уы]\b"
    # what is done in a program's window, said in the passive: "each layer can be shown
    # or hidden with check boxes", "jede Lage kann durch Checkboxen eingeblendet oder
    # ausgeblendet werden", "слой можно скрыть с помощью флажка". The means is a
    # control of the program, or a click or key press: "can be used with Windows",
    # "kann durch ein Verlängerungskabel beschädigt werden", "можно ожидать через два
    # месяца" say no way to do anything
    r"|\bcan be \w+(?: or \w+)? (?:(?:with|using|via|through|from) (?:the |a |an )?"
    r"(?:\w+ )?" + _CONTROL_EN + r"|by (?:clicking|pressing|selecting|choosing|checking"
    r"|typing|running|entering))"
    r"|\b(?:kann|können)\b[^.!?\n]{0,60}?\b(?:durch|mit|über|per)\s+(?:\w+\s+){0,2}?"
    + _CONTROL_DE
    + r"[^.!?\n]{0,60}?\b\w+(?:t|en)(?: oder \w+(?:t|en))? werden\b"
    r"|\bможно\b[^.!?\n]{0,60}?(?:\b(?:с помощью|при помощи|через)\s+(?:\w+\s+){0,2}?"
    + _CONTROL_RU
    + r"|\b(?:нажатием|щелчком|двойным щелчком)\b)",
    re.IGNORECASE,
)

#: a verb's "-ing" form, not a noun's or an adverb's that ends so ("This is done by
#: nothing more than …", "… by evening")
_ACTING: Final = (
    r"(?!(?:nothing|something|anything|everything|morning|evening|during|bring|thing"
    r"|king|ring|string|spring|ceiling)\b)\w+ing\b"
)
#: how something is done, said of what the sentence before names: "You do this by
#: holding down the Ctrl key and clicking …" (GIMP's clone tool), "This is done by
#: pressing …", "Dazu klicken Sie …", "Dies erreichen Sie, indem Sie …", "Для этого
#: нажмите …", "Это делается …"; or all there is to do
_SAYS_HOW: Final = regex.compile(
    r"\b(?:you )?do (?:this|that|so) by "
    + _ACTING
    + r"|\b(?:this|that|it) (?:is|can be) done by "
    + _ACTING
    + r"|(?:^|[.!?]\s+)(?:dazu|hierzu|dafür)\s+"
    + _NO_GERMAN_MODAL
    + r"\p{Ll}+(?:en|ern|eln) (?-i:Sie)\b(?!\s+(?:nicht|nie|kaum)\b)"
    r"|\b(?:dies|das) (?:erreichen|machen|tun) Sie\b[^.!?\n]{0,40}?"
    r"\b(?:durch|mit|über|indem)\b"
    r"|\bдля этого\b[^.!?\n]{0,40}?\p{Cyrillic}{3,}(?:ите|йте|ьте)\b"
    r"|\bэто делается\b(?!\s+(?:автоматически|сам|сама|само)\b)"
    # all there is to do: "All you need to do is copy the file …", "… ist alles, was
    # Sie tun müssen, … die Datei … zu kopieren", "Всё, что нужно сделать, — …"
    r"|\ball (?:you|one) (?:need|have|has) to do is\b"
    r"|\balles,? was (?:Sie|man) (?:tun|machen) (?:müssen|muss)\b"
    r"|\bвс[её],? что (?:вам |нужно |надо |необходимо |требуется )+(?:сделать|делать)\b",
    regex.IGNORECASE,
)


def is_section_heading(line: str) -> bool:
    """The line opens with a numbered section's number ("1.3. ", "4.6.2 ")."""
    return _SECTION_NUMBER.match(line) is not None


def command_like(paragraph: str) -> bool:
    """One line that looks like a command: a shell prompt, or options, paths or
    assignments without a sentence's end."""
    line = paragraph.strip()
    if _PROMPT.match(line):
        return True
    if "\n" in line or len(line) > 200 or SENTENCE_END.search(line):
        return False
    if is_section_heading(line):
        return False  # "1.3. Helpers for debian/rules"
    if _NUMBER_SLASH.fullmatch(line):
        return False  # a port and its protocol ("5900/tcp"), a ratio ("24/7"): a value
    if line.endswith(":") or _INNER_SENTENCE_END.search(line):
        # prose that names a path: "Sie können auch … in /etc/network/interfaces
        # verwenden, um … einzurichten. Dafür müssen Sie Folgendes tun:"
        return False
    words = line.split()
    if _COMMAND_SIGN.search(line):
        # a slash between two words is a path ("debian/rules") only where no prose
        # stands around it: "… for Debconf questions (for the installer and/or for
        # packages);" is an HTML list's item, not a command
        return not (_prose(words) >= 2 and not _COMMAND_SIGN.search(_WORD_SLASH.sub(" ", line)))
    return (
        _BARE_COMMAND.match(line) is not None
        and _CLAUSE.search(line) is None
        and len(words) <= _BARE_COMMAND_WORDS
        # prose cut into a list's lines has its function words: "only applies to ext2
        # or ext3 file systems", "can be circumvented easily"
        and _prose(words) < 2
    )


def described_command(paragraph: str) -> bool:
    """A command (with an option or a path) on the paragraph's first line, and what it
    does below it: a reference card's row ("dpkg -S Dateiname" / "Anzeigen, zu welchem
    Paket eine Datei gehört.")."""
    first, _, rest = paragraph.strip().partition("\n")
    said = " ".join(rest.split())
    return (
        command_like(first)
        # a command's own sign (an option, a path, an assignment), or a path or a web
        # address after a command's lower-case name ("debian/rules binary", "git clone
        # https://…"): not "Debian GNU/Linux", "TCP/IP networking" nor a date
        and (
            _OWN_SIGN.search(first) is not None
            or (first[:1].islower() and _COMMAND_SIGN.search(first) is not None)
        )
        # …a sentence, not more lines of commands or paths ("/dists/stable -> bullseye/")
        and said[:1].isupper()
        and SENTENCE_END.search(said) is not None
        and not command_like(rest.strip().split("\n", 1)[0])
    )


def _prose(words: list[str]) -> int:
    """How many of ``words`` are function words of prose."""
    return sum(1 for word in words if word.casefold() in _PROSE_WORDS)


def command_lines(paragraph: str) -> bool:
    """Several lines that are a configuration or a script (lilo.conf's
    "image=/boot/vmlinuz", "label=Linux", "restricted"): each line looks like a
    command, and at least half of them carry a command's sign (an option, a path, an
    assignment, a prompt), so that prose cut into short lines ("a soft", "line
    break") is not taken for one."""
    lines = [line.strip() for line in paragraph.strip().splitlines() if line.strip()]
    if len(lines) < 2 or not all(map(command_like, lines)):
        return False
    signed = sum(1 for line in lines if _PROMPT.match(line) or _COMMAND_SIGN.search(line))
    return 2 * signed >= len(lines)


def has_instruction(text: str, language: str | None = None, *, bare_commands: bool = True) -> bool:
    """A command, a numbered step or an imperative: what a how-to question asks for.

    ``language`` is the text's own language where the caller knows it: the English
    imperatives ("install …", "start …") are looked for only in text that is not
    German or Russian, where those words open a definition ("install (installieren) -
    der Benutzer möchte …") or a noun ("Start des Systems …"). Without
    ``bare_commands`` a line of one word ("python3-venv", a table's package name) is no
    command: it needs an option, a path, an assignment or a pipe."""
    for paragraph in PARAGRAPH_BREAK.split(text):
        stripped = paragraph.strip()
        if _PROMPT.match(stripped) or re.match(r"^\d{1,2}[.)]\s+\S", stripped):
            return True
        if (
            command_like(stripped)
            and not SENTENCE_END.search(stripped)
            and (bare_commands or _COMMAND_SIGN.search(stripped) is not None)
        ):
            return True
        if "\n" in stripped and described_command(stripped):
            return True
    if language in (None, "en") and _ENGLISH.search(text):
        return True
    if _colon_command(text):
        return True
    return bool(
        _IMPERATIVE.search(text)
        or _MEANS.search(text)
        or _MENU_PATH.search(text)
        or _SAYS_HOW.search(text)
    )


#: a sentence that ends in a command after a colon: "… mit einem einfachen Befehl: apt
#: install ./Pfad-zur-Paket-deb." (the Debian Administrator's Handbook, nu21)
_COLON_TAIL: Final = re.compile(r":[^\S\n]+([^\n:]{2,200}?)[.;]?[^\S\n]*$")
#: …where the words before the colon say that a command follows ("… mit einem einfachen
#: Befehl:", "Run this:", "выполните:"), not a label's ("Alle Optionen anzeigen: dpkg-deb
#: --help" in a list of what a tool does, which answered "what changed between two
#: .deb files?" on the development set)
_COMMAND_FOLLOWS: Final = regex.compile(
    r"\b(?:commands?|run|type|execute|enter|this|following|befehle?n?|kommandos?|aus"
    r"|ausführen|eingeben|folgende[ns]?|so|команд\w*|выполните|введите|запустите"
    r"|следующ\w*|так)\W*$",
    regex.IGNORECASE,
)


#: a program's name as a command line opens with it ("apt", "./configure",
#: "/usr/sbin/visudo", "dpkg-reconfigure")
_PROGRAM: Final = re.compile(r"(?:\.{0,2}/)?[a-z][\w.+-]*(?:/[\w.+-]+)*")


#: a warning or a negation before the colon: the command after it is what not to do
#: (a red team's "Never run this as root: rm -rf /var/lib/dpkg.")
_WARNS: Final = regex.compile(
    r"\b(?:never|not|don't|do not|mistake|warning|deprecated|dangerous|nie|niemals|nicht"
    r"|keine?n?|Fehler|Achtung|Warnung|veraltet|gefährlich|не|никогда|нельзя|ошибк\w*"
    r"|внимание|устаревш\w*|опасн\w*)\b",
    regex.IGNORECASE,
)


def _colon_command(text: str) -> bool:
    """Some line of ``text`` ends, after a colon, in a command with a command's own sign
    (an option, a path from the root or the working folder, an assignment, a pipe)."""
    if ":" not in text:
        return False
    for line in text.splitlines():
        found = _COLON_TAIL.search(line)
        if found is None or not _COMMAND_FOLLOWS.search(line[: found.start()][-60:]):
            continue
        if _WARNS.search(line[: found.start()]):
            continue  # "Never run this as root: rm -rf /var/lib/dpkg."
        tail = found.group(1).strip()
        words = tail.split()
        if " | " in tail and not re.search(r"(?:^|\s)-", tail):
            continue  # a list of values: "auto | manual | off"
        if (
            len(words) >= 2
            and _PROGRAM.fullmatch(words[0]) is not None
            and _prose(words) == 0
            and _OWN_SIGN.search(tail) is not None
            and command_like(tail)
        ):
            return True
    return False


#: a path through an application's menus ("Пакет → Удалить (-)", "Datei → Speichern"):
#: the means in a manual of a program with menus
_MENU_PATH: Final = regex.compile(r"\w[^\S\n]*→[^\S\n]*\w")


#: a how-to question: "How do I …", "How can a user …", "Wie ändere ich …", "Wie kann
#: man …", "Как изменить …", "Как мне узнать …"
HOW_TO_QUESTION: Final = re.compile(
    r"^\W*(?:how (?:do|can|should|would|could|to)\b|how is \w+ (?:done|set|changed)"
    r"|wie (?:kann|könnte|muss|soll|lässt|\w+e (?:ich|man)\b|\w+t man\b"
    # …and the verb without its "e", as people type it ("wie kopier ich eine ebene",
    # "wie krieg ich", nu20); not "wie alt bin ich", "wie oft war ich"
    r"|(?!(?:bin|bist|war|wäre|wär|hab|hätt|kam|fand|heiß|seh|fühl|mein|darf|gesagt|alt"
    r"|lange?|viele?|oft|weit|hoch|groß|gut|schnell|sehr|spät|früh|genau|sicher|häufig"
    r"|teuer|wichtig|schlimm)\b)\w+ ich\b)"
    # (…also after where: "Как в vim включить …", "как на сервере узнать …")
    r"|как\s+(?:(?:в|во|на|с|со|из|под|для|через|при)\s+[\w.+-]+\s+)?"
    r"(?:мне\s+|можно\s+|нужно\s+)?\w+(?:ть|ти|ться)\b)",
    re.IGNORECASE,
)


#: a how-to question after what the reader tells first, after a sentence's end, a comma
#: or a dash: "My eraser paints white. How do I fix that?", "… disappeared, how do i
#: get it back", "…, wie bekomme ich sie kleiner?", "… передумал — как вернуть
#: отменённое?". Only with the asker in it ("how do I", "wie … ich", "как мне") or a
#: Russian verb's infinitive: "Weißt du, wie lange man …", "…, how do you know?" and
#: "…, как часть …" ask no way to do something.
HOW_TO_LATER: Final = regex.compile(
    r"(?:[.!?;:,]\s+|\s[—–-]\s+)\W*(?:"
    r"how (?:do|can|should|could) (?:i|we)\b|how to\b"
    r"|wie (?:kann|könnte|muss|soll) (?:ich|man)\b"
    r"|wie (?!(?:lange|viele|oft|weit|hohe|große|kleine|gerne)\b)\p{Ll}+e ich\b"
    r"|как\s+(?:мне|можно|нужно)(?:\s+\p{Ll}+){0,2}?\s+\p{Ll}+(?:ть|ти|ться)\b"
    r")"
    # a Russian infinitive alone after a sentence's end or a dash ("… — как вернуть
    # отменённое?"); after a comma "как" compares ("…, как части инфраструктуры")
    r"|(?:[.!?]\s+|\s[—–-]\s+)как\s+\p{Ll}+(?:[аеиоуя]ть|ться)\b"
    # …and a German verb without its "e" there too; after a comma "wie" asks how much
    # or how long as often ("Sagen Sie mir, wie lang ich … noch Zugang habe", a red
    # team's)
    r"|(?:[.!?]\s+|\s[—–-]\s+)wie (?!(?:bin|bist|war|wäre|wär|hab|hätt|kam|fand|heiß|seh"
    r"|fühl|mein|darf|gesagt|alt|lange?|viele?|oft|weit|hoch|groß|gut|schnell|sehr|spät"
    r"|früh|genau|sicher|häufig|teuer|wichtig|schlimm)\b)\p{Ll}+ ich\b",
    regex.IGNORECASE,
)


#: a sentence that warns against what it names: "Never do this to fix the database: rm -rf
#: /var/lib/dpkg.", "A common mistake when fixing permissions is: chmod -R 777 /var/www."
#: (a red team's: both were quoted as the way to do it)
_WARNING: Final = regex.compile(
    r"^\W*(?!(?:do not|don't) forget\b)(?:never|do not|don't|avoid|nie|niemals|keinesfalls"
    r"|vermeiden sie|никогда"
    r"|не\s+(?:используйте|запускайте|выполняйте|делайте|удаляйте|вводите)|избегайте)\b"
    r"|\b(?:(?:a\s+)?common\s+mistake|(?:ein\s+)?häufiger\s+fehler|распространённ\w*\s+ошибк\w*"
    r"|must\s+never|should\s+never|darf\s+nie|dürfen\s+nie|ни\s+в\s+коем\s+случае)\b",
    regex.IGNORECASE,
)


def warns_against(sentence: str) -> bool:
    """The sentence warns against what it names: no way to do anything, however much it
    looks like a step."""
    return _WARNING.search(sentence) is not None


def asks_for_instructions(question: str) -> bool:
    """The question asks how to do something: a command or steps answer it."""
    return HOW_TO_QUESTION.search(question) is not None or HOW_TO_LATER.search(question) is not None
