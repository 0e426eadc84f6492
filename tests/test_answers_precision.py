"""Precision over recall in a composed answer (issue 16): a further sentence from
elsewhere in a manual must be about what the question is about, and a sentence that
another quote already holds (the same manual as HTML and as PDF, cut differently) is
quoted once. Both cases come from the Debian reference, asked as a new user would."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ragox.access import Principal
from ragox.answer import Evidence, ExtractiveGenerator
from ragox.answer._extractive import units
from ragox.service import Ragox

OPERATOR = Principal.local_operator()


def _evidence(*texts: tuple[str, str]) -> list[Evidence]:
    """Passages of documents, each passage of one document further down its text."""
    out: list[Evidence] = []
    ends: dict[str, int] = {}
    for n, (document, text) in enumerate(texts, start=1):
        start = ends.get(document, 0) + 1000
        ends[document] = start + len(text)
        out.append(
            Evidence(
                f"S{n}", document, "r1", f"m-{document}", (f"c{n}",), start, ends[document], text
            )
        )
    return out


def _weights(table: Mapping[str, float]):  # type: ignore[no-untyped-def]
    def weights(terms: Sequence[str]) -> Mapping[str, float]:
        return {term: table.get(term, 1.0) for term in terms}

    return weights


EDITOR = (
    "Debian provides unified access to the system default editor via command "
    '"/usr/bin/editor" so other programs can invoke it. You can change it by the '
    "following.\n\n"
    "$ sudo update-alternatives --config editor"
)
RSYNC = (
    "rsync(8) offers the quick check algorithm (by default) that looks for files that "
    "have changed in size or in last-modified time."
)
# the weights of the three stems in the Debian reference's index (IDF)
EDITOR_WEIGHTS = {"chang": 3.21, "default": 2.93, "editor": 3.68}


def test_a_sentence_from_elsewhere_must_hold_the_questions_subject() -> None:
    """ "quick check algorithm (by default) … files that have changed" shares two of the
    three words of "How do I change the default editor?" and nearly the best sentence's
    share of the question, but not "editor", the word the answer is about: it is not
    quoted beside the command, though it is in the same document (a PDF manual is one
    document of many chapters)."""
    generator = ExtractiveGenerator(term_weights=_weights(EDITOR_WEIGHTS))
    draft = generator.generate(
        "How do I change the default editor?",
        _evidence(("reference.pdf", EDITOR), ("reference.pdf", RSYNC)),
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert any("update-alternatives --config editor" in text for text in texts)
    assert not any("quick check" in text for text in texts)


def test_a_sentence_from_elsewhere_that_holds_the_subject_is_still_quoted() -> None:
    """The rule asks for the subject, not for the same passage: a sentence of another
    section that names the editor and what changes it is quoted."""
    other = (
        "To change the default editor for your own account only, set the EDITOR variable "
        "in your shell's startup file."
    )
    generator = ExtractiveGenerator(term_weights=_weights(EDITOR_WEIGHTS))
    draft = generator.generate(
        "How do I change the default editor?",
        _evidence(("reference.pdf", EDITOR), ("reference-ch02.html", other)),
    )
    assert any(claim.source_id == "S2" for claim in draft.claims)


TIMEZONE_HTML = (
    "The following reconfigure the timezone used by the Debian system.\n\n# dpkg-reconfigure tzdata"
)
TIMEZONE_PDF = (
    "9.4.6. The time zone\n\n"
    "The following reconfigure the timezone used by the Debian system. If the hardware "
    'time is set to UTC, change the setting to "UTC=yes" in the "/etc/default/rcS".'
)


def test_a_sentence_another_quote_holds_is_quoted_once() -> None:
    """The HTML quotes the sentence with its command, the PDF's copy has it alone (its
    command fell into another block): one quote of it, not two."""
    generator = ExtractiveGenerator(term_weights=_weights({"set": 1.2, "timezon": 6.1}))
    draft = generator.generate(
        "How do I set the timezone?",
        _evidence(("ch09.html", TIMEZONE_HTML), ("reference.pdf", TIMEZONE_PDF)),
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert sum("reconfigure the timezone" in text for text in texts) == 1, texts
    assert any("dpkg-reconfigure tzdata" in text for text in texts)


def test_the_copy_with_its_command_takes_the_place_of_the_copy_without() -> None:
    """The PDF's sentence comes first (the best sentence refers back to it), the HTML's
    copy holds the command it introduces: the HTML's is quoted in its place, once."""
    pdf = (
        "The following reconfigure the timezone used by the Debian system. This sets the "
        "timezone for every user of the system."
    )
    generator = ExtractiveGenerator(term_weights=_weights({"set": 1.2, "timezon": 6.1}))
    draft = generator.generate(
        "How do I set the timezone?",
        _evidence(("reference.pdf", pdf), ("ch09.html", TIMEZONE_HTML)),
    )
    texts = [claim.text for claim in draft.claims]
    assert sum("reconfigure the timezone" in text for text in texts) == 1, texts
    assert any("# dpkg-reconfigure tzdata" in text for text in texts), texts
    assert any(text.startswith("This sets the timezone") for text in texts), texts


