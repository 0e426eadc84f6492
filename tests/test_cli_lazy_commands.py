"""Commands kept in modules of their own (``reprocess``, ``retry``, ``fail``,
``worker``) are loaded when named (issue 15) and behave as the others: listed by
``--help``, and ``--home`` accepted after the command as well as before it."""

from __future__ import annotations

from pathlib import Path

from conftest import run_ragox
from ragox.service import Ragox


def test_help_lists_the_commands_loaded_when_named(tmp_path: Path) -> None:
    """`ragox --help` lists every command, those loaded on demand included."""
    shown = run_ragox(tmp_path / "home", "--help")
    assert shown.code == 0
    listed = {line.split()[0] for line in shown.stdout.split("Commands:")[1].splitlines() if line}
    assert {"reprocess", "retry", "fail", "worker", "status", "search"} <= listed


def test_home_after_a_command_loaded_when_named(tmp_path: Path) -> None:
    """`--home DIR` after `retry`, `fail` and `reprocess` names the home, as before them."""
    ignored = tmp_path / "ignored"
    home = tmp_path / "home"
    Ragox(home).close()  # these commands refuse a home that does not exist
    for args in (
        ("retry", "nothing.txt", "--revision", "r1"),
        ("fail", "no.txt", "--revision", "r1"),
    ):
        after = run_ragox(ignored, *args, "--home", str(home), "--json")
        assert after.code == 1, after.stderr  # not found in that home, not a usage error
        assert after.json() == {"status": "NOT_FOUND", "reason": "revision_not_found"}
        assert after.stdout == run_ragox(home, *args, "--json").stdout
    report = run_ragox(ignored, "reprocess", "--dry-run", "--home", str(home), "--json")
    assert report.code == 0, report.stderr
    assert report.json()["revisions"] == []
    assert (home / "keys").is_dir() and not ignored.exists()
