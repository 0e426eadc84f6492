"""``ragox verify``: the release evidence of one installation (seed 000's acceptance
checklist: keep the executed mutation test, the runtime versions and the result).

Three parts, each a list of cases with the expected and the observed outcome:

* ``seed000``: the seed's experiment run against the installed code in a scratch
  home: the base profile's coordinates (code point [9, 16), UTF-8 byte 13, UTF-16
  unit 10; NFC keeps ``ﬃ``, NFKC expands it), the unchanged anchor RESOLVED, and
  each of the nine mutations refused with its own status, plus the malformed ranges;
* ``integrity``: every stored manifest's HMAC and every original's SHA-256 against
  its blob, in the home being verified;
* ``roundtrip``: seed 003's per-chunk round trip (``ragox check``) over every
  current revision, or over a sample.

The report names the runtime (Python, Unicode database, ``regex``, MuPDF, SQLite,
ragox and its git commit when known), the parser and profile ids in use, counts,
and the SHA-256 of its own canonical JSON. It never carries document text: case
names, statuses and opaque ids only.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import regex

import ragox
from ragox.access import Principal
from ragox.anchor import Anchor, Refusal, canonical_json
from ragox.store import SQLITE_VERSION
from ragox.text import BASE_PROFILE, codepoint_to_utf8, codepoint_to_utf16

__all__ = [
    "Runtime",
    "VerifyCase",
    "VerifyCounts",
    "VerifyReport",
    "report_history",
    "run_seed_experiment",
    "save_report",
]

#: DESIGN §6: tool emoji, decomposed Müller, CRLF, the heading Prüfung, a later
#: repeated Prüfung heading, and the ligature ﬃ in Oﬃce.
SEED_TEXT: Final = (
    "🔧 Mu\u0308ller\r\nPrüfung\r\nA: Die Prüfung ist bestanden.\r\n"
    "Prüfung\r\nB: Das Oﬃce schließt um 18 Uhr.\r\n"
)
REPORT_SCHEMA: Final = "ragox.verify-report/1"


@dataclass(frozen=True, slots=True)
class VerifyCase:
    """One check: what the specification expects and what this installation did."""

    part: str
    name: str
    expected: str
    observed: str
    #: opaque ids that locate the case in the home (document, revision, manifest)
    where: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.expected == self.observed

    def to_json(self) -> dict[str, Any]:
        return {
            "part": self.part,
            "name": self.name,
            "expected": self.expected,
            "observed": self.observed,
            "ok": self.ok,
            "where": list(self.where),
        }


@dataclass(frozen=True, slots=True)
class Runtime:
    """What produced the evidence."""

    python: str
    unicode: str
    regex: str
    segmentation: str
    mupdf: str
    pymupdf: str
    sqlite: str
    ragox: str
    #: the commit of a git checkout ragox runs from, when there is one
    git_commit: str | None

    def to_json(self) -> dict[str, str]:
        data = {
            "python": self.python,
            "unicode": self.unicode,
            "regex": self.regex,
            "segmentation": self.segmentation,
            "mupdf": self.mupdf,
            "pymupdf": self.pymupdf,
            "sqlite": self.sqlite,
            "ragox": self.ragox,
        }
        if self.git_commit:
            data["git_commit"] = self.git_commit
        return data


@dataclass(frozen=True, slots=True)
class VerifyCounts:
    """How much of the home the report covers."""

    manifests: int
    originals: int
    current_revisions: int
    revisions_checked: int
    chunks_checked: int


@dataclass(frozen=True, slots=True)
class VerifyReport:
    created_at: str
    runtime: Runtime
    cases: tuple[VerifyCase, ...]
    counts: VerifyCounts
    parsers: tuple[str, ...]
    profiles: tuple[str, ...]
    sample: int | None = None

    @property
    def ok(self) -> bool:
        return all(case.ok for case in self.cases)

    def body(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "created_at": self.created_at,
            "ok": self.ok,
            "deviations": [case.to_json() for case in self.cases if not case.ok],
            "runtime": self.runtime.to_json(),
            "parsers": list(self.parsers),
            "profiles": list(self.profiles),
            "counts": {
                "manifests": self.counts.manifests,
                "originals": self.counts.originals,
                "current_revisions": self.counts.current_revisions,
                "revisions_checked": self.counts.revisions_checked,
                "chunks_checked": self.counts.chunks_checked,
            },
            "roundtrip_sample": self.sample,
            "cases": [case.to_json() for case in self.cases],
        }

    def to_json(self) -> dict[str, Any]:
        """The report with ``report_sha256``: SHA-256 of the canonical JSON of the rest."""
        body = self.body()
        return {**body, "report_sha256": hashlib.sha256(canonical_json(body)).hexdigest()}


def runtime_versions() -> Runtime:
    """What produced the evidence: interpreter, Unicode data, segmentation, MuPDF, SQLite,
    ragox and (in a git checkout) its commit."""
    import pymupdf  # noqa: PLC0415 (slow import, needed only here)

    return Runtime(
        python=sys.version.split()[0],
        unicode=unicodedata.unidata_version,
        regex=str(regex.__version__),
        segmentation=BASE_PROFILE.segmentation,
        mupdf=str(pymupdf.mupdf_version),
        pymupdf=str(pymupdf.VersionBind),
        sqlite=SQLITE_VERSION,
        ragox=ragox.__version__,
        git_commit=_git_commit(),
    )


def _git_commit() -> str | None:
    here = Path(ragox.__file__).resolve().parent
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(  # noqa: S603 (git from PATH, fixed arguments)
            [git, "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and len(value) == 40 else None


# -- the seed 000 experiment --------------------------------------------------------


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[key]
        target[last] = value

    return mutate


def _both(*steps: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        for step in steps:
            step(data)

    return mutate


#: The nine mutations of seed 000 with the status each must produce (DESIGN §6);
#: access is revoked by resolving as a principal outside the reader groups.
SEED_MUTATIONS: Final[tuple[tuple[str, Callable[[dict[str, Any]], None] | None, str], ...]] = (
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
)
SEED_INVALID_RANGES: Final = (
    ("empty range", 9, 9),
    ("start after end", 16, 9),
    ("end past the text", 9, 10_000),
)


def _conversion_cases() -> list[VerifyCase]:
    text = BASE_PROFILE.normalize_bytes(SEED_TEXT.encode("utf-8")).text
    checks = [
        ("first Prüfung at [9, 16) in code points", "Prüfung", text[9:16]),
        ("its start in UTF-8 bytes", "13", str(codepoint_to_utf8(text, 9))),
        ("its start in UTF-16 units", "10", str(codepoint_to_utf16(text, 9))),
        ("CR removed by crlf-to-lf", "False", str("\r" in text)),
        ("NFC keeps the ligature", "True", str("Oﬃce" in text)),
        ("NFKC expands it", "True", str("Office" in unicodedata.normalize("NFKC", text))),
        ("Müller composed by NFC", "True", str(text.startswith("🔧 Müller\n"))),
        (
            "profile id",
            f"utf8-strict;crlf-to-lf;NFC;unicode-{unicodedata.unidata_version}",
            BASE_PROFILE.id,
        ),
    ]
    return [VerifyCase("seed000", name, want, got) for name, want, got in checks]


def run_seed_experiment() -> list[VerifyCase]:
    """Seed 000's experiment against the installed code, in a scratch home."""
    from ragox.service._ragox import Ragox  # noqa: PLC0415 (service imports this module)

    cases = _conversion_cases()
    reader = Principal("alice", groups=frozenset({"qa"}))
    outsider = Principal("mallory", groups=frozenset({"sales"}))
    with tempfile.TemporaryDirectory(prefix="ragox-verify-") as scratch:
        # SQLite in the scratch folder: the experiment never writes into the store
        # the installation is configured with ($RAGOX_STORE).
        app = Ragox(Path(scratch) / "home", store="")
        try:
            outcome = app.ingestor.ingest_bytes(
                SEED_TEXT.encode("utf-8"),
                "manual.txt",
                "manual-17",
                revision="v2",
                groups=frozenset({"qa"}),
                tenant="default",
            )
            cases.append(VerifyCase("seed000", "ingest", "READY", outcome.state.value))
            created = app.create_anchor("manual-17", 9, 16, Principal.local_operator())
            if isinstance(created, Refusal):
                cases.append(VerifyCase("seed000", "anchor [9, 16)", "created", "refused"))
                return cases
            data = created.anchor.to_json()
            fields = (
                data["quote"]["exact"] == "Prüfung"
                and data["quote"]["prefix"].endswith("Müller\n")
                and data["quote"]["suffix"].startswith("\nA:")
                and data["position"] == {"start": 9, "end": 16}
            )
            cases.append(VerifyCase("seed000", "anchor fields", "as in the seed", _said(fields)))
            unchanged = app.resolve(Anchor.from_json(data), reader)
            cases.append(
                VerifyCase("seed000", "unchanged anchor", "RESOLVED", unchanged.status.value)
            )
            exact = unchanged.exact if unchanged.resolved else None
            cases.append(VerifyCase("seed000", "resolved exact text", "Prüfung", str(exact)))
            for name, mutation, expected in SEED_MUTATIONS:
                mutated = json.loads(json.dumps(data))
                if mutation is not None:
                    mutation(mutated)
                    mutated.pop("anchor_id", None)
                who = outsider if mutation is None else reader
                result = app.resolve(Anchor.from_json(mutated), who)
                cases.append(VerifyCase("seed000", name, expected, result.status.value))
            for name, start, end in SEED_INVALID_RANGES:
                mutated = json.loads(json.dumps(data))
                mutated["position"] = {"start": start, "end": end}
                mutated.pop("anchor_id", None)
                result = app.resolve(Anchor.from_json(mutated), reader)
                cases.append(VerifyCase("seed000", name, "INVALID_RANGE", result.status.value))
        finally:
            app.close()
    return cases


