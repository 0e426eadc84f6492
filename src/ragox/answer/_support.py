"""How well one evidence sentence supports an answer to a question.

Each sentence gets a :class:`Support`: the IDF-weighted share of the
question's terms it contains exactly (``matched``) or as part of a longer or
differently inflected word (``partial``), the share found only in the sentence
before or after it (an answer sentence often says "it" for what the previous
one named), the rank of its passage, and whether it holds the kind of answer
the question asks for (a year for "when", a number for "how many").

Term matching depends on the language, because stemming fails differently:

- English and German: a term inside a longer stem counts (German compounds:
  "prüfung" in "dichtungsprüfung");
- Russian: stems that differ only in their last two letters count (Snowball
  leaves "суперкубок" and "суперкубк" apart); a term inside a longer word does
  not ("пласт" is not "хлоропласт");
- any language: a prefix or suffix of a long term (at least 4 letters and 40% of
  it) inside a stem gives partial credit ("rheinschlucht" → "schlucht").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

import regex

from ragox.search import analyze_document, detect_language, tokens
from ragox.search._synonyms import synonym_stems
from ragox.text._instructions import (
    HOW_TO_LATER,
    HOW_TO_QUESTION,
    has_instruction,
    warns_against,
)

__all__ = [
    "DEFINITION_WORDS",
    "DURATION_WORDS",
    "FREQUENCY_WORDS",
    "AnswerKind",
    "Credits",
    "Support",
    "TermMatcher",
    "answer_kind",
    "asks_which_version",
    "holds_answer_kind",
    "joins_verb",
    "points_back",
    "support",
]


class AnswerKind(Enum):
    """What kind of answer a question asks for, where the question says so."""

    DATE = "date"
    NUMBER = "number"
    #: "how often …", "wie oft …", "как часто …": a frequency ("twice each day", "einmal
    #: monatlich", "каждые 15 минут"), or a number of times
    FREQUENCY = "frequency"
    #: "how long …", "wie lange …", "как долго …": a time ("30 days", "älter als 30
    #: Tage", "в течение двух недель", "from 1870 to 1939", "until …"), or a length for
    #: "how long is the river?" ("1,230 km")
    DURATION = "duration"
    #: "how do I …", "wie ändere ich …", "как изменить …": a command or steps
    INSTRUCTION = "instruction"
    #: "where is … stored", "in welcher Datei …", "где хранится …": a file, folder or
    #: web address (a place name does not count: it has no path to check for)
    LOCATION = "location"
    #: "why …", "warum …", "почему …": a reason ("because", "Das ist der Grund, weshalb",
    #: "потому что")
    REASON = "reason"
    #: "which tool …", "in welchem Paket …", "в каком пакете …": the name of a package,
    #: program or command, written as one ("cron-apt", "debian-policy")
    NAME = "name"
    #: "what is LVM?", "was ist ein Backport?", "что такое LVM?": what the thing is ("LVM,
    #: the Logical Volume Manager, is …", "LVM, или менеджер логических томов, — …")
    DEFINITION = "definition"


#: what a "which …" question asks for when it is a tool: a command, a program, a
#: package, an option or a file ("What command shows the size of a directory?")
_TOOL: Final = (
    r"(?:command|tool|program|utility|package|option|file|setting|befehl|programm"
    r"|werkzeug|paket|datei|einstellung|команд|программ|утилит|пакет|опци"
    r"|файл|настройк)\w*\b"
)

_KINDS: Final = (
    (
        AnswerKind.DATE,
        re.compile(
            r"^\W*(?:when\b|in what year|what year|which year|wann\b|in welchem jahr"
            r"|seit wann|когда\b|в каком году|в котором году)",
            re.IGNORECASE,
        ),
    ),
    (
        AnswerKind.FREQUENCY,
        re.compile(
            r"\b(?:how often|how frequently|how many times|wie oft|wie häufig|wie viele male"
            r"|in welchen abständen|сколько раз"
            r"|как часто|с какой (?:частотой|периодичностью))\b",
            re.IGNORECASE,
        ),
    ),
    (
        AnswerKind.DURATION,
        re.compile(
            r"\b(?:how long(?! ago)|how much time|wie lange(?! ist es her)|wie viel zeit"
            r"|wieviel zeit|как долго"
            # (not "сколько лет": "Сколько лет было Мэннингу?" asks an age)
            r"|сколько (?:\w+ )?(?:времени|секунд|минут|часов|дней|суток|недель|месяцев))\b",
            re.IGNORECASE,
        ),
    ),
    (
        AnswerKind.NUMBER,
        re.compile(
            r"\b(?:how many|how much|what percentage|wie viele|wie viel|wieviel|wie hoch"
            r"|сколько)\b"
            # a size or an amount: "how big", "wie groß", "какого размера"
            r"|\b(?:how (?:big|large|small|heavy|tall|wide)|what size|wie (?:groß|klein"
            r"|schwer|breit)|welche größe|какого (?:размера|объ[её]ма)|какой (?:размер"
            r"|объ[её]м)|насколько (?:велик|большим|большой|большая))"
            # a quantity the question names: "what's the default key size", "which
            # port does it listen on", "welche Schlüsselgröße ist Standard", "какой
            # порт по умолчанию" (not "which package", "welcher Export", nor "what
            # command shows the size …", which asks for a command)
            r"|^\W*(?:what(?:'s|’s|s| is| was| are)?|which)\s+(?:the\s+)?(?!" + _TOOL + r")"
            r"(?:[\w-]+\s+){0,3}?(?:(?:size|length|count)s?|limit|capacity|port(?!s?\s+of\b)s?)\b"
            r"|^\W*(?:welche[rsnm]?|was ist die|wie ist die)\s+(?!" + _TOOL + r")"
            r"(?:[\w-]+\s+){0,2}?(?:[\w-]*(?:größe|grösse|länge|anzahl|grenze)|port|limit)\b"
            r"|^\W*(?:как(?:ой|ая|ое|ие|ов|ова|ово|овы)|каким|какую)\s+(?!" + _TOOL + r")"
            r"(?:[\w-]+\s+){0,2}?(?:размер|порт|лимит|предел|длин[аыу]|количество|число"
            r"|объ[её]м)\w*\b",
            re.IGNORECASE,
        ),
    ),
    (
        AnswerKind.REASON,
        re.compile(
            r"^\W*(?:why|for what reason|warum|wieso|weshalb|weswegen|aus welchem grund"
            r"|почему|зачем|отчего|по какой причине)\b",
            re.IGNORECASE,
        ),
    ),
    (
        AnswerKind.LOCATION,
        re.compile(
            r"^\W*(?:where\b|in which (?:file|director|folder)|wo\b|wohin\b"
            r"|in welche[mr]? (?:datei|verzeichnis|ordner)|где\b|куда\b"
            r"|в како[мй] (?:файле|каталоге|папке))",
            re.IGNORECASE,
        ),
    ),
)
#: a question after what one short thing is ("What is LVM?", "Was ist ein Backport?",
#: "Что такое LVM?"): up to three words after it, nothing more
_DEFINITION_QUESTION: Final = (
    AnswerKind.DEFINITION,
    re.compile(
        r"^\W*(?:what(?: is|'s| are)|was (?:ist|sind|bedeutet|bedeuten)|что (?:такое|есть)"
        r"|что означает)\s+"
        # (a filler first: "Was ist *eigentlich* eine Pivot-Tabelle?")
        r"(?:(?:actually|really|exactly|basically|eigentlich|überhaupt|denn|genau|вообще"
        r"|собственно|именно)\s+)?(?:(?:an?|the|ein|eine|einen|der|die|das)\s+)?"
        r"[\w.+-]+(?:\s+[\w.+-]+){0,2}"
        # its abbreviation: "Was ist ein Non-Maintainer-Upload (NMU)?"
        r"(?:\s*\([\w.+-]{1,20}\))?\s*\??\s*$"
        # "What does Pre-Depends mean?", "What is meant by a conffile?", "Что значит
        # NMU?"
        r"|^\W*what (?:does|do)\s+(?:(?:an?|the)\s+)?[\w.+\"'-]+(?:\s+[\w.+\"'-]+){0,2}"
        r"\s+mean\s*\??\s*$"
        r"|^\W*(?:what is meant by|was versteht man unter|что значит)\s+"
        r"(?:(?:an?|the|einem|einer|einen|den|dem|der)\s+)?[\w.+\"'-]+(?:\s+[\w.+\"'-]+){0,2}"
        r"\s*\??\s*$",
        re.IGNORECASE,
    ),
)
#: a sentence that says what its subject is: the subject (a few words, maybe with a
#: gloss between commas or brackets), then "is a/the …", "ist ein …", "—", "это",
#: "является"
_DEFINES: Final = re.compile(
    r"^\W*+(?:\d+(?:\.\d+)*\.?\s+\S+(?:\s+\S+)?\s+)?"  # a section's number and title
    # (no conjunction opens the subject: "Если это не так, то добавьте …", nu20)
    r"(?!(?:if|when|whether|but|and|or|so|wenn|falls|ob|aber|und|oder|dass|если|когда|но"
    r"|и|а|или|хотя|чтобы|так(?!\s+называем)|как|что|потому|поскольку|при|всё|все)(?=[\s,]))"
    r"[\w.+-]+(?:\s+[\w.+-]+){0,3}"
    r"(?:\s*\([^)]{1,80}\)|,\s[^,]{1,100},)?"
    r"\s+(?:(?:is|are|ist|sind)\s+(?:an?|the|one|another|ein|eine|einer|der|die|das"
    r"|weitere[rs]?)\b|(?:—|–)\s|(?:—\s+)?(?:это|является|являются|представляет собой)\b)",
    re.IGNORECASE,
)
#: a sentence that says what its subject is for: the subject (a few words), then "lets
#: you", "is used to", "ermöglicht", "dient zum", "позволяет" (nu20: "what is a layer
#: mask for" quoted the Mask submenu's list of commands, each naming a layer mask, over
#: "A layer mask lets you define which parts of the layer are opaque …"); the subject's
#: words are checked by :func:`_serves`
_SERVES: Final = re.compile(
    r"^\W*+(?P<subject>(?>[\w.+«»\"“”„'-]+)(?:\s+(?>[\w.+«»\"“”„'-]+)){0,3})"
    r"\s+(?:(?:lets|allows|enables|helps)\s+(?:you|users?|the user|one)\b"
    r"|is\s+used\s+(?:to|for)\b|are\s+used\s+for\b|serves\s+(?:to|as)\b"
    r"|makes\s+it\s+possible\b|(?:ermöglicht|ermöglichen)\b|(?:erlaubt|erlauben)\s+(?:es\s+)?"
    r"(?:Ihnen|dem\s+Benutzer|den\s+Benutzern)\b|(?:dient|dienen)\s+(?:zu[mr]?|dazu|als)\b"
    r"|(?:wird|werden)\s+(?:verwendet|benutzt|genutzt|eingesetzt),?\s+(?:um|für|zu[mr]?)\b"
    r"|(?:позволяет|позволяют|служит|служат|предназначен[аоы]?)\b"
    r"|(?:используется|используются|нужен|нужна|нужно|нужны)\s+для\b)",
    re.IGNORECASE,
)
#: words that make no subject of such a sentence: a pronoun stands for something said
#: before, a person is who is used to a thing or permitted it ("Photoshop users are used
#: to …", "Wir erlauben …", "Нам нужно для этого время"), a question word asks (a red
#: team's finds)
_NOT_A_SUBJECT: Final = frozenset(
    {
        *("it", "this", "that", "these", "those", "they", "you", "we", "he", "she", "i"),
        *("one", "which", "what", "who", "then", "users", "user"),
        *("es", "dies", "das", "diese", "sie", "er", "wir", "ich", "man", "welche"),
        *("welcher", "welches", "was", "wer", "dann", "benutzer"),
        *("это", "этот", "эта", "эти", "он", "она", "оно", "они", "всё", "все", "что"),
        *("кто", "нам", "вам", "мы", "вы", "я", "пользователи"),
    }
)
#: how far into a sentence its subject and verb may stand: a regular expression over a
#: longer start (30,000 quotation marks) took seconds (a red team's find)
_OPENING_CHARS: Final = 300


def _serves(sentence: str) -> bool:
    """The sentence says what its subject is for (:data:`_SERVES`): not a question, and
    no word of its subject a pronoun, a person or a question word."""
    if sentence.rstrip().endswith("?"):
        return False
    found = _SERVES.match(sentence[:_OPENING_CHARS])
    if found is None:
        return False
    words = re.findall(r"\w+", found.group("subject").casefold())
    return not any(word in _NOT_A_SUBJECT for word in words)


#: the term a definition question asks about and what follows it in parentheses
_TERM_AND_PARENTHESES: Final = regex.compile(
    r"([\w.+-]+(?:\s+[\w.+-]+){0,2})\s*\(([^)]*)\)\s*\??\s*$"
)


def _abbreviated(question: str) -> bool:
    """A definition question's parentheses hold the term's abbreviation, or none are
    there: "(NMU)" after "Non-Maintainer-Upload" (its initials), or after a translated
    term ("загрузка не-сопровождающим (NMU)": another script); not "(TCP)" after
    "default port" nor "(seconds)" after "timeout"."""
    found = _TERM_AND_PARENTHESES.search(question)
    if found is None:
        return True
    term, inside = found.group(1), found.group(2).strip()
    if not (2 <= len(inside) <= 10 and inside.isupper() and inside.isalpha()):
        return False
    words = [w for w in regex.split(r"[\s-]+", term) if w]
    initials = "".join(w[0] for w in words).casefold()
    if inside.casefold() in initials:
        return True
    # a term in another script than its abbreviation's: a translation's
    return not regex.search(r"\p{Latin}", term)


#: a sentence that gives a thing its name ("Such uploads are called Non-Maintainer
#: Uploads", "Solche Uploads werden Non-Maintainer Uploads (NMU) genannt", "Такие
#: загрузки называются …"): it says what the thing is
_NAMES_IT: Final = re.compile(
    r"\b(?:is|are) (?:called|known as|referred to as|said to)\s+"
    # …not a function invoked ("is called when the user logs in", "is called from …")
    r"(?!(?:when|whenever|by|from|if|with|after|before|on|in|at|during|once|each|every"
    r"|for|to|as|only|again|automatically|directly|twice|first|last|then|and|or)\b)"
    r"|\b(?:wird|werden) (?:\S+ ){1,6}?genannt\b|\bbezeichnet man\b"
    r"|\bназыва(?:ется|ются|ют)\b",
    re.IGNORECASE,
)
_NAME_QUESTION: Final = (
    AnswerKind.NAME,
    re.compile(
        r"^\W*(?:(?:in|from|with) )?(?:which|what)\s+(?:\w+\s+)?(?:package|tool|program"
        r"|command|utility|daemon|module|library)s?\b"
        r"|^\W*(?:(?:in|aus|mit) )?welche[mnrs]?\s+(?:\w+\s+)?(?:paket|werkzeug|programm"
        r"|befehl|kommando|tool|modul|bibliothek|dienst)"
        r"|^\W*(?:(?:в|из|с помощью) )?как(?:ой|ая|ое|ом|ую|ого|им|ие|их)\s+(?:\w+\s+)?"
        r"(?:пакет|программ|команд|утилит|инструмент|модул|библиотек)",
        re.IGNORECASE,
    ),
)
#: a question after which version or release did something ("Mit welcher Version hat
#: Debian zum ersten Mal systemd eingesetzt?", "Какой выпуск Debian первым поддержал
#: UEFI?", "Which release first shipped systemd?")
_VERSION_QUESTION: Final = re.compile(
    r"^\W*(?:(?:in|with|since|from) )?(?:which|what)\s+(?:\w+\s+)?(?:version|release"
    r"|edition)s?\b"
    r"|^\W*(?:(?:in|mit|seit|ab|bei|von) )?welche[mnrs]?\s+(?:\w+\s+)?(?:version"
    r"|veröffentlichung|ausgabe|release)"
    r"|^\W*(?:(?:в|с|начиная с) )?как(?:ой|ая|ое|ом|ую|ого|им|ие|их)\s+(?:\w+\s+)?"
    r"(?:верси(?:я|и|ю|ей|ях)|выпуск(?:а|е|ом|у|и|ов)?|релиз(?:а|е|ом|у|ы|ов)?)\b",
    re.IGNORECASE,
)


def asks_which_version(question: str) -> bool:
    """The question asks which version or release did something: the answer names it,
    and a release history says it before "this release" (:func:`select_context`)."""
    return _VERSION_QUESTION.search(question) is not None


#: the first words of a sentence that name a release or version only by pointing back
#: at it ("This release …", "In dieser Veröffentlichung …", "В этом выпуске …", "Dies
#: war die erste Veröffentlichung …"); not "Note that …", nor "Этой программе …"
_POINTS_BACK: Final = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:(?:this|that|these) (?:\w+ )?(?:release|version|edition)s?\b"
    r"|(?:diese[rsmn]?|dieses) (?:\w+ )?(?:Version|Veröffentlichung|Ausgabe|Release)"
    r"|dies (?:war|ist) (?:auch )?(?:die|das) (?:\w+ )?(?:Version|Veröffentlichung|Ausgabe"
    r"|Release)"
    r"|эт(?:от|а|о|и|ом|ой|ого|ому|у|им|их) (?:\w+ )?(?:выпуск|верси|релиз))",
    re.IGNORECASE,
)


def points_back(sentence: str) -> bool:
    """Whether the sentence names a release or version only by pointing back at it."""
    return _POINTS_BACK.match(sentence) is not None


#: a name written as one identifier: "cron-apt", "debian-policy", "linux-image-NNN"
_IDENTIFIER: Final = re.compile(r"(?<![\w/.-])[a-z][a-z0-9+.]*(?:[-_][a-z0-9+.]+)+")
#: a file or folder path ("/etc/papersize", "~/.bashrc") or a web address
_PATH: Final = re.compile(r"(?:^|(?<=[\s(«\"'„“]))~?/[\w.+-]+|\bhttps?://\S+")
_YEAR: Final = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
_MONTH: Final = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|januar|februar|märz|mai|juni|juli|oktober|dezember|январ|феврал|март"
    r"|апрел|ма[яй]|июн|июл|август|сентябр|октябр|ноябр|декабр)",
    re.IGNORECASE,
)
#: a number written as a word of its own, maybe with a unit ("2048", "256MB", "1.5GHz",
#: "4096R"); not the digits inside a key id or a name ("43CDE61D", "sha256sum", "ext4")
_NUMBER: Final = regex.compile(r"(?<![\p{L}\d])\d[\d.,]*\p{L}{0,3}(?![\p{L}\d])")
#: a reference to a part of the document ("Section 6.1", "see Chapter 3", "Abschnitt
#: 4.2", "Kapitel 7", "раздел 6.1", "в главе 3", "§ 12", "6.1.2"): its number counts
#: nothing, so it is no answer to "how many …?"
_REFERENCE: Final = re.compile(
    r"\b(?:sections?|chapters?|parts?|figures?|tables?|appendix|appendices|pages?|footnotes?"
    r"|steps?|abschnitts?|abschnitten|kapitels?|kapiteln|teils?|abbildung(?:en)?|tabellen?"
    r"|anhangs?|seiten?|schritts?|fußnoten?|раздел\w*|глав\w*|част\w*|рисун\w*|таблиц\w*"
    r"|приложени\w*|страниц\w*|шаг\w*|пункт\w*|versions?|releases?|version\w*|верси\w*)"
    r"\s+\d+(?:\.\d+)*\b|§+\s*\d+(?:\.\d+)*"
    # a footnote's or a reference's mark ("… is quite reduced [6] you might …")
    r"|\[\d{1,3}\]",
    re.IGNORECASE,
)
#: a count that a frequency pattern would take for how often: a multiplier ("ten times
#: their own weight", "zehnmal so viel", "в десять раз больше") and none at all ("None of
#: the original treaties …", "Keiner der Verträge …", "Ни в одном из договоров …")
_MULTIPLIER_OR_NONE: Final = re.compile(
    r"\b(?:\d+|\w+) times (?:the|their|its|his|her|our|your|as|more|less|fewer|larger"
    r"|bigger|smaller|higher|lower|greater|longer|faster|heavier|that)\b"
    r"|\b\w+mal (?:so|mehr|weniger|größer|kleiner|höher|länger|schneller|schwerer)\b"
    r"|\bв (?:\d+|\w+) раза? (?:больш|меньш|выш|ниж|длинн|дольш|быстр|тяжел|дорож)\w*"
    r"|\b(?:none|zero|keiner|keines|keins|ни одн\w*|ни в одном|ноль|нуль)\b",
    re.IGNORECASE,
)
#: the words that ask what a thing is ("что *такое* LVM?", "was *bedeutet* …"): no
#: terms of the question ("так" would match "Как RAID, так и LVM …")
DEFINITION_WORDS: Final = frozenset({"такое", "означает", "есть", "bedeutet", "bedeuten"})
#: the words of a "how often" question that ask for the frequency: what answers them is
#: a frequency, not the same word ("more often than stable" does not say how often)
FREQUENCY_WORDS: Final = frozenset(
    {"often", "frequently", "oft", "häufig", "abständen", "часто", "частотой", "периодичностью"}
)
#: the words of a "how long" question that ask for the time: what answers them is a time,
#: not the same word ("die Sicherung dauert lange" does not say how long)
DURATION_WORDS: Final = frozenset({"long", "lange", "долго", "времени"})
#: a time or a length in words: a count of time or length units ("30 Tage", "ein Jahr",
#: "several years", "две недели", "1,230 km", "64 letters"; not a time of day, not "many
#: years ago" nor "a 3-year-old bug"), units a verb or a preposition counts ("takes
#: hours", "в течение суток", "через неделю"), half of one ("полчаса", "eine halbe
#: Stunde"), a span of years ("1870 to 1939", "с 1870 по 1939"; not a copyright's), an end
#: or no end ("until the end of …", "unbegrenzt", "навсегда"); not "until" alone ("bis
#: zum Datum" says no time)
_DURATION: Final = re.compile(
    r"\ban? (?:minute|hour|day|night|week|month|year|decade|century|fortnight)\b"
    r"|(?:(?<![\w,.])\d[\d,.]*+|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|\w+teen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?"
    r"|thousands?|millions?|billions?|several|many|a few|few|a couple of"
    r"|ein|eine|einen|einem|einer|eines|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|elf"
    r"|zwölf|\w+zehn|\w+zig|dreißig|hundert|tausend|einige|einigen|mehrere|mehreren|wenige"
    r"|wenigen|ein paar|один|одна|одно|одну|одного|одной|одном|два|две|двух|двум|двумя|три"
    r"|трёх|трех|трём|тремя|четыре|четырёх|четырех|пять|пяти|шесть|шести|семь|семи|восемь"
    r"|восьми|девять|девяти|десять|десяти|\w+надцать|\w+надцати|\w+дцать|\w+дцати|сорок"
    r"|сорока|\w+десят|\w+десяти|девяносто|сто|ста|сотни|двести|триста|\w+сот|тысяч\w*"
    r"|миллион\w*|несколько|нескольких|много|многих|пару|пары|полтора|полутора))"
    r"[ \u00a0-]?(?:[\w-]+ )?(?:(?:milli|micro|nano)?seconds?|secs?|minutes?|mins?|hours?|hrs?"
    r"|days?|nights?|weeks?|fortnights?|months?|years?|decades?|centur(?:y|ies)"
    r"|(?:milli)?sekunden?|minuten?|stunden?|tag(?:e|en|es)?|nacht|nächten?|nächte|wochen?"
    r"|monat(?:e|en|s)?|jahr(?:e|en|es)?|jahrzehnt(?:e|en|s)?|jahrhunderts?|jahrhunderte|std"
    r"|(?:милли)?секунд\w*|минут\w*|час\w*|дн(?:я|ей|ям|и)|день|сут(?:ки|ок)|ноч\w*"
    r"|недел\w*|месяц\w*|год\w*|лет|век\w*|сек|мин|ч"
    r"|km|kilomet(?:er|re)s?|miles?|met(?:er|re)s?|feet|foot|ft|cm|mm|inch(?:es)?"
    r"|zentimeter|millimeter|meilen?|км|километр\w*|метр\w*|миль|сантиметр\w*|миллиметр\w*"
    r"|characters?|chars|letters|bytes?|zeichen|buchstaben|symbole|символ\w*|букв\w*|байт\w*)"
    r"\b(?!-old|-alt| ago| earlier| before| назад| тому)"
    # a number and its unit written together ("2h", "500ms"), not a decade's "90s"
    r"|(?<![\w,.])\d{1,3}(?:\.\d+)?(?:ms|h|min)\b"
    # units a verb or a preposition counts, plural or in Russian's accusative
    r"|\b(?:takes?|took|lasts?|lasted|for|within|over) (?:hours|days|weeks|months|years|minutes"
    r"|seconds)\b|\b(?:stunden|tage|wochen|monate|jahre)lang\b"
    r"|\b(?:в течение|через|спустя|на протяжении|за|на) (?:(?:одн|дв|тр|нескольк)\w* )?"
    r"(?:секунд\w*|минут\w*|час\w*|дня|дней|день|сут\w*|недел\w*|месяц\w*|года?|лет)\b"
    r"|\b(?:часами|днями|неделями|месяцами|годами)\b"
    r"|\b(?:около|больше|более|менее|меньше|свыше|почти|примерно|целый|целую|целых)"
    r" (?:часа|минуты|секунды|суток|дня|недели|месяца|года|часов|минут|лет)\b"
    r"|\bдейств\w* (?:(?:в течение|целый|целую) )?(?:год|месяц|неделю|сутки|день|час)\b"
    r"|\b\w+(?:ся|сь|ет|ит|ут|ют|ат|ят) (?:год|месяц|неделю|сутки|день|час)\b"
    r"|\b(?:half an? (?:hour|day|year|minute)|eine halbe (?:stunde|minute)|ein halbes jahr"
    r"|einen halben tag|пол(?:часа|года|дня|минуты|секунды|суток)|overnight|über nacht)\b"
    # a century named by its order ("well into the nineteenth century", "XIX век")
    r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
    r"|twelfth|\w+teenth|twentieth|twenty-first) centur(?:y|ies)\b|\b[IVX]+ век\w*"
    r"|\b(?:1[5-9]|20)\d\d\s*(?:(?:to|until|till|through|bis|по|до)\s*(?:1[5-9]|20)?\d\d"
    r"|[-–—]\s*(?:1[5-9]|20)\d\d)\b(?![-–]\d)"
    # until an end ("until the end of the current Parliament", "bis zum Ende", "до
    # окончания срока", "until 2030"), not "until" alone ("bis zum Datum")
    r"|\b(?:until|till|up to) (?:the )?end\b|\bbis (?:zum|ans) ende\b"
    r"|\bдо (?:окончания|конца|истечения)\b|\b(?:until|till|bis|до) \d{4}\b"
    r"|\b(?:forever|indefinitely|permanently|unbegrenzt|unbefristet|dauerhaft|für immer"
    r"|навсегда|бессрочно)\b",
    re.IGNORECASE,
)
#: what says no time though it is written as one: a copyright's years, a range of lines
#: or pages
_NOT_A_TIME: Final = re.compile(
    r"(?:copyright|©|\(c\))\s*(?:\d{4}\s*[-–—,]\s*)*\d{4}"
    r"|\b(?:lines?|zeilen?|строк\w*|pages?|seiten?|страниц\w*)\s+\d+\s*(?:to|-|–|bis|по|до)\s*\d+",
    re.IGNORECASE,
)
#: how often, in words: "once", "twice each day", "every few minutes", "daily",
#: "einmal monatlich", "mehrmals", "jede Woche", "дважды в день", "ежедневно",
#: "каждые несколько минут", "раз в неделю"; "times" and "раз" only after a count
#: ("three times", "несколько раз"): "at times", "в этот раз" say no frequency
_FREQUENCY: Final = re.compile(
    r"\b(?:once|twice|thrice|(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten"
    r"|several|many|multiple|a few|a couple of|a number of) times|hourly|daily|nightly"
    r"|weekly|fortnightly|monthly|quarterly|yearly|annually"
    r"|(?:every|each|per|a) (?:\w+ )?(?:second|minute|hour|day|night|week|month|year)s?"
    r"|(?:ein|zwei|drei|vier|fünf|mehr|\d+)[ -]?mal(?:s|ig)?|(?:täg|wöchent|monat"
    r"|stünd|jähr)lich\w*|(?:jede[nrs]?|pro|alle) (?:\w+ )?(?:sekunde|minute"
    r"|stunde|tag|woche|monat|jahr)\w*"
    r"|(?:\d+|один|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|несколько"
    r"|много) раза?|раза? в|дважды|трижды|ежечасно|ежедневно|еженедельно|ежемесячно"
    r"|ежегодно|кажд\w+ (?:\w+ )?(?:секунд|минут|час|дн|день|недел|месяц|год|лет)\w*"
    r"|в (?:секунду|минуту|час|день|сутки|неделю|месяц|год))\b",
    re.IGNORECASE,
)
#: a number in words ("seven days", "sieben Tage", "семь дней", "шестикратный"); not
#: "ein"/"one" as an article or pronoun
_NUMBER_WORD: Final = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|\w+teen"
    r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?"
    r"|millions?|billions?|dozens?|twice|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn"
    r"|elf|zwölf|\w+zehn|(?:zwan|drei|vier|fünf|sech|sieb|acht|neun)(?:zig|ßig)"
    r"|hundert|tausend|million(?:en)?|milliarden?|dutzend|doppelt"
    r"|два|две|двух|двум|двумя|три|трёх|трех|трём|тремя|четыре|четырёх|четырех|пять|пяти"
    r"|шесть|шести|семь|семи|восемь|восьми|девять|девяти|десять|десяти|\w+надцать"
    r"|\w+надцати|двадцат\w*|тридцат\w*|сорок|сорока|\w+десят|девяносто|сто|ста|двести"
    r"|триста|четыреста|\w+сот|тысяч\w*|миллион\w*|миллиард\w*"
    # a number as an adjective: "sechsfacher", "шестикратный" (a six-time winner)
    r"|(?:zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn)fach\w*"
    r"|(?:одно|дву|двух|тр[её]х|четыр[её]х|пяти|шести|семи|восьми|девяти|десяти)кратн\w*)\b",
    re.IGNORECASE,
)


#: a reason stated: "because", "that is why", "weil", "Das ist der Grund, weshalb",
#: "потому что", "поэтому"
_REASON: Final = re.compile(
    r"\b(?:because|since|due to|owing to|so that|in order to|that is why|this is why"
    r"|the reason|reasons?|therefore|as a result|weil|denn|deshalb|deswegen|daher|darum"
    r"|weshalb|wegen|damit|grund|gründen|потому что|так как|поскольку|из-за|поэтому"
    r"|причин\w*|чтобы|ибо|вследствие)\b",
    re.IGNORECASE,
)


def answer_kind(question: str) -> AnswerKind | None:
    # a question that opens by asking how to do something asks for that, whatever it
    # says after: "How can I limit how many backup copies KiCad keeps?" is answered by
    # the setting, not by a count
    if HOW_TO_QUESTION.search(question):
        return AnswerKind.INSTRUCTION
    for kind, pattern in (*_KINDS, _NAME_QUESTION, _DEFINITION_QUESTION):
        if pattern.search(question):
            if kind is AnswerKind.DEFINITION and not _abbreviated(question):
                continue  # "What is the default port (TCP)?" asks for a value
            return kind
    # …and one that asks it after telling what happened ("My eraser paints white. How
    # do I fix that?"), unless it asked for something else first ("When was version 3
    # released, how do I check?")
    if HOW_TO_LATER.search(question):
        return AnswerKind.INSTRUCTION
    return None


#: a section that describes a program's settings, one by one ("4.1. Common
#: preferences", "Einstellungen", "Диалог настроек"); not "Einstellung neuer Mitarbeiter"
#: (hiring)
_SETTINGS_SECTION: Final = regex.compile(
    r"\b(?:preferences|settings|options|configuration|dialog|einstellungen|optionen"
    r"|konfiguration|настройки|настроек|параметры|опции|диалог)\b",
    regex.I,
)
#: a setting's label before its description: "Maximum backups to keep: When …"
_SETTING_LABEL: Final = regex.compile(r"^\p{Lu}[\p{L}\p{N} /()'-]{2,60}:\s+\S")
#: labels of a note, not of a setting
_NOT_A_SETTING: Final = regex.compile(
    r"^(?:note|notes|warning|caution|tip|important|example|hint|see also|hinweis|"
    r"achtung|warnung|beispiel|tipp|siehe auch|примечание|внимание|пример|совет|"
    r"предупреждение|см\. также)\s*:",
    regex.I,
)
#: what a setting's description says: what it does when on, what it sets, its limit
#: or its default ("When enabled, …", "… below this limit", "Legt … fest", "Задаёт …");
#: "Vesting schedule: four years" or "Probezeit: sechs Monate" describe no setting
_SETTING_DESCRIPTION: Final = regex.compile(
    r"\b(?:when|if) (?:enabled|disabled|checked|unchecked|selected|set|turned on|turned off)"
    r"\b|\b(?:sets|specifies|determines|controls|defines|enables|disables|limits|selects"
    r"|toggles)\b|\bthis (?:limit|option|setting|value)\b|\bby default\b"
    r"|\bwenn (?:aktiviert|deaktiviert|ausgewählt|gesetzt|eingeschaltet|ausgeschaltet)\b"
    r"|\b(?:legt|bestimmt|steuert|begrenzt|aktiviert|deaktiviert)\b"
    r"|\bdiese[rns]? (?:option|einstellung|wert|grenze)\b|\bstandardmäßig\b"
    r"|\bесли (?:включено|выключено|отмечено|выбрано|включ[её]н|отмечен)"
    r"|\b(?:задаёт|задает|определяет|указывает|устанавливает|включает|отключает"
    r"|ограничивает)\b|\bэт(?:от|а|о|ого|ой) (?:параметр|опци|значени|предел)"
    r"|\bпо умолчанию\b",
    regex.I,
)


def sets_a_setting(sentence: str, section_title: str | None) -> bool:
    """A sentence that describes one setting by its label, in a section on a program's
    settings: for "How can I limit how many backups …?", "Maximum backups to keep:
    When creating a new backup, the oldest … will be deleted to keep the total …
    below this limit." names what to set."""
    label, _, description = sentence.partition(":")
    return (
        section_title is not None
        and _SETTINGS_SECTION.search(section_title) is not None
        and _SETTING_LABEL.match(sentence) is not None
        and len(label.split()) <= 6
        and _NOT_A_SETTING.match(sentence) is None
        and _SETTING_DESCRIPTION.search(description) is not None
    )


