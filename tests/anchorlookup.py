"""An in-memory AnchorLookup for tests of the anchor core without a store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragox.anchor import (
    Manifest,
    RepresentationIdentity,
    StoredManifest,
    ViewerTarget,
    sha256_hex,
)
from ragox.text import BASE_PROFILE, Span


@dataclass
class MemoryLookup:
    text_value: str
    source: bytes
    readable: bool = True
    manifest: Manifest = field(init=False)

    def __post_init__(self) -> None:
        self.manifest = Manifest(
            document_id="doc",
            revision="r1",
            source_sha256=sha256_hex(self.source),
            text_sha256=sha256_hex(self.text_value.encode()),
            media_type="text/plain",
            parser="plain-text@1",
            parser_config_sha256="0" * 64,
            profile=BASE_PROFILE.id,
            segmentation=BASE_PROFILE.segmentation,
            created_at="2026-01-01T00:00:00Z",
        )

    @classmethod
    def of_source(cls, source: str) -> MemoryLookup:
        data = source.encode()
        return cls(BASE_PROFILE.normalize_bytes(data).text, data)

    @property
    def identity(self) -> RepresentationIdentity:
        return self.manifest.identity

    def can_read(self, document_id: str, revision: str) -> bool:
        return self.readable and (document_id, revision) == ("doc", "r1")

    def manifests(self, document_id: str, revision: str) -> Sequence[StoredManifest]:
        return [StoredManifest(self.manifest, self.manifest.manifest_id, True, True)]

    def text(self, manifest_id: str) -> str:
        return self.text_value

    def target(self, manifest_id: str, span: Span) -> ViewerTarget | None:
        return None
