"""Bad input to the CLI: one line on stderr, exit 1 or 2, never a traceback or a quote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import SEED_BYTES

pytestmark = pytest.mark.both_backends


@pytest.fixture
def anchor_json(ragox_cli, seed_file: Path) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    assert (
        ragox_cli("ingest", str(seed_file), "--document-id", "manual-17", "--groups", "qa").code
        == 0
    )
    data = ragox_cli("anchor", "manual-17", "--start", "9", "--end", "16", "--json").json()
    assert isinstance(data, dict)
    return data


def _bad(data: dict[str, Any], path: str, value: object) -> str:
    *parents, last = path.split(".")
    target: Any = data
    for key in parents:
        target = target[key]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return json.dumps(data)


_DELETE = object()

CASES = [
    ("malformed json", lambda a: '{"document_id": "manual-17", '),
    ("not an object", lambda a: "[1, 2, 3]"),
    ("missing quote", lambda a: _bad(a, "quote", _DELETE)),
    ("missing position.start", lambda a: _bad(a, "position.start", _DELETE)),
    ("string offset", lambda a: _bad(a, "position.start", "9")),
    ("float offset", lambda a: _bad(a, "position.end", 16.5)),
    ("boolean offset", lambda a: _bad(a, "position.end", True)),
    ("huge offset", lambda a: _bad(a, "position.end", 10**30)),
    ("megabyte exact", lambda a: _bad(a, "quote.exact", "Prüfung" * 200_000)),
    ("megabyte prefix", lambda a: _bad(a, "quote.prefix", "x" * 1_500_000)),
    ("bad digest", lambda a: _bad(a, "source_sha256", "XYZ")),
    ("unknown coordinates", lambda a: _bad(a, "coordinates", "furlongs")),
    ("unknown field", lambda a: _bad(a, "comment", "hello")),
    ("deep nesting", lambda a: "[" * 100_000 + "]" * 100_000),
    ("not utf-8", lambda a: b"\xff\xfe{}"),
    ("empty", lambda a: ""),
]


@pytest.mark.parametrize(("name", "make"), CASES, ids=[c[0] for c in CASES])
def test_resolve_rejects_bad_input(
    ragox_cli,
    anchor_json: dict[str, Any],
    name: str,  # type: ignore[no-untyped-def]
    make: Any,
) -> None:
    """Each malformed anchor gets one line on stderr and exit 1 or 2."""
    payload = make(json.loads(json.dumps(anchor_json)))
    result = ragox_cli("resolve", "-", "--json", stdin=payload)
    assert result.code in (1, 2), result
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Prüfung" not in result.stderr


def test_negative_offsets_are_invalid_range(ragox_cli, anchor_json: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """A negative offset is a refused result (exit 1), not a match."""
    payload = _bad(anchor_json, "position.start", -3)
    result = ragox_cli("resolve", "-", "--json", stdin=payload)
    assert result.code == 1
    assert result.json() == {
        "status": "INVALID_RANGE",
        "reason": "negative_offset",
        "anchor_id": result.json()["anchor_id"],
    }  # type: ignore[index]


def test_invalid_utf8_ingest_names_byte_offset(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A text file with invalid UTF-8 fails with INVALID_UTF8 and the byte offset."""
    path = tmp_path / "bad.txt"
    path.write_bytes(b"Gr\xfc\xdfe aus K\xf6ln\n")
    result = ragox_cli("ingest", str(path), "--json")
    assert result.code == 1
    data = result.json()
    assert isinstance(data, dict)
    row = data["results"][0]
    assert row["state"] == "FAILED"
    assert row["error"] == "INVALID_UTF8"
    assert "byte 2" in row["error_message"]


def test_anchor_refusal_prints_no_text(ragox_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Refused anchor creation says why, with exit 1 and without the document's text."""
    path = tmp_path / "seed.txt"
    path.write_bytes(SEED_BYTES)
    ragox_cli("ingest", str(path), "--document-id", "m")
    result = ragox_cli("anchor", "m", "--start", "10", "--end", "10", "--json")
    assert result.code == 1
    assert result.json() == {"status": "INVALID_RANGE", "reason": "empty_range"}
    assert "Prüfung" not in result.stdout + result.stderr


def test_usage_errors_exit_2(ragox_cli) -> None:  # type: ignore[no-untyped-def]
    """Missing arguments and unknown options are usage errors."""
    assert ragox_cli("anchor", "m", "--start", "1").code == 2
    assert ragox_cli("resolve").code == 2
    assert ragox_cli("frobnicate").code == 2
    assert ragox_cli("resolve", "/no/such/file").code == 2


def test_unknown_anchor_id_is_access_denied(ragox_cli, anchor_json: dict[str, Any]) -> None:  # type: ignore[no-untyped-def]
    """An unknown anchor id answers like a forbidden one."""
    result = ragox_cli("resolve", "a" * 64, "--json")
    assert result.code == 1
    assert result.json()["status"] == "ACCESS_DENIED"  # type: ignore[index]
