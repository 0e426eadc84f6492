"""Resolve latency into 1 MB and 10 MB representations: ragox vs a naive resolver.

The naive resolver is what a citation check costs without manifests: re-read the
source bytes, re-hash them, re-decode and re-normalize, re-hash the text, then
search. ragox compares stored hashes and, the first time it sees an anchor's quote in
a text, searches the cached representation for it; after that the verdict of that
search is remembered by the text's SHA-256 (access and identities are checked anew
every time). Both rows are shown.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import tempfile
import time
from pathlib import Path

from _corpus import numbered_text
from ragox.access import Principal
from ragox.anchor import Anchor, Refusal, ResolutionStatus, find_occurrences
from ragox.service import Ragox
from ragox.text import BASE_PROFILE

SIZES_MB = (1, 10)
FAST_RUNS = 300
NAIVE_RUNS = 15


def naive_resolve(anchor: Anchor, source_path: Path) -> ResolutionStatus:
    data = source_path.read_bytes()
    if hashlib.sha256(data).hexdigest() != anchor.identity.source_sha256:
        return ResolutionStatus.SOURCE_CHANGED
    text = BASE_PROFILE.normalize_bytes(data).text
    if hashlib.sha256(text.encode()).hexdigest() != anchor.identity.text_sha256:
        return ResolutionStatus.TEXT_CHANGED
    quote = anchor.quote
    hits = find_occurrences(text, quote.prefix + quote.exact + quote.suffix, limit=2)
    if len(hits) != 1:
        return ResolutionStatus.AMBIGUOUS if hits else ResolutionStatus.QUOTE_NOT_FOUND
    if hits[0] + len(quote.prefix) != anchor.start:
        return ResolutionStatus.POSITION_MISMATCH
    return ResolutionStatus.RESOLVED


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    rng = random.Random(7)
    reader = Principal("bench", groups=frozenset({"staff"}))
    with tempfile.TemporaryDirectory() as tmp:
        app = Ragox(Path(tmp) / "home")
        for size in SIZES_MB:
            text, starts = numbered_text(size * 1_000_000)
            path = Path(tmp) / f"doc{size}.txt"
            path.write_text(text, encoding="utf-8")
            item = app.ingest_path(
                path, path.parent, document_id=f"doc{size}", groups=frozenset({"staff"})
            )
            assert item.outcome is not None and item.outcome.state.value == "READY"
            anchors: list[Anchor] = []
            for start in rng.sample(starts, 50):
                created = app.create_anchor(f"doc{size}", start, start + 40, reader)
                if not isinstance(created, Refusal):
                    anchors.append(created.anchor)
            mb = len(text.encode()) / 1e6
            first: list[float] = []
            fast: list[float] = []
            for i in range(FAST_RUNS):
                anchor = anchors[i % len(anchors)]
                t0 = time.perf_counter()
                result = app.resolve(anchor, reader)
                (first if i < len(anchors) else fast).append((time.perf_counter() - t0) * 1000)
                assert result.status is ResolutionStatus.RESOLVED
            naive: list[float] = []
            for i in range(NAIVE_RUNS):
                anchor = anchors[i % len(anchors)]
                t0 = time.perf_counter()
                status = naive_resolve(anchor, path)
                naive.append((time.perf_counter() - t0) * 1000)
                assert status is ResolutionStatus.RESOLVED
            nm = statistics.median(naive)
            for name, values in (
                ("ragox, first resolution (quote searched)", first),
                ("ragox, again (search verdict remembered)", fast),
            ):
                median = statistics.median(values)
                rows.append(
                    (
                        f"{mb:.1f} MB",
                        name,
                        f"{median:.3f}",
                        f"{percentile(values, 0.99):.3f}",
                        f"{median / mb:.3f}",
                        f"{nm / median:.0f}x",
                    )
                )
            rows.append(
                (
                    f"{mb:.1f} MB",
                    "naive (re-read, re-hash, re-normalize)",
                    f"{nm:.3f}",
                    f"{percentile(naive, 0.99):.3f}",
                    f"{nm / mb:.3f}",
                    "1x",
                )
            )
        app.close()
    return rows


HEADER = ("text", "resolver", "median ms", "p99 ms", "median ms/MB", "speed-up")


def tables() -> list[tuple[str, tuple[str, ...], list[tuple[str, ...]]]]:
    return [("Resolve latency (issue 2)", HEADER, main())]


if __name__ == "__main__":
    from _table import print_table

    for title, header, rows in tables():
        print_table(title, header, rows)
