"""Run every benchmark and print its table: ``python bench/run.py [NAME ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _table import print_table  # noqa: E402

import bench_resolve  # noqa: E402

BENCHES = {
    "resolve": ("Resolve latency (issue 2)", bench_resolve),
}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(BENCHES)
    for name in chosen:
        title, module = BENCHES[name]
        print_table(title, module.HEADER, module.main())
