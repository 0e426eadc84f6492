"""Extractive answers on a handbook (issue 16, the Developer's Reference round): the
kinds of answer a long manual's chapters hide among sentences that repeat the
question's words.

- "how often"/"wie oft"/"как часто" asks for a frequency: a sentence that says none
  ranks below one that does ("four times a day", "viermal täglich", "четыре раза в
  день"), and "often" itself is no term to match;
- an elliptical sentence ("Debian Maintainers can't.") is one unit with the sentence
  before it: scored and quoted with what it leaves out;
- a list introduced right after the best sentence ("The following checks are
  currently implemented:") is quoted with it, and a passage's first heading no longer
  speaks for the sentences under a later heading in the same passage.

The manual text is made up for these tests (en, de, ru)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator, score_sentences
from ragox.answer._blocks import announces_by_name
from ragox.answer._extractive import units
from ragox.answer._support import AnswerKind, answer_kind, holds_answer_kind

MIRRORS = {
    "en": (
        "4.2. Mirror synchronisation\n\n"
        "The mirror network copies new packages from the main archive to servers all over "
        "the world. Mirrors that receive new packages from the main archive often lag "
        "behind it, and a mirror that receives new packages late is marked as stale. "
        "Mirrors get the new packages four times a day, right after the archive has been "
        "updated.",
        "How often do mirrors receive new packages from the main archive?",
        "four times a day",
    ),
    "de": (
        "4.2. Spiegel-Synchronisation\n\n"
        "Das Spiegelnetz kopiert neue Pakete aus dem Hauptarchiv auf Server in aller Welt. "
        "Spiegel, die neue Pakete aus dem Hauptarchiv erhalten, hinken ihm oft hinterher, "
        "und ein Spiegel, der neue Pakete zu spät erhält, wird als veraltet markiert. Die "
        "Spiegel erhalten die neuen Pakete viermal täglich, gleich nachdem das Archiv "
        "aktualisiert wurde.",
        "Wie oft erhalten Spiegel neue Pakete aus dem Hauptarchiv?",
        "viermal täglich",
    ),
    "ru": (
        "4.2. Синхронизация зеркал\n\n"
        "Сеть зеркал копирует новые пакеты из основного архива на серверы по всему миру. "
        "Зеркала, которые получают новые пакеты из основного архива, часто отстают от "
        "него, а зеркало, которое получает новые пакеты поздно, помечается как "
        "устаревшее. Зеркала получают новые пакеты четыре раза в день, сразу после "
        "обновления архива.",
        "Как часто зеркала получают новые пакеты из основного архива?",
        "четыре раза в день",
    ),
}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_how_often_is_answered_by_the_sentence_that_says_how_often(language: str) -> None:
    """The sentence with the frequency ranks first and is quoted first, although the
    one before it repeats more of the question (and "often" itself)."""
    text, question, frequency = MIRRORS[language]
    assert answer_kind(question) is AnswerKind.FREQUENCY
    best = score_sentences(question, evidence_of(text)).sentences[0]
    assert frequency in text[best.start : best.end]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert frequency in draft.claims[0].text


def test_what_says_a_frequency() -> None:
    """Frequencies in words and numbers of times; "more often", "every package" and a
    bare number are none."""
    says = [
        "The update is launched twice each day.",
        "Updates are processed at least once a month.",
        "The queue is scanned every few minutes.",
        "Aktualisierungen werden mindestens einmal monatlich bearbeitet.",
        "Der Spiegel wird alle sechs Stunden abgeglichen.",
        "Каталог сканируется каждые 15 минут.",
        "Обновление запускается дважды в день.",
    ]
    not_says = [
        "This distribution is updated more often than stable.",
        "Every package has a maintainer.",
        "The archive holds 30000 source packages.",
        "Das ist ein normaler Vorgang.",
        "Каждый пакет имеет сопровождающего.",
    ]
    assert all(holds_answer_kind(AnswerKind.FREQUENCY, s) for s in says)
    assert not any(holds_answer_kind(AnswerKind.FREQUENCY, s) for s in not_says)


PUSH = {
    "en": (
        "5.3. Pushing updates\n\n"
        "A push tells a mirror that new packages are waiting, so that the mirror starts to "
        "synchronise at once. Pushing updates to a mirror is described in the mirror "
        "documentation and needs a key of the mirror. Mirror administrators can push "
        "updates. Ordinary users can't.",
        "Can ordinary users push updates to a mirror?",
        "Mirror administrators can push updates. Ordinary users can't.",
    ),
    "de": (
        "5.3. Aktualisierungen anstoßen\n\n"
        "Ein Anstoß teilt einem Spiegel mit, dass neue Pakete warten, damit der Spiegel "
        "sofort abgleicht. Wie man einem Spiegel Aktualisierungen anstößt, steht in der "
        "Dokumentation des Spiegels. Spiegel-Administratoren können Aktualisierungen "
        "anstoßen. Gewöhnliche Benutzer können das nicht.",
        "Können gewöhnliche Benutzer einem Spiegel Aktualisierungen anstoßen?",
        "Spiegel-Administratoren können Aktualisierungen anstoßen. Gewöhnliche Benutzer "
        "können das nicht.",
    ),
    "ru": (
        "5.3. Запуск обновлений\n\n"
        "Запуск сообщает зеркалу, что ждут новые пакеты, и зеркало сразу начинает "
        "синхронизацию. Как запускать обновления зеркала, описано в документации "
        "зеркала. Администраторы зеркал могут запускать обновления. Обычные "
        "пользователи не могут.",
        "Могут ли обычные пользователи запускать обновления зеркала?",
        "Администраторы зеркал могут запускать обновления. Обычные пользователи не могут.",
    ),
}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_an_elliptical_sentence_is_quoted_with_what_it_leaves_out(language: str) -> None:
    """ "Ordinary users can't." answers the question only with the sentence before it:
    the answer quotes both as one claim."""
    text, question, pair = PUSH[language]
    draft = ExtractiveGenerator().generate(question, evidence_of(text))
    assert not draft.abstained
    assert draft.claims[0].text == pair


def test_only_short_sentences_that_leave_something_out_are_joined() -> None:
    """A short sentence that says something of its own stays a unit, and so does an
    elliptical one after a paragraph break."""
    text = (
        "Mirror administrators can push updates. Ordinary users can't. The key is secret. "
        "Users who ask for a key get one, but only after a review they cannot skip.\n\n"
        "Nobody else can."
    )
    assert [text[start:end] for start, end, _ in units(text)] == [
        "Mirror administrators can push updates. Ordinary users can't.",
        "The key is secret.",
        "Users who ask for a key get one, but only after a review they cannot skip.",
        "Nobody else can.",
    ]


#: a chapter's passage with two tools' sections: the list of checks under the first
CHECKS = {
    "en": (
        "2.3.1. urlcheck¶\n\n"
        "urlcheck inspects a mirror and reports stale files and broken links.\n\n"
        "The following checks are currently implemented:\n\n"
        "stale index files\n\nbroken symlinks\n\nmissing signatures\n\n"
        "2.3.2. logscan¶\n\n"
        "logscan is a tool for finding common problems in the logs of a mirror.",
        "What problems does the urlcheck tool report?",
        "broken symlinks",
    ),
    "de": (
        "2.3.1. urlcheck¶\n\n"
        "urlcheck untersucht einen Spiegel und meldet veraltete Dateien und defekte Links."
        "\n\nDie folgenden Prüfungen sind derzeit umgesetzt:\n\n"
        "veraltete Indexdateien\n\ndefekte Symlinks\n\nfehlende Signaturen\n\n"
        "2.3.2. logscan¶\n\n"
        "logscan ist ein Werkzeug, das häufige Probleme in den Protokollen eines Spiegels "
        "findet.",
        "Welche Probleme meldet das Werkzeug urlcheck?",
        "defekte Symlinks",
    ),
    "ru": (
        "2.3.1. urlcheck¶\n\n"
        "urlcheck проверяет зеркало и сообщает об устаревших файлах и битых ссылках.\n\n"
        "В настоящее время реализованы следующие проверки:\n\n"
        "устаревшие индексные файлы\n\nбитые символьные ссылки\n\n"
        "2.3.2. logscan¶\n\n"
        "logscan — это утилита для поиска частых проблем в журналах зеркала.",
        "О каких проблемах сообщает утилита urlcheck?",
        "устаревшие индексные файлы",
    ),
}


def _index_weights(terms: Sequence[str]) -> dict[str, float]:
    """IDF as an index of many manuals gives it: a tool's name is rare, "tool",
    "problem" and "report" are common."""
    return {term: 5.0 if "urlcheck" in term else 2.0 for term in terms}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_the_list_announced_after_the_best_sentence_is_quoted_with_it(language: str) -> None:
    """ "urlcheck … reports stale files and broken links." names what the tool reports;
    the list right after it says which checks there are: both are quoted."""
    text, question, item = CHECKS[language]
    generator = ExtractiveGenerator(term_weights=_index_weights)
    draft = generator.generate(question, evidence_of(text))
    assert not draft.abstained
    assert draft.claims[0].text.startswith("urlcheck")
    assert any(item in claim.text for claim in draft.claims[1:])
    assert not any("logscan" in claim.text for claim in draft.claims)


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_a_later_heading_in_the_passage_opens_another_section(language: str) -> None:
    """The passage opens with "2.3.1. urlcheck"; the sentence under "2.3.2. logscan"
    gets nothing from the first heading (before, "urlcheck" counted for it as if said in
    the sentence before it)."""
    text, question, _ = CHECKS[language]
    scoring = score_sentences(question, evidence_of(text), _index_weights)
    (logscan,) = [s for s in scoring.sentences if text[s.start :].startswith("logscan")]
    assert logscan.support.previous == 0.0
    assert logscan.support.heading == 0.0


FORWARDED = {
    "en": (
        "Port forwarding\n\nIf your server is behind a router, you will need to set up port "
        "forwarding on your router. You should forward the following ports:\n\n"
        "TCP 80 (http)\n\nTCP 443 (https)\n\nMake the domain name known to the server.",
        "My server is behind a router. What do I have to forward on the router?",
    ),
    "de": (
        "Portweiterleitung\n\nWenn Ihr Server hinter einem Router steht, müssen Sie auf dem "
        "Router Ports weiterleiten. Die folgenden Ports müssen weitergeleitet werden:\n\n"
        "TCP 80 (http)\n\nTCP 443 (https)\n\nMachen Sie den Domainnamen bekannt.",
        "Mein Server steht hinter einem Router. Welche Ports muss ich weiterleiten?",
    ),
    "ru": (
        "Перенаправление портов\n\nЕсли ваш сервер находится за маршрутизатором, нужно "
        "настроить на маршрутизаторе перенаправление портов. Перенаправить нужно следующие "
        "порты:\n\nTCP 80 (http)\n\nTCP 443 (https)\n\nСообщите серверу имя домена.",
        "Мой сервер за маршрутизатором. Что нужно перенаправить на маршрутизаторе?",
    ),
}


@pytest.mark.parametrize("language", ["en", "de", "ru"])
def test_a_block_the_paragraph_announces_by_the_questions_word_is_quoted(language: str) -> None:
    """ "… set up port forwarding on your router. You should forward the following
    ports:" and the ports (FreedomBox's manual): the sentence that announces the list
    inside the best sentence's paragraph names it with a word of the question, so the
    list, which is the answer, is quoted with it."""
    text, question = FORWARDED[language]
    generator = ExtractiveGenerator(term_weights=_index_weights)
    draft = generator.generate(question, evidence_of(text))
    assert not draft.abstained
    assert any("TCP 443" in claim.text for claim in draft.claims)
    assert not any("Domain" in claim.text or "домена" in claim.text for claim in draft.claims)


def test_a_block_announced_inside_the_paragraph_about_something_else_is_not_added() -> None:
    """The red team's cases: the announcing line shares only the section's topic with
    the question ("web interface"), not the word it asks about ("port"); it is about a
    time ("The following year …"); or the question asks about no word (an instruction
    for "How do I delete …?")."""
    cases = {
        "Which port does the web interface use?": (
            "Web interface\n\nThe web interface listens on port 8080. The following "
            "browsers are supported by the web interface:\n\n- Firefox 115\n- Chrome 120"
        ),
        "When was version 2.0 released?": (
            "History\n\nVersion 2.0 was released in March 2019. The following year version "
            "2.1 added these features:\n\n- plugins\n- a dark theme"
        ),
        "How do I delete a user account?": (
            "Users\n\nTo delete a user account, run frobctl user delete NAME as root. The "
            "following user account fields can be edited later:\n\n- full name\n- groups"
        ),
    }
    # the asked word is the rare one; the topic's words are on every page
    generator = ExtractiveGenerator(
        term_weights=lambda terms: {
            term: 6.0 if term.startswith(("port", "releas", "delet")) else 1.0 for term in terms
        }
    )
    for question, text in cases.items():
        draft = generator.generate(question, evidence_of(text))
        assert not draft.abstained, question
        assert len(draft.claims) == 1, (question, [claim.text for claim in draft.claims])
    # "the following" of a time announces nothing
    assert announces_by_name("You should forward the following ports:")
    assert announces_by_name("Перенаправить нужно следующие порты:")
    for line in (
        "The following year version 2.1 added these features:",
        "Im folgenden Jahr kamen diese Funktionen hinzu:",
        "В следующем году появились такие функции:",
    ):
        assert not announces_by_name(line), line


def test_a_block_after_a_colon_inside_the_paragraph_is_not_added() -> None:
    """ "Fully stated, the law of this force is:" and a formula, inside the answer's
    paragraph, holds a word of the question but announces the formula by its colon
    alone, not by name ("the following …"): the formula is not quoted (XQuAD's
    "Fully stated, this is the law:")."""
    text = (
        "Lorentz force\n\nThe connection between electricity and magnetism allows for the "
        "description of a unified electromagnetic force that acts on a charge. This force "
        "can be written as a sum of the electrostatic force (due to the electric field) and "
        "the magnetic force (due to the magnetic field). Fully stated, the law of this force "
        "is:\n\nF = q(E + v × B)\n\nThe Lorentz force is named after Hendrik Lorentz."
    )
    generator = ExtractiveGenerator(term_weights=_index_weights)
    draft = generator.generate(
        "What is the electromagnetic force written as the sum of?", evidence_of(text)
    )
    assert any("sum of the electrostatic force" in claim.text for claim in draft.claims)
    assert not any("F = q" in claim.text for claim in draft.claims)


def test_a_block_announced_inside_the_paragraph_is_not_added() -> None:
    """ "… Fully stated, the checks are as follows:" and a list, in the best sentence's
    own paragraph, goes on to something else (XQuAD's "Fully stated, this is the law:"
    and a formula after the answer): it is not quoted beside the answer."""
    text = (
        "2.3.1. urlcheck¶\n\n"
        "urlcheck inspects a mirror and reports stale files and broken links. Fully "
        "stated, the rules of the mirror network are as follows:\n\n"
        "stale index files\n\nbroken symlinks\n\nmissing signatures"
    )
    generator = ExtractiveGenerator(term_weights=_index_weights)
    draft = generator.generate("What problems does the urlcheck tool report?", evidence_of(text))
    assert [claim.text for claim in draft.claims] == [
        "urlcheck inspects a mirror and reports stale files and broken links."
    ]
