"""Words that manuals and their readers use for the same action or thing.

A reader asks "How do I *see* which files a package put on my disk?" and the manual
answers under "How do I *display* the files of an installed package?"; "switch to
testing" is answered by "change the third field to 'testing'"; "Wie *zeige* ich …"
by "… *auflisten*"; "Как *показать* …" by "… *вывести* список". Each group below
holds words that, in a technical manual, name one action or thing; a word's
synonyms are the other words of every group it is in. The groups are few and
narrow on purpose (no "run" beside "start", no "update" beside "upgrade": manuals
keep those apart; no "computer" beside "machine": manuals name both everywhere, and
on issue 16's development set that group pulled "Debian machines" sections above
the answer), and a synonym earns a sentence less than the question's own word
(``ragox.answer._support``). Lexical search matches a query's synonyms beside its
words (:func:`with_synonyms`): on the development set (145 questions, en/de/ru)
recall@5 went from .806 to .852 and recall@1 from .611 to .648.

The groups are matched as stems of each language's Snowball stemmer, the forms
the answer scorer compares, so a word whose stem is another common word's stays
out: German "ändern" (stemmed "and", as "andere" is), "bestimmen" ("bestimmte"),
"Weg", "Rechte" ("recht einfach"), "Ordner" ("ordnen"); Russian "определить"
("определённый"), "загрузить" ("загрузка", booting), "право" ("править"); English
"issue" ("issue the command").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Final

from ragox.search._analyze import analyze_document, index_form

__all__ = ["synonym_stems", "synonyms_of_word", "with_synonyms"]

_GROUPS: Final[Mapping[str, tuple[tuple[str, ...], ...]]] = {
    "en": (
        ("see", "show", "display", "view", "list"),
        ("change", "modify", "alter", "switch"),
        ("switch", "move", "migrate"),
        ("remove", "delete", "uninstall", "purge", "erase"),
        ("find", "determine", "identify", "discover"),
        ("inform", "notify", "tell"),
        ("obtain", "get", "fetch", "retrieve", "download"),
        ("start", "launch"),
        ("stop", "halt", "terminate", "kill"),
        ("restart", "reboot"),
        ("create", "generate"),
        ("permission", "access", "privilege"),
        ("directory", "folder"),
        ("away", "absent", "absence", "vacation", "holiday"),
        ("problem", "trouble"),
        ("configure", "setup"),
        ("shortcut", "hotkey"),
    ),
    "de": (
        ("zeigen", "anzeigen", "ansehen", "sehen", "auflisten", "ausgeben", "betrachten"),
        ("wechseln", "umstellen", "anpassen"),
        ("wechseln", "umsteigen", "umziehen", "migrieren"),
        ("entfernen", "löschen", "deinstallieren"),
        ("herausfinden", "ermitteln", "feststellen"),
        ("informieren", "benachrichtigen", "mitteilen", "bescheid"),
        ("bekommen", "erhalten", "holen", "herunterladen"),
        ("starten", "aufrufen"),
        ("anhalten", "beenden", "stoppen"),
        ("neustarten", "neustart", "rebooten"),
        ("erstellen", "erzeugen", "anlegen", "bauen"),
        ("berechtigung", "zugriff", "erlaubnis"),
        ("abwesend", "abwesenheit", "urlaub"),
        ("problem", "schwierigkeit"),
        ("konfigurieren", "einrichten", "anpassen"),
        ("tastenkürzel", "tastenkombination", "hotkey", "shortcut"),
    ),
    "ru": (
        ("посмотреть", "показать", "просмотреть", "вывести", "отобразить", "увидеть"),
        ("изменить", "поменять", "сменить", "переключить"),
        ("перейти", "переключиться", "мигрировать", "переехать"),
        ("удалить", "стереть", "деинсталлировать"),
        ("узнать", "выяснить"),
        ("сообщить", "уведомить", "предупредить", "проинформировать"),
        ("получить", "скачать"),
        ("запустить", "стартовать"),
        ("остановить", "завершить", "прервать"),
        ("перезапустить", "перезагрузить", "перезагрузка", "перезапуск"),
        ("создать", "сгенерировать", "собрать"),
        ("доступ", "разрешение", "полномочия"),
        ("каталог", "директория", "папка"),
        ("отпуск", "отсутствие", "отсутствовать"),
        ("проблема", "неполадка"),
        ("настроить", "сконфигурировать"),
        # a reader's everyday clipping of the manual's word ("ноут сильно греется",
        # nu17, GNOME Help: "Ноутбуки … нагреваются")
        ("ноутбук", "ноут"),
        ("компьютер", "комп"),
        ("интернет", "инет"),
        ("нагреваться", "греться", "греется"),
    ),
}


@cache
def _stem_groups(language: str) -> tuple[frozenset[str], ...]:
    return tuple(
        frozenset(analyze_document(" ".join(group), language).split())
        for group in _GROUPS.get(language, ())
    )


@cache
def synonym_stems(term: str, language: str) -> frozenset[str]:
    """The stems, in ``language``, of the words that mean what the word stemmed to
    ``term`` means (``term`` itself not among them); empty for most terms."""
    found: set[str] = set()
    for group in _stem_groups(language):
        if term in group:
            found.update(group)
    found.discard(term)
    return frozenset(found)


def with_synonyms(terms: Sequence[str], languages: Sequence[str]) -> tuple[str, ...]:
    """``terms`` and, after them, the synonyms of each in each of ``languages``, each
    in its :func:`~ragox.search.index_form` (a Russian stem longer than six letters is
    indexed cut) and as it is (rows an older analyzer wrote), as a query's own terms
    are matched."""
    found = dict.fromkeys(terms)
    for term in terms:
        for language in languages:
            for synonym in sorted(synonym_stems(term, language)):
                found.update(dict.fromkeys((index_form(synonym), synonym)))
    return tuple(found)


@cache
def synonyms_of_word(word: str) -> tuple[str, ...]:
    """The stems of a word's synonyms in every language whose groups hold it
    ("display", "list", … for "show"), sorted: what a snippet looks for in a passage
    found by a synonym alone."""
    found: set[str] = set()
    for language in _GROUPS:
        for stem in analyze_document(word, language).split():
            found.update(synonym_stems(stem, language))
    return tuple(sorted(found))
