"""Answers a new user met on a desktop's help pages in English, German and Russian
(issue 16, nu17: GNOME Help): a firewall table's port ("5900/tcp") is a value, not a
command, so its row is no instruction for an unrelated how-to question; a "why" question
is answered by the reason, not by the steps beside it (unless it asks how too); "you need
to" inside a condition is no advice; and a how-to question is answered by the steps of the
page an overview's line points to, not by that line, nor by the page's sentence that
restates the question."""

from __future__ import annotations

from pathlib import Path

from conftest import answers_over
from ragox.answer import AnswerRecord
from ragox.text._instructions import command_like, has_instruction

PORTS_RU = """<!DOCTYPE html>
<html lang="ru"><head><meta charset="utf-8"><title>Сетевые порты</title></head><body>
<h1>Часто используемые сетевые порты</h1>
<p>Ниже перечислены сетевые порты, которые часто открывают приложения, предоставляющие
услуги по сети. Откройте порт в межсетевом экране, только если служба вам нужна.</p>
<table>
<tr><th>Порт</th><th>Название</th><th>Описание</th></tr>
<tr><td>22/tcp</td><td>SSH</td>
<td>Позволяет входить в систему и выполнять команды удалённо.</td></tr>
<tr><td>631/tcp</td><td>Печать</td>
<td>Позволяет отправлять задания на печать на принтер по сети.</td></tr>
<tr><td>5900/tcp</td><td>Удалённый рабочий стол</td>
<td>Позволяет открывать совместный доступ к вашему рабочему столу, чтобы другие
пользователи могли просматривать его или оказывать удалённую помощь.</td></tr>
</table>
</body></html>
"""


def _answers(
    tmp_path: Path, files: dict[str, str], questions: list[str], language: str | None = None
) -> list[AnswerRecord]:
    return answers_over(tmp_path, files, questions, language)


def test_a_port_and_its_protocol_are_no_command() -> None:
    for value in ("5900/tcp", "5353/udp", "24/7", "10/100/1000"):
        assert not command_like(value), value
        assert not has_instruction(value, "ru", bare_commands=False), value
    # a path or an option still is one
    for command in ("debian/rules binary", "/etc/hosts", "ufw allow 5900/tcp"):
        assert command_like(command), command


def test_a_firewall_row_does_not_answer_how_to_change_the_wallpaper(tmp_path: Path) -> None:
    """ "как поменять обои на рабочем столе" (no page says "обои") was answered with the
    remote desktop's row: "5900/tcp" looked like a path, so the row counted as an
    instruction and "рабочий стол" carried it over the threshold."""
    record, asked = _answers(
        tmp_path,
        {"net-firewall-ports.html": PORTS_RU},
        # (the row still answers what it says)
        ["как поменять обои на рабочем столе", "какой порт нужен для удалённого рабочего стола"],
    )
    assert record.abstained, record.answer
    assert "обои" in (record.missing or "")
    assert not asked.abstained, asked.answer
    assert "5900/tcp" in asked.answer


DIM_EN = (
    "Why does my screen go dim after a while?\n\n"
    "If it is possible to set the brightness of your screen, it will dim when the computer "
    "is idle in order to save power. When you start using the computer again, the screen "
    "will brighten.\n\n"
    "To stop the screen from dimming itself: Open the Activities overview and start typing "
    "Power. Click Power to open the panel. Switch the Dim Screen switch to off in the "
    "Power Saving Options section.\n"
)
SUSPEND_EN = (
    "Set up automatic suspend\n\n"
    "You can configure your computer to automatically suspend when idle. Open the Power "
    "panel and switch Automatic Suspend on. The computer will suspend after the delay "
    "you choose.\n"
)


def test_a_why_question_is_answered_by_the_reason_not_the_steps(tmp_path: Path) -> None:
    """ "why does my screen go dark by itself after a while" quoted the steps that turn
    dimming off (they repeat "screen" and "itself"), not "it will dim when the computer
    is idle in order to save power" (nu17 E04): steps say no reason."""
    record, both, how = _answers(
        tmp_path,
        {"power-whydim.txt": DIM_EN, "power-suspend.txt": SUSPEND_EN},
        [
            "why does my screen go dark by itself after a while",
            # a question that asks how too is answered by the steps as well (nu9's "Warum
            # hat meine … Auswahl plötzlich runde Ecken und wie werde ich die los?")
            "why does my screen go dark after a while and how do i get rid of that?",
            # the steps still answer how
            "how do i stop the screen from dimming itself",
        ],
        "en",
    )
    assert not record.abstained, record.answer
    assert "in order to save power" in record.citations[0].anchor.quote.exact
    assert how.answer.startswith("To stop the screen from dimming itself: Open")
    assert "in order to save power" in both.answer
    assert "To stop the screen from dimming itself: Open" in both.answer


