"""Value types of the anchor core: manifests, anchors, resolutions (DESIGN §5, §6)."""

from __future__ import annotations

import enum
import functools
import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

from ragox.text import Coordinates, Span

__all__ = [
    "Anchor",
    "AnchorFormatError",
    "BlockTarget",
    "Manifest",
    "ManifestSigner",
    "PageTarget",
    "Rect",
    "Refusal",
    "RepresentationIdentity",
    "Resolution",
    "ResolutionStatus",
    "TextQuote",
    "ViewerTarget",
    "canonical_json",
    "sha256_hex",
]

_HEX64: Final = re.compile(r"[0-9a-f]{64}")
#: Longest accepted string field of an anchor (code points); a guard against
#: megabyte-long hostile input, far above any quote a citation needs.
MAX_FIELD_LENGTH: Final = 100_000
#: Anchors whose prefix, exact and suffix together are longer (code points), and
#: manifests with ids that long, are never kept in a memo: a caller may send anchors
#: near MAX_FIELD_LENGTH, and thousands of those remembered would be gigabytes.
MEMO_QUOTE_LIMIT: Final = 2048
#: Remembered manifest verifications (entries are small; the memo starts over when full).
_VERIFIED_LIMIT: Final = 4096


def canonical_json(value: object) -> bytes:
    """Sorted keys, no insignificant white space, UTF-8: the bytes that get hashed."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ResolutionStatus(enum.Enum):
    """Outcome of resolving an anchor, in the order the checks run (DESIGN §6)."""

    #: The passage is verified: identities, quote, context and position agree.
    RESOLVED = "RESOLVED"
    #: The principal may not read it now, or the document does not exist.
    ACCESS_DENIED = "ACCESS_DENIED"
    #: The stored manifest fails its HMAC: the record was altered outside ragox.
    MANIFEST_INVALID = "MANIFEST_INVALID"
    #: The anchor names other source bytes than the stored revision.
    SOURCE_CHANGED = "SOURCE_CHANGED"
    #: The anchor names another extractor (name, version).
    PARSER_MISMATCH = "PARSER_MISMATCH"
    #: The anchor names another normalization profile.
    PROFILE_MISMATCH = "PROFILE_MISMATCH"
    #: The extracted, normalized text differs from the one the anchor was made on.
    TEXT_CHANGED = "TEXT_CHANGED"
    #: Empty, reversed, out-of-bounds or grapheme-splitting range.
    INVALID_RANGE = "INVALID_RANGE"
    #: Prefix + exact + suffix does not occur.
    QUOTE_NOT_FOUND = "QUOTE_NOT_FOUND"
    #: Prefix + exact + suffix occurs more than once.
    AMBIGUOUS = "AMBIGUOUS"
    #: The single occurrence is not at the stored position.
    POSITION_MISMATCH = "POSITION_MISMATCH"


class AnchorFormatError(ValueError):
    """Anchor JSON that is malformed; the message never repeats field contents."""


@dataclass(frozen=True, slots=True)
class TextQuote:
    """W3C TextQuoteSelector fields, in code points of the representation text."""

    exact: str
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True, slots=True)
class RepresentationIdentity:
    """The three identities an anchor is bound to (seed 000)."""

    document_id: str
    revision: str
    source_sha256: str
    text_sha256: str
    parser: str
    profile: str


@dataclass(frozen=True, slots=True)
class Anchor:
    """A citation bound to one passage of one representation (DESIGN §5)."""

    identity: RepresentationIdentity
    quote: TextQuote
    start: int
    end: int
    coordinates: Coordinates = Coordinates.CODEPOINT

    @property
    def anchor_id(self) -> str:
        """Content address of the anchor: SHA-256 of its canonical JSON without the id."""
        quote = self.quote
        if len(quote.prefix) + len(quote.exact) + len(quote.suffix) <= MEMO_QUOTE_LIMIT:
            return _anchor_id(self)
        return sha256_hex(canonical_json(self._fields()))

    @property
    def document_id(self) -> str:
        return self.identity.document_id

    @property
    def revision(self) -> str:
        return self.identity.revision

    def _fields(self) -> dict[str, Any]:
        ident = self.identity
        return {
            "document_id": ident.document_id,
            "revision": ident.revision,
            "source_sha256": ident.source_sha256,
            "text_sha256": ident.text_sha256,
            "parser": ident.parser,
            "profile": ident.profile,
            "coordinates": self.coordinates.value,
            "quote": {
                "exact": self.quote.exact,
                "prefix": self.quote.prefix,
                "suffix": self.quote.suffix,
            },
            "position": {"start": self.start, "end": self.end},
        }

    @property
    def position(self) -> Span | None:
        """The stored range, or None when it is not even well formed."""
        if 0 <= self.start <= self.end:
            return Span(self.coordinates, self.start, self.end)
        return None

    def to_json(self) -> dict[str, Any]:
        """Exactly the JSON of DESIGN §5."""
        return {"anchor_id": self.anchor_id, **self._fields()}

    @classmethod
    def from_json(cls, data: object) -> Anchor:
        """Parse and validate anchor JSON; ``anchor_id`` is optional and informational."""
        if not isinstance(data, dict):
            raise AnchorFormatError("anchor must be a JSON object")
        known = {
            "anchor_id",
            "document_id",
            "revision",
            "source_sha256",
            "text_sha256",
            "parser",
            "profile",
            "coordinates",
            "quote",
            "position",
        }
        unknown = set(data) - known
        if unknown:
            raise AnchorFormatError(f"unknown anchor fields: {', '.join(sorted(unknown))}")
        quote = data.get("quote")
        position = data.get("position")
        if not isinstance(quote, dict):
            raise AnchorFormatError("field 'quote' must be an object")
        if not isinstance(position, dict):
            raise AnchorFormatError("field 'position' must be an object")
        coordinates_name = _string(data, "coordinates")
        try:
            coordinates = Coordinates(coordinates_name)
        except ValueError:
            raise AnchorFormatError("field 'coordinates' is not a known system") from None
        # Reversed or negative ranges parse: the resolver reports them as INVALID_RANGE.
        start = _offset(position, "start")
        end = _offset(position, "end")
        identity = RepresentationIdentity(
            document_id=_string(data, "document_id", allow_empty=False),
            revision=_string(data, "revision", allow_empty=False),
            source_sha256=_digest(data, "source_sha256"),
            text_sha256=_digest(data, "text_sha256"),
            parser=_string(data, "parser", allow_empty=False),
            profile=_string(data, "profile", allow_empty=False),
        )
        return cls(
            identity=identity,
            quote=TextQuote(
                exact=_string(quote, "exact"),
                prefix=_string(quote, "prefix", required=False),
                suffix=_string(quote, "suffix", required=False),
            ),
            start=start,
            end=end,
            coordinates=coordinates,
        )


@functools.lru_cache(maxsize=8192)
def _anchor_id(anchor: Anchor) -> str:
    """Memoized for anchors of ordinary size: they are frozen values, and every
    resolution names its anchor's id."""
    return sha256_hex(canonical_json(anchor._fields()))


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _string(
    data: dict[str, Any], key: str, *, required: bool = True, allow_empty: bool = True
) -> str:
    if key not in data:
        if required:
            raise AnchorFormatError(f"missing field '{key}'")
        return ""
    value = data[key]
    if not isinstance(value, str):
        raise AnchorFormatError(f"field '{key}' must be a string")
    if not allow_empty and not value:
        raise AnchorFormatError(f"field '{key}' must not be empty")
    if len(value) > MAX_FIELD_LENGTH:
        raise AnchorFormatError(f"field '{key}' is longer than {MAX_FIELD_LENGTH} code points")
    if has_lone_surrogate(value):
        # JSON's "\ud800" parses to a str that is not Unicode text: no hash, no
        # database and no stream could take it.
        raise AnchorFormatError(f"field '{key}' contains a lone surrogate")
    return value


