"""Anchors: manifests, selectors, creation, the strict resolver, W3C export, migration.

Nothing here knows about extraction details or HTTP; the resolver reaches
storage only through the :class:`AnchorLookup` protocol."""

from typing import TYPE_CHECKING

from ragox._lazy import lazy_exports

if TYPE_CHECKING:
    from ragox.anchor._create import (
        MAX_CONTEXT,
        check_range,
        create_anchor,
        find_occurrences,
    )
    from ragox.anchor._migrate import (
        Migration,
        MigrationMethod,
        migrate_anchor,
    )
    from ragox.anchor._model import (
        Anchor,
        AnchorFormatError,
        BlockTarget,
        Manifest,
        ManifestSigner,
        PageTarget,
        Rect,
        Refusal,
        RepresentationIdentity,
        Resolution,
        ResolutionStatus,
        TextQuote,
        ViewerTarget,
        canonical_json,
        sha256_hex,
    )
    from ragox.anchor._resolve import (
        AnchorLookup,
        StoredManifest,
        forget_memos,
        resolve,
    )
    from ragox.anchor._w3c import (
        ANNO_CONTEXT,
        RAGOX_NAMESPACE,
        from_web_annotation,
        to_web_annotation,
        web_selectors,
    )

__all__ = [
    "ANNO_CONTEXT",
    "MAX_CONTEXT",
    "RAGOX_NAMESPACE",
    "Anchor",
    "AnchorFormatError",
    "AnchorLookup",
    "BlockTarget",
    "Manifest",
    "ManifestSigner",
    "Migration",
    "MigrationMethod",
    "PageTarget",
    "Rect",
    "Refusal",
    "RepresentationIdentity",
    "Resolution",
    "ResolutionStatus",
    "StoredManifest",
    "TextQuote",
    "ViewerTarget",
    "canonical_json",
    "check_range",
    "create_anchor",
    "find_occurrences",
    "forget_memos",
    "from_web_annotation",
    "migrate_anchor",
    "resolve",
    "sha256_hex",
    "to_web_annotation",
    "web_selectors",
]

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
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
    },
)