def holds_answer_kind(kind: AnswerKind | None, sentence: str) -> bool:
    if kind is AnswerKind.DATE:
        return bool(_YEAR.search(sentence) or _MONTH.search(sentence))
    if kind is AnswerKind.NUMBER:
        # a number that says how often ("every 15 minutes", "twice a day") or that
        # names a part of the document ("Section 6.1") is no count, size or amount; a
        # multiplier or "none" is one
        if _MULTIPLIER_OR_NONE.search(sentence):
            return True
        counted = _REFERENCE.sub(" ", _FREQUENCY.sub(" ", sentence))
        return bool(_NUMBER.search(counted) or _NUMBER_WORD.search(counted))
    if kind is AnswerKind.FREQUENCY:
        return bool(_FREQUENCY.search(sentence))
    if kind is AnswerKind.DURATION:
        return bool(_DURATION.search(_NOT_A_TIME.sub(" ", _REFERENCE.sub(" ", sentence))))
    if kind is AnswerKind.INSTRUCTION:
        # the sentence's own language: an English sentence left untranslated in a
        # German manual instructs, a German one opening with "install" does not; and a
        # warning ("Never do this …: rm -rf /var/lib/dpkg.") says what not to do
        return has_instruction(sentence, detect_language(sentence)) and not warns_against(sentence)
    if kind is AnswerKind.REASON:
        return bool(_REASON.search(sentence))
    if kind is AnswerKind.LOCATION:
        return bool(_PATH.search(sentence))
    if kind is AnswerKind.NAME:
        return bool(_IDENTIFIER.search(sentence) or _PATH.search(sentence))
    if kind is AnswerKind.DEFINITION:
        return (
            _DEFINES.match(sentence[:_OPENING_CHARS]) is not None
            or _NAMES_IT.search(sentence) is not None
            or _serves(sentence)
        )
    return False


