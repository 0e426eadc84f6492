"""A sentence that goes on after its block is quoted to its end, and a quote does not
open with the closing bracket of the paragraph before (issue 16, a new-user pass over
the Debian FAQ): "How can I keep a history of every package install and removal done
with dpkg?" was answered with ") If you'd like to log all your dpkg invocations …, you
could add" + "log /var/log/dpkg.log", without "to your /etc/dpkg/dpkg.cfg", which
says where the line goes: the chunk ended with the block."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox

FILLER = "".join(
    f"<p>Section {k} describes another part of the packaging system in some detail, "
    "with examples of its use on a desktop and on a server.</p>\n"
    for k in range(40)
)
# a long paragraph after the block: a chunk of its own, so the one before ends with the
# block (as the FAQ's did)
ROTATION = " ".join(
    f"Rotation rule {k} keeps the files of week {k} compressed for a month." for k in range(30)
)
LOG = f"""<!DOCTYPE html>
<html lang="en"><head><title>Keeping a log</title></head><body>
<h2>9.4. How can I keep a log of the packages I added to the system?</h2>
<p>Passing the <code>--log</code> option to dpkg makes dpkg log status change updates
and actions. It logs the invocation (e.g.</p>
<pre>2005-12-30 18:10:33 install hello 1.3.18 2.1.1-4</pre>
<p>) If you'd like to log all your dpkg invocations (even those done using frontends
like aptitude), you could add</p>
<pre>log /var/log/dpkg.log</pre>
<p>to your <code>/etc/dpkg/dpkg.cfg</code>. Be sure the created logfile gets rotated
periodically. {ROTATION}</p>
{FILLER}
</body></html>
"""


def _home(tmp_path: Path, name: str, text: str, language: str = "en") -> Ragox:
    """A home holding one document ``name`` in ``language``."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    app.ingest_path(folder / name, folder, language=language)
    return app


def test_the_sentence_after_its_block_is_quoted_whole(tmp_path: Path) -> None:
    app = _home(tmp_path, "uptodate.html", LOG)
    try:
        record = app.ask(
            "How can I keep a history of every package install and removal done with dpkg?",
            OPERATOR,
        )
    finally:
        app.close()
    assert not record.abstained, record.answer
    quotes = [c.anchor.quote.exact for c in record.citations]
    logged = next(q for q in quotes if "log /var/log/dpkg.log" in q)
    assert logged.startswith("If you'd like to log all your dpkg invocations")
    assert logged.rstrip().endswith("to your /etc/dpkg/dpkg.cfg.")


def test_a_passage_ending_with_the_block_takes_the_sentence_after_it() -> None:
    """The FAQ's chunk ended right after "log /var/log/dpkg.log": the evidence goes on
    to the end of the sentence that the next paragraph finishes in lower case, and no
    further; a next paragraph that opens a sentence of its own adds nothing."""
    from ragox.answer._context import _sentence_goes_on

    block = "you could add\n\nlog /var/log/dpkg.log"
    after = "\n\nto your /etc/dpkg/dpkg.cfg. Be sure the logfile gets rotated."
    full = "If you'd like to log all invocations, " + block + after
    end = full.index(after)
    assert full[: _sentence_goes_on(full, 0, end)].endswith("to your /etc/dpkg/dpkg.cfg.")
    own = full[:end] + "\n\nBe sure the logfile gets rotated."
    assert _sentence_goes_on(own, 0, end) == end
    assert _sentence_goes_on(full[:end], 0, end) == end
    # a passage whose last paragraph is no block a sentence runs into takes nothing on
    prose = "The mirror list ends here.\n\nEvery mirror is checked daily."
    assert _sentence_goes_on(prose + "\n\nand more follows.", 0, len(prose)) == len(prose)


