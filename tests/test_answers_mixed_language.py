"""Answers from partly translated manuals.

A translated manual often keeps some paragraphs in the original language (Debian's
German handbook leaves the paragraph on ``dpkg-reconfigure tzdata`` in English, right
before the German one on the ``TZ`` variable). A passage cut from such a page is then
mostly English, and a German question was answered from the German passages only: the
German paragraph inside the mostly English passage could not be quoted, and a German
sidebar on symbolic links under the same heading was quoted instead.

- a paragraph in the question's language stays quotable inside a passage that is in
  another language as a whole;
- the passage's paragraphs in other languages are not quoted (the same manual in two
  languages still answers a German question in German);
- a passage in another language throughout is still left out when passages in the
  question's language exist.

The manual text is made up for these tests, after the Debian handbook's section."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import evidence_of
from ragox.access import Principal
from ragox.answer import Evidence, ExtractiveGenerator, score_sentences
from ragox.service import Ragox

_STAFF = frozenset({"staff"})
STAFF = Principal("sam", groups=_STAFF)

_MIXED = (
    "The timezone, configured during initial installation, is a configuration item for "
    "the tzdata package. To modify it, use the dpkg-reconfigure tzdata command, which "
    "allows you to choose the timezone to be used in an interactive manner. Its "
    "configuration is stored in the /etc/timezone file, and /etc/localtime becomes a "
    "symbolic link to the corresponding file in the /usr/share/zoneinfo directory.\n\n"
    "Wenn man die Zeitzone vorübergehend ändern muss, verwendet man die "
    "Umgebungsvariable TZ, die Vorrang vor der konfigurierten Voreinstellung des Systems "
    "hat.\n\n"
    "HINWEIS System-Uhr, Hardware-Uhr"
)
_SIDEBAR = (
    "8.9.1. Zeitzone\n\n"
    "ZURÜCK ZU DEN GRUNDLAGEN Symbolische Verknüpfungen\n\n"
    "Eine symbolische Verknüpfung ist ein Verweis auf eine andere Datei. Wenn man auf "
    "sie zugreift, wird die Datei, auf die sie verweist, geöffnet. Die Entfernung der "
    "Verknüpfung führt nicht dazu, dass die Datei, auf die sie verweist, gelöscht wird."
)
_ENGLISH = (
    "When you need to change the timezone temporarily, use the TZ environment variable, "
    "which takes priority over the configured system default."
)
_QUESTION = "Wie ändere ich die Zeitzone vorübergehend?"


def _quoted(evidence: list[Evidence], question: str) -> list[str]:
    scoring = score_sentences(question, evidence)
    return [s.evidence.text[s.start : s.end] for s in scoring.sentences]


def test_a_paragraph_in_the_questions_language_is_quoted_from_a_mixed_passage() -> None:
    evidence = evidence_of(_SIDEBAR, _MIXED)
    quoted = _quoted(evidence, _QUESTION)
    assert quoted[0].startswith("Wenn man die Zeitzone vorübergehend ändern muss")
    # the passage's English paragraphs are neighbours, never quotes
    assert not any(
        q.startswith(("The timezone", "To modify it", "Its configuration")) for q in quoted
    )
    draft = ExtractiveGenerator().generate(_QUESTION, evidence)
    assert not draft.abstained
    assert draft.claims[0].source_id == "S2"
    assert "Umgebungsvariable TZ" in draft.claims[0].text


def test_a_passage_in_another_language_throughout_is_still_left_out() -> None:
    quoted = _quoted(evidence_of(_SIDEBAR, _ENGLISH), _QUESTION)
    assert quoted
    assert not any("environment variable" in q for q in quoted)


def test_an_english_question_quotes_the_english_paragraphs_of_the_mixed_passage() -> None:
    quoted = _quoted(evidence_of(_MIXED), "How do I change the timezone?")
    assert quoted[0].startswith("To modify it, use the dpkg-reconfigure tzdata command")


def test_a_paragraph_in_another_language_is_not_quoted_from_a_passage_in_the_questions() -> None:
    """The Russian handbook's LVM section keeps English paragraphs: the passage is
    English as a whole, and its one Russian sentence was quoted for "What is LVM?"."""
    mixed = (
        "LVM, the Logical Volume Manager, is another approach to abstracting logical "
        "volumes from their physical supports, which focuses on increasing flexibility "
        "rather than increasing reliability. LVM allows changing a logical volume "
        "transparently as far as the applications are concerned.\n\n"
        "После их установки настройка LVM проходит в три шага, соответствующих трём "
        "уровням организации LVM."
    )
    english = "The layout of the LVM elements is backed up in the /etc/lvm/backup directory."
    quoted = _quoted(evidence_of(english, mixed), "What is LVM?")
    assert any(q.startswith("LVM, the Logical Volume Manager") for q in quoted)
    assert not any("настройка" in q for q in quoted)


_LVM_EN = (
    "LVM, the Logical Volume Manager, is another approach to abstracting logical volumes "
    "from their physical supports, which focuses on increasing flexibility rather than "
    "increasing reliability. The volumes can be changed while the applications that use "
    "them keep running, and the disks below them can be replaced."
)
_LVM_OTHERS = (
    (
        "de",
        "Die Werkzeuge für LVM sind in dem Paket lvm2 enthalten. Nach der Installation "
        "wird LVM in drei Schritten eingerichtet, die den drei Ebenen von LVM entsprechen, "
        "und die Befehle von LVM sind für alle Ebenen sehr ähnlich.",
    ),
    (
        "de2",
        "Die Anordnung der LVM-Komponenten wird in einem Verzeichnis gesichert, und LVM "
        "kann damit bei einem Problem die Gruppen wieder herstellen, die LVM kennt.",
    ),
    (
        "ru",
        "Необходимые инструменты для LVM находятся в пакете lvm2. После их установки "
        "настройка LVM проходит в три шага, которые соответствуют трём уровням LVM.",
    ),
)


@pytest.mark.both_backends
def test_an_answer_draws_on_the_questions_language_before_other_translations(
    app: Ragox,
) -> None:
    """The same manual in three languages: the translations that name LVM more often
    took every place of the evidence, and "What is LVM?" had no English passage to
    answer from (it quoted a German or Russian sentence, or abstained)."""
    for document_id, text in (("en", _LVM_EN), *_LVM_OTHERS):
        html = f"<html><body><p>{text}</p></body></html>"
        outcome = app.ingestor.ingest_bytes(
            html.encode(), f"{document_id}.html", document_id, groups=_STAFF, tenant="default"
        )
        assert outcome.state.value == "READY"
    hits = app.search("What is LVM?", STAFF, limit=3)
    assert "en" not in [hit.document_id for hit in hits]  # the case this test is about
    record = app.ask("What is LVM?", STAFF, candidates=3)
    assert not record.abstained
    assert record.citations[0].anchor.document_id == "en"
    assert record.citations[0].anchor.quote.exact.startswith("LVM, the Logical Volume Manager")


def test_no_advice_to_ask_in_another_language_when_the_scope_has_the_questions(
    tmp_path: Path,
) -> None:
    """A German question whose nearest passage is English, in a home that holds German
    documents too: "ask in English" is no advice (a new user's German questions on
    KiCad's manuals, whose German tree holds untranslated English pages, were told so);
    the abstention names what no passage mentions. Without a German document the note
    stays."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "daemon.txt").write_text(
        "The foobar daemon is started at boot by its service unit. It writes its log to "
        "the journal.",
        encoding="utf-8",
    )
    (folder / "garten.txt").write_text(
        "Die Tulpen im Garten blühen im Frühling, wenn der Boden warm genug ist.",
        encoding="utf-8",
    )
    question = "Wie lösche ich das Protokoll des Foobar-Daemons?"
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / "daemon.txt", folder, language="en")
    alone = app.ask(question, Principal.local_operator())
    app.ingest_path(folder / "garten.txt", folder, language="de")
    both = app.ask(question, Principal.local_operator())
    app.close()
    assert alone.abstained and alone.missing is not None and "Englisch" in alone.missing
    assert both.abstained and both.missing is not None
    assert "Englisch" not in both.missing and "Protokoll" in both.missing, both.missing