@dataclass(frozen=True, slots=True)
class Support:
    """Features of one sentence; each share is of the question's total term weight."""

    matched: float
    partial: float
    previous: float  # terms found only in the sentence before
    following: float  # terms found only in the sentence after
    source_rank: float  # 1 for S1, 1/2 for S2, …
    answer_kind: bool
    #: the largest share of one question term that neither the sentence, its
    #: neighbours nor its section's heading contain (the subject of a question about
    #: another article)
    uncovered: float = 0.0
    #: terms found only in the heading of the section the sentence is in ("8.5. How can
    #: I find out what package produced a particular file?" above its answer)
    heading: float = 0.0
    #: the share of the other question terms that none of these contain, beside the
    #: weightiest one (``uncovered``)
    uncovered_rest: float = 0.0
    #: for a "why" question: the sentence gives steps (a command, an imperative) and no
    #: reason
    instructs: bool = False


#: shortest term matched inside a longer stem, or with a changed ending
_MIN_INNER: Final = 5
#: partial credit: shortest term, shortest shared piece, least share of the term
_PARTIAL_TERM: Final = 6
_PARTIAL_PIECE: Final = 4
_PARTIAL_SHARE: Final = 0.4
#: Russian stems that differ in at most this many final letters match
_ENDING: Final = 2
#: credit of a question term whose synonym the sentence holds ("display" for "see",
#: ``ragox.search._synonyms``): partial, below the word itself
_SYNONYM: Final = 0.8


