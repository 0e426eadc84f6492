"""The resolver's view of the store for one principal, deciding access per call."""

from __future__ import annotations

from collections.abc import Sequence
from struct import iter_unpack

from ragox.access import Principal, can_read
from ragox.anchor import (
    BlockTarget,
    ManifestSigner,
    PageTarget,
    Rect,
    StoredManifest,
    ViewerTarget,
)
from ragox.extract import Block
from ragox.store import RevisionView, Store
from ragox.text import Coordinates, Span

__all__ = ["StoreLookup", "page_rects"]


class StoreLookup:
    """Implements :class:`ragox.anchor.AnchorLookup` over a :class:`Store`.

    Documents are looked up within the principal's tenant only. The resolver asks
    :meth:`can_read` and then :meth:`manifests` for the same revision; both are
    answered from one read of the store (:meth:`Store.revision_view`), made when
    :meth:`can_read` is asked and handed once to the :meth:`manifests` call that
    follows, so access is decided on every resolution from a single snapshot.
    """

    def __init__(self, store: Store, signer: ManifestSigner, principal: Principal) -> None:
        self.store = store
        self.signer = signer
        self.principal = principal
        self._pending: RevisionView | None = None

    def _view(self, document_id: str, revision: str, *, consume: bool) -> RevisionView | None:
        view = self._pending
        self._pending = None
        if view is None or (view.document_id, view.revision) != (document_id, revision):
            view = self.store.revision_view(self.principal.tenant, document_id, revision)
        if not consume:
            self._pending = view
        return view

    def can_read(self, document_id: str, revision: str) -> bool:
        view = self._view(document_id, revision, consume=False)
        return view is not None and can_read(self.principal, view.tenant, view.groups)

    def manifests(self, document_id: str, revision: str) -> Sequence[StoredManifest]:
        view = self._view(document_id, revision, consume=True)
        if view is None:
            return []
        return [
            StoredManifest(
                manifest=record.manifest,
                manifest_id=record.manifest_id,
                authentic=self.signer.verify(record.manifest, record.mac),
                current=view.current_revision and record.current_representation,
            )
            for record in view.manifests
        ]

    def text(self, manifest_id: str) -> str:
        return self.store.text(manifest_id)

    def target(self, manifest_id: str, span: Span) -> ViewerTarget:
        blocks = self.store.blocks(manifest_id, span.start, span.end)
        block_targets = tuple(
            BlockTarget(
                block_id=block.block_id,
                locator=block.locator,
                span=Span(
                    Coordinates.CODEPOINT,
                    max(span.start, block.span.start),
                    min(span.end, block.span.end),
                ),
                ocr=block.ocr,
            )
            for block in blocks
        )
        # Only the boxes of the passage (a long manual has megabytes of them), and only
        # where blocks lie on pages: other formats have none.
        pages: tuple[PageTarget, ...] = ()
        on_pages = any(block.page for block in blocks)
        boxes = self.store.char_boxes(manifest_id, span.start, span.end) if on_pages else None
        if boxes is not None:
            pages = page_rects(
                boxes,
                span,
                [(b.page, b.span) for b in blocks if b.page and not b.ocr],
                offset=span.start,
            )
        if any(block.ocr for block in blocks):
            pages = _with_ocr_blocks(pages, blocks)
        return ViewerTarget(blocks=block_targets, pages=pages)


def _with_ocr_blocks(
    pages: tuple[PageTarget, ...], blocks: Sequence[Block]
) -> tuple[PageTarget, ...]:
    """``pages`` and, for blocks recognized by OCR, their whole rectangles (seed 003: a
    link to page and block is more honest than a confident character highlight)."""
    by_page: dict[int, list[Rect]] = {}
    for block in blocks:
        if block.ocr and block.page is not None and block.bbox is not None:
            by_page.setdefault(block.page, []).append(block.bbox)
    merged = [p for p in pages if p.page not in by_page]
    merged += [PageTarget(page, tuple(rects), ocr=True) for page, rects in by_page.items()]
    return tuple(sorted(merged, key=lambda p: p.page))


def page_rects(
    boxes: bytes,
    span: Span,
    block_pages: Sequence[tuple[int | None, Span]],
    offset: int = 0,
) -> tuple[PageTarget, ...]:
    """Character boxes of ``span``, merged into line rectangles per page; ``boxes``
    starts at code point ``offset`` of the representation."""
    width = 16  # four float32 per code point
    by_page: dict[int, list[Rect]] = {}
    for page, block_span in block_pages:
        if page is None:
            continue
        start = max(span.start, block_span.start)
        end = min(span.end, block_span.end)
        if start >= end:
            continue
        rects = by_page.setdefault(page, [])
        window = boxes[(start - offset) * width : (end - offset) * width]
        for x0, y0, x1, y1 in iter_unpack("<4f", window):
            if x1 <= x0 or y1 <= y0:
                continue  # separators and line breaks have no box
            last = rects[-1] if rects else None
            if (
                last is not None
                and abs(last.y0 - y0) < 1.0
                and abs(last.y1 - y1) < 1.0
                and x0 >= last.x0 - 0.5
            ):
                rects[-1] = Rect(last.x0, min(last.y0, y0), max(last.x1, x1), max(last.y1, y1))
            else:
                rects.append(Rect(x0, y0, x1, y1))
    return tuple(PageTarget(page, tuple(rects)) for page, rects in sorted(by_page.items()))
