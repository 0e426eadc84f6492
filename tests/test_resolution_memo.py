"""What resolution remembers between requests (the quote search of a text, a verified
HMAC, parsed rows) never stands in for the access decision, and never grows with the
size of a caller's anchors."""

from __future__ import annotations

import pytest

from ragox.access import Principal
from ragox.anchor import Anchor, Refusal, ResolutionStatus, TextQuote
from ragox.anchor import _resolve as resolver
from ragox.anchor._model import MEMO_QUOTE_LIMIT
from ragox.service import Ragox

pytestmark = pytest.mark.both_backends

READER = Principal("sam", groups=frozenset({"staff"}))
TEXT = "Intro.\n\n" + ("Filler sentence number one. " * 200) + "\n\nThe seal lasts 500 hours.\n"


def _anchor(app: Ragox, start: int, end: int) -> Anchor:
    app.ingestor.ingest_bytes(
        TEXT.encode(), "m.txt", "manual", groups=frozenset({"staff"}), tenant="default"
    )
    created = app.create_anchor("manual", start, end, READER)
    assert not isinstance(created, Refusal)
    return created.anchor


def test_a_remembered_verdict_never_replaces_access(app: Ragox) -> None:
    """Resolved once (verdict remembered), the same anchor is refused as soon as the
    reader loses the group, resolves again when it is back, and is refused after
    deletion."""
    start = TEXT.index("seal")
    anchor = _anchor(app, start, start + 4)
    assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED
    assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED
    app.set_groups("manual", frozenset({"board"}))
    assert app.resolve(anchor, READER).status is ResolutionStatus.ACCESS_DENIED
    app.set_groups("manual", frozenset({"staff"}))
    assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED
    assert app.delete("manual")
    assert app.resolve(anchor, READER).status is ResolutionStatus.ACCESS_DENIED


def test_a_remembered_verdict_is_for_that_text_and_quote_only(app: Ragox) -> None:
    """A changed quote or position is checked on the text again, not taken from the
    verdict of the original anchor."""
    start = TEXT.index("seal")
    anchor = _anchor(app, start, start + 4)
    assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED
    moved = Anchor(anchor.identity, anchor.quote, start + 1, start + 5)
    assert app.resolve(moved, READER).status is ResolutionStatus.POSITION_MISMATCH
    bare = Anchor(anchor.identity, TextQuote("Filler"), 8, 14)
    assert app.resolve(bare, READER).status is ResolutionStatus.AMBIGUOUS
    assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED


def test_long_quotes_are_checked_but_never_remembered(app: Ragox) -> None:
    """An anchor whose quote is longer than MEMO_QUOTE_LIMIT resolves (or not) on the
    text every time and leaves nothing behind: a caller cannot fill memory with them."""
    start = TEXT.index("Filler")
    end = start + MEMO_QUOTE_LIMIT + 400
    anchor = _anchor(app, start, end)
    resolver._VERDICTS.clear()
    for _ in range(3):
        assert app.resolve(anchor, READER).status is ResolutionStatus.RESOLVED
    longer = Anchor(anchor.identity, TextQuote(anchor.quote.exact + "x"), start, end + 1)
    assert app.resolve(longer, READER).status is ResolutionStatus.QUOTE_NOT_FOUND
    assert len(resolver._VERDICTS) == 0
    short = _anchor(app, TEXT.index("seal"), TEXT.index("seal") + 4)
    assert app.resolve(short, READER).resolved
    assert len(resolver._VERDICTS) == 1