def test_a_condition_that_goes_on_with_you_need_to_is_no_advice() -> None:
    """ "If the network card stops working, and you need to swap a new card in, the
    service won't work anymore." had counted as an instruction, and was quoted for "how
    can i find the mac address of my wifi card" before the steps (nu17 E02)."""
    assert not has_instruction(
        "If the network card stops working, and you need to swap a new card in, the "
        "service won't work anymore.",
        "en",
    )
    assert not has_instruction("Reboot the machine and you should see the login screen.", "en")
    # advice is still advice
    assert has_instruction("You need to restart the service after editing the file.", "en")
    assert has_instruction("If the card stops working, you should replace it.", "en")


PRINTING_EN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Printing</title></head><body>
<h1>Printing</h1>
<div class="links">
<ul>
<li><a href="printing-to-file.html">Print to file</a> — Save a document as a PDF, PostScript
or SVG file instead of sending it to a printer.</li>
<li><a href="printing-booklet.html">Print a booklet</a> — Print folded booklets from a
PDF.</li>
<li><a href="printing-cancel.html">Cancel a print job</a> — Remove a pending print job
from the queue.</li>
</ul>
</div>
</body></html>
"""
TO_FILE_EN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Print to file</title></head><body>
<h1>Print to file</h1>
<p>You can choose to print a document to a file instead of sending it to print from a
printer. Printing to file will create a PDF, a PostScript or a SVG file that contains the
document. This can be useful if you want to transfer the document to another machine or to
share it with someone.</p>
<div class="steps"><p>To print to file:</p>
<ol>
<li><p>Open the print dialog by pressing Ctrl+P.</p></li>
<li><p>Select Print to File under Printer in the General tab.</p></li>
<li><p>To change the default filename and where the file is saved to, click the filename
below the printer selection. Click Select once you have finished choosing.</p></li>
<li><p>Choose your other page preferences.</p></li>
<li><p>Press Print to save the file.</p></li>
</ol></div>
</body></html>
"""
BOOKLET_EN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Print a booklet</title></head><body>
<h1>Print a booklet</h1>
<p>You can print a booklet from a PDF on a double-sided printer. Open the print dialog,
choose Page Setup and set Pages per side to 2.</p>
</body></html>
"""


def test_a_how_to_question_is_answered_by_the_page_not_the_overview_line(
    tmp_path: Path,
) -> None:
    """ "how do i print to a pdf file instead of the printer" quoted the overview page's
    line "Print to file — Save a document as a PDF … instead of sending it to a printer."
    (it holds every word of the question) and nothing of the page it points to (nu17
    E01); then that page's "You can choose to print a document to a file …", not its
    steps, which scored nearly as well."""
    record, restated, what = _answers(
        tmp_path,
        {
            "printing.html": PRINTING_EN,
            "printing-to-file.html": TO_FILE_EN,
            "printing-booklet.html": BOOKLET_EN,
        },
        [
            "how do i print to a pdf file instead of the printer",
            # the page's first sentence restates the question; its steps answer it
            "how can i print to a file instead of sending it to the printer",
            # what the overview's line says is still found where nothing else says it
            "what does print to file save a document as?",
        ],
    )
    assert not record.abstained, record.answer
    assert record.citations[0].anchor.document_id == "printing-to-file.html"
    assert "Select Print to File" in record.answer
    # the steps lead
    assert record.answer.startswith("To print to file:")
    assert "Save a document as a PDF" not in record.answer
    assert not what.abstained, what.answer
    assert restated.answer.startswith("To print to file:"), restated.answer


NAMES_EN = (
    "Printer names\n\n"
    "The name of a printer cannot be changed while a job is printing on it. To clean the "
    "print heads of a printer: Open Settings, click Printers and choose Clean Heads.\n"
)
OFFICE_EN = (
    "Networks\n\n"
    "A network printer is shared by every computer of the office. Ask your administrator "
    "to add one.\n"
)


def test_steps_about_another_thing_do_not_take_the_answers_place(tmp_path: Path) -> None:
    """Steps take the place of a how-to answer's first sentence only where they say
    much of the question themselves: "To clean the print heads of a printer: …" shares
    "printer" alone and stands beside the answer."""
    (record,) = _answers(
        tmp_path,
        {"printer-name.txt": NAMES_EN, "network.txt": OFFICE_EN},
        ["how do i change the name of a printer while it is printing?"],
        "en",
    )
    assert record.answer.startswith("The name of a printer cannot be changed"), record.answer


def test_an_faq_line_that_says_how_is_no_pointer(tmp_path: Path) -> None:
    """ "Reset password — Press Ctrl+Alt+Del, …" is an FAQ's answer, not an overview's
    line for the page titled "Reset password", which says nothing of how (a red team's
    case: the steps were skipped and the policy quoted)."""
    (record,) = _answers(
        tmp_path,
        {
            "faq.txt": "Frequently asked questions\n\nReset password — Press Ctrl+Alt+Del, "
            "choose Change password and type the new password twice.\n\nOrder toner — "
            "Write to the facilities desk with the printer's asset number.",
            "reset-password.txt": "Reset password\n\nPasswords expire every 90 days, and the "
            "password policy requires twelve characters.",
        },
        ["how do i reset my password?"],
        "en",
    )
    assert "Press Ctrl+Alt+Del" in record.answer, record.answer