class Credits(dict[str, float]):
    """Credit in [0, 1] per question term a text holds; ``by_synonym``: the terms it
    holds only through a synonym ("switch" for "change")."""

    __slots__ = ("by_synonym",)

    def __init__(self) -> None:
        super().__init__()
        self.by_synonym: set[str] = set()


#: what stands between a separable verb's particle and its stem: nothing
#: ("einrichten"), the infinitive's "zu" ("einzurichten"), the participle's "ge"
#: ("eingerichtet")
_SEPARABLE_INFIXES: Final = ("", "zu", "ge")


def joins_verb(word: str, stem: str, particle: str) -> bool:
    """Whether ``word`` is a split verb written joined with its particle: "ausgeblendet",
    "auszublenden", "ausblenden" for "blend" and "aus" (read in the word: the stemmer
    may cut it short, "ausgebl")."""
    return any(word.startswith(particle + infix + stem) for infix in _SEPARABLE_INFIXES)


#: marks a particle that stands alone in a sentence among its stems
_PARTICLE_MARK: Final = "\x00"
#: marks a command-line option among a question's terms and a text's stems
OPTION_MARK: Final = "\x02"
#: marks a separable verb's stem written joined with its particle ("ausgeblendet"),
#: which the stemmer may cut short ("ausgebl"): found in the words, not the stems
_JOINED_MARK: Final = "\x03"
#: a command-line option as written: "-n", "--fast", "-tupan" (not a word's hyphen, not
#: a negative number, not an arrow "-->")
_OPTION: Final = regex.compile(r"(?<![\w\-/.])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w\-])")