def test_evidence_of_a_chunk_ending_with_the_block_goes_on_to_the_sentence_end(
    tmp_path: Path,
) -> None:
    """Only the chunk that ends with the block is a hit (as in the FAQ, whose next chunk
    ranked below the evidence): its evidence still ends "to your /etc/dpkg/dpkg.cfg."."""
    from ragox.answer import select_context

    app = _home(tmp_path, "uptodate.html", LOG)
    try:
        hits = app.search("dpkg invocations frontends aptitude", OPERATOR, limit=10)
        text = app.text("uptodate.html", OPERATOR)
        ending = [h for h in hits if text[: h.end].rstrip().endswith("log /var/log/dpkg.log")]
        assert ending, [(h.start, h.end) for h in hits]
        evidence = select_context(app.store, ending[:1])
    finally:
        app.close()
    assert evidence[0].text.rstrip().endswith("to your /etc/dpkg/dpkg.cfg.")


def test_a_list_item_after_the_block_is_not_its_sentence(tmp_path: Path) -> None:
    """A red-team pass: Markdown's list items lose their marker in the text, so
    "enable the firewall rule …" after "apt install nginx" opened in lower case and
    was quoted as the end of "To install the nginx web server … you run"; so was "see
    also …". A paragraph that goes on with the sentence opens with a function word."""
    from ragox.answer._blocks import goes_on_after_block

    page = (
        "# Web server\n\nTo install the nginx web server on the machine you run\n\n"
        "    apt install nginx\n\n"
        "- enable the firewall rule for port 80 and reload the firewall daemon.\n"
        "- remove the default site from the sites-enabled directory.\n\n"
        "# Rotating logs\n\nTo rotate the apache logs every week you put in the crontab "
        "the line\n\n    0 0 * * 0 /usr/sbin/logrotate /etc/logrotate.conf\n\n"
        "see also the section on cron jobs.\n"
    )
    app = _home(tmp_path, "web.md", page)
    try:
        nginx = app.ask("How do I install the nginx web server?", OPERATOR)
        logs = app.ask("How do I rotate the apache logs every week?", OPERATOR)
    finally:
        app.close()
    quoted = " ".join(c.anchor.quote.exact for c in (*nginx.citations, *logs.citations))
    assert "apt install nginx" in quoted and "logrotate.conf" in quoted
    assert "firewall" not in quoted and "see also" not in quoted
    assert goes_on_after_block("x\n\nto your /etc/dpkg/dpkg.cfg.", 3)
    assert goes_on_after_block("x\n\nи перезапустите службу.", 3)
    assert not goes_on_after_block("x\n\nenable the rule.", 3)
    assert not goes_on_after_block("x\n\nTo your file.", 3)


def test_an_introduced_block_takes_the_end_of_its_sentence(tmp_path: Path) -> None:
    """A new-user pass over the kernel handbook: "… by creating a file containing the
    line:" + "blacklist tulip" was quoted without "in /etc/modprobe.d directory.",
    which says where the file goes."""
    page = (
        "<html><body><h2>Modules</h2><p>Sometimes two modules claim the same device. To "
        "avoid this problem, you can prevent any module (let's say, tulip) from loading "
        "by creating a file containing the line:</p><pre>blacklist tulip\n</pre><p>in "
        "<code>/etc/modprobe.d</code> directory. See the modprobe manual page for more "
        "information.</p></body></html>"
    )
    app = _home(tmp_path, "modules.html", page)
    try:
        record = app.ask("How do I stop the kernel from loading the tulip module?", OPERATOR)
    finally:
        app.close()
    quoted = next(
        c.anchor.quote.exact for c in record.citations if "blacklist" in c.anchor.quote.exact
    )
    assert quoted.rstrip().endswith("in /etc/modprobe.d directory.")


