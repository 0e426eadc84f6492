"""Printing for people and machines; the JSON shapes live in :mod:`ragox.service`."""

from __future__ import annotations

import json
import sys

from ragox.service._json import (
    check_json,
    document_status_json,
    hit_json,
    ingest_item_json,
    migration_json,
    refusal_json,
    reprocess_json,
    resolution_json,
    successor_json,
    target_json,
)

__all__ = [
    "check_json",
    "document_status_json",
    "hit_json",
    "ingest_item_json",
    "migration_json",
    "print_json",
    "refusal_json",
    "reprocess_json",
    "resolution_json",
    "successor_json",
    "target_json",
]


def print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