def command_options(question: str) -> list[str]:
    """The command-line options a question writes, each once, in order."""
    return list(dict.fromkeys(_OPTION.findall(question)))


def command_option_free(question: str) -> str:
    """The question with its command-line options blanked out."""
    return _OPTION.sub(" ", question)


#: marks a question's hyphenated or dotted name that a sentence holds (``TermMatcher.names``)
_NAME_MARK: Final = "\x01"


class TermMatcher:
    """Credit in [0, 1] per question term for a set of stems, by the documents' languages."""

    def __init__(
        self,
        terms: Sequence[str],
        languages: Sequence[str],
        compounds: Sequence[tuple[str, str, str]] = (),
        skip: frozenset[str] = frozenset(),
        separable: Mapping[str, str] | None = None,
        names: Sequence[tuple[tuple[str, ...], tuple[str, ...]]] = (),
        options: Sequence[str] = (),
    ) -> None:
        """``compounds``: ``(term, term, compound stem)`` for two neighbouring words of
        the question that a document may write as one ("time zone", "timezone"): a
        sentence with the compound holds both terms. ``skip``: words of a sentence
        that meet no term (its function words). ``separable``: a German verb's stem
        and the particle the question split from it ("Wie richte ich … ein?": "richt"
        and "ein"), held only with that particle, joined ("einrichten",
        "einzurichten", "eingerichtet") or a word of the sentence ("richten Sie … ein"):
        "richtet sich an Endanwender" is another verb. ``names``: the question's command
        and file names written with a hyphen or a dot ("apt-get", "sources.list"), as
        their words and the terms only they gave: those terms are held only where the
        name is, or two thirds of its words ("Debian's GitLab instance called Salsa"
        for "salsa.debian.org"); "apt list" holds no part of "apt-get". ``options``:
        the question's command-line options (:func:`command_options`), each the term
        ``OPTION_MARK + option``, held by a text that writes the option."""
        self.terms = tuple(terms)
        self.languages = tuple(languages)
        self.skip = skip
        self.inner = any(language in ("en", "de") for language in languages)
        self.endings = "ru" in languages
        self.compounds = tuple(compounds)
        self.separable = dict(separable or {})
        self._particles = frozenset(self.separable.values())
        self.names = tuple((_NAME_MARK + " ".join(words), words, held) for words, held in names)
        self.options = tuple(options)

    def stems(self, text: str) -> frozenset[str]:
        found: set[str] = set()
        for language in self.languages:
            found.update(analyze_document(text, language, self.skip).split())
        if self._particles:
            # a particle standing alone in the sentence (a function word, "ein", is no
            # stem): kept as a mark that no word's stem can be
            words = tokens(text)
            found.update(_PARTICLE_MARK + word for word in words if word in self._particles)
            found.update(
                _JOINED_MARK + term
                for term, particle in self.separable.items()
                for word in words
                if joins_verb(word, term, particle)
            )
        if self.options:
            written = set(_OPTION.findall(text))
            found.update(OPTION_MARK + option for option in self.options if option in written)
        if self.names:
            words = [word.casefold() for word in tokens(text)]
            present = set(words)
            for mark, name, _ in self.names:
                size = len(name)
                if 3 * sum(word in present for word in name) >= 2 * size or any(
                    tuple(words[i : i + size]) == name for i in range(len(words) - size + 1)
                ):
                    found.add(mark)
        return frozenset(found)

    def credit(self, stems: frozenset[str]) -> Credits:
        joined = " ".join(stems)
        credits = Credits()
        for term in self.terms:
            value, by_synonym = self._credit(term, stems, joined)
            if value > 0:
                credits[term] = value
                if by_synonym:
                    credits.by_synonym.add(term)
        for first, second, compound in self.compounds:
            if compound in stems:
                credits[first] = credits[second] = 1.0
                credits.by_synonym.difference_update((first, second))
        for mark, _, held in self.names:
            if mark not in stems:
                for term in held:
                    credits.pop(term, None)
                    credits.by_synonym.discard(term)
        return credits

    def _credit(self, term: str, stems: frozenset[str], joined: str) -> tuple[float, bool]:
        """The term's credit, and whether it is owed to a synonym alone."""
        particle = self.separable.get(term)
        if particle is not None:
            joined_verb = _JOINED_MARK + term in stems or any(
                particle + infix + term in joined for infix in _SEPARABLE_INFIXES
            )
            alone = _PARTICLE_MARK + particle in stems and self._holds(term, stems, joined)
            return (1.0 if joined_verb or alone else 0.0), False
        if self._holds(term, stems, joined):
            return 1.0, False
        synonym = _SYNONYM * any(
            self._holds(other, stems, joined)
            for language in self.languages
            for other in synonym_stems(term, language)
        )
        size = len(term)
        if size >= _PARTIAL_TERM:
            for piece in range(size - 1, _PARTIAL_PIECE - 1, -1):
                if piece / size < _PARTIAL_SHARE:
                    break
                if term[:piece] in joined or term[size - piece :] in joined:
                    return max(piece / size, synonym), synonym > piece / size
        return synonym, synonym > 0

    def _holds(self, term: str, stems: frozenset[str], joined: str) -> bool:
        """The stems hold ``term``: itself, inside a compound (en, de), or with
        another ending (ru)."""
        if term in stems:
            return True
        size = len(term)
        if size >= _MIN_INNER and self.inner and term in joined:
            return True
        if size >= _MIN_INNER and self.endings:
            head = term[: size - _ENDING]
            if any(
                abs(len(stem) - size) <= _ENDING and stem.startswith(head)
                for stem in stems
                if len(stem) >= size - _ENDING
            ):
                return True
        return False


