"""W3C Web Annotation export/import, validated against the W3C test-suite schemas."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from anchorlookup import MemoryLookup
from ragox.anchor import (
    Anchor,
    AnchorFormatError,
    create_anchor,
    from_web_annotation,
    to_web_annotation,
)

W3C = Path(__file__).parent / "data" / "w3c-annotation"


def _registry() -> Registry:
    resources = []
    for path in sorted((W3C / "definitions").glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((path.name, Resource.from_contents(schema, default_specification=DRAFT4)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def _check(instance: object, ref: str) -> None:
    validator = jsonschema.Draft4Validator(
        {"$ref": ref}, registry=REGISTRY, format_checker=jsonschema.FormatChecker()
    )
    validator.validate(instance)


def _valid(instance: object, ref: str) -> bool:
    try:
        _check(instance, ref)
    except jsonschema.ValidationError:
        return False
    return True


def _seed_anchor() -> Anchor:
    lookup = MemoryLookup.of_source("🔧 Mu\u0308ller\r\nPrüfung\r\nA: x\r\nPrüfung\r\nB: Oﬃce\r\n")
    created = create_anchor(lookup.text_value, 9, 16, lookup.identity)
    assert isinstance(created, Anchor)
    return created


ANNOTATION_CHECKS = [
    "annotations.json#/definitions/annotationTypeValueFound",
    "annotations.json#/definitions/motivationRecognizedIfPresent",
    "id.json#/definitions/idValueFound",
]


def test_export_validates_against_w3c_schemas() -> None:
    """The annotation, its SpecificResource target and both selectors pass the W3C checks."""
    annotation = to_web_annotation(_seed_anchor())
    for ref in ANNOTATION_CHECKS:
        _check(annotation, ref)
    _check(annotation["@context"], "annotations.json#/definitions/contextValueInArrayFound")
    target = annotation["target"]
    _check(target, "bodyTarget.json#/definitions/targetResourcesFound")
    _check(target, "specificResource.json#/definitions/specificeResourceDetected")
    _check(target, "specificResource.json#/definitions/selectorDetected")
    quote, position = target["selector"]
    _check(quote, "specificResource.json#/definitions/textQuoteSelectorDetected")
    _check(position, "specificResource.json#/definitions/textPositionSelectorDetected")
    assert (position["start"], position["end"]) == (9, 16)
    assert quote["exact"] == "Prüfung"


def test_the_schema_checks_can_fail() -> None:
    """The same checks reject broken selectors and accept the suite's own samples."""
    good = to_web_annotation(_seed_anchor())
    quote, position = good["target"]["selector"]
    broken_position = {**position, "start": -1}
    assert not _valid(
        broken_position, "specificResource.json#/definitions/textPositionSelectorDetected"
    )
    missing_exact = {k: v for k, v in quote.items() if k != "exact"}
    assert not _valid(missing_exact, "specificResource.json#/definitions/textQuoteSelectorDetected")
    assert not _valid({**good, "type": "Note"}, ANNOTATION_CHECKS[0])
    sample = json.loads((W3C / "samples-correct" / "anno26.json").read_text(encoding="utf-8"))
    _check(
        sample["target"]["selector"], "specificResource.json#/definitions/textQuoteSelectorDetected"
    )
    sample27 = json.loads((W3C / "samples-correct" / "anno27.json").read_text(encoding="utf-8"))
    _check(
        sample27["target"]["selector"],
        "specificResource.json#/definitions/textPositionSelectorDetected",
    )


def test_terms_are_defined_by_the_context() -> None:
    """Every key outside our namespace is a term of anno.jsonld; ours are prefixed."""
    context = json.loads((W3C / "anno.jsonld").read_text(encoding="utf-8"))["@context"]
    terms = set(context) | {"@context"}

    def keys(value: Any) -> set[str]:
        found: set[str] = set()
        if isinstance(value, dict):
            for key, inner in value.items():
                found.add(key)
                if key != "@context":
                    found |= keys(inner)
        elif isinstance(value, list):
            for inner in value:
                found |= keys(inner)
        return found

    annotation = to_web_annotation(_seed_anchor())
    ours = {k for k in keys(annotation) if k.startswith("ragox:")}
    assert ours  # the extension is present
    assert keys(annotation) - ours <= terms


def test_roundtrip_is_lossless() -> None:
    """Import of an export gives back the identical anchor and id."""
    anchor = _seed_anchor()
    back = from_web_annotation(json.loads(json.dumps(to_web_annotation(anchor))))
    assert back == anchor
    assert back.anchor_id == anchor.anchor_id
    assert back.to_json() == anchor.to_json()


@given(st.text(min_size=1, max_size=30), st.text(max_size=10), st.text(max_size=10))
def test_roundtrip_of_arbitrary_quotes(exact: str, prefix: str, suffix: str) -> None:
    """Any strings in the selectors survive export and import unchanged."""
    base = _seed_anchor().to_json()
    base["quote"] = {"exact": exact, "prefix": prefix, "suffix": suffix}
    base["document_id"] = "doc/with spaces:and:colons"
    anchor = Anchor.from_json(base)
    assert from_web_annotation(to_web_annotation(anchor)) == anchor


def test_import_refuses_tampered_annotations() -> None:
    """A changed id, a missing selector or a foreign source is refused, not guessed."""
    annotation = to_web_annotation(_seed_anchor())
    tampered = copy.deepcopy(annotation)
    tampered["target"]["selector"][0]["exact"] = "Prufung"
    with pytest.raises(AnchorFormatError):
        from_web_annotation(tampered)  # id no longer matches the content
    no_position = copy.deepcopy(annotation)
    no_position["target"]["selector"] = no_position["target"]["selector"][:1]
    with pytest.raises(AnchorFormatError):
        from_web_annotation(no_position)
    other_source = copy.deepcopy(annotation)
    other_source["target"]["source"] = "http://example.org/page1"
    with pytest.raises(AnchorFormatError):
        from_web_annotation(other_source)