INITRD_PDF = (
    "If you use initrd in Section 3.1.2, make sure to read the related information in "
    "initramfs-tools(8), update-initramfs(8), mkinitramfs(8) and initramfs.conf(5)."
)
INITRD_HTML = (
    "If you use initrd in Section 3.1.2, “Stage 2: the boot loader”, make sure to read "
    "the related information in initramfs-tools(8), update-initramfs(8), mkinitramfs(8) "
    "and initramfs.conf(5)."
)


def test_a_copy_with_a_cross_references_title_is_quoted_once() -> None:
    """The HTML's cross-reference carries the section's title, the PDF's not: the same
    sentence, quoted once."""
    draft = ExtractiveGenerator().generate(
        "What should I read about initramfs-tools when using initrd?",
        _evidence(("reference.pdf", INITRD_PDF), ("ch09.html", INITRD_HTML)),
    )
    assert not draft.abstained
    assert len([c for c in draft.claims if "make sure to read" in c.text]) == 1


def test_different_sentences_of_one_list_are_both_quoted() -> None:
    """Sentences that share most of their words but say different things (two items of
    one list) are no copies of each other."""
    text = (
        "The disk space usage can be evaluated by these programs.\n\n"
        "df(1) reports the disk space usage for the file system.\n\n"
        "du(1) reports the disk space usage for the directory tree."
    )
    draft = ExtractiveGenerator().generate(
        "Which programs report the disk space usage?",
        _evidence(("ch09.html", text)),
    )
    texts = [claim.text for claim in draft.claims]
    assert any(text.startswith("df(1)") for text in texts), texts
    assert any(text.startswith("du(1)") for text in texts), texts


OPERATIONS = """<!DOCTYPE html>
<html lang="en"><head><title>Package management</title></head><body>
<h2>2.4.1. Advanced package management operations with commandline</h2>
<p>Here are list of other package management operations for which aptitude is too
high-level or lacks required functionalities.</p>
<table>
<caption>Table 2.13. List of advanced package management operations</caption>
<thead><tr><th>command</th><th>action</th></tr></thead>
<tbody>
<tr><td>COLUMNS=120 dpkg -l package_name_pattern</td>
<td>list status of an installed package for the bug report</td></tr>
<tr><td>dpkg -L package_name | egrep '/usr/share/man/man.*/.+'</td>
<td>list manpages for an installed package</td></tr>
<tr><td>dpkg -L package_name</td><td>list contents of an installed package</td></tr>
<tr><td>dpkg -S file_name_pattern</td>
<td>list installed packages which have matching file name</td></tr>
<tr><td>apt-file search file_name_pattern</td>
<td>list packages in archive which have matching file name</td></tr>
<tr><td>apt-file list package_name_pattern</td>
<td>list contents of matching packages in archive</td></tr>
</tbody></table>
</body></html>
"""


def test_a_table_row_is_quoted_as_one_unit(app: Ragox) -> None:
    """A manual's table of commands: its cells end in no full stop, so sentences ran
    the rows together ("list manpages for an installed package" and every command and
    description below it, as a block it introduced). Each row is a unit: the answer
    quotes the row of the command with its description, and no other row with it."""
    app.ingestor.ingest_bytes(OPERATIONS.encode(), "ch02.html", "ch02.html", tenant="default")
    record = app.ask("How do I list the contents of an installed package?", OPERATOR)
    assert not record.abstained
    quotes = [citation.anchor.quote.exact for citation in record.citations]
    row = next(q for q in quotes if "list contents of an installed package" in q)
    assert row.startswith("dpkg -L package_name"), quotes
    assert "egrep" not in row and "dpkg -S" not in row and "apt-file" not in row, quotes
    for quote in quotes:  # every quote holds one row at most
        assert sum(command in quote for command in ("dpkg -", "apt-file ")) <= 1, quotes


def test_units_cut_at_table_rows() -> None:
    """What a table row overlaps of a sentence's unit is cut off; the rest (the
    caption, the text after the table) stays a unit of its own."""
    text = "Table 1. Commands\n\nls -l\n\nlist long\n\ncp a b\n\ncopy a to b\n\nThat is all."
    rows = ((text.index("ls -l"), text.index("list long") + 9),)
    rows += ((text.index("cp a b"), text.index("copy a to b") + 11),)
    spans = [text[start:end] for start, end, _ in units(text, rows)]
    assert "ls -l\n\nlist long" in spans
    assert "cp a b\n\ncopy a to b" in spans
    assert not any("ls -l" in span and "cp a b" in span for span in spans)
    assert any(span.startswith("Table 1.") for span in spans)
    assert any(span.endswith("That is all.") for span in spans)


NOTE = """<!DOCTYPE html>
<html lang="en"><head><title>Editors</title></head><body>
<h2>1.4.6. Editors</h2>
<div class="note"><table border="0" summary="Note">
<tr><td rowspan="2" align="center" valign="top" width="25"><img alt="[Note]" src="note.png"></td>
<th align="left">Note</th></tr>
<tr><td align="left" valign="top"><p>Good editors such as Vim and Emacs display UTF-8 text
correctly. It is a good idea to use a UTF-8 locale in the GUI environment and to install
the fonts it needs. Editors have options to set the file encoding independently of the GUI
environment. Please refer to their documentation on multibyte text.</p></td></tr>
</table></div>
</body></html>
"""


