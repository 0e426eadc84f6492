"""A footnote's own mark is no part of its quote (issue 16, a new user's questions):
"Zu welchem Paket gehört die Datei /etc/securetty?" quoted "[17] Die Datei
/etc/securetty ist eine Konfigurationsdatei, die zum Paket login gehört." The anchor
starts after the mark and resolves; the mark stays in the document's text."""

from __future__ import annotations

from pathlib import Path

from conftest import OPERATOR
from ragox.anchor import ResolutionStatus
from ragox.service import Ragox

PAGE = """<html><body>
<h2>Die Anmeldung von root einschränken</h2>
<p>Eine solche Richtlinie wird durch Bearbeitung der Datei /etc/securetty umgesetzt.</p>
<div class="footnotes">
<p>[17] Die Datei /etc/securetty ist eine Konfigurationsdatei, die zum Paket login
gehört.</p>
</div>
</body></html>"""


def test_the_quote_starts_after_the_mark(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "root.html").write_text(PAGE, encoding="utf-8")
    app = Ragox(tmp_path / "home")
    try:
        app.ingest_path(folder / "root.html", folder, language="de")
        record = app.ask("Zu welchem Paket gehört die Datei /etc/securetty?", OPERATOR)
        assert not record.abstained
        cited = next(c for c in record.citations if "zum Paket login" in c.anchor.quote.exact)
        text = app.store.text(record.evidence[0].manifest_id)
    finally:
        app.close()
    assert cited.anchor.quote.exact.startswith("Die Datei /etc/securetty ist")
    assert text[cited.anchor.start - 5 : cited.anchor.start] == "[17] "
    assert cited.status is ResolutionStatus.RESOLVED
    assert "[17]" not in record.answer