def has_lone_surrogate(value: str) -> bool:
    """Whether ``value`` holds a code point U+D800..U+DFFF (not encodable as UTF-8)."""
    return _SURROGATE.search(value) is not None


def _offset(data: dict[str, Any], key: str) -> int:
    if key not in data:
        raise AnchorFormatError(f"missing field 'position.{key}'")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise AnchorFormatError(f"field 'position.{key}' must be an integer")
    if abs(value) > 2**53:
        raise AnchorFormatError(f"field 'position.{key}' is out of range")
    return value


def _digest(data: dict[str, Any], key: str) -> str:
    value = _string(data, key)
    if not _HEX64.fullmatch(value):
        raise AnchorFormatError(f"field '{key}' must be 64 lowercase hex digits")
    return value


@dataclass(frozen=True, slots=True)
class Manifest:
    """Immutable, content-addressed record of one representation (DESIGN §5)."""

    document_id: str
    revision: str
    source_sha256: str
    text_sha256: str
    media_type: str
    parser: str
    parser_config_sha256: str
    profile: str
    segmentation: str
    created_at: str

    def to_json(self) -> dict[str, str]:
        return {
            "document_id": self.document_id,
            "revision": self.revision,
            "source_sha256": self.source_sha256,
            "text_sha256": self.text_sha256,
            "media_type": self.media_type,
            "parser": self.parser,
            "parser_config_sha256": self.parser_config_sha256,
            "profile": self.profile,
            "segmentation": self.segmentation,
            "created_at": self.created_at,
        }

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Manifest:
        return cls(**{key: str(data[key]) for key in cls.__dataclass_fields__})

    @property
    def manifest_id(self) -> str:
        return sha256_hex(canonical_json(self.to_json()))

    @property
    def identity(self) -> RepresentationIdentity:
        return RepresentationIdentity(
            document_id=self.document_id,
            revision=self.revision,
            source_sha256=self.source_sha256,
            text_sha256=self.text_sha256,
            parser=self.parser,
            profile=self.profile,
        )