CHECKSUM = (
    "<html lang='de'><body><h2>4.7. Integrität der Installationsdateien</h2>"
    "<p>Um die Prüfsumme einer heruntergeladenen Installationsdatei zu berechnen, verwenden "
    "Sie</p><pre>sha256sum filename.iso</pre><p>bzw.</p><pre>sha512sum filename.iso</pre>"
    "<p>und vergleichen Sie die angezeigte Prüfsumme mit der entsprechenden in SHA256SUMS "
    "bzw. SHA512SUMS.</p><p>Die FAQ enthält weitere Informationen zu diesem Thema.</p>"
    "</body></html>"
)


def test_a_sentence_goes_on_through_another_ways_block(tmp_path: Path) -> None:
    """A new-user pass over the installation guide: "… verwenden Sie" + "sha256sum
    filename.iso" + "bzw." + "sha512sum filename.iso" + "und vergleichen Sie …" is one
    sentence (DocBook's markup); the quote stopped after the first command."""
    app = _home(tmp_path, "integrity.html", CHECKSUM, "de")
    try:
        record = app.ask("wie prüfe ich die prüfsumme von dem heruntergeladenen iso", OPERATOR)
    finally:
        app.close()
    quoted = next(
        c.anchor.quote.exact for c in record.citations if "sha256sum" in c.anchor.quote.exact
    )
    assert "sha512sum filename.iso" in quoted
    assert quoted.rstrip().endswith("in SHA256SUMS bzw. SHA512SUMS.")


def test_a_chunk_ending_with_another_ways_block_goes_on_to_the_sentence_end() -> None:
    """The guide's chunk ended with "bzw." + "sha512sum filename.iso": the evidence goes
    back over that way to the sentence that runs into the first, and on to its end."""
    from ragox.answer._context import _sentence_goes_on

    body = (
        "Um die Prüfsumme zu berechnen, verwenden Sie\n\nsha256sum filename.iso\n\n\nbzw.\n\n"
        "sha512sum filename.iso"
    )
    after = "\n\n\nund vergleichen Sie die Prüfsumme mit SHA256SUMS. Die FAQ hilft."
    full = body + after
    assert full[: _sentence_goes_on(full, 0, len(body))].endswith("mit SHA256SUMS.")
    # "bzw." alone after prose that runs into no block takes nothing on
    prose = "Die Liste endet hier.\n\nbzw.\n\nsha512sum filename.iso"
    assert _sentence_goes_on(prose + after, 0, len(prose)) == len(prose)


INCOME = (
    "2.2.3. Einkommen\n\n"
    "Jede Partei erhält Gold aus ihren Dörfern.\n\n"
    "Die Formel für die Berechnung der Einnahmen pro Zug ist daher\n\n"
    "2 + Dörfer – Maximum(0, Unterhalt – Dörfer)\n\n"
    "wobei Unterhalt gleich der Summe der Stufen aller Eurer nicht-loyalen Einheiten ist.\n\n"
    "Falls die Unterhaltkosten größer sind, beginnt die Partei, Gold zu verlieren."
)


def test_a_sentence_goes_on_through_a_formula_on_its_own_line() -> None:
    """The Wesnoth manual's "Die Formel … ist daher" + the formula + "wobei …" is one
    sentence (a new-user pass, nu16): the quote had stopped before the formula."""
    from conftest import evidence_of
    from ragox.answer import ExtractiveGenerator

    draft = ExtractiveGenerator().generate(
        "wie wird das einkommen pro zug berechnet", evidence_of(INCOME)
    )
    assert not draft.abstained
    quote = draft.claims[0].quote
    assert quote.startswith("Die Formel"), draft.claims
    assert "Maximum(0, Unterhalt – Dörfer)" in quote
    assert quote.endswith("nicht-loyalen Einheiten ist.")


def test_a_line_after_a_sentence_without_an_end_is_no_block_unless_it_goes_on() -> None:
    """Without the sentence going on below it, the line is the next paragraph's title."""
    from ragox.answer._blocks import block_end

    text = "The package was renamed in the release after that\n\nUpgrades\n\nSome text."
    end = text.index("that") + 4
    assert block_end(text, end, False, len(text), 0) is None