def _said(flag: bool) -> str:
    return "as in the seed" if flag else "different"


def sample_of(items: Sequence[Any], sample: int | None, seed: str) -> list[Any]:
    """All items, or ``sample`` of them chosen reproducibly (the same home and size give
    the same sample)."""
    if sample is None or sample >= len(items):
        return list(items)
    chooser = random.Random(seed)  # noqa: S311 (a reproducible sample, not a secret)
    return chooser.sample(list(items), sample)


def save_report(home: Path, report: dict[str, Any]) -> Path:
    """Keep a report in the home (owner-only), named by time and its own hash."""
    folder = home / "verify"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = str(report["created_at"]).replace(":", "").replace("-", "")
    path = folder / f"{stamp}-{str(report['report_sha256'])[:12]}.json"
    data = json.dumps(report, ensure_ascii=False, indent=2).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def report_history(home: Path) -> list[dict[str, Any]]:
    """Earlier reports of this home, oldest first: when, verdict, deviations, hash; a
    report whose hash no longer matches its content says so."""
    folder = home / "verify"
    found: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found.append({"path": str(path), "readable": False})
            continue
        claimed = data.pop("report_sha256", None)
        intact = claimed == hashlib.sha256(canonical_json(data)).hexdigest()
        found.append(
            {
                "path": str(path),
                "readable": True,
                "created_at": data.get("created_at"),
                "ok": data.get("ok"),
                "deviations": len(data.get("deviations", [])),
                "report_sha256": claimed,
                "intact": intact,
            }
        )
    return found
