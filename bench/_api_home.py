"""Build the API benchmark's home with whichever ragox is first on ``sys.path`` (this
tree's, or an older commit's for the "before" rows), and time in-process resolution.

``python bench/_api_home.py HOME`` prints JSON: the key, the stored anchor ids, a
passage to ask about per anchor, and in-process resolve latencies in ms.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from _corpus import numbered_text
from ragox.access import Principal
from ragox.anchor import Refusal
from ragox.service import Ragox

READER = Principal("bench", groups=frozenset({"staff"}))
ANCHORS = 50


def main(home: Path) -> dict[str, object]:
    app = Ragox(home)
    text, starts = numbered_text(1_000_000)
    app.ingestor.ingest_bytes(
        text.encode(), "manual.txt", "manual.txt", groups=frozenset({"staff"}), tenant="default"
    )
    anchor_ids = []
    questions = []
    for start in starts[:ANCHORS]:
        created = app.create_anchor("manual.txt", start, start + 40, READER)
        if not isinstance(created, Refusal):
            anchor_ids.append(created.anchor.anchor_id)
            questions.append(text[start : start + 80])
    key = app.create_key(READER)
    for anchor_id in anchor_ids:  # warm: the first resolution of a text reads it
        app.resolve_id(anchor_id, READER)
    local = []
    for i in range(400):
        started = time.perf_counter()
        app.resolve_id(anchor_ids[i % len(anchor_ids)], READER)
        local.append((time.perf_counter() - started) * 1000)
    app.close()
    return {"key": key, "anchor_ids": anchor_ids, "questions": questions, "local_ms": local}


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