@dataclass(frozen=True, slots=True)
class ManifestSigner:
    """HMAC-SHA256 over a manifest's canonical JSON, with a key kept in the home."""

    key: bytes = field(repr=False)
    #: Outcomes of :meth:`verify` by (manifest, mac): a pure function of the key and the
    #: row's content, so a changed row is a new entry and is checked again.
    _verified: dict[tuple[Manifest, str], bool] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def sign(self, manifest: Manifest) -> str:
        return hmac.new(self.key, canonical_json(manifest.to_json()), hashlib.sha256).hexdigest()

    def verify(self, manifest: Manifest, mac: str) -> bool:
        if len(manifest.document_id) + len(manifest.revision) + len(mac) > MEMO_QUOTE_LIMIT:
            return hmac.compare_digest(self.sign(manifest), mac)
        known = self._verified.get((manifest, mac))
        if known is None:
            known = hmac.compare_digest(self.sign(manifest), mac)
            if len(self._verified) >= _VERIFIED_LIMIT:
                self._verified.clear()
            self._verified[(manifest, mac)] = known
        return known


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle in PDF points, origin top-left."""

    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True, slots=True)
class PageTarget:
    """Rectangles of a passage on one 1-based PDF page. On a page read by OCR
    (``ocr``) they are the rectangles of the blocks the passage lies in, not of its
    characters: OCR's character boxes are estimates."""

    page: int
    rects: tuple[Rect, ...]
    ocr: bool = False


@dataclass(frozen=True, slots=True)
class BlockTarget:
    """The part of one source block that a passage covers."""

    block_id: str
    locator: str
    span: Span
    ocr: bool = False  # the block's text was recognized by OCR


@dataclass(frozen=True, slots=True)
class ViewerTarget:
    """Where a viewer highlights: blocks with ranges and, for PDFs, page rectangles."""

    blocks: tuple[BlockTarget, ...] = ()
    pages: tuple[PageTarget, ...] = ()


@dataclass(frozen=True, slots=True)
class Refusal:
    """An anchor could not be created or migrated; ``reason`` is a code, never text."""

    status: ResolutionStatus
    reason: str


@dataclass(frozen=True, slots=True)
class Resolution:
    """The resolver's answer. Failures carry a status and reason code only."""

    status: ResolutionStatus
    reason: str
    anchor_id: str
    manifest_id: str | None = None
    range: Span | None = None
    exact: str | None = None
    current: bool | None = None
    target: ViewerTarget | None = None

    @property
    def resolved(self) -> bool:
        return self.status is ResolutionStatus.RESOLVED
