"""Answers a new user met on the Debian manuals (issue 16, a new-user pass of 45
questions of their own in English, German and Russian): a configuration line after
"… as the following." is the answer, a section's heading is no part of the block a
sentence introduces, a path the question names is a name (its last word heads no
column), and "Was ist ein Non-Maintainer-Upload (NMU)?" is a question for a
definition, answered by the sentence that names the thing with the one it draws on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conftest import OPERATOR, evidence_of
from ragox.answer import ExtractiveGenerator, score_sentences
from ragox.answer._blocks import block_end
from ragox.answer._support import AnswerKind, answer_kind
from ragox.service import Ragox


def _ingested(tmp_path: Path, files: dict[str, str], language: str | None = None) -> Ragox:
    """A home with ``files`` (name: text) ingested from one folder, ``tmp_path / "docs"``;
    ``language``: each file's given language, else the last two letters of its stem
    ("resources-ru.txt": ru) when ``language`` is ``"by-name"``."""
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    app = Ragox(tmp_path / "home")
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        given = path.stem[-2:] if language == "by-name" else language
        app.ingest_path(path, folder, tenant="default", language=given)
    return app


BANDWIDTH_EN = (
    "2.7.9. Limiting download bandwidth for APT\n\n"
    "If you want to limit the download bandwidth for APT to e.g. 800Kib/sec "
    "(=100kiB/sec), you should configure APT with its configuration parameter as the "
    "following.\n\n"
    'APT::Acquire::http::Dl-Limit "800";\n\n'
    "2.7.10. Emergency downgrading\n\n"
    "Warning\n\n"
    "Use of apt-pinning by a novice user is sure call for major troubles."
)
BANDWIDTH_DE = (
    "2.7.9. Die Download-Bandbreite für APT einschränken\n\n"
    "Falls Sie die Download-Bandbreite für APT einschränken möchten, sagen wir z.B. auf "
    "800Kib/sec (=100kiB/sec), sollten Sie APT mit folgenden Konfigurationsparametern "
    "einrichten:\n\n"
    'APT::Acquire::http::Dl-Limit "800";\n\n'
    "2.7.10. Downgrade im Notfall\n\n"
    "Warnung\n\n"
    "Die Verwendung von apt-pinning durch einen unerfahrenen Benutzer ist sicher."
)


def test_a_configuration_line_after_the_following_is_quoted() -> None:
    """ "… configure APT with its configuration parameter as the following." was quoted
    alone: the line after it (``APT::Acquire::http::Dl-Limit "800";``) was no command
    to the block rules, so the answer stopped before the answer."""
    draft = ExtractiveGenerator().generate(
        "How do I limit the download bandwidth that APT uses?", evidence_of(BANDWIDTH_EN)
    )
    assert not draft.abstained
    quoted = "\n".join(claim.text for claim in draft.claims)
    assert 'Dl-Limit "800";' in quoted
    assert "2.7.10" not in quoted and "Emergency" not in quoted


def test_the_next_sections_heading_is_no_part_of_an_introduced_block() -> None:
    """The German manual's answer ended with "2.7.10. Downgrade im Notfall": the
    configuration line ends with ";", which read as an enumeration going on."""
    draft = ExtractiveGenerator().generate(
        "Wie begrenze ich die Bandbreite, die APT zum Herunterladen nutzt?",
        evidence_of(BANDWIDTH_DE),
    )
    assert not draft.abstained
    quoted = "\n".join(claim.text for claim in draft.claims)
    assert 'Dl-Limit "800";' in quoted
    assert "2.7.10" not in quoted and "Notfall" not in quoted
    start = BANDWIDTH_DE.index("einrichten:") + len("einrichten:")
    end = block_end(BANDWIDTH_DE, start, True)
    assert (
        end is not None and BANDWIDTH_DE[start:end].strip() == 'APT::Acquire::http::Dl-Limit "800";'
    )
    # a configuration line's ";" ends a statement: the warning after it is not its item
    warned = 'Add this line:\n\nAPT::Get::Show-Versions "1";\n\nWarning\n\nPinning is risky.'
    finish = block_end(warned, warned.index(":") + 1, True)
    assert finish is not None and warned[:finish].endswith('"1";')
    # a step or a version numbered "1.1" or "3.10" is no section's title: the block
    # holds it
    for steps, first in (
        ("Do the following:\n\n1.1 Download the archive.\n\n1.2 Unpack it.", "archive."),
        ("Do the following:\n\n1.1. Download the archive.\n\n1.2. Unpack it.", "archive."),
        ("Supported versions:\n\n3.10 (security fixes only)\n\n3.11 (default)", "only)"),
    ):
        finish = block_end(steps, steps.index(":") + 1, True)
        assert finish is not None and first in steps[:finish], steps
    versions = (
        "Die Versionen sind:\n\n3.9 (alt),\n\n3.10 (Sicherheitskorrekturen),\n\n3.11 (Standard)"
    )
    finish = block_end(versions, versions.index(":") + 1, True)
    assert finish is not None and versions[:finish].endswith("3.11 (Standard)")
    # prose items that end with ";" and hold a quoted word are no configuration lines
    values = (
        "The mode option accepts the following values:\n\n"
        '"full" copies every file;\n\n"incremental" copies changed files;\n\n'
        '"mirror" keeps an exact copy.'
    )
    finish = block_end(values, values.index(":") + 1, True)
    assert finish is not None and values[:finish].endswith("exact copy.")
    prose = "See the following.\n\nUse std::vector here for the list.\n\nMore text."
    assert block_end(prose, len("See the following."), False) is None
    # an enumeration's items that end with a comma or ";" still go on
    listed = "Die Werte sind:\n\nerstens a;\n\nzweitens b;\n\ndrittens c\n\nDanach folgt Text."
    finish = block_end(listed, listed.index(":") + 1, True)
    assert finish is not None and listed[:finish].endswith("drittens c")


PERMISSIONS = """<html><body>
<h2>4.1. Normal Unix authentication</h2>
<table>
<thead><tr><th>file</th><th>permission</th><th>user</th><th>group</th>
<th>description</th></tr></thead>
<tbody>
<tr><td>/etc/passwd</td><td>-rw-r--r--</td><td>root</td><td>root</td>
<td>user account information</td></tr>
<tr><td>/etc/shadow</td><td>-rw-r-----</td><td>root</td><td>shadow</td>
<td>secure user account information</td></tr>
<tr><td>/etc/group</td><td>-rw-r--r--</td><td>root</td><td>root</td>
<td>group information</td></tr>
</tbody></table>
</body></html>
"""
BASE_PASSWD = (
    "base-passwd for Debian\n----------------------\n\n"
    'This package supplies the "master" copies of /etc/passwd and /etc/group, in '
    '/usr/share/base-passwd. It also supplies the utility "update-passwd", which '
    "automatically makes sure that uids and gids in the 0-99 range are correct.\n"
)


def test_a_path_the_question_names_heads_no_column(tmp_path: Path) -> None:
    """ "Where does base-passwd keep the master copies of /etc/passwd and /etc/group?"
    was answered "group (/etc/passwd): root": the row of /etc/passwd is named, and the
    word "group" of the path /etc/group matched the column "group". A path is a name;
    the README's sentence answers. A column the question asks for in words still
    answers from the table."""
    app = _ingested(tmp_path, {"auth.html": PERMISSIONS, "base-passwd-README.txt": BASE_PASSWD})
    try:
        record = app.ask(
            "Where does base-passwd keep the master copies of /etc/passwd and /etc/group?",
            OPERATOR,
        )
        asked_in_words = app.ask("Which group owns /etc/shadow?", OPERATOR)
        said_twice = app.ask("Which group owns /etc/group?", OPERATOR)
    finally:
        app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("/usr/share/base-passwd" in quote for quote in quotes), quotes
    assert "root" not in quotes
    assert [c.anchor.quote.exact for c in asked_in_words.citations] == ["shadow"]
    # "group" said outside the path too still asks for the column
    assert [c.anchor.quote.exact for c in said_twice.citations] == ["root"]


NMU_DE = (
    "5.11. Non-Maintainer Uploads (NMUs)\n\n"
    "Jedes Paket hat einen oder mehrere Betreuer. Normalerweise sind das Leute, die daran "
    "arbeiten und neue Versionen des Pakets hochladen. In einigen Situationen ist es "
    "nützlich, dass auch andere Entwickler neue Versionen hochladen können. Zum Beispiel, "
    "falls sie einen Fehler in einem Paket beheben möchten, das sie nicht betreuen, oder "
    "wenn der Betreuer Hilfe benötigt. Solche Uploads werden Non-Maintainer Uploads (NMU) "
    "genannt."
)
NMU_CHANGELOG_DE = (
    "5.11.2. NMUs und debian/changelog\n\n"
    "Genauso wie bei jedem anderen (Quell-) Upload muss bei NMUs ein Eintrag in "
    "debian/changelog hinzugefügt werden. Die erste Zeile muss explizit erwähnen, dass "
    "dieser Upload ein NMU ist, z.B: Non-maintainer upload."
)


def test_a_what_is_question_with_an_abbreviation_asks_for_a_definition() -> None:
    """ "(NMU)" after the term made the question no definition question; the answer was
    the changelog rule that mentions an NMU. The sentence that names the thing ("Solche
    Uploads werden … (NMU) genannt") is the answer, with the sentence it refers to,
    and the one that the example between them refers to."""
    for question in (
        "Was ist ein Non-Maintainer-Upload (NMU)?",
        "What is a non-maintainer upload (NMU)?",
        "Что такое загрузка не-сопровождающим (NMU)?",
    ):
        assert answer_kind(question) is AnswerKind.DEFINITION, question
    # parentheses that hold no abbreviation of the term ask for a value
    for question in (
        "What is the default port (TCP)?",
        "What is the maximum upload size (MB)?",
        "What is the timeout (seconds)?",
    ):
        assert answer_kind(question) is not AnswerKind.DEFINITION, question
    # a function that "is called when …" is invoked, not named
    session = evidence_of(
        "The session function is called when the user logs in. It is called from the "
        "session manager. A session is the time between a user's login and logout."
    )
    best = score_sentences("What is a session?", session).sentences[0]
    assert session[0].text[best.start : best.end].startswith("A session is")
    draft = ExtractiveGenerator().generate(
        "Was ist ein Non-Maintainer-Upload (NMU)?", evidence_of(NMU_CHANGELOG_DE, NMU_DE)
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    named = next(i for i, t in enumerate(texts) if t.startswith("Solche Uploads"))
    before = next(i for i, t in enumerate(texts) if t.startswith("In einigen Situationen"))
    assert before < named
    assert not any(t.startswith("Die erste Zeile") for t in texts[:named])


SALSA_EN = (
    "4.4.5. salsa.debian.org: Git repositories and collaborative development platform\n\n"
    "If you want to use a git repository for any of your Debian work, you can use "
    "Debian's GitLab instance called Salsa for that purpose. For more information, "
    "please see the documentation at https://wiki.debian.org/Salsa/Doc."
)
RESOURCES_RU = (
    "4.4. Серверы Debian\n\n"
    "Серверы Debian хорошо защищены и обслуживаются командой системных администраторов "
    "Debian. Если вы получали сообщения через алиас проекта и хотите удалить свой адрес "
    "из рассылки, откройте билет для системных администраторов.\n\n"
    "Все информация о зеркалах Debian, включая список доступных публично серверов, может "
    "быть найдена на странице зеркал. Эта страница также содержит полезную информацию о "
    "том, как настроить собственное зеркало.\n\n"
)


def test_an_untranslated_paragraph_of_the_readers_manual_answers(tmp_path: Path) -> None:
    """The Russian Developer's Reference leaves its section on Salsa in English, and
    the English manual holds the same paragraph: "Что такое salsa.debian.org?" was
    answered with three unrelated Russian sentences (passages in another language are
    left out when some are in the question's). A passage of a document in the
    question's language is that document's text, whatever language it is written in;
    the English manual's copy is still left out."""
    app = _ingested(
        tmp_path,
        {"resources-en.txt": SALSA_EN, "resources-ru.txt": RESOURCES_RU + SALSA_EN},
        "by-name",
    )
    try:
        record = app.ask("Что такое salsa.debian.org?", OPERATOR)
        # Russian passages that name Debian fill the evidence when it is short: the
        # paragraph, found first in the English manual with its copy in the Russian
        # one under it, is still in the reader's language
        app.close()
        notes = {
            f"note{n}-ru.txt": "\n\n".join([paragraph] * 3)
            for n, paragraph in enumerate(RESOURCES_RU.split("\n\n")[1:3])
        }
        app = _ingested(tmp_path, notes, "ru")
        short = app.ask("Что такое salsa.debian.org?", OPERATOR, candidates=2)
    finally:
        app.close()
    assert not record.abstained
    quotes = [c.anchor.quote.exact for c in record.citations]
    assert any("GitLab instance called Salsa" in quote for quote in quotes), quotes
    assert {c.anchor.document_id for c in record.citations} == {"resources-ru.txt"}
    assert any("GitLab instance called Salsa" in c.anchor.quote.exact for c in short.citations)


PACKAGES = """<html><body>
<h3>Table 12.9. List of Python tools</h3>
<table>
<thead><tr><th>package</th><th>popcon</th><th>size</th><th>description</th></tr></thead>
<tbody>
<tr><td>python3-venv</td><td>I:60</td><td>6</td>
<td>venv for creating virtual python environments (system library)</td></tr>
<tr><td>python3-virtualenv</td><td>V:9, I:53</td><td>406</td>
<td>virtualenv for creating isolated virtual python environments</td></tr>
<tr><td>pipx</td><td>V:0, I:1</td><td>887</td>
<td>pipx for installing python applications in isolated environments</td></tr>
</tbody></table>
</body></html>
"""
VENV_README = (
    "Python library modules in Debian\n\n"
    "A Python module that Debian does not package goes into a virtual environment of "
    "its own: run python3 -m venv ~/.venvs/foo, then install the module there.\n"
)


def test_a_package_tables_row_gives_no_instructions(tmp_path: Path) -> None:
    """ "How do I create a Python virtual environment on Debian?" was answered with
    three rows of a package table ("python3-venv I:60 6 venv for creating virtual python
    environments"): a package's name looked like a command, so each row counted as an
    instruction. A row instructs only with a command's sign in it; the README's
    command answers first."""
    app = _ingested(tmp_path, {"python-tools.html": PACKAGES, "README.python.txt": VENV_README})
    try:
        record = app.ask("How do I create a Python virtual environment on Debian?", OPERATOR)
    finally:
        app.close()
    assert not record.abstained
    assert record.citations[0].anchor.document_id == "README.python.txt"
    assert "python3 -m venv" in record.citations[0].anchor.quote.exact


ZSTD_README = (
    "## Benchmarks\n\n"
    "The negative compression levels, specified with `--fast=#`,\n"
    "offer faster compression and decompression speed\n"
    "at the cost of compression ratio (compared to level 1).\n\n"
    '![Compression Ratio](doc/images/dict-cr.png "Compression Ratio") | '
    '![Compression Speed](doc/images/dict-cs.png "Compression Speed")\n\n'
    '<p align="center"><img src="doc/images/zstd_logo86.png" alt="Zstandard"></p>\n\n'
    "Zstd can also offer stronger compression ratios at the cost of compression speed."
)


def test_a_readme_s_charts_are_no_sentence_and_a_wrapped_sentence_is_whole() -> None:
    """A README's row of chart images ("![Compression Ratio](… "Compression Ratio")")
    was quoted as an answer's sentence; and "at the cost of compression ratio (compared
    to level 1)." without its subject (the splitter took "offer faster compression and
    decompression speed" for a heading)."""
    scoring = score_sentences(
        "Which compression levels and speed does zstd offer?", evidence_of(ZSTD_README)
    )
    quoted = [ZSTD_README[s.start : s.end] for s in scoring.sentences]
    assert quoted and not any("![" in q or "<img" in q for q in quoted), quoted
    whole = next(q for q in quoted if "at the cost of compression ratio (compared" in q)
    assert whole.startswith("The negative compression levels"), quoted


PBUILDER_PDF = (
    "⁷Здесь предполагается, что HOOKDIR=/var/cache/pbuilder/hooks. Пакет pbuilder создаёт "
    "чистую среду сборки (chroot) для проверки зависимостей пакета."
)
PBUILDER_HTML = (
    "Пакет pbuilder создаёт чистую среду сборки (chroot) для проверки зависимостей пакета."
)


def test_of_a_quote_in_a_pdf_and_its_html_the_html_copy_is_cited() -> None:
    """The PDF of a manual ranked first, its HTML second: the same sentence is cited from
    the HTML (no page's layout: a footnote's mark, words broken at line ends), the PDF
    listed as "also in"; before, whichever ranked first was cited."""
    pdf, html = evidence_of(PBUILDER_PDF, PBUILDER_HTML)
    evidence = [
        replace(pdf, pages=(12,), document_language="ru"),
        replace(html, document_language="ru"),
    ]
    draft = ExtractiveGenerator().generate("Что такое pbuilder?", evidence)
    assert not draft.abstained
    sentence = "Пакет pbuilder создаёт чистую среду сборки"
    copies = [c.source_id for c in draft.claims if c.quote and c.quote.startswith(sentence)]
    assert copies[:1] == ["S2"] and "S1" in copies, draft.claims
    # a copy in a document of another language is not preferred for its format
    other = [evidence[0], replace(evidence[1], document_language="en")]
    draft = ExtractiveGenerator().generate("Что такое pbuilder?", other)
    copies = [c.source_id for c in draft.claims if c.quote and c.quote.startswith(sentence)]
    assert copies[:1] == ["S1"], draft.claims


PRE_DEPENDS_EN = (
    "7.10. What is meant by saying that a package Pre-Depends on another?\n\n"
    '"Pre-Depends" is a special dependency. In the case of most packages, dpkg will unpack '
    "the archive file of a package independently of whether or not the files on which it "
    "depends exist on the system. Simplistically, unpacking means that dpkg will extract "
    "the files from the archive file and put them in place. If those packages depend on "
    "the existence of some other packages on your system, dpkg will refuse to complete the "
    "installation until the other packages are installed.\n\n"
    "However, for some packages, dpkg will refuse even to unpack them until certain "
    'dependencies are resolved. Such packages are said to "Pre-depend" on the presence of '
    "some other packages."
)


def test_what_does_x_mean_asks_for_the_sentence_that_names_it() -> None:
    """ "What does Pre-Depends mean?" was no definition question, and "Such packages are
    said to "Pre-depend" on …" named nothing: the answer quoted the ordinary case
    (dpkg unpacks most packages whatever their dependencies). Now the naming sentence
    answers, with the one it refers back to."""
    assert answer_kind("What does Pre-Depends mean?") is AnswerKind.DEFINITION
    assert answer_kind("What is meant by a conffile?") is AnswerKind.DEFINITION
    assert answer_kind("Was versteht man unter einem Conffile?") is AnswerKind.DEFINITION
    assert answer_kind("Что значит NMU?") is AnswerKind.DEFINITION
    assert answer_kind("What does the command do when it fails?") is None
    draft = ExtractiveGenerator().generate(
        "What does Pre-Depends mean?", evidence_of(PRE_DEPENDS_EN)
    )
    texts = [claim.text for claim in draft.claims]
    named = next(i for i, t in enumerate(texts) if t.startswith("Such packages are said"))
    assert named > 0 and texts[named - 1].startswith("However, for some packages"), texts


LINTIAN_RU = (
    "7.4. Использование lintian\n\n"
    "Запустите lintian(1), передав ей параметром файл .changes. Команда lintian выполняет "
    "множество тестовых сценариев, проверяющих наличие типичных ошибок пакетирования [75].\n\n"
    "$ lintian -i -I --show-overrides gentoo_0.9.12-1_i386.changes\n\n"
    "Разумеется, следует заменить имя файла .changes на то, которое было сгенерировано."
)


def test_a_command_at_a_prompt_below_a_paragraph_is_quoted_with_its_last_sentence() -> None:
    """ "Как проверить пакет с помощью lintian?" quoted "Команда lintian выполняет
    множество тестовых сценариев … [75]." without the command right below it; a
    paragraph's last sentence now spans a command at a shell's prompt that follows."""
    draft = ExtractiveGenerator().generate(
        "Как проверить пакет с помощью lintian?", evidence_of(LINTIAN_RU)
    )
    assert not draft.abstained
    assert any("$ lintian -i -I --show-overrides" in claim.text for claim in draft.claims), (
        draft.claims
    )


def test_a_german_sentence_opening_with_sie_or_es_refers_back_to_nothing() -> None:
    """ "Sie können den echten Rechnernamen wie folgt herausfinden:" (Sie: the reader)
    brought an unrelated exim sentence before it as its antecedent (a red team's
    finding); only words that point back ("Diese Datei", "Dort") ask for one."""
    from ragox.answer._extractive import _FURTHER_ANAPHORA

    for opening in ("Sie können den Namen", "Es gibt drei Wege", "Das Paket enthält", "Er läuft"):
        assert _FURTHER_ANAPHORA.match(opening) is None, opening
    for opening in ("Diese Datei sollte", "Dort finden Sie", "It is kept", "Эта команда"):
        assert _FURTHER_ANAPHORA.match(opening) is not None, opening
