"""The seed 000 experiment (DESIGN §6), through the Python API and through the CLI."""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import OPERATOR, SEED_BYTES
from ragox.access import Principal
from ragox.anchor import Anchor, ResolutionStatus
from ragox.service import Ragox
from ragox.text import BASE_PROFILE, codepoint_to_utf8, codepoint_to_utf16

pytestmark = pytest.mark.both_backends

QA = Principal("alice", groups=frozenset({"qa"}))


def _ingest_seed(app: Ragox, path: Path) -> None:
    path.write_bytes(SEED_BYTES)
    item = app.ingest_path(
        path, path.parent, document_id="manual-17", revision="v2", groups=frozenset({"qa"})
    )
    assert item.outcome is not None and item.outcome.state.value == "READY"


@pytest.fixture
def seeded(app: Ragox, tmp_path: Path) -> Ragox:
    _ingest_seed(app, tmp_path / "manual.txt")
    return app


@pytest.fixture
def seed_anchor(seeded: Ragox) -> dict[str, Any]:
    created = seeded.create_anchor("manual-17", 9, 16, OPERATOR)
    assert not hasattr(created, "status"), created
    return created.anchor.to_json()  # type: ignore[union-attr]


def test_normalization_coordinates_as_in_the_seed() -> None:
    """CRLF→LF and NFC put the first Prüfung at [9,16), byte 13, UTF-16 unit 10."""
    text = BASE_PROFILE.normalize_bytes(SEED_BYTES).text
    assert text.startswith("🔧 Müller\nPrüfung\nA:")
    assert text[9:16] == "Prüfung"
    assert codepoint_to_utf8(text, 9) == 13
    assert codepoint_to_utf16(text, 9) == 10
    assert "\r" not in text
    assert "Oﬃce" in text  # NFC keeps the ligature
    assert "Office" in unicodedata.normalize("NFKC", text)  # NFKC expands it
    assert BASE_PROFILE.id == f"utf8-strict;crlf-to-lf;NFC;unicode-{unicodedata.unidata_version}"


