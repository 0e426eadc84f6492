"""Anchors: manifests, selectors, creation, the strict resolver, W3C export, migration.

Nothing here knows about extraction details or HTTP; the resolver reaches
storage only through the :class:`AnchorLookup` protocol."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.anchor._create import MAX_CONTEXT as MAX_CONTEXT
    from ragox.anchor._create import check_range as check_range
    from ragox.anchor._create import create_anchor as create_anchor
    from ragox.anchor._create import find_occurrences as find_occurrences
    from ragox.anchor._migrate import Migration as Migration
    from ragox.anchor._migrate import MigrationMethod as MigrationMethod
    from ragox.anchor._migrate import migrate_anchor as migrate_anchor
    from ragox.anchor._model import Anchor as Anchor
    from ragox.anchor._model import AnchorFormatError as AnchorFormatError
    from ragox.anchor._model import BlockTarget as BlockTarget
    from ragox.anchor._model import Manifest as Manifest
    from ragox.anchor._model import ManifestSigner as ManifestSigner
    from ragox.anchor._model import PageTarget as PageTarget
    from ragox.anchor._model import Rect as Rect
    from ragox.anchor._model import Refusal as Refusal
    from ragox.anchor._model import RepresentationIdentity as RepresentationIdentity
    from ragox.anchor._model import Resolution as Resolution
    from ragox.anchor._model import ResolutionStatus as ResolutionStatus
    from ragox.anchor._model import TextQuote as TextQuote
    from ragox.anchor._model import ViewerTarget as ViewerTarget
    from ragox.anchor._model import canonical_json as canonical_json
    from ragox.anchor._model import sha256_hex as sha256_hex
    from ragox.anchor._resolve import AnchorLookup as AnchorLookup
    from ragox.anchor._resolve import StoredManifest as StoredManifest
    from ragox.anchor._resolve import forget_memos as forget_memos
    from ragox.anchor._resolve import resolve as resolve
    from ragox.anchor._w3c import ANNO_CONTEXT as ANNO_CONTEXT
    from ragox.anchor._w3c import RAGOX_NAMESPACE as RAGOX_NAMESPACE
    from ragox.anchor._w3c import from_web_annotation as from_web_annotation
    from ragox.anchor._w3c import to_web_annotation as to_web_annotation
    from ragox.anchor._w3c import web_selectors as web_selectors

#: where each exported name loads from: module (relative to this package) → names
_EXPORTS = {
    "._create": (
        "MAX_CONTEXT",
        "check_range",
        "create_anchor",
        "find_occurrences",
    ),
    "._migrate": (
        "Migration",
        "MigrationMethod",
        "migrate_anchor",
    ),
    "._model": (
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
    ),
    "._resolve": (
        "AnchorLookup",
        "StoredManifest",
        "forget_memos",
        "resolve",
    ),
    "._w3c": (
        "ANNO_CONTEXT",
        "RAGOX_NAMESPACE",
        "from_web_annotation",
        "to_web_annotation",
        "web_selectors",
    ),
}
__all__ = [name for names in _EXPORTS.values() for name in names]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
