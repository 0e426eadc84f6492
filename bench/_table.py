"""A plain-text table printer for benchmark results."""

from __future__ import annotations

from collections.abc import Sequence


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    widths = [max(len(str(c)) for c in column) for column in zip(header, *rows, strict=False)]
    line = "  ".join("-" * w for w in widths)
    print(f"\n{title}\n")
    print("  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)))
    print(line)
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
