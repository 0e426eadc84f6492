"""Run every benchmark and print its table: ``python bench/run.py [NAME ...]``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_resolve
from _table import print_table

BENCHES = {
    "resolve": ("Resolve latency (issue 2)", bench_resolve),
}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(BENCHES)
    for name in chosen:
        title, module = BENCHES[name]
        print_table(title, module.HEADER, module.main())