def test_a_layout_table_around_a_note_is_quoted_by_sentence(app: Ragox) -> None:
    """DocBook draws a note as a table: "Note" beside a paragraph of prose. That is no
    row of data: the answer quotes the sentence that answers, not the whole note."""
    app.ingestor.ingest_bytes(NOTE.encode(), "ch01.html", "ch01.html", tenant="default")
    record = app.ask("Which option sets the file encoding of an editor?", OPERATOR)
    assert not record.abstained
    quotes = [citation.anchor.quote.exact for citation in record.citations]
    assert any(q.startswith("Editors have options to set the file encoding") for q in quotes)
    assert all("Good editors" not in q for q in quotes if "file encoding" in q), quotes


PASSWD = (
    "The passwd command permits a regular user to change their password, which in turn "
    "updates the /etc/shadow file.\n\n"
    "The chfn command, reserved for the super-user, modifies the GECOS field.\n\n"
    "Here is the list of fields in the /etc/passwd file:\n\n"
    "· login, for example rhertzog;\n\n"
    "· password: this is a password encrypted by a one-way function, relying on DES, MD5, "
    "SHA-256 or SHA-512; the special value x indicates that the encrypted password is "
    "stored in /etc/shadow;\n\n"
    "· uid: unique number identifying each user;\n\n"
    "· gid: unique number for the user's main group;\n\n"
    "· GECOS: data field usually containing the user's full name;\n\n"
    "· login directory, assigned to the user for storage of their personal files;\n\n"
    "· program to execute upon login, usually a command interpreter (shell), which the "
    "user can change with chsh."
)


def test_a_long_block_beside_the_best_sentence_is_not_quoted() -> None:
    """A list of many items holds the question's words spread over them ("user",
    "password", "change", "command"), not an answer: beside the sentence that answers,
    it is left out."""
    draft = ExtractiveGenerator().generate(
        "Which command changes a user's password?", _evidence(("handbook.html", PASSWD))
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert any("passwd command permits a regular user to change their password" in t for t in texts)
    assert not any("list of fields" in text for text in texts), texts


def test_german_andere_is_no_match_for_aendern() -> None:
    """Snowball stems "ändern" (to change) and "anderen" (other) alike ("and"): "Wie
    ändere ich …?" met every sentence with "andere(n)", and an answer with two of them
    beside the command abstained. "andere" in every form is a function word."""
    draft = ExtractiveGenerator().generate(
        "Wie ändere ich den Standard-Editor?",
        _evidence(
            (
                "ch01.html",
                "Sie können ihn wie folgt ändern:\n\n$ sudo update-alternatives --config "
                "editor\n\nGute Editoren wie Vim und Emacs können Texte mit UTF-8 und "
                "anderen exotischen Kodierungen korrekt darstellen.",
            ),
            (
                "ch02.html",
                "Für andere Editoren gibt es eigene Pakete, die Sie mit anderen Werkzeugen "
                "installieren.",
            ),
        ),
    )
    assert not draft.abstained
    texts = [claim.text for claim in draft.claims]
    assert any("update-alternatives --config editor" in text for text in texts), texts
    assert not any("andere" in text for text in texts), texts


STEPS = """# Pump manual

## Installation

1. Unpack the pump.
2. Connect the hoses to the inlet and the outlet:
   - inlet first
   - outlet second
3. Fill with water.

The pump needs no oil; its bearings are sealed for life.
"""


def test_a_short_step_on_a_line_of_its_own_is_quoted(app: Ragox) -> None:
    """ "Fill with water." has three words, under the four a claim needs: a step of a
    list was never quoted, and the question it answers was abstained on (seen on a
    new user's Markdown manual)."""
    app.ingestor.ingest_bytes(STEPS.encode(), "pump.md", "pump.md", tenant="default")
    record = app.ask("What do I fill the pump with?", OPERATOR)
    assert not record.abstained
    assert "Fill with water." in [c.anchor.quote.exact for c in record.citations]


def test_a_short_sentence_inside_running_prose_is_not_quoted_alone() -> None:
    """In a paragraph, a two-word "sentence" is a caption's or an abbreviation's
    fragment ("Pleistocene epoch (P)."): the rule for short steps takes only a line of
    its own, so the fragment is not quoted; the sentence that answers is."""
    prose = (
        "The fourth scale shows the Quaternary in more detail. Pleistocene epoch (P). "
        "Q stands for the Quaternary period, which holds the Pleistocene epoch."
    )
    draft = ExtractiveGenerator().generate(
        "During which period was the Pleistocene epoch?", _evidence(("geo.html", prose))
    )
    texts = [claim.text for claim in draft.claims]
    assert not draft.abstained
    assert "Pleistocene epoch (P)." not in texts, texts
    assert any(text.startswith("Q stands for") for text in texts), texts
