"""BM25 over several lexical partitions, top k first, reading posting lists only as
far as the top k needs them (issue 15).

A reader whose scope spans several FTS5 partitions gets every match scored with
FTS5's ``bm25()`` formula (k1 = 1.2, b = 0.75, FTS5's IDF) over the statistics of
all of them. Scoring every match of an OR query costs a pass over the posting list
of every term, and the common terms' lists are the long ones. Their IDF is small,
though: a term can add at most ``idf * (k1 + 1)`` to any row's score (term
frequency saturates below ``k1 + 1``). So, as in MaxScore (Turtle and Flood 1995),
posting lists are read rarest first; once the k-th best score so far (counting
only the lists read) is above what all unread terms together could add, no row
outside the candidates read so far can enter the top k, and the unread terms'
frequencies are needed only for the candidates that could still reach it: they
are counted in those rows' own text (FTS5's tokens of it; a row whose text is not
plain words asks FTS5 itself). Whether to stop or read one more list is a matter of
cost (a candidate costs about ten postings). Every score is then computed with the
same formula, the same operations in the same order as the full pass, so the top k
is the same rows, scores and order, bit for bit; a deeper window computes again.

Posting lists come from FTS5's vocabulary as two strings per partition (rowids,
``docsize`` records) turned into arrays, not as a Python tuple per row.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragox._lazy import lazy_module
from ragox.store._frequencies import plain_term, term_postings
from ragox.store.sqlite._memo import ScopeMemo

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

__all__ = [
    "BM25_B",
    "BM25_K1",
    "AcrossRanking",
    "Partition",
    "Totals",
    "first_varint",
    "idf",
    "match_count",
    "varints",
]

#: BM25 parameters: FTS5's built-in ``bm25()`` defaults, used for the cross-partition
#: score as well so that both paths rank alike.
BM25_K1: Final = 1.2
BM25_B: Final = 0.75
#: FTS5's smallest IDF (a term in more than half of the rows still counts a little).
MIN_IDF: Final = 1e-6
#: Relative slack on every bound comparison, far above floating-point rounding of
#: sums of a few dozen terms and far below any real gap (a term's frequency part is
#: at most ``f / (f + 0.3)`` of its bound).
_SLACK: Final = 1e-9
#: What counting the unread terms in one candidate row costs, in postings read: a
#: list is read rather than many candidates counted (3, 10, 30 and "never stop"
#: compared on the 100k-chunk bench corpus: within noise of each other, 10 best).
_ROW_COST: Final = 10
#: Text made of lowercase letters and digits that ``unicode61`` keeps as they are
#: (as ``plain_term``), ASCII whitespace and underscores (a separator to ``unicode61``):
#: its tokens are its words
_PLAIN_TEXT: Final = re.compile(
    r"[0-9a-z\u00df-\u00f6\u00f8-\u00ff\u0430-\u044f\u0451_ \t\n\r\f\v]*"
)


#: what separates the tokens of a text that :data:`_PLAIN_TEXT` matches
_SEPARATORS: Final = frozenset(" \t\n\r\f\v_")


def _word_end(word: str) -> re.Pattern[str]:
    """``word`` where a token of a plain text ends: before white space, ``_`` or the
    text's end (a pattern that starts with its literal is searched for in C; where
    the match starts, a token starts too when the character before it separates)."""
    return re.compile(re.escape(word) + r"(?![^\s_])")


@dataclass(frozen=True, slots=True)
class Partition:
    """One FTS5 table: the lexical rows of one tenant and one exact reader-group set."""

    partition_id: int
    name: str
    #: the generation of its last change (schema 27; a key of cached statistics)
    generation: int = 0


@dataclass(frozen=True, slots=True)
class Totals:
    """What FTS5's ``bm25()`` knows of a table: rows and tokens in them."""

    rows: int
    tokens: int


@dataclass(frozen=True, slots=True)
class _Partial:
    """The rows of the lists read so far (sorted rowids) and their scores from those
    lists, kept up to date list by list: what deciding whether to stop needs, without
    rebuilding every list's frequencies at each step."""

    ids: npt.NDArray[np.int64]
    score: npt.NDArray[np.float64]
    #: the phrases whose lists are in it
    merged: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Postings:
    """The rows holding one phrase in all the partitions: rowid, phrase frequency,
    row length in tokens (partition after partition)."""

    ids: npt.NDArray[np.int64]
    freqs: npt.NDArray[np.float64]
    sizes: npt.NDArray[np.float64]


def varints(blob: bytes) -> list[int]:
    """SQLite's big-endian varints (FTS5's record format), as used by its shadow tables."""
    values: list[int] = []
    position = 0
    while position < len(blob):
        value = 0
        for count in range(9):
            byte = blob[position]
            position += 1
            if count == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        values.append(value)
    return values


