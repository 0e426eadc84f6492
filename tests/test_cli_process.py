"""The console command as a real process: exit codes and output survive the start."""

from __future__ import annotations

import json
from pathlib import Path


def test_process_roundtrip(ragox_process, seed_file: Path) -> None:  # type: ignore[no-untyped-def]
    """ingest → anchor → resolve in separate processes, with §8 exit codes."""
    assert ragox_process("ingest", str(seed_file), "--document-id", "d", "--json").code == 0
    created = ragox_process("anchor", "d", "--start", "9", "--end", "16", "--json")
    assert created.code == 0
    anchor = json.loads(created.stdout)
    ok = ragox_process("resolve", "-", "--json", stdin=json.dumps(anchor))
    assert ok.code == 0 and json.loads(ok.stdout)["status"] == "RESOLVED"
    anchor["quote"]["prefix"] = ""
    anchor["quote"]["suffix"] = ""
    refused = ragox_process("resolve", "-", "--json", stdin=json.dumps(anchor))
    assert refused.code == 1 and json.loads(refused.stdout)["status"] == "AMBIGUOUS"
    usage = ragox_process("resolve", "-", stdin="{not json")
    assert usage.code == 2 and "Traceback" not in usage.stderr
    text = ragox_process("text", "d")
    assert text.code == 0 and text.stdout.startswith("🔧 Müller\nPrüfung\n")
