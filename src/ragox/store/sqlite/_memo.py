"""What a reader's lexical queries learnt of its partitions, kept for its next ones
(issue 15).

Ranking across partitions and the extractive generator's term weights read, per
partition, its row and token counts, how many rows hold each query term, and the
posting lists of the terms they read. A question reads them again and again for
the same words (``ask`` counts the terms its own search just counted), and so
do the next questions.

Access (DESIGN.md section 7: caches are keyed by tenant and permission scope):

- Every entry belongs to one :class:`~ragox.store.Scope` and to one partition of
  that scope, at one **generation** of that partition (schema 27: a number every
  write to the partition's rows replaces by a larger one, from a counter that only
  grows). The generations are read with the scope's partition list, in the same
  read transaction as everything the query reads. A write elsewhere (another
  group's partition, another tenant's) changes no key of this scope: whether an
  entry is there, and so the time a query takes, never depends on rows the scope
  may not read.
- Each scope has its own memory budget; one scope's entries are never evicted for
  another's. Only how many scopes asked lately (not what they hold) can drop a
  scope's whole memo.
- Nothing here decides access: the permission join runs live on every query after
  ranking, and resolution decides again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final

from ragox.store._scope import Scope

__all__ = ["MEMO_VARIABLE", "ScopeMemo", "StatisticsMemo", "memo_budget"]

#: Scopes whose memos are kept (the least recently used is dropped whole).
MEMO_SCOPES: Final = 16
#: The environment variable that sizes the whole memo, in MiB (all scopes together).
MEMO_VARIABLE: Final = "RAGOX_LEXICAL_MEMO_MB"
#: The whole memo's default size in MiB: 16 MiB for each of :data:`MEMO_SCOPES`
#: scopes, room for the posting lists of a few dozen frequent terms of a
#: million-chunk scope (about 10 bytes a posting).
MEMO_DEFAULT_MIB: Final = 256
#: An entry's own cost over its payload (keys, tuples, the dict slot).
_OVERHEAD: Final = 200


class ScopeMemo:
    """One scope's entries, ``(partition_id, generation, key)`` → value, least
    recently used first, within a byte budget."""

    __slots__ = ("_budget", "_bytes", "_entries", "_generations", "_lock")

    def __init__(self, budget: int, lock: threading.Lock) -> None:
        self._budget = budget
        self._lock = lock
        self._entries: OrderedDict[tuple[int, int, Hashable], tuple[object, int]] = OrderedDict()
        self._bytes = 0
        #: the generation of each partition whose entries are kept
        self._generations: dict[int, int] = {}

    def _see(self, partition_id: int, generation: int) -> None:
        """Forget a partition's entries of an earlier generation (caller holds the lock)."""
        known = self._generations.get(partition_id)
        if known == generation:
            return
        if known is not None:
            for key in [k for k in self._entries if k[0] == partition_id]:
                self._bytes -= self._entries.pop(key)[1]
        self._generations[partition_id] = generation

    def get(self, partition_id: int, generation: int, key: Hashable) -> object | None:
        with self._lock:
            self._see(partition_id, generation)
            found = self._entries.get((partition_id, generation, key))
            if found is None:
                return None
            self._entries.move_to_end((partition_id, generation, key))
            return found[0]

    def put(
        self, partition_id: int, generation: int, key: Hashable, value: object, size: int = 0
    ) -> None:
        cost = size + _OVERHEAD
        if cost > self._budget:
            return
        with self._lock:
            self._see(partition_id, generation)
            full = (partition_id, generation, key)
            old = self._entries.pop(full, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[full] = (value, cost)
            self._bytes += cost
            while self._bytes > self._budget:
                self._bytes -= self._entries.popitem(last=False)[1][1]


def memo_budget() -> int:
    """Bytes for each scope's memo: ``$RAGOX_LEXICAL_MEMO_MB`` (the whole memo, in
    MiB; ``0`` keeps nothing) when it is a whole number, else
    :data:`MEMO_DEFAULT_MIB`, shared equally by :data:`MEMO_SCOPES` scopes.

    Each scope has a budget of its own rather than a share of one pool: what one
    scope's questions read never evicts another's entries (see the module's
    docstring), so the whole is split up front."""
    chosen = os.environ.get(MEMO_VARIABLE, "").strip()
    mib = int(chosen) if chosen.isdigit() else MEMO_DEFAULT_MIB
    return (mib << 20) // MEMO_SCOPES


class StatisticsMemo:
    """The memos of the scopes that asked last (one per store, shared by its threads);
    ``budget`` is each scope's, in bytes (:func:`memo_budget` when not given)."""

    def __init__(self, scopes: int = MEMO_SCOPES, budget: int | None = None) -> None:
        if budget is None:
            budget = memo_budget()
        self._scopes = scopes
        self._budget = budget
        self._lock = threading.Lock()
        self._memos: OrderedDict[Scope, ScopeMemo] = OrderedDict()

    def of(self, scope: Scope) -> ScopeMemo:
        """The scope's memo (a new, empty one when it has none)."""
        with self._lock:
            memo = self._memos.get(scope)
            if memo is None:
                memo = self._memos[scope] = ScopeMemo(self._budget, self._lock)
                while len(self._memos) > self._scopes:
                    self._memos.popitem(last=False)
            else:
                self._memos.move_to_end(scope)
            return memo

    def clear(self) -> None:
        with self._lock:
            self._memos.clear()