def test_anchor_fields_as_in_the_seed(seed_anchor: dict[str, Any]) -> None:
    """The stored anchor names both hashes, parser, profile, [9,16) and the seed's context."""
    assert seed_anchor["quote"]["exact"] == "Prüfung"
    assert seed_anchor["quote"]["prefix"].endswith("Müller\n")
    assert seed_anchor["quote"]["suffix"].startswith("\nA:")
    assert seed_anchor["position"] == {"start": 9, "end": 16}
    assert seed_anchor["coordinates"] == "codepoint"
    assert seed_anchor["parser"] == "plain-text@1"
    assert seed_anchor["profile"] == BASE_PROFILE.id
    assert len(seed_anchor["source_sha256"]) == 64
    assert set(seed_anchor) == {
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


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        target[last] = value

    return mutate


def _both(*mutations: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(data)

    return mutate


# The nine mutations of the seed, each with the status it must produce. Access is
# revoked by resolving as a principal outside the reader groups.
MUTATIONS: list[tuple[str, Callable[[dict[str, Any]], None] | None, str]] = [
    ("revoked access", None, "ACCESS_DENIED"),
    ("changed source bytes", _set("source_sha256", "0" * 64), "SOURCE_CHANGED"),
    ("another parser", _set("parser", "plain-text@2"), "PARSER_MISMATCH"),
    (
        "another profile",
        _set("profile", "utf8-strict;crlf-to-lf;NFKC;unicode-99.0.0"),
        "PROFILE_MISMATCH",
    ),
    ("changed extracted text", _set("text_sha256", "f" * 64), "TEXT_CHANGED"),
    (
        "prefix and suffix removed",
        _both(_set("quote.prefix", ""), _set("quote.suffix", "")),
        "AMBIGUOUS",
    ),
    ("changed quote", _set("quote.exact", "Prufung"), "QUOTE_NOT_FOUND"),
    (
        "UTF-8 byte positions",
        _both(_set("position.start", 13), _set("position.end", 21)),
        "POSITION_MISMATCH",
    ),
    (
        "UTF-16 positions",
        _both(_set("position.start", 10), _set("position.end", 17)),
        "POSITION_MISMATCH",
    ),
]

INVALID_RANGES = [
    ("empty range", 9, 9),
    ("start after end", 16, 9),
    ("end past the text", 9, 10_000),
    ("negative start", -1, 16),
]


def test_unmodified_anchor_resolves(seeded: Ragox, seed_anchor: dict[str, Any]) -> None:
    """The unchanged anchor is RESOLVED with range, exact text, manifest id and current flag."""
    result = seeded.resolve(Anchor.from_json(seed_anchor), QA)
    assert result.status is ResolutionStatus.RESOLVED
    assert result.range is not None and (result.range.start, result.range.end) == (9, 16)
    assert result.range.coordinates.value == "codepoint"
    assert result.exact == "Prüfung"
    assert result.current is True
    assert result.manifest_id is not None and len(result.manifest_id) == 64


@pytest.mark.parametrize(("name", "mutation", "expected"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_each_mutation_is_refused_with_its_status(
    seeded: Ragox,
    seed_anchor: dict[str, Any],
    name: str,
    mutation: Callable[[dict[str, Any]], None] | None,
    expected: str,
) -> None:
    """Each seed mutation stops at its own check and carries no protected text."""
    data = copy.deepcopy(seed_anchor)
    principal = QA
    if mutation is None:
        principal = Principal("mallory", groups=frozenset({"sales"}))
    else:
        mutation(data)
    result = seeded.resolve(Anchor.from_json(data), principal)
    assert result.status.value == expected
    assert result.exact is None and result.range is None


@pytest.mark.parametrize(
    ("name", "start", "end"), INVALID_RANGES, ids=[r[0] for r in INVALID_RANGES]
)
def test_invalid_ranges(
    seeded: Ragox, seed_anchor: dict[str, Any], name: str, start: int, end: int
) -> None:
    """Empty, reversed, negative and out-of-bounds ranges are INVALID_RANGE, never a match."""
    data = copy.deepcopy(seed_anchor)
    data["position"] = {"start": start, "end": end}
    assert seeded.resolve(Anchor.from_json(data), QA).status is ResolutionStatus.INVALID_RANGE
    created = seeded.create_anchor("manual-17", start, end, OPERATOR)
    assert getattr(created, "status", None) is ResolutionStatus.INVALID_RANGE


def test_unknown_document_is_access_denied(seeded: Ragox, seed_anchor: dict[str, Any]) -> None:
    """An unknown document answers exactly like a forbidden one."""
    data = copy.deepcopy(seed_anchor)
    data["document_id"] = "manual-99"
    unknown = seeded.resolve(Anchor.from_json(data), QA)
    forbidden = seeded.resolve(Anchor.from_json(seed_anchor), Principal("x", groups=frozenset()))
    assert unknown.status is forbidden.status is ResolutionStatus.ACCESS_DENIED
    assert unknown.reason == forbidden.reason


def test_other_tenant_is_access_denied(seeded: Ragox, seed_anchor: dict[str, Any]) -> None:
    """The same group name in another tenant grants nothing."""
    other = Principal("eve", tenant="other", groups=frozenset({"qa"}))
    assert (
        seeded.resolve(Anchor.from_json(seed_anchor), other).status
        is ResolutionStatus.ACCESS_DENIED
    )


def test_grapheme_splitting_ranges_are_invalid(app: Ragox, tmp_path: Path) -> None:
    """Ranges inside 👨‍👩‍👧 or inside a base + combining mark are refused at creation and
    resolution."""
    path = tmp_path / "family.txt"
    # q + combining dot above has no precomposed form, so NFC keeps two code points.
    path.write_text("Familie 👨\u200d👩\u200d👧 und q\u0307 hier.\n", encoding="utf-8")
    app.ingest_path(path, tmp_path, document_id="fam")
    text = app.text("fam", OPERATOR)
    family = text.index("👨")
    mark = text.index("q\u0307")
    for start, end in [(family, family + 1), (family + 2, family + 5), (mark, mark + 1)]:
        created = app.create_anchor("fam", start, end, OPERATOR)
        assert getattr(created, "status", None) is ResolutionStatus.INVALID_RANGE
    good = app.create_anchor("fam", family, family + 5, OPERATOR)
    anchor = good.anchor  # type: ignore[union-attr]
    assert anchor.quote.exact == "👨\u200d👩\u200d👧"
    data = anchor.to_json()
    data["position"]["end"] = family + 3
    data["quote"]["exact"] = text[family : family + 3]
    assert app.resolve(Anchor.from_json(data), OPERATOR).status is ResolutionStatus.INVALID_RANGE


def test_ambiguous_creation_is_refused(app: Ragox, tmp_path: Path) -> None:
    """A passage that no bounded context makes unique is refused, not stored."""
    path = tmp_path / "repeat.txt"
    path.write_text("same words here\n" * 40, encoding="utf-8")
    app.ingest_path(path, tmp_path, document_id="rep")
    created = app.create_anchor("rep", 16 * 20, 16 * 20 + 4, OPERATOR)  # a middle "same"
    assert getattr(created, "status", None) is ResolutionStatus.AMBIGUOUS


# -- the same through the CLI -------------------------------------------------------


@pytest.fixture
def cli_anchor(ragox_cli, seed_file: Path) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    ingested = ragox_cli(
        "ingest",
        str(seed_file),
        "--document-id",
        "manual-17",
        "--revision",
        "v2",
        "--groups",
        "qa",
        "--json",
    )
    assert ingested.code == 0, ingested.stderr
    created = ragox_cli("anchor", "manual-17", "--start", "9", "--end", "16", "--json")
    assert created.code == 0, created.stderr
    data = created.json()
    assert isinstance(data, dict)
    return data


def test_cli_resolves_seed_anchor(ragox_cli, cli_anchor: dict[str, Any], tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`ragox resolve --json` on file, stdin and id: RESOLVED, exit 0, range and exact."""
    path = tmp_path / "anchor.json"
    path.write_text(json.dumps(cli_anchor), encoding="utf-8")
    for args, stdin in [
        ((str(path),), None),
        (("-",), json.dumps(cli_anchor)),
        ((cli_anchor["anchor_id"],), None),
    ]:
        result = ragox_cli(
            "resolve", *args, "--principal", "alice", "--groups", "qa", "--json", stdin=stdin
        )
        assert result.code == 0, result.stderr
        data = result.json()
        assert isinstance(data, dict)
        assert data["status"] == "RESOLVED"
        assert data["range"] == {"coordinates": "codepoint", "start": 9, "end": 16}
        assert data["exact"] == "Prüfung"


@pytest.mark.parametrize(("name", "mutation", "expected"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_cli_mutations(
    ragox_cli,
    cli_anchor: dict[str, Any],
    name: str,  # type: ignore[no-untyped-def]
    mutation: Callable[[dict[str, Any]], None] | None,
    expected: str,
) -> None:
    """Each mutation through `ragox resolve --json`: its status, exit 1, no quote printed."""
    data = copy.deepcopy(cli_anchor)
    groups = "qa"
    if mutation is None:
        groups = "sales"
    else:
        mutation(data)
    result = ragox_cli(
        "resolve", "-", "--principal", "bob", "--groups", groups, "--json", stdin=json.dumps(data)
    )
    assert result.code == 1
    out = result.json()
    assert isinstance(out, dict)
    assert out["status"] == expected
    assert "Prüfung" not in result.stdout + result.stderr
    assert "Müller" not in result.stdout + result.stderr
