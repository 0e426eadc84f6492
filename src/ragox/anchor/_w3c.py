"""W3C Web Annotation (JSON-LD) export and import of anchors.

https://www.w3.org/TR/annotation-model/#specific-resources : the target is a
SpecificResource whose ``selector`` lists a TextQuoteSelector and a
TextPositionSelector over the same representation text (code points, as the
model's TextPositionSelector counts). Everything W3C has no term for (the three
identities, parser and profile) lives under the ``ragox:`` namespace.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import quote

from ragox.anchor._model import Anchor, AnchorFormatError, has_lone_surrogate

__all__ = ["ANNO_CONTEXT", "RAGOX_NAMESPACE", "from_web_annotation", "to_web_annotation"]

ANNO_CONTEXT: Final = "http://www.w3.org/ns/anno.jsonld"
RAGOX_NAMESPACE: Final = "urn:ragox:ns:"
_SOURCE_PREFIX: Final = "urn:ragox:document:"
_ID_PREFIX: Final = "urn:ragox:anchor:"


def _source_iri(document_id: str, revision: str) -> str:
    return f"{_SOURCE_PREFIX}{quote(document_id, safe='')}:revision:{quote(revision, safe='')}"


def web_selectors(anchor: Anchor) -> list[dict[str, Any]]:
    """The anchor's W3C TextQuoteSelector and TextPositionSelector (code points)."""
    # https://www.w3.org/TR/annotation-model/#text-quote-selector
    return [
        {
            "type": "TextQuoteSelector",
            "exact": anchor.quote.exact,
            "prefix": anchor.quote.prefix,
            "suffix": anchor.quote.suffix,
        },
        {"type": "TextPositionSelector", "start": anchor.start, "end": anchor.end},
    ]


def to_web_annotation(anchor: Anchor) -> dict[str, Any]:
    """A Web Annotation whose target selects the anchored passage."""
    ident = anchor.identity
    return {
        "@context": [ANNO_CONTEXT, {"ragox": RAGOX_NAMESPACE}],
        "id": f"{_ID_PREFIX}{anchor.anchor_id}",
        "type": "Annotation",
        "motivation": "highlighting",
        "target": {
            "type": "SpecificResource",
            "source": _source_iri(ident.document_id, ident.revision),
            "selector": web_selectors(anchor),
            "ragox:anchor": {
                "ragox:documentId": ident.document_id,
                "ragox:revision": ident.revision,
                "ragox:sourceSha256": ident.source_sha256,
                "ragox:textSha256": ident.text_sha256,
                "ragox:parser": ident.parser,
                "ragox:profile": ident.profile,
                "ragox:coordinates": anchor.coordinates.value,
            },
        },
    }


def _selector(selectors: list[Any], kind: str) -> dict[str, Any]:
    found = [s for s in selectors if isinstance(s, dict) and s.get("type") == kind]
    if len(found) != 1:
        raise AnchorFormatError(f"annotation needs exactly one {kind}")
    return found[0]


def from_web_annotation(annotation: object) -> Anchor:
    """Rebuild the anchor exported by :func:`to_web_annotation`; strict about shape."""
    if not isinstance(annotation, dict) or annotation.get("type") != "Annotation":
        raise AnchorFormatError("not a Web Annotation")
    target = annotation.get("target")
    if not isinstance(target, dict) or target.get("type") != "SpecificResource":
        raise AnchorFormatError("annotation target must be a SpecificResource")
    selectors = target.get("selector")
    if isinstance(selectors, dict):
        selectors = [selectors]
    if not isinstance(selectors, list):
        raise AnchorFormatError("annotation target has no selectors")
    quote_selector = _selector(selectors, "TextQuoteSelector")
    position = _selector(selectors, "TextPositionSelector")
    extension = target.get("ragox:anchor")
    if not isinstance(extension, dict):
        raise AnchorFormatError("annotation lacks the ragox:anchor extension")

    def field(name: str) -> object:
        if f"ragox:{name}" not in extension:
            raise AnchorFormatError(f"ragox:anchor lacks ragox:{name}")
        return extension[f"ragox:{name}"]

    document_id, revision = field("documentId"), field("revision")
    for name, value in (("documentId", document_id), ("revision", revision)):
        if not isinstance(value, str) or has_lone_surrogate(value):
            raise AnchorFormatError(f"ragox:{name} must be a string of Unicode text")
    if target.get("source") != _source_iri(str(document_id), str(revision)):
        raise AnchorFormatError("annotation source does not name the anchored revision")
    anchor = Anchor.from_json(
        {
            "document_id": document_id,
            "revision": revision,
            "source_sha256": field("sourceSha256"),
            "text_sha256": field("textSha256"),
            "parser": field("parser"),
            "profile": field("profile"),
            "coordinates": field("coordinates"),
            "quote": {
                "exact": quote_selector.get("exact"),
                "prefix": quote_selector.get("prefix", ""),
                "suffix": quote_selector.get("suffix", ""),
            },
            "position": {"start": position.get("start"), "end": position.get("end")},
        }
    )
    annotation_id = annotation.get("id")
    if annotation_id is not None and annotation_id != f"{_ID_PREFIX}{anchor.anchor_id}":
        raise AnchorFormatError("annotation id does not match its anchor")
    return anchor
