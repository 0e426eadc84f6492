"""Alignment maps between an output text and the input it was derived from.

An alignment is a monotone sequence of segments. Segment ``k`` covers the output
code points ``[out_pos[k], out_pos[k+1])`` and the input code points
``[in_pos[k], in_pos[k+1])``. A *copy* segment has equal lengths and corresponds
one to one; a *replacement* segment (CR LF → LF, a decomposed sequence → its
composition, a deleted header → nothing) corresponds only as a whole.

The boundaries live in ``array('q')`` so that a million-code-point manual costs
a few arrays, not a list of per-character objects (DESIGN §4).
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from typing import Final

__all__ = ["Alignment", "AlignmentBuilder", "MappedRange"]

_COPY: Final = 1
_REPLACE: Final = 0
_MAGIC: Final = b"RGXA1"


@dataclass(frozen=True, slots=True)
class MappedRange:
    """A range carried through an alignment; ``exact`` is false when an end was widened."""

    start: int
    end: int
    exact: bool


class AlignmentBuilder:
    """Accumulates segments left to right; adjacent copies are merged."""

    __slots__ = ("_in", "_kind", "_out")

    def __init__(self) -> None:
        self._out = array("q", [0])
        self._in = array("q", [0])
        self._kind = bytearray()

    def copy(self, length: int) -> None:
        """Append ``length`` code points that correspond one to one."""
        if length < 0:
            raise ValueError("segment length must not be negative")
        if length == 0:
            return
        if self._kind and self._kind[-1] == _COPY:
            self._out[-1] += length
            self._in[-1] += length
            return
        self._append(length, length, _COPY)

    def replace(self, out_length: int, in_length: int) -> None:
        """Append a segment whose output and input correspond only as a whole."""
        if out_length < 0 or in_length < 0:
            raise ValueError("segment length must not be negative")
        if out_length == 0 and in_length == 0:
            return
        self._append(out_length, in_length, _REPLACE)

    def _append(self, out_length: int, in_length: int, kind: int) -> None:
        self._out.append(self._out[-1] + out_length)
        self._in.append(self._in[-1] + in_length)
        self._kind.append(kind)

    def replace_runs(self, runs: Iterable[tuple[int, int]], width: int, length: int) -> int:
        """Append a text of ``length`` input code points in which each run ``(start,
        end)`` (in order, not overlapping, offsets from where this text begins) becomes
        ``width`` output code points and the rest is copied: the segments that
        ``copy(start - position); replace(width, end - start)`` per run and a final
        ``copy`` would append, in one local loop. Returns the number of runs."""
        out, inp, kinds = self._out, self._in, self._kind
        out_at, in_at = out[-1], inp[-1]
        base = in_at
        count = 0
        for run_start, run_end in runs:
            count += 1
            start, end = base + run_start, base + run_end
            if start > in_at:
                out_at += start - in_at
                if kinds and kinds[-1] == _COPY:
                    out[-1] = out_at
                    inp[-1] = start
                else:
                    out.append(out_at)
                    inp.append(start)
                    kinds.append(_COPY)
                in_at = start
            if start < in_at or end < start:
                raise ValueError("runs must be in order and must not overlap")
            if width or end > start:
                out_at += width
                in_at = end
                out.append(out_at)
                inp.append(in_at)
                kinds.append(_REPLACE)
        self.copy(base + length - in_at)
        return count

    def build(self) -> Alignment:
        return Alignment(self._out, self._in, bytes(self._kind))


class Alignment:
    """Maps ranges of an output text back to its input, and forward again.

    Instances are immutable by convention: the arrays are never mutated after
    construction.
    """

    __slots__ = ("_in", "_kind", "_out")

    def __init__(self, out_pos: array[int], in_pos: array[int], kinds: bytes) -> None:
        if len(out_pos) != len(in_pos) or len(out_pos) != len(kinds) + 1:
            raise ValueError("alignment arrays have inconsistent lengths")
        if out_pos[0] != 0 or in_pos[0] != 0:
            raise ValueError("alignment must start at 0")
        self._out = out_pos
        self._in = in_pos
        self._kind = kinds

    # -- construction -------------------------------------------------------

    @classmethod
    def identity(cls, length: int) -> Alignment:
        """The alignment of a text with itself."""
        builder = AlignmentBuilder()
        builder.copy(length)
        return builder.build()

    @classmethod
    def collapsed(cls, kept: Sequence[int], runs: Sequence[int], width: int) -> Alignment:
        """The alignment of a text in which run ``i`` (``runs[i]`` input code points)
        became ``width`` output code points, with ``kept[i]`` copied code points before
        it and ``kept[-1]`` after the last: what ``copy(kept[0]); replace(width,
        runs[0]); copy(kept[1]); ...`` on a builder gives, built from the lengths at
        once (white space collapsed by ``re.split`` and ``findall``)."""
        if len(kept) != len(runs) + 1:
            raise ValueError("one kept length more than runs is needed")
        if width <= 0 or min(runs, default=1) <= 0 or min(kept) < 0:
            builder = AlignmentBuilder()
            for length, run in zip(kept, runs, strict=False):
                builder.copy(length)
                builder.replace(width, run)
            builder.copy(kept[-1])
            return builder.build()
        count = 2 * len(runs) + 1
        in_lengths = [0] * count
        in_lengths[0::2] = kept
        in_lengths[1::2] = runs
        out_lengths = in_lengths.copy()
        out_lengths[1::2] = [width] * len(runs)
        kinds = bytes([_COPY, _REPLACE]) * len(runs) + bytes([_COPY])
        if 0 in kept:  # an empty copy is no segment
            keep = [length > 0 for length in in_lengths]
            in_lengths = list(compress(in_lengths, keep))
            out_lengths = list(compress(out_lengths, keep))
            kinds = bytes(compress(kinds, keep))
        return cls(
            array("q", accumulate(out_lengths, initial=0)),
            array("q", accumulate(in_lengths, initial=0)),
            kinds,
        )

    # -- inspection ---------------------------------------------------------

    @property
    def output_length(self) -> int:
        return self._out[-1]

    @property
    def input_length(self) -> int:
        return self._in[-1]

    @property
    def segment_count(self) -> int:
        return len(self._kind)

    def is_identity(self) -> bool:
        return all(k == _COPY for k in self._kind) and self.output_length == self.input_length

    def _single_copy(self) -> bool:
        """No segment, or one copy segment: the identity as a builder makes it."""
        return len(self._kind) == 0 or (len(self._kind) == 1 and self._kind[0] == _COPY)

    def segments(self) -> list[tuple[int, int, int, int, bool]]:
        """``(out_start, out_end, in_start, in_end, is_copy)`` per segment."""
        return [
            (self._out[k], self._out[k + 1], self._in[k], self._in[k + 1], self._kind[k] == _COPY)
            for k in range(len(self._kind))
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Alignment):
            return NotImplemented
        return self._out == other._out and self._in == other._in and self._kind == other._kind

    def __hash__(self) -> int:
        return hash((bytes(self._out), bytes(self._in), self._kind))

    def __repr__(self) -> str:
        return (
            f"Alignment(out={self.output_length}, in={self.input_length}, "
            f"segments={self.segment_count})"
        )

    # -- mapping ------------------------------------------------------------

    def invert(self) -> Alignment:
        """The same correspondence seen from the input side."""
        return Alignment(self._in, self._out, self._kind)

    def map_back(self, start: int, end: int) -> MappedRange:
        """Carry an output range ``[start, end)`` to the input."""
        return _map(self._out, self._in, self._kind, start, end)

    def map_forward(
        self, start: int, end: int, *, insertions_at_start: bool = False
    ) -> MappedRange:
        """Carry an input range ``[start, end)`` to the output. Output inserted at
        ``start`` (no input behind it) is left out unless ``insertions_at_start``."""
        return _map(self._in, self._out, self._kind, start, end, insertions_at_start)

    def compose(self, inner: Alignment) -> Alignment:
        """``self`` maps C → B and ``inner`` maps B → A; the result maps C → A."""
        if self.input_length != inner.output_length:
            raise ValueError("alignments do not meet: lengths differ")
        # A side that is one copy segment (an unchanged step) leaves the other as it is,
        # exactly as the walk below would build it; ingestion composes many of these.
        if inner._single_copy():
            return self
        if self._single_copy():
            return inner
        return _compose(self._in, self._out, self._kind, inner._out, inner._in, inner._kind)

    # -- persistence --------------------------------------------------------

    def to_bytes(self) -> bytes:
        """A compact, versioned binary form for storage."""
        n = len(self._kind)
        header = _MAGIC + struct.pack("<Q", n)
        return header + self._out.tobytes() + self._in.tobytes() + self._kind

    @classmethod
    def from_bytes(cls, data: bytes) -> Alignment:
        if not data.startswith(_MAGIC):
            raise ValueError("not a stored alignment")
        offset = len(_MAGIC)
        (n,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        width = 8 * (n + 1)
        if len(data) != offset + 2 * width + n:
            raise ValueError("stored alignment is truncated")
        out_pos = array("q")
        out_pos.frombytes(data[offset : offset + width])
        in_pos = array("q")
        in_pos.frombytes(data[offset + width : offset + 2 * width])
        kinds = bytes(data[offset + 2 * width :])
        return cls(out_pos, in_pos, kinds)


def _map(
    src: array[int],
    dst: array[int],
    kinds: bytes,
    start: int,
    end: int,
    insertions_at_start: bool = False,
) -> MappedRange:
    total = src[-1]
    if not 0 <= start <= end <= total:
        raise ValueError(f"range [{start}, {end}) outside [0, {total}]")
    exact = True
    # Start: the last boundary at or before ``start`` (after deletions there), or,
    # asked to keep insertions, the first boundary at ``start``.
    k = bisect_right(src, start) - 1
    if insertions_at_start:
        first = bisect_left(src, start)
        if src[first] == start:
            k = first
    if src[k] == start:
        mapped_start = dst[k]
    elif kinds[k] == _COPY:
        mapped_start = dst[k] + (start - src[k])
    else:
        mapped_start = dst[k]
        exact = False
    # End: the first boundary at or after ``end`` (before insertions there).
    j = bisect_left(src, end)
    if src[j] == end:
        mapped_end = dst[j]
    else:
        seg = j - 1
        if kinds[seg] == _COPY:
            mapped_end = dst[seg] + (end - src[seg])
        else:
            mapped_end = dst[seg + 1]
            exact = False
    mapped_end = max(mapped_end, mapped_start)
    return MappedRange(mapped_start, mapped_end, exact)


def _reach(
    mids: array[int], fars: array[int], kinds: bytes, k: int, mid: int, far: int, target: int
) -> tuple[int, int, int, int | None]:
    """Advance one side of a composition to ``target``: its new ``(k, mid, far)``, and a
    later target when ``target`` falls inside one of its replacements (else None)."""
    n = len(kinds)
    while k < n:
        seg_start, seg_end = mids[k], mids[k + 1]
        if seg_end < target or (seg_end == target and seg_start < target):
            far = fars[k + 1]
            mid = seg_end
            k += 1
            continue
        if seg_start >= target:
            break
        if kinds[k] == _COPY:
            far = fars[k] + (target - seg_start)
            mid = target
            break
        return k, mid, far, seg_end
    return k, mid, far, None


def _compose(
    o_mids: array[int],
    o_fars: array[int],
    o_kinds: bytes,
    i_mids: array[int],
    i_fars: array[int],
    i_kinds: bytes,
) -> Alignment:
    """Walk two alignments along the text where they meet (the outer one's input, the
    inner one's output), building the composed segments: where both copy, a copy;
    where either replaces, one replacement as wide as the replacements that overlap.
    One function with its state in locals (ingestion composes alignments of every
    step of every document)."""
    o_n, i_n = len(o_kinds), len(i_kinds)
    o_k = o_mid = o_far = 0
    i_k = i_mid = i_far = 0
    out = array("q", [0])
    inp = array("q", [0])
    kinds = bytearray()
    pos = 0
    while True:
        # An outer segment with no middle text at ``pos``: output inserted here.
        if o_k < o_n and o_mid == pos and o_mids[o_k] == o_mids[o_k + 1] == pos:
            length = o_fars[o_k + 1] - o_fars[o_k]
            o_far = o_fars[o_k + 1]
            o_k += 1
            if length:
                out.append(out[-1] + length)
                inp.append(inp[-1])
                kinds.append(_REPLACE)
            continue
        # An inner segment with no middle text at ``pos``: input deleted here.
        if i_k < i_n and i_mid == pos and i_mids[i_k] == i_mids[i_k + 1] == pos:
            length = i_fars[i_k + 1] - i_fars[i_k]
            i_far = i_fars[i_k + 1]
            i_k += 1
            if length:
                out.append(out[-1])
                inp.append(inp[-1] + length)
                kinds.append(_REPLACE)
            continue
        if o_k >= o_n or i_k >= i_n:
            break
        if o_kinds[o_k] == _COPY and i_kinds[i_k] == _COPY:
            o_end, i_end = o_mids[o_k + 1], i_mids[i_k + 1]
            target = o_end if o_end < i_end else i_end
            # ``_reach(target)`` of two copies, inlined: the segment that ends at
            # ``target`` is passed, the other one is entered.
            start = o_mids[o_k]
            if start < target:
                if o_end == target:
                    o_far = o_fars[o_k + 1]
                    o_k += 1
                else:
                    o_far = o_fars[o_k] + (target - start)
                o_mid = target
            start = i_mids[i_k]
            if start < target:
                if i_end == target:
                    i_far = i_fars[i_k + 1]
                    i_k += 1
                else:
                    i_far = i_fars[i_k] + (target - start)
                i_mid = target
            length = target - pos
            if length:
                if kinds and kinds[-1] == _COPY:
                    out[-1] += length
                    inp[-1] += length
                else:
                    out.append(out[-1] + length)
                    inp.append(inp[-1] + length)
                    kinds.append(_COPY)
            pos = target
            continue
        far_outer, far_inner = o_far, i_far
        o_end, i_end = o_mids[o_k + 1], i_mids[i_k + 1]
        if o_kinds[o_k] != i_kinds[i_k]:
            # One side replaces within the other's copy (a collapsed space in an
            # unchanged line): the walk below, inlined.
            o_start, i_start = o_mids[o_k], i_mids[i_k]
            if o_kinds[o_k] != _COPY and o_start < o_end <= i_end:
                target = o_end
                o_far = o_fars[o_k + 1]
                o_k += 1
                o_mid = target
                if i_start < target:
                    if i_end == target:
                        i_far = i_fars[i_k + 1]
                        i_k += 1
                    else:
                        i_far = i_fars[i_k] + (target - i_start)
                    i_mid = target
            elif i_kinds[i_k] != _COPY and i_start < i_end <= o_end:
                target = i_end
                i_far = i_fars[i_k + 1]
                i_k += 1
                i_mid = target
                if o_start < target:
                    if o_end == target:
                        o_far = o_fars[o_k + 1]
                        o_k += 1
                    else:
                        o_far = o_fars[o_k] + (target - o_start)
                    o_mid = target
            else:
                target = -1
            if target >= 0:
                out_length, in_length = o_far - far_outer, i_far - far_inner
                if out_length or in_length:
                    out.append(out[-1] + out_length)
                    inp.append(inp[-1] + in_length)
                    kinds.append(_REPLACE)
                pos = target
                continue
        target = pos
        if o_kinds[o_k] != _COPY:
            target = max(target, o_mids[o_k + 1])
        if i_kinds[i_k] != _COPY:
            target = max(target, i_mids[i_k + 1])
        while True:
            o_k, o_mid, o_far, ext_outer = _reach(
                o_mids, o_fars, o_kinds, o_k, o_mid, o_far, target
            )
            i_k, i_mid, i_far, ext_inner = _reach(
                i_mids, i_fars, i_kinds, i_k, i_mid, i_far, target
            )
            if ext_outer is None and ext_inner is None:
                break
            target = max(x for x in (ext_outer, ext_inner) if x is not None)
        out_length, in_length = o_far - far_outer, i_far - far_inner
        if out_length or in_length:
            out.append(out[-1] + out_length)
            inp.append(inp[-1] + in_length)
            kinds.append(_REPLACE)
        pos = target
    if not (o_k >= o_n and i_k >= i_n):
        raise ValueError("alignments do not meet: segments left over")
    return Alignment(out, inp, bytes(kinds))