def support(
    credits: Mapping[str, float],
    before: Mapping[str, float] | None,
    after: Mapping[str, float] | None,
    weights: Mapping[str, float],
    source_index: int,
    kind_held: bool,
    heading: Mapping[str, float] | None = None,
    *,
    heading_asks: bool = False,
) -> Support:
    total = sum(weights.values()) or 1.0
    # Under a title, what a neighbour adds is counted beyond the title's words too:
    # the sentence right after a heading has the heading as its previous unit, and its
    # words counted twice (as neighbour and as title) put the section's opening
    # sentence above one under it that holds every word of the question itself
    # ("Anybody can easily get a root-shell …" under "4.4. Set a LILO or GRUB
    # password" before "For LILO you need to edit /etc/lilo.conf and add a
    # password …"). Under a question (an FAQ's "11.3. How can I change the console
    # font at boot?") the sentence after it is the answer, in words of its own: there
    # the heading keeps counting as the sentence before it.
    held = dict(credits)
    if not heading_asks:
        for term, value in (heading or {}).items():
            held[term] = max(value, held.get(term, 0.0))

    def only_in(other: Mapping[str, float] | None) -> float:
        """What a neighbour holds of the question beyond what the sentence and its
        section's title hold (the word itself beside the sentence's synonym counts for
        what the synonym lacks)."""
        if other is None:
            return 0.0
        return (
            sum(
                weights[t] * (value - held.get(t, 0.0))
                for t, value in other.items()
                if value > held.get(t, 0.0)
            )
            / total
        )

    # a section's title says what all of it is about: its words count beside a
    # sentence that holds them only in part ("How can I find out …" above "To
    # identify the package …": the section is about finding out, whatever the
    # sentence calls it)
    titled = (
        sum(weights[t] * value for t, value in heading.items() if credits.get(t, 0.0) < 1.0) / total
        if heading is not None
        else 0.0
    )

    near = set(credits) | set(before or {}) | set(after or {}) | set(heading or {})
    absent = sorted((w for t, w in weights.items() if t not in near), reverse=True)
    return Support(
        matched=sum(weights[t] for t, value in credits.items() if value >= 1.0) / total,
        partial=sum(weights[t] * value for t, value in credits.items() if value < 1.0) / total,
        previous=only_in(before),
        following=only_in(after),
        source_rank=1.0 / (1 + source_index),
        answer_kind=kind_held,
        uncovered=(absent[0] if absent else 0.0) / total,
        heading=titled,
        uncovered_rest=sum(absent[1:]) / total,
    )
