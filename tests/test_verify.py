"""`ragox verify` (issue 13): release evidence that passes on a fresh and a populated home
and fails, naming the case, when the installation is broken on purpose: a manifest row
tampered with, an original changed on disk, a resolver that picks the first match.
Also: every `ragox check` run is recorded for the operator."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, SEED_TEXT, CliResult, store_sql
from ragox.anchor import canonical_json

pytestmark = pytest.mark.both_backends

EXAMPLES = Path(__file__).parent.parent / "examples"
NINE = {
    "revoked access": "ACCESS_DENIED",
    "changed source bytes": "SOURCE_CHANGED",
    "another parser": "PARSER_MISMATCH",
    "another profile": "PROFILE_MISMATCH",
    "changed extracted text": "TEXT_CHANGED",
    "prefix and suffix removed": "AMBIGUOUS",
    "changed quote": "QUOTE_NOT_FOUND",
    "UTF-8 byte positions": "POSITION_MISMATCH",
    "UTF-16 positions": "POSITION_MISMATCH",
}


def _report(result: CliResult) -> dict[str, Any]:
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def _populate(ragox_cli) -> None:  # type: ignore[no-untyped-def]
    done = ragox_cli("ingest", str(EXAMPLES), str(DATA / "pdf" / "multicolumn.pdf"))
    assert done.code == 0, done.stdout + done.stderr


def test_fresh_home_passes_with_the_seed_experiment_and_a_sealed_report(
    ragox_cli, home: Path, tmp_path: Path
) -> None:
    """A fresh home: exit 0; the nine mutations each observed with their own status; the
    report's SHA-256 covers the rest of it; runtime named; kept owner-only and listed."""
    out = tmp_path / "evidence.json"
    result = ragox_cli("verify", "--json", "--out", str(out))
    assert result.code == 0, result.stdout
    report = _report(result)
    assert report["ok"] is True and report["deviations"] == []
    seed = {c["name"]: c for c in report["cases"] if c["part"] == "seed000"}
    for name, status in NINE.items():
        assert seed[name]["expected"] == status and seed[name]["observed"] == status
    assert seed["unchanged anchor"]["observed"] == "RESOLVED"
    assert seed["its start in UTF-8 bytes"]["observed"] == "13"
    assert seed["its start in UTF-16 units"]["observed"] == "10"
    for key in ("python", "unicode", "regex", "mupdf", "sqlite", "ragox"):
        assert report["runtime"][key]
    claimed = report.pop("report_sha256")
    assert claimed == hashlib.sha256(canonical_json(report)).hexdigest()
    assert json.loads(out.read_text())["report_sha256"] == claimed
    kept = list((home / "verify").glob("*.json"))
    assert len(kept) == 1 and stat.S_IMODE(kept[0].stat().st_mode) == 0o600
    listed = _report(ragox_cli("verify", "--history", "--json"))["reports"]
    assert [(r["report_sha256"], r["ok"], r["intact"]) for r in listed] == [(claimed, True, True)]


def test_populated_home_checks_every_current_revision_or_a_sample(ragox_cli) -> None:
    """With documents: every manifest and original scrubbed, every current revision round
    tripped; --sample N checks N of them and says so."""
    _populate(ragox_cli)
    report = _report(ragox_cli("verify", "--json"))
    assert report["ok"], report["deviations"]
    assert report["counts"]["manifests"] == report["counts"]["originals"] == 3
    assert report["counts"]["revisions_checked"] == 3
    assert report["counts"]["chunks_checked"] > 3
    assert "pdf-pymupdf" in " ".join(report["parsers"])
    sampled = _report(ragox_cli("verify", "--json", "--sample", "1"))
    assert sampled["roundtrip_sample"] == 1 and sampled["counts"]["revisions_checked"] == 1


def test_a_tampered_manifest_row_fails_and_is_named(ragox_cli, home: Path) -> None:
    """A manifest changed in the database: exit 1 and the HMAC case with its ids; the
    report carries no document text."""
    _populate(ragox_cli)
    [row] = store_sql(
        home, "SELECT manifest_id, json FROM manifests WHERE document_id='manual-17.txt'"
    )
    tampered = json.loads(row[1])
    tampered["revision"] = "r9"
    store_sql(
        home, "UPDATE manifests SET json=? WHERE manifest_id=?", (json.dumps(tampered), row[0])
    )
    result = ragox_cli("verify", "--json")
    assert result.code == 1
    report = _report(result)
    [deviation] = report["deviations"]
    assert deviation["name"] == "manifest HMAC" and deviation["observed"] == "INVALID"
    assert row[0] in deviation["where"]
    assert "Disconnect power" not in result.stdout
    assert ragox_cli("verify").code == 1  # the people's form fails too


def test_a_changed_original_fails_and_is_named(ragox_cli, home: Path) -> None:
    """An original's bytes changed on disk: exit 1, the SHA-256 case with the blob's id."""
    _populate(ragox_cli)
    if os.environ.get("RAGOX_STORE"):  # PostgreSQL keeps originals in a table
        [(sha256, data)] = store_sql(home, "SELECT sha256, data FROM blobs LIMIT 1")
        store_sql(home, "UPDATE blobs SET data=? WHERE sha256=?", (bytes(data) + b"\n", sha256))
    else:
        blob = next(p for p in (home / "blobs").rglob("*") if p.is_file())
        os.chmod(blob, 0o600)
        blob.write_bytes(blob.read_bytes() + b"\n")
    report = _report(ragox_cli("verify", "--json"))
    assert not report["ok"]
    names = {(d["name"], d["observed"]) for d in report["deviations"]}
    assert ("original SHA-256", "CHANGED") in names


def test_a_resolver_that_picks_the_first_match_fails(home: Path) -> None:
    """The installed resolver patched (in a subprocess) to keep the first of several
    occurrences: the seed's AMBIGUOUS case deviates and verify exits 1."""
    script = (
        "import sys\n"
        "import ragox.anchor._resolve as resolver\n"
        "original = resolver.find_occurrences\n"
        "def first_only(text, needle, limit=2):\n"
        "    return original(text, needle, limit)[:1]\n"
        "resolver.find_occurrences = first_only\n"
        "from ragox.cli import main\n"
        f"sys.exit(main(['--home', {str(home)!r}, 'verify', '--json']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1, done.stderr
    deviations = json.loads(done.stdout)["deviations"]
    assert [(d["name"], d["expected"]) for d in deviations] == [
        ("prefix and suffix removed", "AMBIGUOUS")
    ]


def test_every_check_run_is_recorded_for_the_operator(ragox_cli, tmp_path: Path) -> None:
    """`ragox check` leaves a record (parser, revision, chunk counts, mismatches as ids);
    `ragox checks` lists them; deleting the document removes them."""
    path = tmp_path / "seed.txt"
    path.write_text(SEED_TEXT, encoding="utf-8")
    assert ragox_cli("ingest", str(path)).code == 0
    assert ragox_cli("check", "seed.txt").code == 0
    assert ragox_cli("check", "seed.txt").code == 0
    runs = _report(ragox_cli("checks", "seed.txt", "--json"))["checks"]
    assert len(runs) == 2
    assert runs[0]["parser"] == "plain-text@1" and runs[0]["revision"] == "r1"
    assert runs[0]["mismatches"] == [] and runs[0]["chunks"] >= 1
    assert "Prüfung" not in json.dumps(runs)
    assert ragox_cli("delete", "seed.txt").code == 0
    assert _report(ragox_cli("checks", "--json"))["checks"] == []
