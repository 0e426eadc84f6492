"""The stores' cache of representation texts: least recently used first out, bounded in
entries and in code points (a few huge texts must not pin gigabytes in a long-running
server), with the code points held counted as texts come and go (an answer's searches
put hundreds of texts; summing them at every put was a tenth of a search at 1M chunks).

Not locked itself: the store holds its lock around every call.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection

__all__ = ["TextLru"]


class TextLru:
    """Texts by manifest id, the least recently used dropped first."""

    def __init__(self) -> None:
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._held = 0  # code points of the texts in it

    def __len__(self) -> int:
        return len(self._texts)

    def __contains__(self, manifest_id: object) -> bool:
        return manifest_id in self._texts

    def get(self, manifest_id: str) -> str | None:
        text = self._texts.get(manifest_id)
        if text is not None:
            self._texts.move_to_end(manifest_id)
        return text

    def found(self, manifest_ids: Collection[str]) -> dict[str, str]:
        """The texts of these it holds (each now the most recently used)."""
        return {m: t for m in manifest_ids if (t := self.get(m)) is not None}

    def put(self, manifest_id: str, text: str, entries: int, code_points: int) -> None:
        """Keep ``text``, then drop the oldest until at most ``entries`` texts of at most
        ``code_points`` together are left; the newest text is always kept."""
        self.pop(manifest_id)
        self._texts[manifest_id] = text
        self._held += len(text)
        while len(self._texts) > 1 and (len(self._texts) > entries or self._held > code_points):
            _, dropped = self._texts.popitem(last=False)
            self._held -= len(dropped)

    def pop(self, manifest_id: str) -> None:
        dropped = self._texts.pop(manifest_id, None)
        if dropped is not None:
            self._held -= len(dropped)

    def clear(self) -> None:
        self._texts.clear()
        self._held = 0