def _sorted_unique(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The distinct values, in order: ``np.unique`` without its check for masked arrays,
    which imports ``numpy.ma`` (a tenth of numpy's import) in a command's first search."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def first_varint(blob: bytes) -> int:
    """The first varint of a record; one or two bytes for any realistic row length."""
    if blob[0] < 0x80:
        return blob[0]
    if blob[1] < 0x80:
        return ((blob[0] & 0x7F) << 7) | blob[1]
    return varints(blob)[0]


def _narrow(values: npt.NDArray[np.int64]) -> npt.NDArray[np.integer]:
    """The same non-negative integers in the smallest unsigned type that holds them."""
    top = int(values.max()) if len(values) else 0
    for kind in (np.uint16, np.uint32):
        if top <= np.iinfo(kind).max:
            return values.astype(kind)
    return values


def match_count(
    conn: sqlite3.Connection, partition: Partition, phrase: str, memo: ScopeMemo | None
) -> int:
    """How many rows of the partition match the phrase (from the scope's memo when it
    has the count, or the phrase's posting list)."""
    if memo is not None:
        key = ("count", phrase)
        found = memo.get(partition.partition_id, partition.generation, key)
        if isinstance(found, int):
            return found
        term = plain_term(phrase)
        if term is not None:
            postings = memo.get(partition.partition_id, partition.generation, ("postings", term))
            if isinstance(postings, tuple):
                return len(postings[0])
    row = conn.execute(
        f"SELECT COUNT(*) FROM {partition.name} WHERE {partition.name} MATCH ?", (phrase,)
    ).fetchone()
    count = int(row[0])
    if memo is not None:
        memo.put(partition.partition_id, partition.generation, ("count", phrase), count)
    return count


def idf(rows: int, hits: int) -> float:
    """FTS5's BM25 IDF, floored at a tiny positive weight."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else MIN_IDF


#: ``(connection, partition, phrase)`` → ``(rowid, -bm25 of the phrase alone, docsize)``
PhraseRows = Callable[[sqlite3.Connection, Partition, str], list[tuple[int, float, bytes]]]


class AcrossRanking:
    """The exact BM25 top k of an OR of phrases over several partitions (one query)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        partitions: Sequence[Partition],
        phrases: Sequence[str],
        totals: Sequence[Totals],
        phrase_rows: PhraseRows,
        memo: ScopeMemo | None = None,
    ) -> None:
        self._conn = conn
        self._memo = memo
        self._phrases = list(phrases)
        self._rows = sum(t.rows for t in totals)
        tokens = sum(t.tokens for t in totals)
        self._average = float(tokens) / float(self._rows) if self._rows else 0.0
        self._live = [(p, t) for p, t in zip(partitions, totals, strict=True) if t.rows > 0]
        self._phrase_rows = phrase_rows
        self._postings: dict[str, _Postings] = {}
        self._hits: dict[str, int] = {}
        #: what the lists read so far can add to a row at most, together
        self._read_bound = 0.0
        self._partial: _Partial | None = None
        #: plain terms not read yet, the largest bound first
        self._unread: list[str] = []
        #: how many posting lists were read, and how many were left unread (the last
        #: call of ``top``): for tests and benchmarks
        self.read = 0
        self.skipped = 0
        bounds: dict[str, float] = {}
        for phrase in dict.fromkeys(self._phrases):
            if plain_term(phrase) is None:  # phrases and prefixes: always read whole
                self._read(phrase)
                continue
            hits = sum(self._count(partition, phrase) for partition, _ in self._live)
            if hits:
                self._hits[phrase] = hits
                weight = self._phrases.count(phrase) * idf(self._rows, hits)
                bounds[phrase] = weight * (BM25_K1 + 1.0)
        self._bounds = bounds
        self._unread = sorted(bounds, key=lambda p: -bounds[p])

    # -- reading FTS5 ----------------------------------------------------------------

    def _count(self, partition: Partition, phrase: str) -> int:
        return match_count(self._conn, partition, phrase, self._memo)

    def _term_postings(
        self, partition: Partition, term: str
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """:func:`term_postings` of one partition, from the scope's memo when it has them."""
        memo = self._memo
        if memo is None:
            return term_postings(self._conn, partition.name, term)
        key = ("postings", term)
        found = memo.get(partition.partition_id, partition.generation, key)
        if isinstance(found, tuple):  # what was put below
            return tuple(array.astype(np.int64) for array in found)
        read = term_postings(self._conn, partition.name, term)
        # kept in the narrowest type that holds every value (about 10 bytes a posting
        # instead of 24), widened again when read
        kept = tuple(_narrow(array) for array in read)
        memo.put(
            partition.partition_id,
            partition.generation,
            key,
            kept,
            sum(int(array.nbytes) for array in kept),
        )
        return read

    def _read(self, phrase: str) -> None:
        """The phrase's whole posting list over all partitions."""
        ids: list[int] = []
        freqs: list[float] = []
        sizes: list[float] = []
        term = plain_term(phrase)
        if term is not None:  # frequencies straight from FTS5's vocabulary
            read = [self._term_postings(p, term) for p, _ in self._live]
            self._postings[phrase] = _Postings(
                np.concatenate([r[0] for r in read]),
                np.concatenate([r[1] for r in read]).astype(np.float64),
                np.concatenate([r[2] for r in read]).astype(np.float64),
            )
            self._hits[phrase] = len(self._postings[phrase].ids)
            self._was_read(phrase)
            return
        for partition, totals in self._live:
            found = self._phrase_rows(self._conn, partition, phrase)
            scores = np.array([hit[1] for hit in found], dtype=np.float64)
            size = np.array([first_varint(hit[2]) for hit in found], dtype=np.float64)
            # f (k1 + 1) / (f + K) with the partition's IDF, K from the row's length
            average = float(totals.tokens) / float(totals.rows)
            ratio = scores / idf(totals.rows, len(found))
            k = BM25_K1 * (1 - BM25_B + BM25_B * size / average)
            freq = np.rint(ratio * k / np.maximum(BM25_K1 + 1.0 - ratio, MIN_IDF))
            ids += [hit[0] for hit in found]
            freqs += freq.tolist()
            sizes += size.tolist()
        self._postings[phrase] = _Postings(
            np.array(ids, dtype=np.int64),
            np.array(freqs, dtype=np.float64),
            np.array(sizes, dtype=np.float64),
        )
        self._hits[phrase] = len(ids)
        self._was_read(phrase)

    def _was_read(self, phrase: str) -> None:
        self.read += 1
        weight = self._phrases.count(phrase) * idf(self._rows, self._hits[phrase])
        self._read_bound += weight * (BM25_K1 + 1.0)

    def _frequencies(
        self, terms: Sequence[str], ids: npt.NDArray[np.int64]
    ) -> dict[str, list[int]]:
        """How often each plain term occurs in each of the rows ``ids`` (0: not at all).

        A row whose text is plain words separated by ASCII whitespace or ``_`` (what the
        analyzers write for en, de and ru) is counted here from its words, which are
        exactly ``unicode61``'s tokens of it; any other row is left to FTS5's own
        matching of that row."""
        at = {int(rowid): n for n, rowid in enumerate(ids.tolist())}
        counts = {term: [0] * len(at) for term in terms}
        words = {str(plain_term(term)): term for term in terms}
        rowids = json.dumps(ids.tolist())
        for partition, _ in self._live:
            t = partition.name
            others: list[int] = []
            rows: list[int] = []  # the plain rows' places in ``ids``…
            bodies: list[str] = []  # …and their texts
            for rowid, body in self._conn.execute(
                f"SELECT rowid, body FROM {t} WHERE rowid IN (SELECT value FROM json_each(?))",
                (rowids,),
            ):
                if not _PLAIN_TEXT.fullmatch(body):
                    others.append(int(rowid))
                    continue
                rows.append(at[int(rowid)])
                bodies.append(body)
            if bodies:
                # every word of every plain row found in one pass over their texts
                # joined by a separator (a row of a thousand words was a list of a
                # thousand strings to count in)
                joined = "\n".join(bodies)
                starts = np.cumsum([0] + [len(body) + 1 for body in bodies[:-1]])
                for word, term in words.items():
                    found = [
                        start
                        for start in (m.start() for m in _word_end(word).finditer(joined))
                        if start == 0 or joined[start - 1] in _SEPARATORS
                    ]
                    if not found:
                        continue
                    held, times = np.unique(
                        np.searchsorted(starts, found, side="right") - 1, return_counts=True
                    )
                    column = counts[term]
                    for place, number in zip(held.tolist(), times.tolist(), strict=True):
                        column[rows[place]] = number
            for rowid in others:
                row = at[rowid]
                for term in terms:
                    counts[term][row] = self._occurrences(partition, term, rowid)
        return counts

    def _occurrences(self, partition: Partition, term: str, rowid: int) -> int:
        """The term's occurrences in one row, whatever the row's text holds: each
        marked occurrence lengthens the text by the two one-character marks."""
        t = partition.name
        row = self._conn.execute(
            f"SELECT length(highlight({t}, 0, '[', ']')) - length({t}.body) FROM {t} "
            f"WHERE {t} MATCH ? AND {t}.rowid = ?",
            (term, rowid),
        ).fetchone()
        return 0 if row is None else int(row[0]) // 2

    # -- scoring ---------------------------------------------------------------------

    def _candidates(
        self,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], dict[str, npt.NDArray[np.float64]]]:
        """Every row holding a phrase read so far, its length, and each read phrase's
        frequency in it (0: absent)."""
        read = list(self._postings.values())
        if not read:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), {}
        every = _sorted_unique(np.concatenate([p.ids for p in read]))
        length = np.zeros(len(every), dtype=np.float64)
        counts: dict[str, npt.NDArray[np.float64]] = {}
        for phrase, postings in self._postings.items():
            counts[phrase] = np.zeros(len(every), dtype=np.float64)
            at = np.searchsorted(every, postings.ids)
            counts[phrase][at] = postings.freqs
            length[at] = postings.sizes
        return every, length, counts

    def _partial_scores(self) -> _Partial:
        """:class:`_Partial` with every list read so far merged in. A row's score
        here sums its terms in the order the lists were read, not the query's: it
        only decides whether to stop and which rows are still candidates (both with
        :data:`_SLACK`), never a score that is returned."""
        state = self._partial
        if state is None:
            state = _Partial(
                np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), frozenset()
            )
        ids, score = state.ids, state.score
        merged = set(state.merged)
        for phrase, postings in self._postings.items():
            if phrase in merged:
                continue
            merged.add(phrase)
            wider = _sorted_unique(np.concatenate((ids, postings.ids)))
            if len(wider) != len(ids):
                widened = np.zeros(len(wider), dtype=np.float64)
                widened[np.searchsorted(wider, ids)] = score
                ids, score = wider, widened
            at = np.searchsorted(ids, postings.ids)
            f = postings.freqs
            part = idf(self._rows, self._hits[phrase]) * (
                (f * (BM25_K1 + 1.0))
                / (f + BM25_K1 * (1 - BM25_B + BM25_B * postings.sizes / self._average))
            )
            score[at] += self._phrases.count(phrase) * part
        self._partial = _Partial(ids, score, frozenset(merged))
        return self._partial

    def _scores(
        self, length: npt.NDArray[np.float64], counts: dict[str, npt.NDArray[np.float64]]
    ) -> npt.NDArray[np.float64]:
        """FTS5's bm25 sum, term by term in the query's order (so sums round alike);
        a phrase without counts adds exactly what zero occurrences add: nothing."""
        score = np.zeros(len(length), dtype=np.float64)
        for phrase in self._phrases:
            f = counts.get(phrase)
            if f is None:
                continue
            score = score + idf(self._rows, self._hits[phrase]) * (
                (f * (BM25_K1 + 1.0))
                / (f + BM25_K1 * (1 - BM25_B + BM25_B * length / self._average))
            )
        return score

    @staticmethod
    def _ordered(
        ids: npt.NDArray[np.int64], score: npt.NDArray[np.float64], depth: int
    ) -> list[tuple[int, float]]:
        """The best ``depth`` of the rows, best first, ties by rowid."""
        if depth < len(score):  # only rows at or above the depth-th score are sorted
            cut = np.partition(score, len(score) - depth)[len(score) - depth]
            ids, score = ids[score >= cut], score[score >= cut]
        order = np.lexsort((ids, -score))[:depth]
        return list(zip(ids[order].tolist(), score[order].tolist(), strict=True))

    def top(self, depth: int) -> tuple[list[tuple[int, float]], bool]:
        """The best ``depth`` rows ``(rowid, score)``, best first (ties by rowid), and
        whether no other row matches."""
        if self._rows == 0:
            return [], True
        while True:
            unread = [p for p in self._unread if p not in self._postings]
            self.skipped = len(unread)
            if not unread:  # every row scored: exactly the top, however deep
                every, length, counts = self._candidates()
                top = self._ordered(every, self._scores(length, counts), depth)
                return top, len(top) < depth
            rest = sum(self._bounds[p] for p in unread) * (1.0 + _SLACK)
            # no row scores more than the lists read can add: below ``rest`` that
            # is no floor to stop at, so the next list is read without looking
            partial = self._partial_scores() if self._read_bound * (1.0 + _SLACK) > rest else None
            if partial is not None and len(partial.ids) >= depth:
                # the depth-th best score so far: a floor of the depth-th best score
                score = partial.score
                floor = float(np.partition(score, len(score) - depth)[-depth])
                floor *= 1.0 - _SLACK
                # rows outside the candidates score below ``rest``; candidates that
                # cannot reach the floor are out as well
                keep = score + rest >= floor
                if rest < floor and int(keep.sum()) * _ROW_COST <= self._hits[unread[0]]:
                    every, length, counts = self._candidates()  # the same rows, in order
                    ids, length = every[keep], length[keep]
                    counts = {p: c[keep] for p, c in counts.items()}
                    found = self._frequencies(unread, ids)
                    for phrase in unread:
                        counts[phrase] = np.array(found[phrase], dtype=np.float64)
                    return self._ordered(ids, self._scores(length, counts), depth), False
            self._read(unread[0])
