"""Answers a new user met on a desktop's help pages in English, German and Russian
(issue 16, nu17: GNOME Help): a firewall table's port ("5900/tcp") is a value, not a
command, so its row is no instruction for an unrelated how-to question; a "why" question
is answered by the reason, not by the steps beside it; and "you need to" inside a
condition is no advice."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.service import Ragox
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
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "net-firewall-ports.html").write_text(PORTS_RU, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "net-firewall-ports.html", folder, tenant="default")
        record = app.ask("как поменять обои на рабочем столе", OPERATOR)
        assert record.abstained, record.answer
        assert "обои" in (record.missing or "")
        # the row still answers what it says
        asked = app.ask("какой порт нужен для удалённого рабочего стола", OPERATOR)
    finally:
        app.close()
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
    folder = tmp_path / "docs"
    folder.mkdir()
    app = Ragox(tmp_path / "home")
    try:
        for name, text in (("power-whydim.txt", DIM_EN), ("power-suspend.txt", SUSPEND_EN)):
            (folder / name).write_text(text, encoding="utf-8")
            app.ingest_path(folder / name, folder, tenant="default", language="en")
        record = app.ask("why does my screen go dark by itself after a while", OPERATOR)
        # the steps still answer how
        how = app.ask("how do i stop the screen from dimming itself", OPERATOR)
    finally:
        app.close()
    assert not record.abstained, record.answer
    assert "in order to save power" in record.citations[0].anchor.quote.exact
    assert how.answer.startswith("To stop the screen from dimming itself: Open")


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
