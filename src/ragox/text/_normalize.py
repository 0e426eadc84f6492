"""Normalization steps and profiles (DESIGN §4).

A profile is an ordered list of named steps. Each step is a pure function that
returns the new text and an :class:`Alignment` back to its input, so any range of
the representation can be carried back to the decoded source and its bytes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Final, Literal

from ragox.text._alignment import Alignment, AlignmentBuilder, MappedRange
from ragox.text._coords import Coordinates, OffsetIndex, Span
from ragox.text._graphemes import GRAPHEME_UNICODE_VERSION

__all__ = [
    "BASE_PROFILE",
    "DecodeError",
    "Normalized",
    "Profile",
    "Step",
    "decode_utf8_strict",
    "step_by_name",
]

UNICODE_VERSION: Final = unicodedata.unidata_version

_Form = Literal["NFC", "NFD", "NFKC", "NFKD"]


class DecodeError(ValueError):
    """Bytes that are not valid UTF-8; ``byte_offset`` is the first invalid sequence."""

    def __init__(self, byte_offset: int, reason: str) -> None:
        super().__init__(f"invalid UTF-8 at byte {byte_offset}: {reason}")
        self.byte_offset = byte_offset
        self.reason = reason


def decode_utf8_strict(data: bytes) -> str:
    """Decode UTF-8 strictly: no replacement characters, no BOM stripping."""
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise DecodeError(error.start, error.reason) from None


@dataclass(frozen=True, slots=True)
class Step:
    """One named, pure text transformation with its alignment."""

    name: str
    apply: Callable[[str], tuple[str, Alignment]] = field(repr=False, compare=False)


def _crlf_to_lf(text: str) -> tuple[str, Alignment]:
    if "\r\n" not in text:
        return text, Alignment.identity(len(text))
    builder = AlignmentBuilder()
    position = 0
    while True:
        found = text.find("\r\n", position)
        if found < 0:
            break
        builder.copy(found - position)
        builder.replace(1, 2)
        position = found + 2
    builder.copy(len(text) - position)
    return text.replace("\r\n", "\n"), builder.build()


def _DECOMPOSABLE_RANGE() -> Iterator[int]:
    """Code points that can have a canonical decomposition. CJK unified ideographs,
    Hangul syllables (composed algorithmically), surrogates, private use and the
    planes above 2 have none, so they are skipped (a test compares with a full scan)."""
    yield from range(0x0000, 0x3400)
    yield from range(0xA000, 0xAC00)
    yield from range(0xF900, 0x20000)
    yield from range(0x2F800, 0x2FA20)


#: :func:`_composable_seconds` of Unicode 14.0.0 (Python 3.11's ``unicodedata``), as
#: inclusive code point ranges, so that a process does not scan the code points for it
#: (a test compares it with the scan); another Unicode version is scanned.
_SECONDS_14: Final = (
    (0x09BE, 0x09BE), (0x09D7, 0x09D7), (0x0B3E, 0x0B3E), (0x0B56, 0x0B57), (0x0BBE, 0x0BBE),
    (0x0BD7, 0x0BD7), (0x0CC2, 0x0CC2), (0x0CD5, 0x0CD6), (0x0D3E, 0x0D3E), (0x0D57, 0x0D57),
    (0x0DCF, 0x0DCF), (0x0DDF, 0x0DDF), (0x0FB5, 0x0FB5), (0x0FB7, 0x0FB7), (0x102E, 0x102E),
    (0x1161, 0x1175), (0x11A8, 0x11C2), (0x1B35, 0x1B35), (0x11127, 0x11127),
    (0x1133E, 0x1133E), (0x11357, 0x11357), (0x114B0, 0x114B0), (0x114BA, 0x114BA),
    (0x114BD, 0x114BD), (0x115AF, 0x115AF), (0x11930, 0x11930),
)  # fmt: skip


@cache
def _composable_seconds() -> frozenset[str]:
    """Starters (ccc 0) that can be the second half of a canonical composition."""
    if unicodedata.unidata_version == "14.0.0":
        return frozenset(chr(c) for low, high in _SECONDS_14 for c in range(low, high + 1))
    return _scan_composable_seconds()


def _scan_composable_seconds() -> frozenset[str]:
    """:func:`_composable_seconds` by a scan of the code points that can decompose."""
    seconds: set[str] = set()
    for code_point in _DECOMPOSABLE_RANGE():
        decomposition = unicodedata.decomposition(chr(code_point))
        if not decomposition or decomposition.startswith("<"):
            continue
        parts = decomposition.split()
        if len(parts) == 2:
            second = chr(int(parts[1], 16))
            if unicodedata.combining(second) == 0:
                seconds.add(second)
    # Hangul vowel and trailing jamo compose algorithmically with a preceding syllable.
    seconds.update(chr(c) for c in range(0x1161, 0x1176))
    seconds.update(chr(c) for c in range(0x11A8, 0x11C3))
    return frozenset(seconds)


def _is_safe_start(ch: str, seconds: frozenset[str], form: _Form) -> bool:
    """True when normalization cannot reach back across ``ch`` (a stable boundary).

    ``ch`` decomposes to a sequence starting with a starter (combining class 0)
    that never composes with a preceding character: nothing before can merge
    with it, and nothing after can merge with anything before it.
    """
    decomposed = unicodedata.normalize("NFKD" if form in ("NFKC", "NFKD") else "NFD", ch)
    first = decomposed[0] if decomposed else ch
    return unicodedata.combining(first) == 0 and first not in seconds


@cache
def _interesting(ch: str, form: _Form) -> tuple[bool, bool]:
    """``(unsafe, changes)`` for one code point: whether it is not a stable boundary
    (:func:`_is_safe_start` is false: it joins the chunk before it), and whether
    normalizing it alone changes it."""
    return (
        not _is_safe_start(ch, _composable_seconds(), form),
        unicodedata.normalize(form, ch) != ch,
    )


def _chunk_pattern(text: str, form: _Form) -> re.Pattern[str] | None:
    """The chunks of ``text`` that need normalizing to tell a copy from a replacement:
    a code point followed by a run of unsafe ones (a line's first code point, or one
    after a stable boundary), a line that starts with unsafe code points, or one
    code point that changes alone. Every other code point is a chunk of its own that
    normalization leaves as it is. Built from the code points the text holds (few);
    None when none is of interest."""
    unsafe: list[str] = []
    changes: list[str] = []
    for ch in set(text):
        is_unsafe, is_changed = _interesting(ch, form)
        if is_unsafe:
            unsafe.append(ch)
        elif is_changed:
            changes.append(ch)
    if not unsafe and not changes:
        return None
    alternatives = []
    if unsafe:
        u = "".join(sorted(map(re.escape, unsafe)))
        alternatives += [f"^[{u}]+", f"[^{u}\\n][{u}]+"]
    if changes:
        alternatives.append("[" + "".join(sorted(map(re.escape, changes))) + "]")
    return re.compile("|".join(alternatives), re.MULTILINE)


def _normalization_step(form: _Form) -> Step:
    def apply(text: str) -> tuple[str, Alignment]:
        if unicodedata.is_normalized(form, text):
            return text, Alignment.identity(len(text))
        whole = unicodedata.normalize(form, text)
        builder = AlignmentBuilder()
        # The text is cut into chunks at stable boundaries (and at every line start:
        # LF is a stable boundary in every form); a chunk that normalization changes
        # is a replacement segment, the rest are copies. Only the chunks that may
        # change are found and normalized (a pattern of the few code points of
        # interest), so a long text with a handful of no-break spaces costs a scan.
        # Chunking at stable boundaries must agree with normalizing the whole text:
        # each piece is compared with `whole` where it should sit (no list of pieces,
        # as large as the text, is built). If they ever disagree, fall back to one
        # honest, coarse segment.
        pattern = _chunk_pattern(text, form)
        cursor = 0
        position = 0
        agrees = True
        for match in pattern.finditer(text) if pattern is not None else ():
            start, end = match.span()
            if start > position:
                builder.copy(start - position)
                agrees = whole.startswith(text[position:start], cursor)
                cursor += start - position
            chunk = match.group()
            normalized = unicodedata.normalize(form, chunk)
            if normalized == chunk:
                builder.copy(end - start)
            else:
                builder.replace(len(normalized), end - start)
            agrees = agrees and whole.startswith(normalized, cursor)
            cursor += len(normalized)
            position = end
            if not agrees:
                break
        if agrees and position < len(text):
            builder.copy(len(text) - position)
            agrees = whole.startswith(text[position:], cursor)
            cursor += len(text) - position
        if not agrees or cursor != len(whole):
            fallback = AlignmentBuilder()
            fallback.replace(len(whole), len(text))
            return whole, fallback.build()
        return whole, builder.build()

    return Step(form, apply)


_STEPS: Final[dict[str, Step]] = {
    "crlf-to-lf": Step("crlf-to-lf", _crlf_to_lf),
    "NFC": _normalization_step("NFC"),
    "NFKC": _normalization_step("NFKC"),
}


def step_by_name(name: str) -> Step:
    """The registered step called ``name``."""
    try:
        return _STEPS[name]
    except KeyError:
        raise ValueError(f"unknown normalization step {name!r}") from None


@dataclass(frozen=True, slots=True)
class Normalized:
    """A representation text with its way back to the decoded source."""

    text: str
    source_text: str
    alignment: Alignment
    profile_id: str

    def to_source(self, span: Span) -> MappedRange:
        """A code-point range of the text → code points of the decoded source."""
        _require_codepoint(span)
        return self.alignment.map_back(span.start, span.end)

    def to_source_bytes(self, span: Span) -> MappedRange:
        """A code-point range of the text → byte offsets in the original bytes."""
        mapped = self.to_source(span)
        index = OffsetIndex(self.source_text)
        return MappedRange(
            index.to_unit(mapped.start, Coordinates.UTF8),
            index.to_unit(mapped.end, Coordinates.UTF8),
            mapped.exact,
        )


def _require_codepoint(span: Span) -> None:
    if span.coordinates is not Coordinates.CODEPOINT:
        raise ValueError(f"expected codepoint coordinates, got {span.coordinates.value}")


@dataclass(frozen=True, slots=True)
class Profile:
    """``utf8-strict`` decoding followed by ordered steps, pinned to a Unicode version.

    ``grapheme_unicode_version`` is the Unicode version of the grapheme cluster
    rules that judge range boundaries (from ``regex``); it is reported beside the
    id because it may differ from ``unicodedata``'s, which produced the text.
    """

    steps: tuple[Step, ...]
    unicode_version: str = UNICODE_VERSION
    grapheme_unicode_version: str = GRAPHEME_UNICODE_VERSION

    @property
    def id(self) -> str:
        names = ["utf8-strict", *(step.name for step in self.steps)]
        return ";".join([*names, f"unicode-{self.unicode_version}"])

    @property
    def segmentation(self) -> str:
        return f"graphemes-unicode-{self.grapheme_unicode_version}"

    @classmethod
    def from_id(cls, profile_id: str) -> Profile:
        """Rebuild a profile from its id; refuses another runtime's Unicode version."""
        parts = profile_id.split(";")
        if len(parts) < 2 or parts[0] != "utf8-strict" or not parts[-1].startswith("unicode-"):
            raise ValueError(f"not a profile id: {profile_id!r}")
        version = parts[-1].removeprefix("unicode-")
        if version != UNICODE_VERSION:
            raise ValueError(f"profile needs Unicode {version}, this runtime has {UNICODE_VERSION}")
        return cls(tuple(step_by_name(name) for name in parts[1:-1]))

    def normalize_text(self, source_text: str) -> Normalized:
        """Apply the steps to already decoded text."""
        text = source_text
        alignment = Alignment.identity(len(text))
        for step in self.steps:
            result, step_alignment = step.apply(text)
            if result is text:
                continue  # the step changed nothing: its alignment is the identity
            text = result
            alignment = step_alignment.compose(alignment)
        return Normalized(text, source_text, alignment, self.id)

    def normalize_bytes(self, data: bytes) -> Normalized:
        """Decode strictly, then apply the steps; raises :class:`DecodeError`."""
        return self.normalize_text(decode_utf8_strict(data))


#: The seed's base profile: strict UTF-8, CR LF → LF, NFC. No trimming, no
#: whitespace collapsing, no case folding, no markup stripping, ligatures kept.
BASE_PROFILE: Final = Profile((_STEPS["crlf-to-lf"], _STEPS["NFC"]))
